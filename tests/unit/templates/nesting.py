"""What the template tests hand ``instantiate``: Heat's default ``max_nested_stack_depth`` as
Stoker's settings carry it (``app.config``), for a top-level stack."""
from app.config import Settings
from app.templates import Nesting
from app.templates.stack import instantiate as bind

HEAT_NESTING = Nesting(max_depth=Settings().max_nested_stack_depth)

__all__ = ["HEAT_NESTING", "bind"]
