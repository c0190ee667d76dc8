"""A scaling policy's ``alarm_url`` and ``signal_url`` over the real services (SQLite, tasks
in-process), as Heat's signal_responder.py and scaling_policy.py: ``alarm_url`` is a
never-expiring (no ``Timestamp``) pre-signed EC2v2 URL of the CFN API's ``POST
/v1/signal/<ARN>``; an unauthenticated POST to it scales the group, a changed signature is a 403
``SignatureDoesNotMatch`` and changes nothing; a signal that scales nothing (cooldown, bounds)
answers as any other (Heat's ``NoActionRequired``: no error, no event);
``signal_url`` is the Orchestration API's ``.../resources/<policy>/signal``.
AWS::AutoScaling::ScalingPolicy's reference id and ``AlarmUrl`` are the signed URL."""
from __future__ import annotations

from urllib.parse import parse_qs, quote, unquote, urlencode, urlparse

import pytest
from sqlalchemy import select

from app.models import Resource, Stack, read_session

HOT = "2018-08-31"


def _template(cooldown: int = 0) -> dict:
    def policy(adjustment: int) -> dict:
        return {"type": "OS::Heat::ScalingPolicy", "properties": {
            "auto_scaling_group_id": {"get_resource": "asg"}, "cooldown": cooldown,
            "adjustment_type": "change_in_capacity", "scaling_adjustment": adjustment}}
    return {"heat_template_version": HOT, "resources": {
        "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": 1, "max_size": 3, "cooldown": cooldown,
            "resource": {"type": "OS::Heat::RandomString"}}},
        "up": policy(1), "down": policy(-1)},
        "outputs": {"up_alarm": {"value": {"get_attr": ["up", "alarm_url"]}},
                    "up_signal": {"value": {"get_attr": ["up", "signal_url"]}},
                    "down_alarm": {"value": {"get_attr": ["down", "alarm_url"]}},
                    "size": {"value": {"get_attr": ["asg", "current_size"]}}}}


@pytest.fixture()
def apis(db):  # type: ignore[no-untyped-def]
    from app import cfn
    from app.api import create_app
    return create_app(db).test_client(), cfn.create_app(db).test_client()


def _stack(api, name: str, template: dict) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    resp = api.post("/v1/admin/stacks", json={"stack_name": name, "template": template})
    assert resp.status_code == 201, resp.get_json()
    sid = resp.get_json()["stack"]["id"]
    return sid, f"/v1/admin/stacks/{name}/{sid}"


def _outs(api, base: str) -> dict:  # type: ignore[no-untyped-def]
    st = api.get(base).get_json()["stack"]
    assert st["stack_status"].endswith("_COMPLETE"), st["stack_status_reason"]
    return {o["output_key"]: o["output_value"] for o in st["outputs"]}


def _post(cfn, url: str, body: str | None = None):  # type: ignore[no-untyped-def]
    parts = urlparse(url)
    return cfn.post(parts.path + "?" + parts.query, base_url=f"{parts.scheme}://{parts.netloc}",
                    data=body, content_type="application/json")


def _members(sid: str) -> list[str]:
    """The group's live members, oldest first."""
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == sid)).scalar_one()
        rows = s.execute(select(Resource).where(Resource.stack_id == child.id)
                         .order_by(Resource.created_at, Resource.id)).scalars().all()
        return [r.name for r in rows if r.action not in ("DELETE", "INIT")]


def _tampered(url: str) -> str:
    parts = urlparse(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    sig = query["Signature"]
    query["Signature"] = ("A" if sig[0] != "A" else "B") + sig[1:]
    return parts._replace(query=urlencode(query)).geturl()


def test_alarm_url_is_a_never_expiring_signed_cfn_signal_url(apis):
    api, _ = apis
    sid, base = _stack(api, "asg-urls", _template())
    outs = _outs(api, base)
    arn = f"arn:openstack:heat::admin:stacks/asg-urls/{sid}/resources/up"
    url = outs["up_alarm"]
    assert url.startswith(f"http://127.0.0.1:8000/v1/signal/{quote(arn)}?")
    query = parse_qs(urlparse(url).query)
    assert set(query) == {"SignatureMethod", "SignatureVersion", "AWSAccessKeyId", "Signature"}
    assert query["SignatureMethod"] == ["HmacSHA256"] and query["SignatureVersion"] == ["2"]
    assert outs["down_alarm"] != url
    assert outs["up_signal"] == \
        f"http://127.0.0.1:8004/v1/admin/stacks/asg-urls/{sid}/resources/up/signal"
    # the resource show's attributes give the same URLs
    attrs = api.get(f"{base}/resources/up").get_json()["resource"]["attributes"]
    assert attrs["alarm_url"] == url and attrs["signal_url"] == outs["up_signal"]


def test_alarm_url_scales_up_a_tampered_one_is_refused_signal_url_scales_down(apis):
    api, cfn = apis
    sid, base = _stack(api, "asg-scale", _template())
    outs = _outs(api, base)
    (first,) = _members(sid)

    # Aodh's notification body; no credentials: the signature is enough
    resp = _post(cfn, outs["up_alarm"], '{"previous": "ok", "current": "alarm", '
                 '"reason": "cpu high"}')
    assert resp.status_code == 200 and resp.data == b"", resp.data  # Heat's: 200, no body
    assert _outs(api, base)["size"] == 2 and len(_members(sid)) == 2
    # the policy returns nothing, so Heat's event reason describes the alarm
    signalled = [e for e in api.get(f"{base}/resources/up/events").get_json()["events"]
                 if e["resource_status"] == "SIGNAL_COMPLETE"]
    assert [e["resource_status_reason"] for e in signalled] == \
        ["alarm state changed from ok to alarm (cpu high)"]

    resp = _post(cfn, _tampered(outs["up_alarm"]))
    assert resp.status_code == 403
    assert b"SignatureDoesNotMatch" in resp.data
    assert _outs(api, base)["size"] == 2 and len(_members(sid)) == 2

    # the down policy's key does not sign the up policy's URL
    down_key = parse_qs(urlparse(outs["down_alarm"]).query)["AWSAccessKeyId"][0]
    up = urlparse(outs["up_alarm"])
    query = {k: v[0] for k, v in parse_qs(up.query).items()}
    query["AWSAccessKeyId"] = down_key
    assert _post(cfn, up._replace(query=urlencode(query)).geturl()).status_code == 403

    path = urlparse(outs["up_signal"]).path.replace("/up/", "/down/")
    resp = api.post(path, json={"current": "alarm"})
    assert resp.status_code == 200, resp.get_json()
    members = _members(sid)
    assert len(members) == 1 and first not in members
    assert _outs(api, base)["size"] == 1


def test_a_signal_that_scales_nothing_answers_without_error_or_event(apis):
    api, cfn = apis
    sid, base = _stack(api, "asg-noop", _template(cooldown=3600))
    outs = _outs(api, base)
    events = len(api.get(f"{base}/events").get_json()["events"])
    # the create started the group's cooldown: nothing is done, as Heat answers
    assert _post(cfn, outs["up_alarm"], '{"current": "alarm"}').status_code == 200
    assert api.post(f"{base}/resources/up/signal", json={}).status_code == 200
    assert _outs(api, base)["size"] == 1 and len(_members(sid)) == 1
    assert len(api.get(f"{base}/events").get_json()["events"]) == events


AWS_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "LC": {"Type": "AWS::AutoScaling::LaunchConfiguration",
               "Properties": {"ImageId": "cirros", "InstanceType": "m1.tiny"}},
        "Up": {"Type": "AWS::AutoScaling::ScalingPolicy", "Properties": {
            "AutoScalingGroupName": "nope", "AdjustmentType": "ChangeInCapacity",
            "ScalingAdjustment": 1}}},
    "Outputs": {"Ref": {"Value": {"Ref": "Up"}},
                "AlarmUrl": {"Value": {"Fn::GetAtt": ["Up", "AlarmUrl"]}}}}


def test_aws_policy_reference_and_alarm_url_are_the_signed_url(apis):
    api, _ = apis
    sid, base = _stack(api, "aws-policy", AWS_TEMPLATE)
    outs = _outs(api, base)
    arn = f"arn:openstack:heat::admin:stacks/aws-policy/{sid}/resources/Up"
    assert outs["Ref"].startswith(f"http://127.0.0.1:8000/v1/signal/{quote(arn)}?")
    assert outs["AlarmUrl"] == outs["Ref"]
    assert "Timestamp" not in parse_qs(urlparse(outs["Ref"]).query)


def _signed_with(url: str, secret: str, **extra: str) -> str:
    """``url`` signed again by ``secret`` with ``extra`` query parameters."""
    from app.resource_types import _ec2sign
    parts = urlparse(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items() if k != "Signature"}
    query.update(extra)
    query["Signature"] = _ec2sign.signature_v2(secret, "POST", parts.netloc, unquote(parts.path),
                                               query)
    return parts._replace(query=urlencode(query)).geturl()


def test_content_type_json_signed_into_the_url_answers_json(apis):
    """heat-api-cfn (heat/common/wsgi.py ``Resource``): ``ContentType=JSON`` in the query makes
    the answer JSON — ``null`` for a signal, the ErrorResponse document for an error. The EC2
    signature covers every query parameter, so it works only when signed into the URL;
    appended to a pre-signed URL it is a 403 (here answered in JSON, as asked)."""
    api, cfn = apis
    sid, base = _stack(api, "asg-json", _template())
    outs = _outs(api, base)
    with read_session() as s:
        secret = s.execute(select(Resource.rsrc_data).where(
            Resource.stack_id == sid, Resource.name == "up")).scalar_one()["secret_key"]

    appended = outs["up_alarm"] + "&ContentType=JSON"
    resp = _post(cfn, appended, '{"current": "alarm"}')
    assert resp.status_code == 403 and resp.mimetype == "application/json"
    assert resp.get_json()["ErrorResponse"]["Error"] == {
        "Type": "Sender", "Code": "SignatureDoesNotMatch",
        "Message": "The request signature we calculated does not match the signature you "
                   "provided"}
    assert _outs(api, base)["size"] == 1

    resp = _post(cfn, _signed_with(outs["up_alarm"], secret, ContentType="JSON"),
                 '{"current": "alarm", "previous": "ok", "reason": "cpu high"}')
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.data == b"null"
    assert _outs(api, base)["size"] == 2


def test_a_body_heats_deserializer_does_not_take_is_a_signal_without_details(apis):
    """heat/common/wsgi.py ``is_json_content_type``: only a JSON (or text/plain, or untyped)
    body that starts with ``{`` is the signal's details; anything else is ignored."""
    api, cfn = apis
    _, base = _stack(api, "asg-body", _template())
    outs = _outs(api, base)
    parts = urlparse(outs["up_alarm"])
    target = parts.path + "?" + parts.query
    host = f"{parts.scheme}://{parts.netloc}"
    resp = cfn.post(target, base_url=host, content_type="text/plain",
                    data='{"previous": "ok", "current": "alarm", "reason": "plain"}')
    assert resp.status_code == 200, resp.data
    resp = cfn.post(target, base_url=host, data='["not", "an", "object"]',
                    content_type="application/json")
    assert resp.status_code == 200, resp.data
    reasons = [e["resource_status_reason"]
               for e in api.get(f"{base}/resources/up/events").get_json()["events"]
               if e["resource_status"] == "SIGNAL_COMPLETE"]
    assert sorted(reasons) == ["No signal details provided",
                               "alarm state changed from ok to alarm (plain)"]
    assert _outs(api, base)["size"] == 3
    down = urlparse(outs["down_alarm"])
    resp = cfn.post(down.path + "?" + down.query, base_url=host,
                    content_type="application/octet-stream", data='{"previous": "ok", "current": "alarm", "reason": "binary"}')
    assert resp.status_code == 200, resp.data
    reasons = [e["resource_status_reason"]
               for e in api.get(f"{base}/resources/down/events").get_json()["events"]
               if e["resource_status"] == "SIGNAL_COMPLETE"]
    assert reasons == ["No signal details provided"]
    assert _outs(api, base)["size"] == 2
    resp = cfn.post(target, base_url=host, data='{"current": ', content_type="application/json")
    assert resp.status_code == 400
