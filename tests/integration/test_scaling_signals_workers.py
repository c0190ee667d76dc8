"""Scaling webhooks end to end through the APIs with real Celery workers, Redis and
PostgreSQL: an AutoScalingGroup (min 1, max 3) of OS::Heat::RandomString with up and down
OS::Heat::ScalingPolicy (cooldown 0). An unauthenticated POST to the up policy's ``alarm_url``
(CFN ``/v1/signal``, pre-signed) grows it to 2; the same URL with a changed signature is a 403
and leaves 2; a signal to the down policy through the Orchestration API shrinks it to 1, the
oldest member removed (Heat's signal_responder.py, scaling_policy.py, autoscaling_group.py)."""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from sqlalchemy import select

from app.context import RequestContext
from app.models import Resource, Stack, read_session
from tests.fixtures.stacks import final, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")


def _policy(adjustment: int) -> dict[str, Any]:
    return {"type": "OS::Heat::ScalingPolicy", "properties": {
        "auto_scaling_group_id": {"get_resource": "asg"}, "cooldown": 0,
        "adjustment_type": "change_in_capacity", "scaling_adjustment": adjustment}}


TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {
    "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
        "min_size": 1, "max_size": 3, "cooldown": 0,
        "resource": {"type": "OS::Heat::RandomString"}}},
    "up": _policy(1), "down": _policy(-1)},
    "outputs": {"up_url": {"value": {"get_attr": ["up", "alarm_url"]}},
                "down_signal": {"value": {"get_attr": ["down", "signal_url"]}}}}


@pytest.fixture()
def apis(engine_settings, workers):  # type: ignore[no-untyped-def]
    from app.cli.wsgi import create_app, create_cfn_app
    client = create_app(engine_settings).test_client()
    client.environ_base["HTTP_X_PROJECT_ID"] = "itest"  # noauth's project header
    return client, create_cfn_app(engine_settings).test_client()


def _members(sid: str) -> list[str] | None:
    """The group's members oldest first, once the group and its nested stack are settled."""
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == sid)).scalar_one()
        group = s.execute(select(Resource).where(Resource.stack_id == sid,
                                                 Resource.name == "asg")).scalar_one()
        if child.status == "IN_PROGRESS" or group.status != "COMPLETE" or group.engine_id \
                or "scaling_op" in (group.rsrc_data or {}):
            return None
        rows = s.execute(select(Resource).where(Resource.stack_id == child.id)
                         .order_by(Resource.created_at, Resource.id)).scalars().all()
        return [r.name for r in rows if r.action not in ("DELETE", "INIT")]


def _size(sid: str, n: int) -> list[str]:
    return wait_for(lambda: (m := _members(sid)) is not None and len(m) == n and m, 120,
                    what=f"the group to settle at {n} members")


def _post(cfn, url: str):  # type: ignore[no-untyped-def]
    parts = urlparse(url)
    return cfn.post(parts.path + "?" + parts.query, base_url=f"{parts.scheme}://{parts.netloc}")


def test_alarm_url_scales_up_a_tampered_url_is_refused_the_api_signal_scales_down(apis):
    api, cfn = apis
    resp = api.post("/v1/itest/stacks", json={"stack_name": "asg-hooks", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_json()
    sid = resp.get_json()["stack"]["id"]
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = api.get(f"/v1/itest/stacks/asg-hooks/{sid}").get_json()["stack"]["outputs"]
    outs = {o["output_key"]: o["output_value"] for o in outs}
    (first,) = _size(sid, 1)

    assert _post(cfn, outs["up_url"]).status_code == 200
    grown = _size(sid, 2)
    assert grown[0] == first

    parts = urlparse(outs["up_url"])
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query["Signature"] = ("A" if query["Signature"][0] != "A" else "B") + \
        query["Signature"][1:]
    resp = _post(cfn, parts._replace(query=urlencode(query)).geturl())
    assert resp.status_code == 403 and b"SignatureDoesNotMatch" in resp.data
    assert _members(sid) == grown

    resp = api.post(urlparse(outs["down_signal"]).path, json={"current": "alarm"})
    assert resp.status_code == 200, resp.get_json()
    left = _size(sid, 1)
    assert left == grown[1:] and first not in left
    st = final(CTX, sid, 60)
    assert st.stack_status == "CREATE_COMPLETE"
