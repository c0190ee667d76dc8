"""``GET /v1/{tenant}/resource_types?name=``: Heat's api-ref makes ``name`` a regular expression.
An invalid one is a 400 with Heat's fault body (Heat 27 answers a 500), and one made to backtrack
without end is refused when its match runs out of time instead of holding an API worker
(Heat spins until the WSGI server kills it)."""
from __future__ import annotations


def _types(client, name):
    return client.get("/v1/admin/resource_types", query_string={"name": name})


def test_the_filter_is_a_regular_expression(client):
    resp = _types(client, r"^OS::Heat::(None|Value)$")
    assert resp.status_code == 200
    assert sorted(resp.get_json()["resource_types"]) == ["OS::Heat::None", "OS::Heat::Value"]


def test_an_invalid_expression_is_a_400_with_heats_fault(client):
    resp = _types(client, "[")
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"]["type"] == "HTTPBadRequest"
    assert "Invalid resource type name filter '['" in body["error"]["message"]


def test_the_backtracking_pattern_of_a_denial_of_service_answers_at_once(client):
    """Heat's ``re`` spins on this one; the matcher here answers (no type ends in ``!``)."""
    resp = _types(client, r"(\w*)*::(\w*)*::(\w*)*!")
    assert resp.status_code == 200 and resp.get_json()["resource_types"] == []


def test_a_match_that_runs_out_of_time_is_a_400(client, monkeypatch):
    from app.services import validation
    monkeypatch.setattr(validation, "NAME_FILTER_SECONDS", 1e-9)
    resp = _types(client, r"((\w|:)*)*X")
    assert resp.status_code == 400
    assert "takes too long to match" in resp.get_json()["error"]["message"]


MEMBER = {"X-Auth-Project": "demo", "X-Roles": "member", "X-Auth-Token": "x"}


def test_a_member_sees_only_the_types_heats_policy_lets_them_use(client):
    """Heat's ``get_types`` keeps a type only where its ``resource_types:<type>`` policy passes,
    and ``resource_schema`` / ``generate_template`` enforce it first: the admin-only types
    (``OS::Keystone::*``, ``OS::Nova::Flavor``, ...) are neither listed nor shown to a member."""
    admin = set(client.get("/v1/admin/resource_types").get_json()["resource_types"])
    member = set(client.get("/v1/demo/resource_types", headers=MEMBER).get_json()["resource_types"])
    hidden = admin - member
    assert {"OS::Keystone::Project", "OS::Nova::Flavor", "OS::Nova::HostAggregate",
            "OS::Neutron::QoSPolicy"} <= hidden
    assert all(t.startswith("OS::Keystone::") or t in {
        "OS::Nova::Flavor", "OS::Cinder::EncryptedVolumeType", "OS::Cinder::VolumeType",
        "OS::Cinder::Quota", "OS::Neutron::Quota", "OS::Nova::Quota", "OS::Octavia::Quota",
        "OS::Manila::ShareType", "OS::Neutron::ProviderNet", "OS::Neutron::QoSPolicy",
        "OS::Neutron::QoSBandwidthLimitRule", "OS::Neutron::QoSDscpMarkingRule",
        "OS::Neutron::QoSMinimumBandwidthRule", "OS::Neutron::QoSMinimumPacketRateRule",
        "OS::Neutron::Segment", "OS::Nova::HostAggregate", "OS::Cinder::QoSSpecs",
        "OS::Cinder::QoSAssociation", "OS::Blazar::Host", "OS::Octavia::Flavor",
        "OS::Octavia::FlavorProfile", "OS::Octavia::AvailabilityZone",
        "OS::Octavia::AvailabilityZoneProfile"} for t in hidden)
    assert "OS::Nova::Server" in member and "OS::Heat::None" in member
    for path in ("/v1/demo/resource_types/OS::Keystone::Project",
                 "/v1/demo/resource_types/OS::Nova::Flavor/template"):
        resp = client.get(path, headers=MEMBER)
        assert resp.status_code == 403, resp.get_json()
        assert resp.get_json()["error"]["message"].startswith("You are not authorized to use OS::")
    assert client.get("/v1/demo/resource_types/OS::Nova::Server", headers=MEMBER).status_code == 200
    assert client.get("/v1/admin/resource_types/OS::Nova::Flavor").status_code == 200
