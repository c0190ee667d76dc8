"""app.cfn — see DESIGN.md."""
