"""app.services — see DESIGN.md."""
