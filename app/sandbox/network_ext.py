"""The sandbox Neutron's extension collections, served from one declarative table each
(:class:`Coll`): trunks, subnet pools, QoS, FWaaS, VPNaaS, SFC, TaaS... share Neutron's
generic API controller behaviour (``neutron/api/v2/base.py``), done once here.

More in docs/code/sandbox.md (app.sandbox.network_ext).
"""
from __future__ import annotations

import copy
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, network_rbac
from app.sandbox.http import SandboxError, filter_by_args, no_content, paginate, public, reply
from app.sandbox.network_bodies import bad_request, created, one_body, to_boolean, to_int
from app.sandbox.network_sg import stamp
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

#: a field's default that means "required"
REQUIRED: Any = object()

#: attributes every object has that no PUT may change
READ_ONLY = frozenset({"id", "project_id", "tenant_id", "status", "created_at", "updated_at", "revision_number"})

Hook = Callable[[Obj, "Obj | None"], None]


@dataclass(frozen=True)
class Coll:
    """One Neutron collection: ``name`` in the store, ``path`` under ``/v2.0`` (``"/trunks"``;
    ``"<parent_id>"`` in a nested one), the body's ``key`` and Neutron's noun ``what``;
    ``fields`` a create accepts with their defaults (:data:`REQUIRED`), ``updatable`` ones;
    ``parent``: ``(field, collection, what)``; ``check(new, old)`` vets a create or update
    (raises :class:`SandboxError`); ``in_use``: the 409 refusing a delete; ``on_delete``:
    cascades; ``view``: extra keys shown; ``deleting``: a delay in ``PENDING_DELETE`` (FWaaS
    v1's firewalls)."""

    name: str
    path: str
    key: str
    what: str
    fields: dict[str, Any]
    updatable: tuple[str, ...] = ("name", "description")
    parent: tuple[str, str, str] | None = None
    admin_only: bool = False
    status: str | None = None
    settle: str | None = None
    kind: str | None = None
    check: Hook | None = None
    in_use: Callable[[Obj], SandboxError | None] | None = None
    on_delete: Callable[[Obj], None] | None = None
    view: Callable[[Obj], Obj] | None = None
    extra_filters: tuple[str, ...] = field(default=())
    plural: str = ""
    deleting: str | None = None

    @property
    def many(self) -> str:
        """The listing's key (``"trunks"``, ``"policies"``)."""
        return self.plural or self.key + "s"

    def not_found(self, obj_id: str) -> SandboxError:
        return SandboxError(404, f"{self.what} {obj_id} could not be found.",
                            self.kind or f"{self.what.replace(' ', '')}NotFound")


def visible(obj: Obj) -> bool:
    """The caller may read ``obj``: an admin, its project, it is shared, or an RBAC policy
    shares it with the caller's project."""
    return bool(obj.get("shared")) or auth.can_see(obj) or network_rbac.granted(obj)


def get(coll: Coll, obj_id: str, *, owned: bool = False) -> Obj:
    """``coll``'s object ``obj_id`` as the caller may see it (``owned``: may change it).

    :raises SandboxError: 404 :meth:`Coll.not_found`.
    """
    obj = store().get(coll.name, obj_id)
    if obj is None or not (auth.can_see(obj) if owned else visible(obj)):
        raise coll.not_found(obj_id)
    return obj


def find_ref(collection: str, obj_id: Any, what: str, kind: str | None = None) -> Obj:
    """An object another one refers to (a port, a router, a policy), visible to the caller.

    :raises SandboxError: 404 ``<What> <id> could not be found.``
    """
    obj = store().get(collection, str(obj_id)) if obj_id else None
    if obj is None or not (visible(obj) or obj.get("router:external")):
        raise SandboxError(404, f"{what} {obj_id} could not be found.",
                           kind or f"{what.replace(' ', '')}NotFound")
    return obj


def _convert(coll: Coll, data: Obj) -> Obj:
    out = dict(data)
    for key, default in coll.fields.items():
        if out.get(key) is None or isinstance(default, (dict, list)) or default is REQUIRED:
            continue
        if isinstance(default, bool):
            out[key] = to_boolean(out[key])
        elif isinstance(default, int):
            out[key] = to_int(out[key])
    return out


def _unknown(coll: Coll, data: Obj) -> None:
    extra = sorted(set(data) - set(coll.fields) - {"tenant_id", "project_id", "description", "name"})
    if extra:
        raise bad_request(f"Unrecognized attribute(s) '{', '.join(extra)}'")


def _deny(coll: Coll, action: str) -> None:
    if coll.admin_only and not auth.ctx().is_admin:
        raise SandboxError(403, f"rule:{action}_{coll.key} is disallowed by policy", "PolicyNotAuthorized")


def create(coll: Coll, data: Obj, parent_id: str | None = None) -> Obj:
    """Create one object of ``coll`` from the request's ``data`` (see the module docstring)."""
    _deny(coll, "create")
    _unknown(coll, data)
    data = _convert(coll, data)
    c = auth.ctx()
    project = data.pop("project_id", None) or data.pop("tenant_id", None) or c.project_id
    data.pop("tenant_id", None)
    if project != c.project_id and not c.is_admin:
        raise SandboxError(403, f"rule:create_{coll.key}:tenant_id is disallowed by policy",
                           "PolicyNotAuthorized")
    missing = [k for k, v in coll.fields.items() if v is REQUIRED and data.get(k) is None]
    if coll.parent is not None:
        missing = [k for k in missing if k != coll.parent[0]]
    if missing:
        raise bad_request(f"Failed to parse request. Required attribute '{missing[0]}' not specified")
    st = store()
    obj: Obj = {"id": st.new_id()}
    for key, default in coll.fields.items():
        obj[key] = data[key] if key in data else None if default is REQUIRED else copy.deepcopy(default)
    if "name" not in coll.fields:
        obj["name"] = data.get("name", "")
    if "description" not in coll.fields:
        obj["description"] = data.get("description", "")
    if coll.parent is not None:
        obj[coll.parent[0]] = parent_id
    obj["project_id"] = obj["tenant_id"] = project
    if coll.status is not None:
        obj["status"] = coll.status
    if coll.check is not None:
        coll.check(obj, None)
    st.add(coll.name, stamp(obj, project))
    if coll.settle is not None:
        st.schedule(obj, sb().behaviour.delay(coll.settle), {"status": "ACTIVE"})
    return render(coll, obj)


def update(coll: Coll, obj: Obj, data: Obj) -> Obj:
    """Change ``obj`` as the PUT's ``data`` asks.

    :raises SandboxError: 400 read-only or unknown attribute; the type's own checks.
    """
    _deny(coll, "update")
    for key in data:
        if key not in coll.updatable and (key in coll.fields or key in READ_ONLY):
            raise bad_request(f"Cannot update read-only attribute {key}")
    _unknown(coll, data)
    data = _convert(coll, data)
    for key in data:
        if key not in coll.updatable:
            raise bad_request(f"Cannot update read-only attribute {key}")
    new = {**obj, **data}
    if coll.check is not None:
        coll.check(new, obj)
    obj.update(new)   # with what the check normalised (collapsed prefixes, ids for names)
    stamp(obj, obj["project_id"])
    store().touch()
    return render(coll, obj)


def render(coll: Coll, obj: Obj) -> Obj:
    out = public(obj)
    if "shared" in out:
        out["shared"] = network_rbac.shared_view(obj)
    if coll.view is not None:
        out.update(coll.view(obj))
    return out


def _parent(coll: Coll, kw: dict[str, Any]) -> str | None:
    if coll.parent is None:
        return None
    pid = str(kw["parent_id"])
    find_ref(coll.parent[1], pid, coll.parent[2])
    return pid


def _child(coll: Coll, kw: dict[str, Any], *, owned: bool = False) -> Obj:
    pid = _parent(coll, kw)
    obj = get(coll, str(kw["obj_id"]), owned=owned)
    if coll.parent is not None and obj[coll.parent[0]] != pid:
        raise coll.not_found(str(kw["obj_id"]))
    return obj


def register(bp: Blueprint, coll: Coll) -> None:
    """Serve ``coll``'s five routes on ``bp``."""
    base = coll.path

    def list_(**kw: Any) -> Any:
        pid = _parent(coll, kw)
        items = [o for o in store().all(coll.name) if visible(o)]
        if pid is not None and coll.parent is not None:
            items = [o for o in items if o[coll.parent[0]] == pid]
        wanted = request.args.get("project_id") or request.args.get("tenant_id")
        if wanted:
            items = [o for o in items if o.get("project_id") == wanted]
        items = filter_by_args(items, ("id", "name", "status", *coll.fields, *coll.extra_filters))
        return reply({coll.many: [render(coll, o) for o in paginate(items)]})

    def post(**kw: Any) -> Any:
        pid = _parent(coll, kw)
        return created(coll.key, lambda data: create(coll, data, pid), allow_bulk=False)

    def show(**kw: Any) -> Any:
        return reply({coll.key: render(coll, _child(coll, kw))})

    def put(**kw: Any) -> Any:
        return reply({coll.key: update(coll, _child(coll, kw, owned=True), one_body(coll.key))})

    def delete(**kw: Any) -> Any:
        _deny(coll, "delete")
        obj = _child(coll, kw, owned=True)
        if coll.in_use is not None:
            refused = coll.in_use(obj)
            if refused is not None:
                raise refused
        if coll.on_delete is not None:
            coll.on_delete(obj)
        if coll.deleting is not None:
            obj["status"] = "PENDING_DELETE"
            store().schedule(obj, sb().behaviour.delay(coll.deleting), delete=True)
        else:
            store().remove(coll.name, obj["id"])
        return no_content()

    ep = coll.name
    bp.add_url_rule(base, f"{ep}_list", list_, methods=["GET"])
    bp.add_url_rule(base, f"{ep}_create", post, methods=["POST"])
    bp.add_url_rule(f"{base}/<obj_id>", f"{ep}_show", show, methods=["GET"])
    bp.add_url_rule(f"{base}/<obj_id>", f"{ep}_update", put, methods=["PUT"])
    bp.add_url_rule(f"{base}/<obj_id>", f"{ep}_delete", delete, methods=["DELETE"])


def in_use_by(collection: str, field_name: str, message: str, kind: str,
              many: bool = False) -> Callable[[Obj], SandboxError | None]:
    """An ``in_use`` hook: 409 ``message`` (``{id}`` filled) when an object of ``collection``
    refers to the one deleted through ``field_name`` (a list of ids when ``many``)."""
    def check(obj: Obj) -> SandboxError | None:
        for other in store().all(collection):
            value = other.get(field_name)
            if (obj["id"] in (value or [])) if many else value == obj["id"]:
                return SandboxError(409, message.format(id=obj["id"]), kind)
        return None
    return check


def ip_prefix_or_none(name: str, value: Any) -> str | None:
    """A CIDR attribute as Neutron keeps it (``10.0.0.1`` -> ``10.0.0.1/32``), ``None`` for none.

    :raises SandboxError: 400 ``Invalid input for <name>``.
    """
    if value in (None, ""):
        return None
    try:
        return str(ipaddress.ip_network(str(value), strict=False))
    except ValueError:
        raise bad_request(f"Invalid input for {name}. Reason: '{value}' is not a valid IP subnet.") from None
