"""The drift comparison: only what the template sets, with the cloud's normalisations."""
from __future__ import annotations

from app.engine import drift
from app.engine.drift import ADD, NOT_EQUAL, REMOVE, Difference

SG_LIVE = [
    {"direction": "egress", "ethertype": "IPv4", "protocol": None, "remote_ip_prefix": None},
    {"direction": "egress", "ethertype": "IPv6", "protocol": None, "remote_ip_prefix": None},
    {"direction": "ingress", "ethertype": "IPv4", "protocol": "6", "port_range_min": 22,
     "port_range_max": 22, "remote_ip_prefix": "10.0.0.0/8"},
    {"direction": "ingress", "ethertype": "IPv4", "protocol": "icmp",
     "remote_ip_prefix": "0.0.0.0/0"},
]
SG_TEMPLATE = [
    {"icmp_protocol": None, "protocol": "icmp"},
    {"protocol": "tcp", "port_range_min": "22", "port_range_max": 22,
     "remote_ip_prefix": "10.1.2.3/8"},
]


def test_rules_in_another_form_and_order_are_in_sync() -> None:
    assert drift.compare("OS::Neutron::SecurityGroup", {"rules": SG_TEMPLATE},
                         {"security_group_rules": SG_LIVE}) == []


def test_a_rule_added_out_of_band_is_an_add_and_one_removed_a_remove() -> None:
    added = {"direction": "ingress", "ethertype": "IPv4", "protocol": "udp",
             "port_range_min": 53, "port_range_max": 53, "remote_ip_prefix": "192.0.2.0/24",
             "id": "r9"}
    diffs = drift.compare("OS::Neutron::SecurityGroup", {"rules": SG_TEMPLATE},
                          {"security_group_rules": [*SG_LIVE, added]})
    assert diffs == [Difference("/rules/2", None, {
        "direction": "ingress", "ethertype": "IPv4", "protocol": "udp", "port_range_min": 53,
        "port_range_max": 53, "remote_ip_prefix": "192.0.2.0/24"}, ADD)]
    diffs = drift.compare("OS::Neutron::SecurityGroup", {"rules": SG_TEMPLATE},
                          {"security_group_rules": SG_LIVE[:3]})
    assert diffs == [Difference("/rules/0", SG_TEMPLATE[0], None, REMOVE)]


def test_default_egress_rules_count_when_the_template_has_egress_rules() -> None:
    mine = [{"direction": "egress", "protocol": "tcp", "port_range_min": 443,
             "port_range_max": 443}]
    live = [{"direction": "egress", "ethertype": "IPv4", "protocol": "tcp",
             "port_range_min": 443, "port_range_max": 443}, SG_LIVE[0]]
    assert [d.kind for d in drift.compare("OS::Neutron::SecurityGroup", {"rules": mine},
                                          {"security_group_rules": live})] == [ADD]


def test_server_flavor_and_image_by_name_or_id_and_a_renamed_server() -> None:
    live = {"name": "web-renamed", "flavor": {"original_name": "m1.small", "id": "2"},
            "image": {"id": "img-1"}, "metadata": {"a": "1", "b": "2"}}
    diffs = drift.compare("OS::Nova::Server",
                          {"name": "web", "flavor": "m1.small", "image": "img-1",
                           "metadata": {"a": 1}, "user_data": "not compared"}, live)
    assert diffs == [Difference("/name", "web", "web-renamed", NOT_EQUAL),
                     Difference("/metadata/b", None, "2", ADD)]
    assert drift.compare("OS::Nova::Server", {"flavor": "2"}, live) == []


def test_a_resized_volume_and_numbers_as_text() -> None:
    assert drift.compare("OS::Cinder::Volume", {"size": "1"}, {"size": 1}) == []
    assert drift.compare("OS::Cinder::Volume", {"size": 1}, {"size": 2}) == [
        Difference("/size", 1, 2, NOT_EQUAL)]


def test_unordered_lists() -> None:
    assert drift.unordered("/l", ["a", "b"], ["b", "a"]) == []
    assert drift.unordered("/l", ["a", "b"], ["b", "c"]) == [
        Difference("/l/0", "a", None, REMOVE), Difference("/l/2", None, "c", ADD)]


def test_checkable_types_and_the_stack_status() -> None:
    assert drift.checkable("OS::Nova::Server") and not drift.checkable("OS::Heat::Value")
    assert drift.stack_status(["IN_SYNC", "NOT_CHECKED"])[0] == "IN_SYNC"
    assert drift.stack_status(["IN_SYNC", "DELETED"]) == (
        "DRIFTED", {"IN_SYNC": 1, "MODIFIED": 0, "DELETED": 1, "NOT_CHECKED": 0})
    assert drift.stack_status(["NOT_CHECKED"])[0] == "UNKNOWN"


def test_cidr_forms() -> None:
    assert drift.compare("OS::Neutron::Subnet", {"cidr": "10.0.0.1/24"},
                         {"cidr": "10.0.0.0/24"}) == []
    assert [d.kind for d in drift.compare("OS::Neutron::Subnet", {"cidr": "10.0.0.0/24"},
                                          {"cidr": "10.0.1.0/24"})] == [NOT_EQUAL]


PORT_LIVE = {"fixed_ips": [{"subnet_id": "s-2", "ip_address": "10.0.0.7"},
                           {"subnet_id": "s-1", "ip_address": "10.0.1.5",
                            "subnet_name": "front"}],
             "security_groups": [{"id": "g-1", "name": "web"}, {"id": "g-2"}]}


def test_port_addresses_and_groups_by_name_or_id_in_any_order_are_in_sync() -> None:
    given = {"fixed_ips": [{"subnet": "front"}, {"subnet_id": "s-2", "ip_address": "10.0.0.7"}],
             "security_groups": ["g-2", "web"]}
    assert drift.compare("OS::Neutron::Port", given, PORT_LIVE) == []
    assert drift.compare("OS::Neutron::Port", {"fixed_ips": []}, PORT_LIVE) == []


def test_port_address_moved_and_group_dropped_are_reported() -> None:
    given = {"fixed_ips": [{"subnet": "s-2", "ip_address": "10.0.0.9"}, {"subnet": "front"}],
             "security_groups": ["web", "db"]}
    assert drift.compare("OS::Neutron::Port", given, PORT_LIVE) == [
        Difference("/fixed_ips/0", {"subnet": "s-2", "ip_address": "10.0.0.9"}, None, REMOVE),
        Difference("/fixed_ips/2", None, {"subnet_id": "s-2", "ip_address": "10.0.0.7"}, ADD),
        Difference("/security_groups/1", "db", None, REMOVE),
        Difference("/security_groups/2", None, "g-2", ADD)]


def test_a_grown_volume_needs_a_replace_to_revert_and_a_renamed_one_does_not() -> None:
    grown = [{"path": "/size", "expected": 1, "actual": 2, "difference_type": NOT_EQUAL}]
    assert "cannot shrink" in str(drift.revert_replaces("OS::Cinder::Volume", grown))
    shrunk = [{"path": "/size", "expected": 2, "actual": 1, "difference_type": NOT_EQUAL}]
    renamed = [{"path": "/name", "expected": "a", "actual": "b", "difference_type": NOT_EQUAL}]
    assert drift.revert_replaces("OS::Cinder::Volume", shrunk) is None
    assert drift.revert_replaces("OS::Cinder::Volume", renamed) is None
    assert drift.revert_replaces("OS::Nova::Server", renamed) is None


def test_a_servers_actual_properties_are_in_the_templates_form() -> None:
    """AWS's ActualProperties beside ExpectedProperties: a flavor or image given by name is
    that name when the live object answers to it, else the live name — never the object;
    networks are compared entry by entry (Heat's ``_get_live_networks`` gives the template's
    entries it found, then the ports left over)."""
    expected = {"flavor": "m1.small", "image": "cirros",
                "networks": [{"network": "n1", "fixed_ip": None}]}
    live = {"flavor": {"original_name": "m1.small", "vcpus": 1, "ram": 2048},
            "image": {"id": "img-1", "name": "cirros", "links": []},
            "networks": [{"network": "n1", "fixed_ip": None},
                         {"network": "n2", "fixed_ip": "10.0.0.9"}]}
    assert drift.actual("OS::Nova::Server", expected, live) == {
        "flavor": "m1.small", "image": "cirros", "networks": live["networks"]}
    assert [(d.path, d.expected, d.actual, d.kind)
            for d in drift.compare("OS::Nova::Server", expected, live)] == [
        ("/networks/1", None, {"network": "n2", "fixed_ip": "10.0.0.9"}, "ADD")]
    moved = {**live, "flavor": {"original_name": "m1.large"}, "networks": []}
    assert drift.actual("OS::Nova::Server", expected, moved)["flavor"] == "m1.large"
    assert [(d.path, d.actual, d.kind) for d in drift.compare(
        "OS::Nova::Server", expected, moved)] == [
        ("/flavor", "m1.large", "NOT_EQUAL"),
        ("/networks/0", None, "REMOVE")]
