"""app.auth — see DESIGN.md."""
