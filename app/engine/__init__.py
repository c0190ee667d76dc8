"""app.engine — see DESIGN.md."""
