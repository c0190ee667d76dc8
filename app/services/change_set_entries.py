"""A change set's changes in CloudFormation's terms, from the update preview's lists
(:mod:`app.services.update_preview`): one entry per resource that changes, nested stacks'
resources included (``parent_resource`` names the nested resource in its parent).

Entry: ``{"action": "Add"|"Modify"|"Remove", "logical_resource_id", "physical_resource_id",
"resource_type", "stack_name", "parent_resource", "replacement": "True"|"False"|"Conditional"
(Modify only, else None), "reason" (the update rule that decided), "scope": ["Properties"] or
[], "details": [{"name", "requires_recreation": "Always"|"Never"|"Conditionally", "before",
"after", "evaluation", "change_source", "causing_entity"}]}``: one detail per cause of a
property's change (:mod:`app.templates.change_source`), as AWS lists them. A value known only
once the change set runs is :data:`KNOWN_AFTER_APPLY`, as AWS shows it; ``Conditional``: the
properties forcing a replacement are all such values.
"""
from __future__ import annotations

from typing import Any

from app.engine import change
from app.templates import UNKNOWN

KNOWN_AFTER_APPLY = "{{changeSet:KNOWN_AFTER_APPLY}}"
ACTIONS = {"added": "Add", "deleted": "Remove", "replaced": "Modify", "updated": "Modify"}


def entries(changes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The entries of a preview (``{"added"|"deleted"|...: [Change, ...]}``), in the order
    added, updated, replaced, deleted. O(resources + changed properties)."""
    out = []
    for kind in ("added", "updated", "replaced", "deleted"):
        for c in changes.get(kind, ()):
            if kind == "updated" and c.why == change.Why.NESTED and not _inner(changes, c):
                continue  # a nested stack nothing inside of which changes
            out.append(_entry(kind, c))
    return out


def _inner(changes: dict[str, list[Any]], c: Any) -> bool:
    child = c.nested_stack[0] if c.nested_stack else None
    return any(x.stack_name == child for k in ("added", "updated", "replaced", "deleted")
               for x in changes.get(k, ()))


def _entry(kind: str, c: Any) -> dict[str, Any]:
    details = []
    forced = set(c.forced_by) if kind == "replaced" else set()
    for name, (before, after) in sorted(c.diff.items()):
        unknown = _unknown(after)
        recreate = "Never"
        if name in forced:
            recreate = "Conditionally" if unknown else "Always"
        for source, entity in c.sources.get(name) or [("DirectModification", None)]:
            details.append({"name": name, "requires_recreation": recreate,
                            "before": _plain(before), "after": _plain(after),
                            "evaluation": "Dynamic" if unknown else "Static",
                            "change_source": source, "causing_entity": entity})
    replacement = None
    if kind == "updated":
        replacement = "False"
    elif kind == "replaced":
        forcing = [d for d in details if d["requires_recreation"] != "Never"]
        replacement = "Conditional" if forcing and all(
            d["requires_recreation"] == "Conditionally" for d in forcing) else "True"
    return {"action": ACTIONS[kind], "logical_resource_id": c.name,
            "physical_resource_id": (c.physical_resource_id or c.current_id or None)
            if kind != "added" else None,
            "resource_type": c.type, "stack_name": c.stack_name,
            "parent_resource": c.parent_resource, "replacement": replacement,
            "reason": c.why or None, "scope": ["Properties"] if details else [],
            "details": details}


def _unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_unknown(v) for v in value)
    return False


def _plain(value: Any) -> Any:
    """``value`` as plain JSON, unknown parts as :data:`KNOWN_AFTER_APPLY`."""
    if value is UNKNOWN:
        return KNOWN_AFTER_APPLY
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
