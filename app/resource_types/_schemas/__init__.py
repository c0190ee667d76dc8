"""Heat 27 schemas of the cloud resource types (data only; see the plugin modules)."""
