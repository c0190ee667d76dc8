"""What the sandbox Neutron's RBAC policies grant, as Neutron's ``rbac-policies`` extension
does: an ``access_as_shared`` policy on an object (network, QoS policy, security group, address
scope, subnet pool) lets its ``target_tenant`` (``*``: every project) see and use it, and the
object shows ``shared: true`` to that project; an ``access_as_external`` policy on a network
makes it visible as ``router:external: true`` to its target.

A policy cannot be removed while the target project has ports on the shared network (409
``RbacPolicyInUse``), as Neutron refuses it. Policies are read from the store on each call
(a few per object).
"""
from __future__ import annotations

from app.sandbox import auth
from app.sandbox.http import SandboxError
from app.sandbox.runtime import store
from app.sandbox.store import Obj

SHARED, EXTERNAL = "access_as_shared", "access_as_external"


def _targets(obj_id: str, action: str, exclude: str | None = None) -> set[str]:
    return {p["target_tenant"] for p in store().find("rbac_policies", object_id=obj_id)
            if p["action"] == action and p["id"] != exclude}


def granted(obj: Obj, action: str = SHARED, project_id: str | None = None) -> bool:
    """True when a policy with ``action`` on ``obj`` targets ``project_id`` (default: the
    caller's project) or every project (``*``)."""
    project = project_id or auth.ctx().project_id
    targets = _targets(str(obj.get("id")), action)
    return "*" in targets or project in targets


def shared_view(obj: Obj) -> bool:
    """``shared`` as the caller sees ``obj``: set on it, or granted to the caller's project."""
    return bool(obj.get("shared")) or granted(obj)


def external_view(net: Obj) -> bool:
    """``router:external`` as the caller sees network ``net``."""
    return bool(net.get("router:external")) or granted(net, EXTERNAL)


def check_removable(policy: Obj) -> SandboxError | None:
    """The 409 Neutron answers when deleting ``policy`` would leave a project with ports on a
    network it no longer has access to (no other policy, nor the owner's, covering them)."""
    if policy["object_type"] != "network" or policy["action"] != SHARED:
        return None
    st = store()
    net = st.get("networks", policy["object_id"])
    if net is None or net.get("shared"):
        return None
    left = _targets(net["id"], SHARED, exclude=policy["id"])
    if "*" in left:
        return None
    users = {p["project_id"] for p in st.find("ports", network_id=net["id"])} - {net["project_id"]} - left
    if policy["target_tenant"] != "*":
        users &= {policy["target_tenant"]}
    if not users:
        return None
    return SandboxError(409, f"RBAC policy on object {net['id']} cannot be removed because other objects "
                        f"depend on it.\nDetails: Callback neutron.plugins.ml2.plugin.Ml2Plugin.validate_"
                        f"network_rbac_policy_change failed with \"Unable to reconfigure sharing settings for "
                        f"network {net['id']}. Multiple tenants are using it.\"", "RbacPolicyInUse")
