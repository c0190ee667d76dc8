"""Neutron's request forms in the sandbox, as Neutron's API controller and security group
extension answer them: bulk (plural) creates for networks, subnets, ports, security groups and
security group rules (atomic), no bulk for routers and floating IPs, Neutron's wording for a
missing body, and rule attributes converted (ports to integers, protocol / ethertype
normalised, an address to a CIDR) with Neutron's own errors for bad values."""
from __future__ import annotations

from typing import Any

import pytest
import requests


@pytest.fixture()
def neutron(sandbox: Any, conn: Any) -> Any:
    """``neutron(method, path, json=...) -> (status, body)`` with the admin's token."""
    url = f"{sandbox.url}/network/v2.0"

    def call(method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        resp = requests.request(method, url + path, headers={"X-Auth-Token": conn.auth_token},
                                timeout=10, **kwargs)
        return resp.status_code, (resp.json() if resp.content else None)
    return call


@pytest.fixture()
def group(conn: Any) -> Any:
    sg = conn.network.create_security_group(name="bulk-sg")
    yield sg
    conn.network.delete_security_group(sg)


def error(body: Any) -> tuple[str, str]:
    return body["NeutronError"]["type"], body["NeutronError"]["message"]


def test_bulk_create_of_networks_subnets_and_ports(no_leaks: Any, neutron: Any) -> None:
    status, out = neutron("POST", "/networks", json={"networks": [{"name": "b1"}, {"network": {"name": "b2"}}]})
    assert status == 201 and [n["name"] for n in out["networks"]] == ["b1", "b2"]
    n1, n2 = (n["id"] for n in out["networks"])
    status, out = neutron("POST", "/subnets", json={"subnets": [
        {"network_id": n1, "cidr": "10.81.0.0/24", "ip_version": 4},
        {"network_id": n2, "cidr": "10.82.0.0/24", "ip_version": 4}]})
    assert status == 201 and [s["cidr"] for s in out["subnets"]] == ["10.81.0.0/24", "10.82.0.0/24"]
    status, out = neutron("POST", "/ports", json={"ports": [{"network_id": n1, "name": "p1"},
                                                            {"network_id": n2, "name": "p2"}]})
    assert status == 201
    assert [p["fixed_ips"][0]["ip_address"] for p in out["ports"]] == ["10.81.0.2", "10.82.0.2"]
    for port in out["ports"]:
        assert neutron("DELETE", f"/ports/{port['id']}")[0] == 204
    for net in (n1, n2):
        assert neutron("DELETE", f"/networks/{net}")[0] == 204


def test_a_bulk_create_is_all_or_nothing(no_leaks: Any, neutron: Any) -> None:
    status, out = neutron("POST", "/networks", json={"networks": [{"name": "ok"},
                                                                  {"name": "x", "mtu": 1400}]})
    assert status == 201
    ids = [n["id"] for n in out["networks"]]
    status, out = neutron("POST", "/ports", json={"ports": [
        {"network_id": ids[0], "name": "fine"}, {"network_id": "no-such-network"}]})
    assert status == 404 and error(out)[0] == "NetworkNotFound"
    assert neutron("GET", f"/ports?network_id={ids[0]}")[1]["ports"] == []
    for net in ids:
        neutron("DELETE", f"/networks/{net}")


def test_bulk_security_group_rules_convert_string_ports(no_leaks: Any, neutron: Any, group: Any) -> None:
    """The plural body Heat's OS::Neutron::SecurityGroup sends; port strings become integers."""
    status, out = neutron("POST", "/security-group-rules", json={"security_group_rules": [
        {"security_group_id": group.id, "direction": "ingress", "protocol": "TCP",
         "port_range_min": "22", "port_range_max": "22", "remote_ip_prefix": "10.0.0.5"},
        {"security_group_id": group.id, "direction": "ingress", "protocol": "icmp",
         "ethertype": "ipv4", "port_range_min": 8, "port_range_max": "0"}]})
    assert status == 201, out
    ssh, icmp = out["security_group_rules"]
    assert (ssh["protocol"], ssh["port_range_min"], ssh["port_range_max"]) == ("tcp", 22, 22)
    assert ssh["remote_ip_prefix"] == "10.0.0.5/32" and ssh["normalized_cidr"] == "10.0.0.5/32"
    assert (icmp["ethertype"], icmp["port_range_min"], icmp["port_range_max"]) == ("IPv4", 8, 0)
    shown = neutron("GET", f"/security-group-rules/{ssh['id']}")[1]["security_group_rule"]
    assert shown["port_range_min"] == 22


@pytest.mark.parametrize("rule, kind, message", [
    ({"protocol": "tcp", "port_range_min": "ssh", "port_range_max": 22},
     "SecurityGroupInvalidPortValue", "Invalid value for port ssh"),
    ({"protocol": "tcp", "port_range_min": 22, "port_range_max": "70000"},
     "SecurityGroupInvalidPortValue", "Invalid value for port 70000"),
    ({"protocol": "tcp", "port_range_min": "90", "port_range_max": "80"},
     "SecurityGroupInvalidPortRange", "For TCP/UDP protocols, port_range_min must be <= port_range_max"),
    ({"port_range_min": 80, "port_range_max": 80},
     "SecurityGroupProtocolRequiredWithPorts", "Must also specify protocol if port range is given."),
    ({"protocol": "icmp", "port_range_max": 0}, "SecurityGroupMissingIcmpType",
     "ICMP code (port-range-max) 0 is provided but ICMP type (port-range-min) is missing."),
    ({"protocol": "icmp", "port_range_min": 300}, "SecurityGroupInvalidIcmpValue",
     "Invalid value for ICMP type (port_range_min) 300. It must be 0 to 255."),
    ({"protocol": "tcp", "remote_ip_prefix": "10.0.0.0/8", "ethertype": "IPv6"},
     "SecurityGroupRuleParameterConflict", "Conflicting value ethertype IPv6 for CIDR 10.0.0.0/8"),
])
def test_bad_rule_values_get_neutrons_errors(neutron: Any, group: Any, rule: dict[str, Any], kind: str,
                                             message: str) -> None:
    status, out = neutron("POST", "/security-group-rules", json={"security_group_rule": dict(
        rule, security_group_id=group.id, direction="ingress")})
    assert status == 400 and error(out) == (kind, message)


def test_bulk_rules_are_for_one_group_and_not_repeated(no_leaks: Any, conn: Any, neutron: Any,
                                                       group: Any) -> None:
    other = conn.network.create_security_group(name="other-sg")
    rule = {"security_group_id": group.id, "direction": "ingress", "protocol": "udp",
            "port_range_min": 53, "port_range_max": 53}
    status, out = neutron("POST", "/security-group-rules", json={"security_group_rules": [
        rule, dict(rule, security_group_id=other.id)]})
    assert status == 400 and error(out) == ("SecurityGroupNotSingleGroupRules",
                                            "Only allowed to update rules for one security profile at a time")
    status, out = neutron("POST", "/security-group-rules", json={"security_group_rules": [
        rule, dict(rule, port_range_min="53", port_range_max="53")]})
    assert status == 400 and error(out) == ("DuplicateSecurityGroupRuleInPost",
                                            "Duplicate Security Group Rule in POST.")
    assert neutron("GET", f"/security-group-rules?security_group_id={group.id}&protocol=udp")[1][
        "security_group_rules"] == []
    conn.network.delete_security_group(other)


@pytest.mark.parametrize("path, payload, message", [
    ("/networks", {"net": {}}, "Unable to find 'network' in request body"),
    ("/security-group-rules", {"rule": {}}, "Unable to find 'security_group_rule' in request body"),
    ("/ports", {}, "Resource body required"),
    ("/subnets", {"subnets": []}, "Resources required"),
    ("/routers", {"routers": [{"name": "r"}]}, "Bulk operation not supported"),
    ("/floatingips", {"floatingips": [{}]}, "Bulk operation not supported"),
])
def test_body_errors_are_neutrons(neutron: Any, path: str, payload: Any, message: str) -> None:
    status, out = neutron("POST", path, json=payload)
    assert status == 400 and error(out) == ("HTTPBadRequest", message)


def test_booleans_and_integers_given_as_strings_are_converted(no_leaks: Any, neutron: Any) -> None:
    """neutron_lib's ``convert_to_boolean`` / ``convert_to_int``: ``"false"`` is ``false``,
    ``"1400"`` is ``1400``; a value that does not convert is Neutron's InvalidInput."""
    status, out = neutron("POST", "/networks", json={"network": {"name": "s", "admin_state_up": "False",
                                                                 "mtu": "1400"}})
    assert status == 201 and (out["network"]["admin_state_up"], out["network"]["mtu"]) == (False, 1400)
    net = out["network"]["id"]
    status, out = neutron("POST", "/subnets", json={"subnet": {"network_id": net, "cidr": "10.83.0.0/24",
                                                               "ip_version": "4", "enable_dhcp": "0"}})
    assert status == 201 and (out["subnet"]["ip_version"], out["subnet"]["enable_dhcp"]) == (4, False)
    status, out = neutron("PUT", f"/networks/{net}", json={"network": {"admin_state_up": "true"}})
    assert status == 200 and out["network"]["admin_state_up"] is True
    assert [n["id"] for n in neutron("GET", "/networks?admin_state_up=true&name=s")[1]["networks"]] == [net]
    status, out = neutron("POST", "/ports", json={"port": {"network_id": net, "admin_state_up": "maybe"}})
    assert status == 400 and error(out) == ("InvalidInput", "Invalid input for operation: 'maybe' cannot be "
                                                           "converted to boolean.")
    status, out = neutron("PUT", f"/networks/{net}", json={"network": {"mtu": "big"}})
    assert status == 400 and error(out) == ("InvalidInput", "Invalid input for operation: 'big' is not an "
                                                           "integer.")
    assert neutron("DELETE", f"/networks/{net}")[0] == 204


def test_fields_cut_the_answer_as_neutron_does(neutron: Any, sandbox: Any) -> None:
    public = sandbox.admin("GET", "ids")["ids"]["network:public"]
    status, out = neutron("GET", "/networks?fields=id&fields=name&name=public")
    assert status == 200 and out == {"networks": [{"id": public, "name": "public"}]}
    status, out = neutron("GET", f"/networks/{public}?fields=router:external")
    assert out == {"network": {"router:external": True}}


def test_a_member_changing_the_external_network_is_refused_by_policy(sandbox: Any, demo_conn: Any) -> None:
    """Visible (external) but not the member's: oslo.policy's ``rule:<action> is disallowed by
    policy`` (Neutron's PolicyNotAuthorized, 403); an invisible network would be a 404."""
    public = sandbox.admin("GET", "ids")["ids"]["network:public"]
    url = f"{sandbox.url}/network/v2.0/networks/{public}"
    headers = {"X-Auth-Token": demo_conn.auth_token}
    put = requests.put(url, json={"network": {"name": "mine"}}, headers=headers, timeout=10)
    delete = requests.delete(url, headers=headers, timeout=10)
    assert (put.status_code, error(put.json())) == (
        403, ("PolicyNotAuthorized", "rule:update_network is disallowed by policy"))
    assert (delete.status_code, error(delete.json())) == (
        403, ("PolicyNotAuthorized", "rule:delete_network is disallowed by policy"))
