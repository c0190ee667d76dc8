"""app.models — see DESIGN.md."""
