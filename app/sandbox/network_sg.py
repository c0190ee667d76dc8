"""Neutron v2.0 security groups and rules, quotas and extensions for the sandbox.

Every project gets a ``default`` security group the first time it touches the network service,
with Neutron's default rules: all egress (IPv4 and IPv6) and ingress from members of the group.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth, ipam, quotas
from app.sandbox import network_bodies as nb
from app.sandbox.http import SandboxError, body, filter_by_args, iso, no_content, paginate, public, reply
from app.sandbox.network_bodies import created, one_body
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_sg", __name__)

EXTENSIONS = ("security-group", "router", "external-net", "extraroute", "quotas", "allowed-address-pairs",
              "port-security", "binding", "agent", "dhcp_agent_scheduler", "ext-gw-mode", "l3-ha",
              "standard-attr-description", "standard-attr-tag", "standard-attr-timestamp",
              "tag-creation", "tag-ports-during-bulk-creation",
              "standard-attr-revisions", "subnet_allocation", "availability_zone", "network-ip-availability",
              "net-mtu", "provider", "extra_dhcp_opt", "dns-integration", "fip-port-details",
              "project-id", "quota_details", "sorting", "pagination", "filter-validation",
              # the extension collections (network_trunks, network_qos, network_vpn, network_sfc)
              "trunk", "trunk-details", "address-scope", "segment", "rbac-policies", "extraroute-atomic",
              "floating-ip-port-forwarding", "qos", "qos-bw-limit-direction", "qos-bw-minimum-ingress",
              "qos-pps-minimum", "metering", "fwaas", "vpnaas", "sfc", "flow_classifier", "l2-gateway",
              "l2-gateway-connection", "network-gateway", "taas")


def stamp(obj: Obj, project_id: str | None) -> Obj:
    """Add Neutron's standard attributes (project, timestamps, revision, tags, description)."""
    now = iso(store().clock(), "neutron")
    obj.setdefault("tenant_id", project_id)
    obj.setdefault("project_id", project_id)
    obj.setdefault("description", "")
    obj.setdefault("tags", [])
    obj.setdefault("created_at", now)
    obj["updated_at"] = now
    obj["revision_number"] = obj.get("revision_number", -1) + 1
    return obj


def _rule(sg: Obj, direction: str, ethertype: str, remote_group: str | None = None) -> Obj:
    rule = {"id": store().new_id(), "security_group_id": sg["id"], "direction": direction,
            "ethertype": ethertype, "protocol": None, "port_range_min": None, "port_range_max": None,
            "remote_ip_prefix": None, "remote_group_id": remote_group, "remote_address_group_id": None,
            "normalized_cidr": None, "belongs_to_default_sg": sg["name"] == "default",
            "_auto": sg.get("_auto", False)}
    return store().add("security_group_rules", stamp(rule, sg["project_id"]))


def ensure_default_sg(project_id: str | None) -> Obj | None:
    """The project's ``default`` security group, created with Neutron's default rules if absent."""
    if not project_id:
        return None
    st = store()
    for sg in st.find("security_groups", project_id=project_id, name="default"):
        return sg
    sg = stamp({"id": st.new_id(), "name": "default", "description": "Default security group",
                "stateful": True, "shared": False, "_auto": True}, project_id)
    st.add("security_groups", sg)
    for eth in ("IPv4", "IPv6"):
        _rule(sg, "egress", eth)
        _rule(sg, "ingress", eth, sg["id"])
    return sg


def sg_view(sg: Obj) -> Obj:
    out = public(sg)
    out["security_group_rules"] = [public(r) for r in store().find("security_group_rules",
                                                                 security_group_id=sg["id"])]
    return out


def resolve_sg(ref: str, project_id: str | None) -> Obj:
    """A security group by id or (within the project) by name.

    :raises SandboxError: 404 ``SecurityGroupNotFound``.
    """
    st = store()
    sg = st.get("security_groups", ref)
    if sg is not None and (sg["project_id"] == project_id or auth.ctx().is_admin):
        return sg
    ensure_default_sg(project_id)
    named = [s for s in st.all("security_groups") if s["name"] == ref and s["project_id"] == project_id]
    if len(named) == 1:
        return named[0]
    raise SandboxError(404, f"Security group {ref} does not exist", "SecurityGroupNotFound")


@bp.get("/security-groups")
def list_sgs() -> Any:
    ensure_default_sg(auth.ctx().project_id)
    items = auth.visible(store().all("security_groups"), admin_sees_all=True)
    items = filter_by_args(items, ("id", "name", "project_id", "tenant_id", "description", "stateful"))
    return reply({"security_groups": [sg_view(s) for s in paginate(items)]})


@bp.post("/security-groups")
def create_sg() -> Any:
    """``{"security_group": {...}}`` or the bulk ``{"security_groups": [...]}``."""
    return created("security_group", _make_sg)


def _make_sg(data: Obj) -> Obj:
    c = auth.ctx()
    project = data.get("project_id") or data.get("tenant_id") or c.project_id
    ensure_default_sg(project)
    if data.get("name") == "default":
        raise SandboxError(409, "Default security group already exists.", "SecurityGroupDefaultAlreadyExists")
    st = store()
    quotas.check(st, project, "network", "security_group", len(st.find("security_groups", project_id=project)))
    sg = stamp({"id": st.new_id(), "name": data.get("name", ""), "description": data.get("description", ""),
                "stateful": data.get("stateful", True), "shared": False}, project)
    st.add("security_groups", sg)
    for eth in ("IPv4", "IPv6"):
        _rule(sg, "egress", eth)
    return sg_view(sg)


@bp.get("/security-groups/<sg_id>")
def show_sg(sg_id: str) -> Any:
    return reply({"security_group": sg_view(auth.owned(store(), "security_groups", sg_id, "Security group",
                                                        kind="SecurityGroupNotFound"))})


@bp.put("/security-groups/<sg_id>")
def update_sg(sg_id: str) -> Any:
    sg = auth.owned(store(), "security_groups", sg_id, "Security group", kind="SecurityGroupNotFound")
    data = one_body("security_group")
    for key in ("name", "description", "stateful"):
        if key in data:
            sg[key] = data[key]
    stamp(sg, sg["project_id"])
    return reply({"security_group": sg_view(sg)})


@bp.delete("/security-groups/<sg_id>")
def delete_sg(sg_id: str) -> Any:
    st = store()
    sg = auth.owned(st, "security_groups", sg_id, "Security group", kind="SecurityGroupNotFound")
    if sg["name"] == "default" and not auth.ctx().is_admin:
        raise SandboxError(409, "Insufficient rights for removing default security group.",
                           "SecurityGroupCannotRemoveDefault")
    if any(sg_id in p.get("security_groups", []) for p in st.all("ports")):
        raise SandboxError(409, f"Security Group {sg_id} in use.", "SecurityGroupInUse")
    for r in st.find("security_group_rules", security_group_id=sg_id):
        st.remove("security_group_rules", r["id"])
    st.remove("security_groups", sg_id)
    return no_content()


@bp.get("/security-group-rules")
def list_rules() -> Any:
    items = auth.visible(store().all("security_group_rules"), admin_sees_all=True)
    items = filter_by_args(items, ("id", "security_group_id", "direction", "ethertype", "protocol",
                                   "remote_group_id", "remote_ip_prefix", "project_id"))
    return reply({"security_group_rules": [public(r) for r in paginate(items)]})


@bp.post("/security-group-rules")
def create_rule() -> Any:
    """``{"security_group_rule": {...}}`` or the bulk ``{"security_group_rules": [...]}`` (what
    Heat's OS::Neutron::SecurityGroup sends for its inline rules): one group per bulk request and
    no rule twice in it, as Neutron's ``create_security_group_rule_bulk``."""
    return created("security_group_rule", _make_rule, check_bulk=_check_bulk_rules)


def _check_bulk_rules(items: list[Obj]) -> None:
    if len({str(i.get("security_group_id")) for i in items}) > 1:
        raise SandboxError(400, "Only allowed to update rules for one security profile at a time",
                           "SecurityGroupNotSingleGroupRules")
    seen = [_rule_fields(i) for i in items]
    if any(seen.count(f) > 1 for f in seen):
        raise SandboxError(400, "Duplicate Security Group Rule in POST.", "DuplicateSecurityGroupRuleInPost")


def _rule_fields(data: Obj) -> Obj:
    """The rule's matching fields, converted as Neutron converts them (ports to integers,
    protocol and ethertype normalised, an address prefix to a CIDR), and checked as Neutron's
    ``_validate_security_group_rule`` / ``_validate_port_range`` check them.

    :raises SandboxError: 400 with Neutron's type (``SecurityGroupInvalidPortValue``,
        ``SecurityGroupInvalidPortRange``, ``SecurityGroupProtocolRequiredWithPorts``, ...).
    """
    direction = data.get("direction")
    if direction not in ("ingress", "egress"):
        raise SandboxError(400, f"Invalid input for direction. Reason: {direction} is not in valid_values.",
                           "InvalidInput")
    proto = nb.protocol(data.get("protocol"))
    pmin, pmax = nb.port_value(data.get("port_range_min")), nb.port_value(data.get("port_range_max"))
    eth = nb.ethertype(data.get("ethertype"))
    prefix = nb.ip_prefix(data.get("remote_ip_prefix"))
    if prefix is not None and data.get("remote_group_id"):
        raise SandboxError(400, "Only remote_ip_prefix or remote_group_id may be provided.",
                           "SecurityGroupRemoteGroupAndRemoteIpPrefix")
    if prefix is not None and ipam.ipaddress.ip_network(prefix, strict=False).version != int(eth[-1]):
        raise SandboxError(400, f"Conflicting value ethertype {eth} for CIDR {prefix}",
                           "SecurityGroupRuleParameterConflict")
    _check_port_range(proto, pmin, pmax)
    return {"direction": direction, "ethertype": eth, "protocol": proto, "port_range_min": pmin,
            "port_range_max": pmax, "remote_ip_prefix": prefix, "remote_group_id": data.get("remote_group_id")}


PORT_PROTOCOLS = {"tcp", "udp", "dccp", "sctp", "udplite", "6", "17", "33", "132", "136"}
ICMP_PROTOCOLS = {"icmp", "ipv6-icmp", "icmpv6", "1", "58"}


def _check_port_range(proto: str | None, pmin: int | None, pmax: int | None) -> None:
    if pmin is None and pmax is None:
        return
    if not proto:
        raise SandboxError(400, "Must also specify protocol if port range is given.",
                           "SecurityGroupProtocolRequiredWithPorts")
    if proto in PORT_PROTOCOLS:
        if pmin == 0 or pmax == 0:
            raise SandboxError(400, "Invalid value for port 0", "SecurityGroupInvalidPortValue")
        if pmin is None or pmax is None or pmin > pmax:
            raise SandboxError(400, "For TCP/UDP protocols, port_range_min must be <= port_range_max",
                               "SecurityGroupInvalidPortRange")
    elif proto in ICMP_PROTOCOLS:
        for value, name, attr in ((pmin, "type", "port_range_min"), (pmax, "code", "port_range_max")):
            if value is not None and not 0 <= value <= 255:
                raise SandboxError(400, f"Invalid value for ICMP {name} ({attr}) {value}. It must be 0 to 255.",
                                   "SecurityGroupInvalidIcmpValue")
        if pmin is None:
            raise SandboxError(400, f"ICMP code (port-range-max) {pmax} is provided but ICMP type "
                               "(port-range-min) is missing.", "SecurityGroupMissingIcmpType")


def _make_rule(data: Obj) -> Obj:
    st = store()
    sg = resolve_sg(str(data.get("security_group_id")), auth.ctx().project_id)
    fields = _rule_fields(data)
    for r in st.find("security_group_rules", security_group_id=sg["id"]):
        if all(r.get(k) == v for k, v in fields.items()):
            raise SandboxError(409, f"Security group rule already exists. Rule id is {r['id']}.",
                               "SecurityGroupRuleExists")
    quotas.check(st, sg["project_id"], "network", "security_group_rule",
                 len(st.find("security_group_rules", project_id=sg["project_id"])))
    prefix = fields["remote_ip_prefix"]
    rule = stamp({"id": st.new_id(), "security_group_id": sg["id"], "remote_address_group_id": None,
                  "normalized_cidr": str(ipam.ipaddress.ip_network(prefix, strict=False)) if prefix else None,
                  "belongs_to_default_sg": sg["name"] == "default",
                  "description": data.get("description", ""), **fields}, sg["project_id"])
    st.add("security_group_rules", rule)
    return public(rule)


@bp.get("/security-group-rules/<rule_id>")
def show_rule(rule_id: str) -> Any:
    return reply({"security_group_rule": public(auth.owned(store(), "security_group_rules", rule_id,
                                                           "Security group rule",
                                                           kind="SecurityGroupRuleNotFound"))})


@bp.delete("/security-group-rules/<rule_id>")
def delete_rule(rule_id: str) -> Any:
    auth.owned(store(), "security_group_rules", rule_id, "Security group rule", kind="SecurityGroupRuleNotFound")
    store().remove("security_group_rules", rule_id)
    return no_content()


# ---- quotas and extensions ------------------------------------------------------------------
COUNTED = {"network": "networks", "subnet": "subnets", "port": "ports", "router": "routers",
           "floatingip": "floatingips", "security_group": "security_groups",
           "security_group_rule": "security_group_rules"}


@bp.get("/quotas/<project_id>")
def show_quota(project_id: str) -> Any:
    if project_id != auth.ctx().project_id:
        auth.require_admin()
    return reply({"quota": quotas.limits(store(), project_id, "network")})


@bp.get("/quotas/<project_id>/details.json")
def quota_details(project_id: str) -> Any:
    st = store()
    lim = quotas.limits(st, project_id, "network")
    out = {}
    for key, value in lim.items():
        used = len(st.find(COUNTED[key], project_id=project_id)) if key in COUNTED else 0
        out[key] = {"limit": value, "used": used, "reserved": 0}
    return reply({"quota": out})


@bp.put("/quotas/<project_id>")
def update_quota(project_id: str) -> Any:
    auth.require_admin()
    return reply({"quota": quotas.update(store(), project_id, "network", body("quota"))})


@bp.delete("/quotas/<project_id>")
def delete_quota(project_id: str) -> Any:
    auth.require_admin()
    quotas.reset(store(), project_id, "network")
    return no_content()


@bp.get("/quotas")
def list_quotas() -> Any:
    auth.require_admin()
    return reply({"quotas": [dict(quotas.limits(store(), q["id"], "network"), project_id=q["id"],
                                  tenant_id=q["id"]) for q in store().all("quotas") if "network" in q]})


@bp.get("/extensions")
def list_extensions() -> Any:
    return reply({"extensions": [{"alias": a, "name": a, "description": a, "links": [],
                                  "updated": "2013-01-01T00:00:00-00:00"} for a in EXTENSIONS]})


@bp.get("/extensions/<alias>")
def show_extension(alias: str) -> Any:
    if alias not in EXTENSIONS:
        raise SandboxError(404, f"Extension with alias {alias} does not exist", "ExtensionNotFound")
    return reply({"extension": {"alias": alias, "name": alias, "description": alias, "links": [],
                                "updated": "2013-01-01T00:00:00-00:00"}})


@bp.get("/availability_zones")
def list_azs() -> Any:
    return reply({"availability_zones": [{"name": "nova", "resource": r, "state": "available"}
                                         for r in ("network", "router")]})


# ---- tags (standard-attr-tag) ---------------------------------------------------------------
TAGGABLE = {"networks": "networks", "subnets": "subnets", "ports": "ports", "routers": "routers",
            "floatingips": "floatingips", "security-groups": "security_groups", "subnetpools": "subnetpools"}


def _tagged(resource: str, obj_id: str) -> Obj:
    if resource not in TAGGABLE:
        raise SandboxError(404, f"Resource {resource} does not support tags.", "NotFound")
    obj = store().get(TAGGABLE[resource], obj_id)
    if obj is None or not (auth.can_see(obj) or obj.get("shared") or obj.get("router:external")):
        raise SandboxError(404, f"{resource} {obj_id} could not be found.", "NotFound")
    return obj


@bp.get("/<resource>/<obj_id>/tags")
def get_tags(resource: str, obj_id: str) -> Any:
    return reply({"tags": _tagged(resource, obj_id).get("tags", [])})


@bp.put("/<resource>/<obj_id>/tags")
def set_tags(resource: str, obj_id: str) -> Any:
    obj = _tagged(resource, obj_id)
    tags = body().get("tags")
    if not isinstance(tags, list):
        raise SandboxError(400, "Invalid input for tags.", "InvalidInput")
    obj["tags"] = [str(t) for t in dict.fromkeys(tags)]
    store().touch()
    return reply({"tags": obj["tags"]})


@bp.put("/<resource>/<obj_id>/tags/<tag>")
def add_tag(resource: str, obj_id: str, tag: str) -> Any:
    obj = _tagged(resource, obj_id)
    if tag not in obj.setdefault("tags", []):
        obj["tags"].append(tag)
    store().touch()
    return no_content(201)


@bp.get("/<resource>/<obj_id>/tags/<tag>")
def has_tag(resource: str, obj_id: str, tag: str) -> Any:
    if tag not in _tagged(resource, obj_id).get("tags", []):
        raise SandboxError(404, f"Tag {tag} could not be found.", "TagNotFound")
    return no_content()


@bp.delete("/<resource>/<obj_id>/tags/<tag>")
def delete_tag(resource: str, obj_id: str, tag: str) -> Any:
    obj = _tagged(resource, obj_id)
    if tag not in obj.get("tags", []):
        raise SandboxError(404, f"Tag {tag} could not be found.", "TagNotFound")
    obj["tags"].remove(tag)
    store().touch()
    return no_content()


@bp.delete("/<resource>/<obj_id>/tags")
def clear_tags(resource: str, obj_id: str) -> Any:
    _tagged(resource, obj_id)["tags"] = []
    store().touch()
    return no_content()
