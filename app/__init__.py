"""Stoker: an orchestration service compatible with OpenStack Heat."""
__version__ = "0.1.0"
