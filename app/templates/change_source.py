"""Why a property of a resource changes in an update, in CloudFormation's terms
(``ResourceChangeDetail``'s ``ChangeSource`` and ``CausingEntity``): ``DirectModification``
when the property's template snippet itself changed (no entity); else, for a snippet left as
it was, each reference in it whose target changes: ``ParameterReference`` (a parameter whose
value changes; entity: its name), ``ResourceReference`` (a ``Ref`` / ``get_resource`` of a
resource being replaced, so its id changes; entity: the resource) and ``ResourceAttribute``
(a ``Fn::GetAtt`` / ``get_attr`` of a resource the update changes; entity:
``resource.attribute``).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.templates.functions.base import Function, walk
from app.templates.functions.cfn import Ref
from app.templates.functions.core import GetAtt, GetParam, GetResource

DIRECT = "DirectModification"
Cause = tuple[str, str | None]


def plain(tree: Any) -> Any:
    """A parsed snippet as plain data (a function as ``{name: args}``), for comparing two
    snippets whatever their key order. O(size of the snippet)."""
    if isinstance(tree, Function):
        return {tree.fn_name: plain(tree.args)}
    if isinstance(tree, dict):
        return {k: plain(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [plain(v) for v in tree]
    return tree


def causes(old: Any, new: Any, old_params: Any, new_params: Any,
           changing: Mapping[str, str]) -> list[Cause]:
    """The causes of a property's change: ``old`` and ``new`` are its parsed snippets in the
    stack's current and new definitions, ``*_params`` their :class:`Parameters`,
    ``changing`` the resources the update changes (``name -> "replaced" | "updated" |
    "added"``). A change none of these explains is a ``DirectModification``.
    O(size of the snippet)."""
    if plain(old) != plain(new):
        return [(DIRECT, None)]
    found: list[Cause] = []
    for fn in walk(new):
        cause = _cause(fn, old_params, new_params, changing)
        if cause is not None and cause not in found:
            found.append(cause)
    return found or [(DIRECT, None)]


def _cause(fn: Function, old_params: Any, new_params: Any,
           changing: Mapping[str, str]) -> Cause | None:
    args = fn.args
    if isinstance(fn, GetParam) or (isinstance(fn, Ref) and isinstance(args, str)
                                    and args in new_params):
        name = args[0] if isinstance(args, list) and args else args
        if isinstance(name, str) and _value(old_params, name) != _value(new_params, name):
            return "ParameterReference", name
        return None
    if isinstance(fn, (Ref, GetResource)) and isinstance(args, str):
        return ("ResourceReference", args) if changing.get(args) == "replaced" else None
    if isinstance(fn, GetAtt) and isinstance(args, list) and len(args) > 1 \
            and isinstance(args[0], str) and args[0] in changing:
        return "ResourceAttribute", f"{args[0]}.{args[1]}"
    return None


def _value(params: Any, name: str) -> Any:
    try:
        return params.get(name)
    except KeyError:
        return None
