"""``python -m app.cli``: the ``stoker`` command (``stoker up`` starts its children this way)."""
from app.cli import main

main()
