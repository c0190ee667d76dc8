"""The runtime's side of cross-stack exports: a finished stack's exports stored from its
outputs, an update whose outputs change an export in use refused as it finishes (the value
is known only then), and an update rollback's imports set back to the template it returns
to. The other rules (names, known values, dropped exports) are checked by the services
before a traversal starts (:mod:`app.services.exports`)."""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.engine.states import Action
from app.models import Stack
from app.models import exports as rows
from app.templates import exports as template_exports


def store(s: Session, st: Stack, definition: Any, outputs: list[dict[str, Any]]) -> None:
    """The stack's ``stack_export`` rows as its resolved ``outputs`` give them (the caller's
    transaction); an output that failed to resolve exports nothing. A CREATE or ADOPT (the
    stack's first outputs: no row of its can exist yet) that exports nothing writes nothing."""
    names = template_exports.export_names(definition)
    values = template_exports.export_values(names, outputs)
    if not values and st.action in (Action.CREATE, Action.ADOPT):
        return
    keys = {name: key for key, name in names.items()}
    rows.set_exports(s, st.tenant, st.id, {n: (keys[n], v) for n, v in values.items()})


def in_use_reason(name: str, verb: str, stacks: list[str]) -> str:
    """AWS's "Export <name> cannot be <verb> as it is in use by <stacks>"."""
    return f"Export {name} cannot be {verb} as it is in use by {', '.join(stacks)}"


def changed_in_use(s: Session, st: Stack, definition: Any,
                   outputs: list[dict[str, Any]]) -> str | None:
    """Why the update (restore, update rollback) of ``st`` to ``definition`` cannot keep its
    resolved ``outputs``: the first (by name) export another stack imports whose value would
    change or go, as AWS fails (and rolls back) such an update; None when none does. A
    rollback that would change one fails too (the stored value stays). Two indexed queries."""
    names = template_exports.export_names(definition)
    values = template_exports.export_values(names, outputs)
    old = rows.exports_of(s, st.id)
    used = rows.importers(s, st.tenant, old, exclude=st.id)
    for name in sorted(used):
        if name not in values:
            return in_use_reason(name, "deleted", used[name])
        if values[name] != old[name].value:
            return in_use_reason(name, "updated", used[name])
    return None


def reset_imports(s: Session, st: Stack, definition: Any) -> None:
    """The stack's ``stack_import`` rows as ``definition``'s template reads them."""
    rows.set_imports(s, st.tenant, st.id, template_exports.imported_names(definition.template))
