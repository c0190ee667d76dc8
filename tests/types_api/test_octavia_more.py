"""OS::Octavia::L7Policy, L7Rule, Flavor, FlavorProfile, AvailabilityZone,
AvailabilityZoneProfile, Quota and OS::Aodh::LBMemberHealthAlarm through the API with real
workers: created under a load balancer (L7 objects wait while it is PENDING_*), updated in
place (a rule's value, a policy's name and position, a flavor disabled, a profile's data, the
quota) and by replacement (a flavor moved to another profile), deleted with nothing left; the
quota is back to Octavia's defaults."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  rule_value: {type: string, default: /api}
  policy_name: {type: string, default: api}
  profile: {type: string, default: one}
  flavor_enabled: {type: boolean, default: true}
  topology: {type: string, default: SINGLE}
  lb_limit: {type: number, default: 5}
conditions:
  second: {equals: [{get_param: profile}, two]}
resources:
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {vip_subnet: private-subnet}
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, protocol_port: 80}
  pool:
    type: OS::Octavia::Pool
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, lb_algorithm: ROUND_ROBIN}
  policy:
    type: OS::Octavia::L7Policy
    properties:
      listener: {get_resource: listener}
      action: REDIRECT_TO_POOL
      redirect_pool: {get_resource: pool}
      name: {get_param: policy_name}
  rule:
    type: OS::Octavia::L7Rule
    properties:
      l7policy: {get_resource: policy}
      type: PATH
      compare_type: STARTS_WITH
      value: {get_param: rule_value}
  health:
    type: OS::Aodh::LBMemberHealthAlarm
    properties: {pool: {get_resource: pool}, stack: s-1, autoscaling_group_id: g-1}
  p1:
    type: OS::Octavia::FlavorProfile
    properties:
      provider_name: amphora
      flavor_data: {str_replace: {template: '{"loadbalancer_topology": "T"}',
                                  params: {T: {get_param: topology}}}}
  p2:
    type: OS::Octavia::FlavorProfile
    properties: {provider_name: amphora, flavor_data: '{}'}
  flavor:
    type: OS::Octavia::Flavor
    properties:
      flavor_profile: {if: [second, {get_resource: p2}, {get_resource: p1}]}
      enabled: {get_param: flavor_enabled}
  azp:
    type: OS::Octavia::AvailabilityZoneProfile
    properties: {provider_name: amphora, availability_zone_data: '{"compute_zone": "nova"}'}
  az:
    type: OS::Octavia::AvailabilityZone
    properties: {availability_zone_profile: {get_resource: azp}}
  quota:
    type: OS::Octavia::Quota
    properties: {project: demo, loadbalancer: {get_param: lb_limit}, pool: 7}
outputs:
  rules: {value: {get_attr: [policy, rules]}}
  flavor_profile_id: {value: {get_attr: [flavor, flavor_profile_id]}}
  az_profile_id: {value: {get_attr: [az, availability_zone_profile_id]}}
"""


def test_octavia_l7_and_operator_types(api: Any) -> None:
    lb_api = api.cloud("load-balancer")
    demo = api.sandbox("GET", "ids")["ids"]["project:demo"]

    def get(path: str) -> Any:
        return lb_api.get(f"/v2/lbaas/{path}").json()

    stack = api.create(TEMPLATE)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    policy = get(f"l7policies/{res['policy']}")["l7policy"]
    assert (policy["action"], policy["redirect_pool_id"], policy["name"]) == \
        ("REDIRECT_TO_POOL", res["pool"], "api")
    assert api.output(stack, "rules") == [res["rule"]]
    rule = get(f"l7policies/{res['policy']}/rules/{res['rule']}")["rule"]
    assert (rule["value"], rule["provisioning_status"]) == ("/api", "ACTIVE")
    assert api.output(stack, "flavor_profile_id") == res["p1"]
    assert res["az"] == get(f"availabilityzones/{res['az']}")["availability_zone"]["name"]
    assert api.output(stack, "az_profile_id") == res["azp"]
    alarm = api.cloud("alarming").get(f"/v2/alarms/{res['health']}").json()
    assert alarm["loadbalancer_member_health_rule"] == {
        "pool_id": res["pool"], "stack_id": "s-1", "autoscaling_group_id": "g-1"}
    quota = get(f"quotas/{demo}")["quota"]
    assert (quota["load_balancer"], quota["pool"]) == (5, 7)

    stack = api.update(stack, TEMPLATE, {"rule_value": "/v2", "policy_name": "v2",
                                         "profile": "two", "flavor_enabled": False,
                                         "topology": "ACTIVE_STANDBY", "lb_limit": 9})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert {n for n in res if after[n] != res[n]} == {"flavor"}     # the only replacement
    assert get(f"l7policies/{res['policy']}/rules/{res['rule']}")["rule"]["value"] == "/v2"
    assert get(f"l7policies/{res['policy']}")["l7policy"]["name"] == "v2"
    flavor = get(f"flavors/{after['flavor']}")["flavor"]
    assert (flavor["flavor_profile_id"], flavor["enabled"]) == (res["p2"], False)
    assert "ACTIVE_STANDBY" in get(f"flavorprofiles/{res['p1']}")["flavorprofile"]["flavor_data"]
    assert lb_api.get(f"/v2/lbaas/flavors/{res['flavor']}", raise_exc=False).status_code == 404
    assert get(f"quotas/{demo}")["quota"]["load_balancer"] == 9

    api.delete(stack)
    assert get(f"quotas/{demo}")["quota"]["load_balancer"] == -1   # back to the defaults


BAD_POLICY = """
heat_template_version: 2018-08-31
resources:
  policy:
    type: OS::Octavia::L7Policy
    properties: {listener: nope, action: REJECT, redirect_url: 'http://x'}
"""


def test_l7_policy_checks_its_action_as_heat(api: Any) -> None:
    from heatclient import exc
    with pytest.raises(exc.HTTPBadRequest, match="Properties redirect_pool and redirect_url are "
                       "not required when action type is set to REJECT"):
        api.heat.stacks.create(stack_name="bad-l7", template=BAD_POLICY)
