"""The API's use cases (DESIGN.md): stacks, resources, events, outputs, validation, preview.

Importing the package installs the runtime's port for nested stacks
(:mod:`app.services.children`), so any process that uses a service can run nested stacks.
"""
from app.services import children, scaling

children.install()
scaling.install()
