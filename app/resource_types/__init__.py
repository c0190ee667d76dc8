"""app.resource_types — see DESIGN.md."""
