"""The sandbox Neutron's QoS policies and their rules (``qos``, ``qos-bw-minimum-ingress``,
``qos-pps-minimum``) and metering labels and rules (``metering``), as
:mod:`app.sandbox.network_ext` tables.

Both are admin-only under Neutron's default policy. A policy lists its rules (``rules``: each
with its ``type``); a rule lives under ``/qos/policies/<policy_id>/<type>_rules``, one per
direction (one DSCP rule per policy); a policy that a network or port uses cannot be deleted
(409 ``QosPolicyInUse``), and deleting one deletes its rules. A metering label's rules go with
it too.
"""
from __future__ import annotations

from flask import Blueprint

from app.sandbox.http import SandboxError, public
from app.sandbox.network_bodies import bad_request
from app.sandbox.network_ext import REQUIRED, Coll, Hook, find_ref, ip_prefix_or_none, register
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_qos", __name__)

#: rule type -> (store collection, directions allowed or None)
RULE_TYPES = {"bandwidth_limit": ("qos_bandwidth_limit_rules", ("egress", "ingress")),
              "dscp_marking": ("qos_dscp_marking_rules", None),
              "minimum_bandwidth": ("qos_minimum_bandwidth_rules", ("egress", "ingress")),
              "minimum_packet_rate": ("qos_minimum_packet_rate_rules", ("egress", "ingress", "any"))}
DSCP_MARKS = (0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56)


def _rules(policy: Obj) -> list[Obj]:
    out = []
    for kind, (collection, _) in RULE_TYPES.items():
        for rule in store().find(collection, qos_policy_id=policy["id"]):
            item = public(rule)
            for key in ("project_id", "tenant_id", "name", "description", "tags", "created_at", "updated_at",
                        "revision_number"):
                item.pop(key, None)
            out.append(dict(item, type=kind))
    return out


def _policy_in_use(policy: Obj) -> SandboxError | None:
    for collection, what in (("networks", "network"), ("ports", "port"), ("floatingips", "floatingip")):
        for obj in store().find(collection, qos_policy_id=policy["id"]):
            return SandboxError(409, f"QoS Policy {policy['id']} is used by {what} {obj['id']}.",
                                "QosPolicyInUse")
    return None


def _drop_rules(policy: Obj) -> None:
    for collection, _ in RULE_TYPES.values():
        for rule in store().find(collection, qos_policy_id=policy["id"]):
            store().remove(collection, rule["id"])


QOS_POLICIES = Coll("qos_policies", "/qos/policies", "policy", "QoS policy",
                    {"shared": False, "is_default": False},
                    updatable=("name", "description", "shared", "is_default"), admin_only=True,
                    kind="QosPolicyNotFound", plural="policies", view=lambda p: {"rules": _rules(p)},
                    in_use=_policy_in_use, on_delete=_drop_rules)


def _rule_check(kind: str, value_key: str) -> Hook:
    collection, directions = RULE_TYPES[kind]

    def check(new: Obj, old: Obj | None) -> None:
        value = new.get(value_key)
        if value is None or isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad_request(f"Invalid input for {value_key}. Reason: '{value}' is not a valid integer.")
        if kind == "dscp_marking" and value not in DSCP_MARKS:
            raise bad_request(f"Invalid input for dscp_mark. Reason: {value} is not in valid_values.")
        direction = new.get("direction")
        if directions is not None and direction not in directions:
            raise bad_request(f"Invalid input for direction. Reason: '{direction}' is not in {list(directions)}.")
        for other in store().find(collection, qos_policy_id=new["qos_policy_id"]):
            if other["id"] != new["id"] and other.get("direction") == direction:
                raise SandboxError(409, f"Rule {kind} with direction {direction} already exists in QoS policy "
                                   f"{new['qos_policy_id']}.", "QoSRulesConflict")
    return check


def _rule(kind: str, fields: dict[str, object], value_key: str) -> Coll:
    collection = RULE_TYPES[kind][0]
    return Coll(collection, f"/qos/policies/<parent_id>/{kind}_rules", f"{kind}_rule",
                f"{kind.replace('_', ' ').capitalize()} rule", fields, updatable=tuple(fields),
                parent=("qos_policy_id", "qos_policies", "QoS policy"), admin_only=True,
                kind="QoSRuleNotFound", check=_rule_check(kind, value_key))


RULES = (_rule("bandwidth_limit", {"max_kbps": REQUIRED, "max_burst_kbps": 0, "direction": "egress"}, "max_kbps"),
         _rule("dscp_marking", {"dscp_mark": REQUIRED}, "dscp_mark"),
         _rule("minimum_bandwidth", {"min_kbps": REQUIRED, "direction": "egress"}, "min_kbps"),
         _rule("minimum_packet_rate", {"min_kpps": REQUIRED, "direction": "egress"}, "min_kpps"))


# ---- metering ------------------------------------------------------------------------------------
def _drop_label_rules(label: Obj) -> None:
    for rule in store().find("metering_label_rules", metering_label_id=label["id"]):
        store().remove("metering_label_rules", rule["id"])


METERING_LABELS = Coll("metering_labels", "/metering/metering-labels", "metering_label", "Metering label",
                       {"shared": False}, updatable=("name", "description"), admin_only=True,
                       kind="MeteringLabelNotFound", on_delete=_drop_label_rules)


def _check_metering_rule(new: Obj, old: Obj | None) -> None:
    find_ref("metering_labels", new["metering_label_id"], "Metering label", "MeteringLabelNotFound")
    if new["direction"] not in ("ingress", "egress"):
        raise bad_request(f"Invalid input for direction. Reason: '{new['direction']}' is not in "
                          "['ingress', 'egress'].")
    new["remote_ip_prefix"] = ip_prefix_or_none("remote_ip_prefix", new.get("remote_ip_prefix"))
    for other in store().find("metering_label_rules", metering_label_id=new["metering_label_id"]):
        if other["id"] != new["id"] and other["direction"] == new["direction"] \
                and other["remote_ip_prefix"] == new["remote_ip_prefix"]:
            raise SandboxError(409, f"Metering label rule with remote_ip_prefix {new['remote_ip_prefix']} "
                               f"overlaps another.", "MeteringLabelRuleOverlaps")


METERING_RULES = Coll("metering_label_rules", "/metering/metering-label-rules", "metering_label_rule",
                      "Metering label rule", {"metering_label_id": REQUIRED, "remote_ip_prefix": None,
                                              "source_ip_prefix": None, "destination_ip_prefix": None,
                                              "direction": "ingress", "excluded": False},
                      updatable=(), admin_only=True, kind="MeteringLabelRuleNotFound",
                      check=_check_metering_rule)

for _coll in (QOS_POLICIES, *RULES, METERING_LABELS, METERING_RULES):
    register(bp, _coll)
