"""The runtime's side of cross-stack exports: a finished stack's exports stored from its
outputs, and an update rollback's imports set back to the template it returns to. The rules
(names, in-use exports) are checked by the services before a traversal starts
(:mod:`app.services.exports`)."""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.models import Stack
from app.models import exports as rows
from app.templates import exports as template_exports


def store(s: Session, st: Stack, definition: Any, outputs: list[dict[str, Any]]) -> None:
    """The stack's ``stack_export`` rows as its resolved ``outputs`` give them (the caller's
    transaction); an output that failed to resolve exports nothing."""
    names = template_exports.export_names(definition)
    values = template_exports.export_values(names, outputs)
    keys = {name: key for key, name in names.items()}
    rows.set_exports(s, st.tenant, st.id, {n: (keys[n], v) for n, v in values.items()})


def reset_imports(s: Session, st: Stack, definition: Any) -> None:
    """The stack's ``stack_import`` rows as ``definition``'s template reads them."""
    rows.set_imports(s, st.tenant, st.id, template_exports.imported_names(definition.template))
