"""The sandbox Neutron's extension collections: the generic CRUD of every family (status codes,
Neutron's error bodies, project scoping), and each family's own behaviour (trunk subports,
QoS rules and in-use policies, FWaaS and VPNaaS statuses, SFC in-use refusals, TaaS cascades,
port forwardings, admin-only collections, the extension aliases)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.sandbox.conftest import wait_for


def call(conn: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    kwargs = {"json": body} if body is not None else {}
    resp = conn.network.request(path, method,
                                raise_exc=False, **kwargs)
    return resp.status_code, (resp.json() if resp.content else None)


def ok(conn: Any, method: str, path: str, body: Any = None, status: int = 200) -> Any:
    got, data = call(conn, method, path, body)
    assert got == status, data
    return data


@pytest.fixture()
def env(conn: Any) -> Iterator[dict[str, Any]]:
    """A network, subnet, three ports and a router with a gateway and an interface."""
    net = ok(conn, "POST", "/networks", {"network": {"name": "ext"}}, 201)["network"]
    sub = ok(conn, "POST", "/subnets", {"subnet": {"network_id": net["id"], "cidr": "10.70.0.0/24"}}, 201)["subnet"]
    ports = [ok(conn, "POST", "/ports", {"port": {"network_id": net["id"]}}, 201)["port"] for _ in range(3)]
    public = next(n for n in ok(conn, "GET", "/networks")["networks"] if n["name"] == "public")
    router = ok(conn, "POST", "/routers", {"router": {"external_gateway_info": {"network_id": public["id"]}}},
                201)["router"]
    ok(conn, "PUT", f"/routers/{router['id']}/add_router_interface", {"subnet_id": sub["id"]})
    yield {"net": net["id"], "subnet": sub["id"], "ports": [p["id"] for p in ports], "router": router["id"],
           "public": public["id"]}
    ok(conn, "PUT", f"/routers/{router['id']}/remove_router_interface", {"subnet_id": sub["id"]})
    ok(conn, "DELETE", f"/routers/{router['id']}", status=204)
    for port in ports:
        ok(conn, "DELETE", f"/ports/{port['id']}", status=204)
    ok(conn, "DELETE", f"/networks/{net['id']}", status=204)


E = dict[str, Any]
# (path, body key, listing key, body from env, a read-only attribute)
CASES: list[tuple[str, str, str, Callable[[E], E], str]] = [
    ("/trunks", "trunk", "trunks", lambda e: {"port_id": e["ports"][0]}, "port_id"),
    ("/address-scopes", "address_scope", "address_scopes", lambda e: {"ip_version": 4}, "ip_version"),
    ("/subnetpools", "subnetpool", "subnetpools", lambda e: {"prefixes": ["10.100.0.0/16"]}, "shared"),
    ("/segments", "segment", "segments", lambda e: {"network_id": e["net"], "network_type": "vlan",
                                                    "physical_network": "physnet1", "segmentation_id": 300},
     "network_type"),
    ("/rbac-policies", "rbac_policy", "rbac_policies",
     lambda e: {"object_type": "network", "object_id": e["net"], "action": "access_as_shared",
                "target_tenant": "*"}, "object_id"),
    ("/qos/policies", "policy", "policies", lambda e: {}, "id"),
    ("/metering/metering-labels", "metering_label", "metering_labels", lambda e: {}, "shared"),
    ("/fw/firewall_rules", "firewall_rule", "firewall_rules", lambda e: {"protocol": "tcp"}, "id"),
    ("/fw/firewall_policies", "firewall_policy", "firewall_policies", lambda e: {}, "id"),
    ("/vpn/vpnservices", "vpnservice", "vpnservices", lambda e: {"router_id": e["router"],
                                                                 "subnet_id": e["subnet"]}, "router_id"),
    ("/vpn/ikepolicies", "ikepolicy", "ikepolicies", lambda e: {}, "id"),
    ("/vpn/ipsecpolicies", "ipsecpolicy", "ipsecpolicies", lambda e: {}, "id"),
    ("/sfc/port_pairs", "port_pair", "port_pairs", lambda e: {"ingress": e["ports"][1], "egress": e["ports"][2]},
     "ingress"),
    ("/sfc/port_pair_groups", "port_pair_group", "port_pair_groups", lambda e: {}, "tap_enabled"),
    ("/sfc/flow_classifiers", "flow_classifier", "flow_classifiers",
     lambda e: {"logical_source_port": e["ports"][0]}, "ethertype"),
    ("/l2-gateways", "l2_gateway", "l2_gateways",
     lambda e: {"devices": [{"device_name": "sw", "interfaces": [{"name": "eth0"}]}]}, "id"),
    ("/network-gateways", "network_gateway", "network_gateways",
     lambda e: {"devices": [{"id": "d1", "interface_name": "eth0"}]}, "devices"),
    ("/taas/tap_services", "tap_service", "tap_services", lambda e: {"port_id": e["ports"][0]}, "port_id"),
]


@pytest.mark.parametrize(("path", "key", "many", "make", "readonly"), CASES, ids=[c[0] for c in CASES])
def test_generic_crud(no_leaks: None, conn: Any, demo_conn: Any, env: E, path: str, key: str, many: str,
                      make: Callable[[E], E], readonly: str) -> None:
    status, err = call(conn, "POST", path, {key: {**make(env), "bogus": 1}})
    assert status == 400 and err["NeutronError"]["message"] == "Unrecognized attribute(s) 'bogus'"
    obj = ok(conn, "POST", path, {key: {**make(env), "name": "one"}}, 201)[key]
    assert obj["name"] == "one" and obj["project_id"]
    assert ok(conn, "GET", f"{path}/{obj['id']}")[key]["id"] == obj["id"]
    assert [o["id"] for o in ok(conn, "GET", f"{path}?name=one")[many]] == [obj["id"]]
    change = {"target_tenant": "other"} if key == "rbac_policy" else {"name": "two"}
    assert ok(conn, "PUT", f"{path}/{obj['id']}", {key: change})[key].items() >= change.items()
    status, err = call(conn, "PUT", f"{path}/{obj['id']}", {key: {readonly: obj.get(readonly)}})
    assert status == 400 and err["NeutronError"]["message"] == f"Cannot update read-only attribute {readonly}"
    assert call(demo_conn, "GET", f"{path}/{obj['id']}")[0] == 404      # another project's
    ok(conn, "DELETE", f"{path}/{obj['id']}", status=204)
    status, err = call(conn, "GET", f"{path}/{obj['id']}")
    assert status == 404 and err["NeutronError"]["type"].endswith("NotFound")


def test_required_attributes_and_extensions(conn: Any) -> None:
    status, err = call(conn, "POST", "/trunks", {"trunk": {}})
    assert status == 400
    assert err["NeutronError"]["message"] == "Failed to parse request. Required attribute 'port_id' not specified"
    aliases = {e["alias"] for e in ok(conn, "GET", "/extensions")["extensions"]}
    assert {"trunk", "qos", "sfc", "taas", "fwaas", "vpnaas", "l2-gateway", "segment", "address-scope",
            "subnet_allocation", "extraroute-atomic", "floating-ip-port-forwarding"} <= aliases


def test_trunk_subports(no_leaks: None, conn: Any, env: E) -> None:
    parent, sub, other = env["ports"]
    trunk = ok(conn, "POST", "/trunks", {"trunk": {"port_id": parent, "sub_ports": [
        {"port_id": sub, "segmentation_type": "vlan", "segmentation_id": 10}]}}, 201)["trunk"]
    assert trunk["status"] == "DOWN"
    assert ok(conn, "GET", f"/ports/{sub}")["port"]["device_owner"] == "trunk:subport"
    status, err = call(conn, "POST", "/trunks", {"trunk": {"port_id": parent}})
    assert status == 409 and err["NeutronError"]["type"] == "TrunkPortInUse"
    status, err = call(conn, "PUT", f"/trunks/{trunk['id']}/add_subports", {"sub_ports": [
        {"port_id": other, "segmentation_type": "vlan", "segmentation_id": 10}]})
    assert status == 409 and err["NeutronError"]["type"] == "DuplicateSubPort"
    ok(conn, "PUT", f"/trunks/{trunk['id']}/add_subports", {"sub_ports": [
        {"port_id": other, "segmentation_type": "vlan", "segmentation_id": 11}]})
    ok(conn, "PUT", f"/trunks/{trunk['id']}/remove_subports", {"sub_ports": [{"port_id": sub}]})
    assert [s["port_id"] for s in ok(conn, "GET", f"/trunks/{trunk['id']}/get_subports")["sub_ports"]] == [other]
    # the parent port shows Neutron's trunk-details; other ports do not
    mac = ok(conn, "GET", f"/ports/{other}")["port"]["mac_address"]
    assert ok(conn, "GET", f"/ports/{parent}")["port"]["trunk_details"] == {
        "trunk_id": trunk["id"], "sub_ports": [{"port_id": other, "segmentation_type": "vlan",
                                                "segmentation_id": 11, "mac_address": mac}]}
    assert "trunk_details" not in ok(conn, "GET", f"/ports/{other}")["port"]
    ok(conn, "DELETE", f"/trunks/{trunk['id']}", status=204)
    assert "trunk_details" not in ok(conn, "GET", f"/ports/{parent}")["port"]
    assert ok(conn, "GET", f"/ports/{other}")["port"]["device_owner"] == ""


def test_qos_rules_policy_in_use_and_admin_only(no_leaks: None, conn: Any, demo_conn: Any, env: E) -> None:
    status, err = call(demo_conn, "POST", "/qos/policies", {"policy": {"name": "p"}})
    assert status == 403 and err["NeutronError"]["type"] == "PolicyNotAuthorized"
    policy = ok(conn, "POST", "/qos/policies", {"policy": {"name": "p"}}, 201)["policy"]
    base = f"/qos/policies/{policy['id']}"
    ok(conn, "POST", f"{base}/bandwidth_limit_rules", {"bandwidth_limit_rule": {"max_kbps": 100}}, 201)
    status, err = call(conn, "POST", f"{base}/bandwidth_limit_rules", {"bandwidth_limit_rule": {"max_kbps": 5}})
    assert status == 409
    ok(conn, "POST", f"{base}/dscp_marking_rules", {"dscp_marking_rule": {"dscp_mark": 16}}, 201)
    assert call(conn, "POST", f"{base}/dscp_marking_rules", {"dscp_marking_rule": {"dscp_mark": 15}})[0] == 400
    assert {r["type"] for r in ok(conn, "GET", base)["policy"]["rules"]} == {"bandwidth_limit", "dscp_marking"}
    ok(conn, "PUT", f"/networks/{env['net']}", {"network": {"qos_policy_id": policy["id"]}})
    status, err = call(conn, "DELETE", base)
    assert status == 409 and err["NeutronError"]["type"] == "QosPolicyInUse"
    ok(conn, "PUT", f"/networks/{env['net']}", {"network": {"qos_policy_id": None}})
    ok(conn, "DELETE", base, status=204)      # its rules go with it (no_leaks)


def test_fwaas_statuses_and_in_use(no_leaks: None, conn: Any, sandbox: Any) -> None:
    rule = ok(conn, "POST", "/fw/firewall_rules", {"firewall_rule": {"protocol": "tcp", "destination_port": "22",
                                                                     "action": "allow"}}, 201)["firewall_rule"]
    policy = ok(conn, "POST", "/fw/firewall_policies", {"firewall_policy": {"firewall_rules": [rule["id"]]}},
                201)["firewall_policy"]
    assert ok(conn, "GET", f"/fw/firewall_rules/{rule['id']}")["firewall_rule"]["position"] == 1
    fw = ok(conn, "POST", "/fw/firewalls", {"firewall": {"firewall_policy_id": policy["id"]}}, 201)["firewall"]
    assert fw["status"] == "PENDING_CREATE"
    wait_for(lambda: ok(conn, "GET", f"/fw/firewalls/{fw['id']}")["firewall"]["status"] == "ACTIVE")
    assert call(conn, "DELETE", f"/fw/firewall_rules/{rule['id']}")[1]["NeutronError"]["type"] == "FirewallRuleInUse"
    assert call(conn, "DELETE", f"/fw/firewall_policies/{policy['id']}")[0] == 409
    ok(conn, "DELETE", f"/fw/firewalls/{fw['id']}", status=204)
    assert ok(conn, "GET", f"/fw/firewalls/{fw['id']}")["firewall"]["status"] == "PENDING_DELETE"
    wait_for(lambda: call(conn, "GET", f"/fw/firewalls/{fw['id']}")[0] == 404)
    ok(conn, "DELETE", f"/fw/firewall_policies/{policy['id']}", status=204)
    ok(conn, "DELETE", f"/fw/firewall_rules/{rule['id']}", status=204)


def test_vpnaas_connection_activates_its_service(no_leaks: None, conn: Any, env: E) -> None:
    svc = ok(conn, "POST", "/vpn/vpnservices", {"vpnservice": {"router_id": env["router"],
                                                              "subnet_id": env["subnet"]}}, 201)["vpnservice"]
    assert svc["status"] == "PENDING_CREATE" and svc["external_v4_ip"]
    ike = ok(conn, "POST", "/vpn/ikepolicies", {"ikepolicy": {}}, 201)["ikepolicy"]
    ipsec = ok(conn, "POST", "/vpn/ipsecpolicies", {"ipsecpolicy": {}}, 201)["ipsecpolicy"]
    site = ok(conn, "POST", "/vpn/ipsec-site-connections", {"ipsec_site_connection": {
        "vpnservice_id": svc["id"], "ikepolicy_id": ike["id"], "ipsecpolicy_id": ipsec["id"], "psk": "s",
        "peer_address": "172.24.4.9", "peer_id": "172.24.4.9", "peer_cidrs": ["10.9.0.0/24"]}},
        201)["ipsec_site_connection"]
    assert site["status"] == "PENDING_CREATE" and site["dpd"] == {"action": "hold", "interval": 30, "timeout": 120}
    wait_for(lambda: ok(conn, "GET", f"/vpn/vpnservices/{svc['id']}")["vpnservice"]["status"] == "ACTIVE")
    for path in (f"/vpn/vpnservices/{svc['id']}", f"/vpn/ikepolicies/{ike['id']}",
                 f"/vpn/ipsecpolicies/{ipsec['id']}"):
        assert call(conn, "DELETE", path)[0] == 409
    for path in (f"/vpn/ipsec-site-connections/{site['id']}", f"/vpn/vpnservices/{svc['id']}",
                 f"/vpn/ikepolicies/{ike['id']}", f"/vpn/ipsecpolicies/{ipsec['id']}"):
        ok(conn, "DELETE", path, status=204)


def test_sfc_chain_in_use_and_taas_cascade(no_leaks: None, conn: Any, env: E) -> None:
    a, b, c = env["ports"]
    pair = ok(conn, "POST", "/sfc/port_pairs", {"port_pair": {"ingress": a, "egress": b}}, 201)["port_pair"]
    group = ok(conn, "POST", "/sfc/port_pair_groups", {"port_pair_group": {"port_pairs": [pair["id"]]}},
               201)["port_pair_group"]
    status, err = call(conn, "POST", "/sfc/port_pair_groups", {"port_pair_group": {"port_pairs": [pair["id"]]}})
    assert status == 409 and err["NeutronError"]["type"] == "PortPairInUse"
    fc = ok(conn, "POST", "/sfc/flow_classifiers", {"flow_classifier": {"logical_source_port": c}},
            201)["flow_classifier"]
    chain = ok(conn, "POST", "/sfc/port_chains", {"port_chain": {"port_pair_groups": [group["id"]],
                                                                 "flow_classifiers": [fc["id"]]}}, 201)["port_chain"]
    assert call(conn, "DELETE", f"/sfc/port_pair_groups/{group['id']}")[1]["NeutronError"]["type"] == \
        "PortPairGroupInUse"
    assert call(conn, "DELETE", f"/sfc/flow_classifiers/{fc['id']}")[0] == 409
    for path in (f"/sfc/port_chains/{chain['id']}", f"/sfc/port_pair_groups/{group['id']}",
                 f"/sfc/port_pairs/{pair['id']}", f"/sfc/flow_classifiers/{fc['id']}"):
        ok(conn, "DELETE", path, status=204)
    tap = ok(conn, "POST", "/taas/tap_services", {"tap_service": {"port_id": a}}, 201)["tap_service"]
    flow = ok(conn, "POST", "/taas/tap_flows", {"tap_flow": {"tap_service_id": tap["id"], "source_port": c,
                                                             "direction": "BOTH"}}, 201)["tap_flow"]
    assert flow["status"] == "PENDING_CREATE"
    wait_for(lambda: ok(conn, "GET", f"/taas/tap_flows/{flow['id']}")["tap_flow"]["status"] == "ACTIVE")
    assert call(conn, "POST", "/taas/tap_flows", {"tap_flow": {"tap_service_id": tap["id"], "source_port": c,
                                                               "direction": "SIDEWAYS"}})[0] == 400
    ok(conn, "DELETE", f"/taas/tap_services/{tap['id']}", status=204)      # its flow goes with it


def test_port_forwardings_gateways_and_admin_only(no_leaks: None, conn: Any, demo_conn: Any, env: E) -> None:
    fip = ok(conn, "POST", "/floatingips", {"floatingip": {"floating_network_id": env["public"]}}, 201)["floatingip"]
    port = ok(conn, "GET", f"/ports/{env['ports'][0]}")["port"]
    body = {"port_forwarding": {"internal_port_id": port["id"], "protocol": "tcp", "internal_port": 22,
                                "external_port": 2022, "internal_ip_address": port["fixed_ips"][0]["ip_address"]}}
    pf = ok(conn, "POST", f"/floatingips/{fip['id']}/port_forwardings", body, 201)["port_forwarding"]
    assert call(conn, "POST", f"/floatingips/{fip['id']}/port_forwardings", body)[0] == 400   # duplicate
    ok(conn, "DELETE", f"/floatingips/{fip['id']}/port_forwardings/{pf['id']}", status=204)
    ok(conn, "DELETE", f"/floatingips/{fip['id']}", status=204)
    for path, key, data in (("/segments", "segment", {"network_id": env["net"], "network_type": "vxlan"}),
                            ("/l2-gateways", "l2_gateway", {"devices": [{"device_name": "s",
                                                                          "interfaces": [{"name": "e"}]}]})):
        status, err = call(demo_conn, "POST", path, {key: data})
        assert status == 403 and err["NeutronError"]["type"] == "PolicyNotAuthorized"
    gw = ok(conn, "POST", "/network-gateways", {"network_gateway": {"devices": [{"id": "d", "interface_name": "e"}]}},
            201)["network_gateway"]
    conn_body = {"network_id": env["net"], "segmentation_type": "vlan", "segmentation_id": 7}
    info = ok(conn, "PUT", f"/network-gateways/{gw['id']}/connect_network", conn_body)["connection_info"]
    assert info["network_id"] == env["net"]
    assert call(conn, "DELETE", f"/network-gateways/{gw['id']}")[1]["NeutronError"]["type"] == "GatewayInUse"
    ok(conn, "PUT", f"/network-gateways/{gw['id']}/disconnect_network", conn_body)
    assert call(conn, "PUT", f"/network-gateways/{gw['id']}/disconnect_network", conn_body)[0] == 404
    ok(conn, "DELETE", f"/network-gateways/{gw['id']}", status=204)
