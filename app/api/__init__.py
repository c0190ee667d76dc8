"""app.api — see DESIGN.md."""
