"""The sandbox Neutron's FWaaS v1 (``fwaas``: ``/fw/firewall_rules``, ``/fw/firewall_policies``,
``/fw/firewalls``) and VPNaaS (``vpnaas``: ``/vpn/vpnservices``, ``/vpn/ikepolicies``,
``/vpn/ipsecpolicies``, ``/vpn/ipsec-site-connections``), as :mod:`app.sandbox.network_ext`
tables.

Asynchronous as the agents make them: a firewall is ``PENDING_CREATE`` then ``ACTIVE``
(``fw_create`` delay) and ``PENDING_DELETE`` before it is gone (``fw_delete``); an IPsec site
connection is ``PENDING_CREATE`` then ``ACTIVE`` (``vpn_connect``); a VPN service stays
``PENDING_CREATE`` until one of its connections is ``ACTIVE``. A rule belongs to one policy at
a time (its ``firewall_policy_id`` and ``position`` follow the policy's ``firewall_rules``);
what another object uses cannot be deleted (409 ``FirewallRuleInUse``, ``FirewallPolicyInUse``,
``VPNServiceInUse``, ``IKEPolicyInUse``, ``IPsecPolicyInUse``).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox.http import SandboxError
from app.sandbox.network_bodies import bad_request
from app.sandbox.network_ext import REQUIRED, Coll, find_ref, in_use_by, ip_prefix_or_none, register
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_vpn", __name__)


# ---- FWaaS v1 ------------------------------------------------------------------------------------
def _policy_of(rule_id: str) -> tuple[Obj | None, int | None]:
    for policy in store().all("firewall_policies"):
        if rule_id in policy["firewall_rules"]:
            return policy, policy["firewall_rules"].index(rule_id) + 1
    return None, None


def _rule_view(rule: Obj) -> Obj:
    policy, position = _policy_of(rule["id"])
    return {"firewall_policy_id": policy["id"] if policy else None, "position": position}


def _port_value(text: Any) -> str | None:
    if text in (None, ""):
        return None
    parts = str(text).split(":")
    if len(parts) > 2 or not all(p.isdigit() and 0 <= int(p) <= 65535 for p in parts) \
            or (len(parts) == 2 and int(parts[0]) > int(parts[1])):
        raise bad_request(f"Invalid input for operation: Invalid port '{text}'.")
    return str(text)


def _check_fw_rule(new: Obj, old: Obj | None) -> None:
    if new["action"] not in ("allow", "deny", "reject"):
        raise bad_request(f"Invalid input for action. Reason: '{new['action']}' is not in "
                          "['allow', 'deny', 'reject'].")
    if new["protocol"] not in (None, "tcp", "udp", "icmp"):
        raise bad_request(f"Invalid input for protocol. Reason: '{new['protocol']}' is not in "
                          "['tcp', 'udp', 'icmp', None].")
    if new["ip_version"] not in (4, 6):
        raise bad_request(f"Invalid input for ip_version. Reason: {new['ip_version']} is not in [4, 6].")
    new["source_port"], new["destination_port"] = _port_value(new["source_port"]), _port_value(new["destination_port"])
    if new["protocol"] in (None, "icmp") and (new["source_port"] or new["destination_port"]):
        raise bad_request("Source, destination ports are not allowed when protocol is set to ICMP."
                          if new["protocol"] else "Source/destination port requires a protocol")
    for key in ("source_ip_address", "destination_ip_address"):
        new[key] = ip_prefix_or_none(key, new[key])


FIREWALL_RULES = Coll("firewall_rules", "/fw/firewall_rules", "firewall_rule", "Firewall Rule",
                      {"shared": False, "protocol": None, "ip_version": 4, "source_ip_address": None,
                       "destination_ip_address": None, "source_port": None, "destination_port": None,
                       "action": "deny", "enabled": True},
                      updatable=("name", "description", "shared", "protocol", "ip_version", "source_ip_address",
                                 "destination_ip_address", "source_port", "destination_port", "action",
                                 "enabled"),
                      check=_check_fw_rule, view=_rule_view,
                      in_use=in_use_by("firewall_policies", "firewall_rules", "Firewall Rule {id} is being used.",
                                       "FirewallRuleInUse", many=True))


def _check_fw_policy(new: Obj, old: Obj | None) -> None:
    rules = list(new.get("firewall_rules") or [])
    for rule_id in rules:
        find_ref("firewall_rules", rule_id, "Firewall Rule")
        owner, _ = _policy_of(rule_id)
        if owner is not None and owner["id"] != new["id"]:
            raise SandboxError(409, f"Firewall Rule {rule_id} is being used.", "FirewallRuleInUse")
    if len(set(rules)) != len(rules):
        raise bad_request("Invalid input for firewall_rules. Reason: duplicate rules.")
    new["firewall_rules"] = rules
    if old is not None and rules != old["firewall_rules"]:
        new["audited"] = False


FIREWALL_POLICIES = Coll("firewall_policies", "/fw/firewall_policies", "firewall_policy", "Firewall Policy",
                         {"shared": False, "audited": False, "firewall_rules": []},
                         updatable=("name", "description", "shared", "audited", "firewall_rules"),
                         check=_check_fw_policy, plural="firewall_policies",
                         in_use=in_use_by("firewalls", "firewall_policy_id", "Firewall Policy {id} is being used.",
                                          "FirewallPolicyInUse"))


def _check_firewall(new: Obj, old: Obj | None) -> None:
    find_ref("firewall_policies", new["firewall_policy_id"], "Firewall Policy")
    for router_id in new.get("router_ids") or []:
        find_ref("routers", router_id, "Router")


FIREWALLS = Coll("firewalls", "/fw/firewalls", "firewall", "Firewall",
                 {"admin_state_up": True, "firewall_policy_id": REQUIRED, "shared": False, "router_ids": []},
                 updatable=("name", "description", "admin_state_up", "firewall_policy_id", "router_ids"),
                 status="PENDING_CREATE", settle="fw_create", deleting="fw_delete", check=_check_firewall)


# ---- VPNaaS --------------------------------------------------------------------------------------
def _check_vpnservice(new: Obj, old: Obj | None) -> None:
    if old is not None:
        return
    router = find_ref("routers", new["router_id"], "Router")
    if not store().find("ports", device_id=router["id"], device_owner="network:router_gateway"):
        raise bad_request(f"Router {router['id']} has no external network gateway set")
    if new.get("subnet_id"):
        find_ref("subnets", new["subnet_id"], "Subnet")
        attached = {ip["subnet_id"] for p in store().find("ports", device_id=router["id"]) for ip in p["fixed_ips"]}
        if new["subnet_id"] not in attached:
            raise bad_request(f"Subnet {new['subnet_id']} is not connected to Router {router['id']}")


def _vpnservice_view(service: Obj) -> Obj:
    st = store()
    active = any(c["status"] == "ACTIVE" for c in st.find("ipsec_site_connections", vpnservice_id=service["id"]))
    gateway = next(iter(st.find("ports", device_id=service["router_id"], device_owner="network:router_gateway")),
                   None)
    ips = [ip["ip_address"] for ip in (gateway or {}).get("fixed_ips", [])]
    return {"status": "ACTIVE" if active else service["status"],
            "external_v4_ip": next((a for a in ips if ":" not in a), None),
            "external_v6_ip": next((a for a in ips if ":" in a), None)}


VPN_SERVICES = Coll("vpnservices", "/vpn/vpnservices", "vpnservice", "VPNService",
                    {"admin_state_up": True, "subnet_id": None, "router_id": REQUIRED, "flavor_id": None},
                    updatable=("name", "description", "admin_state_up"), status="PENDING_CREATE",
                    check=_check_vpnservice, view=_vpnservice_view,
                    in_use=in_use_by("ipsec_site_connections", "vpnservice_id", "VPNService {id} is still in use",
                                     "VPNServiceInUse"))

LIFETIME = {"units": "seconds", "value": 3600}
IKE_POLICIES = Coll("ikepolicies", "/vpn/ikepolicies", "ikepolicy", "IKEPolicy",
                    {"auth_algorithm": "sha1", "encryption_algorithm": "aes-128", "phase1_negotiation_mode": "main",
                     "lifetime": LIFETIME, "pfs": "group5", "ike_version": "v1"},
                    updatable=("name", "description", "auth_algorithm", "encryption_algorithm",
                               "phase1_negotiation_mode", "lifetime", "pfs", "ike_version"),
                    plural="ikepolicies", kind="IKEPolicyNotFound",
                    in_use=in_use_by("ipsec_site_connections", "ikepolicy_id", "IKEPolicy {id} is in use by "
                                     "existing IPsecSiteConnection and can't be updated or deleted",
                                     "IKEPolicyInUse"))
IPSEC_POLICIES = Coll("ipsecpolicies", "/vpn/ipsecpolicies", "ipsecpolicy", "IPsecPolicy",
                      {"transform_protocol": "esp", "encapsulation_mode": "tunnel", "auth_algorithm": "sha1",
                       "encryption_algorithm": "aes-128", "lifetime": LIFETIME, "pfs": "group5"},
                      updatable=("name", "description", "transform_protocol", "encapsulation_mode",
                                 "auth_algorithm", "encryption_algorithm", "lifetime", "pfs"),
                      plural="ipsecpolicies", kind="IPsecPolicyNotFound",
                      in_use=in_use_by("ipsec_site_connections", "ipsecpolicy_id", "IPsecPolicy {id} is in use "
                                       "by existing IPsecSiteConnection and can't be updated or deleted",
                                       "IPsecPolicyInUse"))


def _check_connection(new: Obj, old: Obj | None) -> None:
    find_ref("vpnservices", new["vpnservice_id"], "VPNService")
    find_ref("ikepolicies", new["ikepolicy_id"], "IKEPolicy")
    find_ref("ipsecpolicies", new["ipsecpolicy_id"], "IPsecPolicy")
    dpd = dict(new.get("dpd") or {})
    if "actions" in dpd:
        dpd["action"] = dpd.pop("actions")
    new["dpd"] = {"action": "hold", "interval": 30, "timeout": 120, **dpd}
    if new["dpd"]["timeout"] <= new["dpd"]["interval"]:
        raise bad_request("Invalid input for operation: dpd timeout must be greater than the interval.")
    if new["initiator"] not in ("bi-directional", "response-only"):
        raise bad_request(f"Invalid input for initiator. Reason: '{new['initiator']}' is not in "
                          "['bi-directional', 'response-only'].")
    new["peer_cidrs"] = [ip_prefix_or_none("peer_cidrs", c) for c in new.get("peer_cidrs") or []]


IPSEC_SITE_CONNECTIONS = Coll("ipsec_site_connections", "/vpn/ipsec-site-connections", "ipsec_site_connection",
                              "IPsec site connection",
                              {"peer_address": REQUIRED, "peer_id": REQUIRED, "peer_cidrs": [], "mtu": 1500,
                               "dpd": {}, "psk": REQUIRED, "initiator": "bi-directional", "admin_state_up": True,
                               "ikepolicy_id": REQUIRED, "ipsecpolicy_id": REQUIRED, "vpnservice_id": REQUIRED,
                               "local_ep_group_id": None, "peer_ep_group_id": None},
                              updatable=("name", "description", "peer_address", "peer_id", "peer_cidrs", "mtu",
                                         "dpd", "psk", "initiator", "admin_state_up"),
                              status="PENDING_CREATE", settle="vpn_connect", check=_check_connection,
                              kind="IPsecSiteConnectionNotFound",
                              view=lambda c: {"auth_mode": "psk", "route_mode": "static"})

for _coll in (FIREWALL_RULES, FIREWALL_POLICIES, FIREWALLS, VPN_SERVICES, IKE_POLICIES, IPSEC_POLICIES,
              IPSEC_SITE_CONNECTIONS):
    register(bp, _coll)
