"""app.clients — see DESIGN.md."""
