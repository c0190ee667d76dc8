"""Extra attributes of resource show (``GET .../resources/{name}?with_attr=a&with_attr=b``).

As Heat's ``format_resource_attributes`` (heat/engine/api.py): the names in ``with_attr`` are
resolved live and added to the attributes the show already has; a name the resource cannot
resolve (not in its type's schema, or an error while resolving) reads as null, never an error.
Stoker's show already lists every attribute of the type except ``show``; ``with_attr=show``
adds that one.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app import auth
from app.convergence.store.definitions import identity
from app.models import Resource, Stack
from app.resource_types import registry


def extra_attributes(stack: Stack, row: Resource, names: Iterable[str],
                     shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` plus each of ``names`` it lacks, resolved now (null when it cannot be).

    :param shown: the attributes resource show already holds (left as they are).
    :returns: a new mapping; O(len(names)) attribute resolutions (cloud calls for some types).
    """
    out = dict(shown)
    wanted = [n for n in dict.fromkeys(names) if n and n not in out]
    if not wanted:
        return out
    cls = registry.get(str((row.rsrc_data or {}).get("_impl") or row.type))
    stored = dict((row.attr_data or {}).get("attrs") or {})
    plugin = None
    if cls is not None and row.properties_data is not None \
            and not (row.rsrc_data or {}).get("nested"):
        try:
            ident = identity(stack.name, stack.id, stack.tenant)
            plugin = cls(row.name, dict(row.properties_data),
                         resource_id=row.physical_resource_id, data=dict(row.rsrc_data or {}),
                         stack=ident, clients=auth.clients_for(ident), uuid=row.uuid)
        except Exception:
            plugin = None
    for name in wanted:
        if name in stored:
            out[name] = stored[name]
        elif plugin is None or name not in (cls.attributes_schema or {}):
            out[name] = None
        else:
            try:
                out[name] = plugin.resolve_attribute(name)
            except Exception:
                out[name] = None
    return out
