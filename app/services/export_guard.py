"""An update that would replace or remove the resource behind an export in use, refused
before it runs.

CloudFormation fails an update that changes the value of an export another stack imports
("Export <name> cannot be updated as it is in use by <stacks>") before its cleanup deletes
anything. A convergence traversal deletes a replaced resource as soon as its dependents have
moved on, before the outputs are known, so the replacement (or removal) of a resource an
in-use export's output refers to is refused here, with nothing written; other value changes
fail the update as it finishes (:func:`app.convergence.store.exports.changed_in_use`)."""
from __future__ import annotations

from app.models import Stack, read_session
from app.models import exports as rows
from app.services import exports, update_preview, updates
from app.templates import exports as template_exports


def check(st: Stack, prep: updates.Prepared) -> None:
    """Hold the prepared update ``prep`` of ``st`` against the stack's exports in use: one
    read when the stack exports nothing imported; the update classified otherwise.

    :raises errors.Conflict: ``ExportInUse`` (409) naming the export and its importers."""
    with read_session() as s:
        old = rows.exports_of(s, st.id)
        used = rows.importers(s, st.tenant, old, exclude=st.id) if old else {}
    if not used:
        return
    keys = {name: key for key, name in template_exports.export_names(prep.definition).items()}
    changes = update_preview.classify_prepared(st, prep)
    gone = {c.name for kind in ("replaced", "deleted") for c in changes[kind]}
    for name, stacks in sorted(used.items()):
        if name in keys and prep.definition.output_references(keys[name]) & gone:
            raise exports.in_use(name, "updated", stacks)
