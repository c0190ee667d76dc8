"""The API's use cases (DESIGN.md): stacks, resources, events, outputs, validation, preview.

Importing the package wires nothing: a process's factory composes its runtime
(:func:`app.services.wiring.compose`) and makes it the process's.
"""
