"""app.templates — see DESIGN.md."""
