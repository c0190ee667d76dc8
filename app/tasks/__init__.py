"""app.tasks — see DESIGN.md."""
