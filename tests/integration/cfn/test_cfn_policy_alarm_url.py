"""A scaling policy's ``alarm_url`` (OS::Heat::ScalingPolicy) / ``AlarmUrl`` and Ref
(AWS::AutoScaling::ScalingPolicy) is the pre-signed URL of heat-api-cfn's ``POST
/v1/signal/<arn>`` (Heat's SignalResponder._get_ec2_signed_url); a POST to it scales the group
(an alarm's action does this); ``signal_url`` is the native API's resource signal URL."""
from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest

HOT = {"heat_template_version": "2018-08-31", "resources": {
    "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
        "min_size": 1, "max_size": 3, "resource": {"type": "OS::Heat::Value",
                                                   "properties": {"value": "m"}}}},
    "up": {"type": "OS::Heat::ScalingPolicy", "properties": {
        "auto_scaling_group_id": {"get_resource": "asg"},
        "adjustment_type": "change_in_capacity", "scaling_adjustment": 1}}},
    "outputs": {"alarm": {"value": {"get_attr": ["up", "alarm_url"]}},
                "native": {"value": {"get_attr": ["up", "signal_url"]}},
                "size": {"value": {"get_attr": ["asg", "current_size"]}}}}

# the AWS policy beside a native group (it needs no cloud); Heat resolves the group by name
CFN = {"heat_template_version": "2018-08-31", "resources": {
    "asg": HOT["resources"]["asg"],
    "P": {"type": "AWS::AutoScaling::ScalingPolicy", "properties": {
        "AdjustmentType": "ChangeInCapacity", "AutoScalingGroupName": {"get_resource": "asg"},
        "ScalingAdjustment": 1}}},
    "outputs": {"Ref": {"value": {"get_resource": "P"}},
                "Url": {"value": {"get_attr": ["P", "AlarmUrl"]}}}}


@pytest.fixture()
def apis(db):  # type: ignore[no-untyped-def]
    from app import cfn
    from app.api import create_app
    return create_app(db).test_client(), cfn.create_app(db).test_client()


def _outputs(api, base: str) -> dict:  # type: ignore[no-untyped-def]
    st = api.get(base).get_json()["stack"]
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    return {o["output_key"]: o["output_value"] for o in st["outputs"]}


def test_alarm_url_is_presigned_for_the_signal_endpoint_and_scales_the_group(apis):
    api, cfn = apis
    resp = api.post("/v1/admin/stacks", json={"stack_name": "pol", "template": HOT})
    assert resp.status_code == 201, resp.get_json()
    stack_id = resp.get_json()["stack"]["id"]
    base = f"/v1/admin/stacks/pol/{stack_id}"
    outs = _outputs(api, base)
    arn = f"arn:openstack:heat::admin:stacks/pol/{stack_id}/resources/up"
    assert outs["alarm"].startswith(f"http://127.0.0.1:8000/v1/signal/{quote(arn)}?")
    assert outs["native"] == f"http://127.0.0.1:8004/v1/admin{base[len('/v1/admin'):]}" \
                             "/resources/up/signal"
    assert outs["size"] == 1
    parts = urlparse(outs["alarm"])
    resp = cfn.post(parts.path + "?" + parts.query,
                    base_url=f"{parts.scheme}://{parts.netloc}")
    assert resp.status_code == 200, resp.data
    assert _outputs(api, base)["size"] == 2
    tampered = outs["alarm"].replace("/resources/up", "/resources/asg")
    parts = urlparse(tampered)
    assert cfn.post(parts.path + "?" + parts.query,
                    base_url=f"{parts.scheme}://{parts.netloc}").status_code == 403


def test_aws_policy_ref_is_its_alarm_url(apis):
    api, _ = apis
    resp = api.post("/v1/admin/stacks", json={"stack_name": "awspol", "template": CFN})
    assert resp.status_code == 201, resp.get_json()
    stack_id = resp.get_json()["stack"]["id"]
    outs = _outputs(api, f"/v1/admin/stacks/awspol/{stack_id}")
    arn = f"arn:openstack:heat::admin:stacks/awspol/{stack_id}/resources/P"
    assert outs["Ref"] == outs["Url"]
    assert outs["Ref"].startswith(f"http://127.0.0.1:8000/v1/signal/{quote(arn)}?")
