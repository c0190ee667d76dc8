"""app.sandbox — see DESIGN.md."""
