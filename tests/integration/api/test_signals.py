"""Resource signals and metadata through the API over the real services (SQLite, tasks run
in-process): a wait condition parks without a task, the signal request wakes it, and it runs
to its end inside the signal's request (the inline dispatcher drains there)."""
from __future__ import annotations

import json

import pytest

HOT = "2018-08-31"


@pytest.fixture()
def real(client):  # type: ignore[no-untyped-def]
    client.application.config["SERVER_NAME"] = "127.0.0.1:8004"
    return client


def _wait_template(count: int = 1, timeout: int = 600) -> dict:
    return {"heat_template_version": HOT, "resources": {
        "h": {"type": "OS::Heat::WaitConditionHandle"},
        "wc": {"type": "OS::Heat::WaitCondition",
               "properties": {"handle": {"get_resource": "h"}, "count": count,
                              "timeout": timeout}},
        "after": {"type": "OS::Heat::None", "depends_on": ["wc"]}},
        "outputs": {"data": {"value": {"get_attr": ["wc", "data"]}},
                    "curl": {"value": {"get_attr": ["h", "curl_cli"]}}}}


def _create(real, name: str, template: dict) -> str:  # type: ignore[no-untyped-def]
    resp = real.post("/v1/admin/stacks", json={"stack_name": name, "template": template})
    assert resp.status_code == 201, resp.get_json()
    return f"/v1/admin/stacks/{name}/{resp.get_json()['stack']['id']}"


def _stack(real, base: str) -> dict:  # type: ignore[no-untyped-def]
    return real.get(base).get_json()["stack"]


def _resource(real, base: str, name: str) -> dict:  # type: ignore[no-untyped-def]
    return real.get(f"{base}/resources/{name}").get_json()["resource"]


def _outputs(stack: dict) -> dict:
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}


def test_two_signals_with_ids_complete_a_count_two_wait_condition(real):
    base = _create(real, "wc2", _wait_template(count=2))
    assert _stack(real, base)["stack_status"] == "CREATE_IN_PROGRESS"
    wc = _resource(real, base, "wc")
    assert wc["resource_status"] == "CREATE_IN_PROGRESS"
    assert _resource(real, base, "after")["resource_status"] == "INIT_COMPLETE"

    resp = real.post(f"{base}/resources/h/signal",
                     json={"id": "a", "status": "SUCCESS", "data": "one", "reason": "r-a"})
    assert resp.status_code == 200 and resp.get_data() == b""
    assert _resource(real, base, "wc")["resource_status"] == "CREATE_IN_PROGRESS"
    resp = real.post(f"{base}/resources/h/signal", json={"id": "b", "data": "two"})
    assert resp.status_code == 200

    st = _stack(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    assert json.loads(_outputs(st)["data"]) == {"a": "one", "b": "two"}
    meta = real.get(f"{base}/resources/h/metadata")
    assert meta.status_code == 200
    assert meta.get_json() == {"metadata": {
        "a": {"status": "SUCCESS", "data": "one", "reason": "r-a"},
        "b": {"status": "SUCCESS", "data": "two", "reason": "Signal 2 received"}}}
    events = real.get(f"{base}/resources/h/events").get_json()["events"]
    signals = [e["resource_status_reason"] for e in events
               if e["resource_status"] == "SIGNAL_COMPLETE"]
    assert sorted(signals) == ["Signal: status:SUCCESS reason:Signal 2 received",
                               "Signal: status:SUCCESS reason:r-a"]


def test_a_repeated_signal_id_counts_once_and_writes_no_second_event(real):
    base = _create(real, "wc-dup", _wait_template(count=2))
    body = {"id": "a", "status": "SUCCESS", "data": "x", "reason": "r"}
    assert real.post(f"{base}/resources/h/signal", json=body).status_code == 200
    assert real.post(f"{base}/resources/h/signal", json=body).status_code == 200
    assert _resource(real, base, "wc")["resource_status"] == "CREATE_IN_PROGRESS"
    events = real.get(f"{base}/resources/h/events").get_json()["events"]
    assert sum(e["resource_status"] == "SIGNAL_COMPLETE" for e in events) == 1
    # the same id with new content overwrites it (Heat), still one signal counted
    body["data"] = "y"
    assert real.post(f"{base}/resources/h/signal", json=body).status_code == 200
    assert real.get(f"{base}/resources/h/metadata").get_json()["metadata"] == {
        "a": {"status": "SUCCESS", "data": "y", "reason": "r"}}
    assert _resource(real, base, "wc")["resource_status"] == "CREATE_IN_PROGRESS"


def test_an_empty_signal_gets_heat_defaults(real):
    base = _create(real, "wc-empty", _wait_template())
    assert real.post(f"{base}/resources/h/signal").status_code == 200
    st = _stack(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE"
    assert json.loads(_outputs(st)["data"]) == {"1": None}
    assert real.get(f"{base}/resources/h/metadata").get_json()["metadata"] == {
        "1": {"status": "SUCCESS", "data": None, "reason": "Signal 1 received"}}


def test_a_failure_signal_fails_the_wait_condition(real):
    base = _create(real, "wc-fail", _wait_template())
    resp = real.post(f"{base}/resources/h/signal",
                     json={"status": "FAILURE", "reason": "it broke"})
    assert resp.status_code == 200
    st = _stack(real, base)
    assert st["stack_status"] == "CREATE_FAILED"
    assert st["stack_status_reason"] == \
        "Resource CREATE failed: WaitConditionFailure: resources.wc: it broke"
    assert _resource(real, base, "wc")["resource_status_reason"] == \
        "WaitConditionFailure: resources.wc: it broke"


def test_handle_attributes(real):
    base = _create(real, "wc-attrs", _wait_template())
    h = _resource(real, base, "h")
    attrs = h["attributes"]
    stack_id = base.rsplit("/", 1)[1]
    assert attrs["endpoint"] == (f"http://127.0.0.1:8004/v1/admin/stacks/wc-attrs/{stack_id}"
                                 "/resources/h/signal")
    assert attrs["curl_cli"] == (
        f"curl -i -X POST -H 'X-Auth-Token: {attrs['token']}' "
        "-H 'Content-Type: application/json' -H 'Accept: application/json' "
        f"{attrs['endpoint']}")
    assert attrs["signal"] == "null"
    assert h["physical_resource_id"]


def test_signal_to_a_type_that_takes_none_is_heats_400(real):
    base = _create(real, "nosig", {"heat_template_version": HOT, "resources": {
        "n": {"type": "OS::Heat::None"}}})
    resp = real.post(f"{base}/resources/n/signal", json={"a": 1})
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"]["type"] == "ResourceActionNotSupported"
    assert body["error"]["message"] == "signal is not supported for resource."
    assert body["code"] == 400 and body["title"] == "Bad Request"


def test_signal_to_an_unknown_resource_is_404(real):
    base = _create(real, "nores", {"heat_template_version": HOT, "resources": {
        "n": {"type": "OS::Heat::None"}}})
    resp = real.post(f"{base}/resources/nope/signal", json={})
    assert resp.status_code == 404
    assert resp.get_json()["error"]["message"] == \
        "The Resource (nope) could not be found in Stack nores."
    assert real.get(f"{base}/resources/nope/metadata").status_code == 404


def test_malformed_signal_bodies_are_400_and_store_nothing(real):
    base = _create(real, "wc-bad", _wait_template())
    resp = real.post(f"{base}/resources/h/signal", data="{not json",
                     content_type="application/json")
    assert resp.status_code == 400
    resp = real.post(f"{base}/resources/h/signal", json={"status": "MAYBE"})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == \
        "ValueError: resources.h: Metadata format invalid"
    resp = real.post(f"{base}/resources/h/signal", json={"status": "SUCCESS", "colour": "red"})
    assert resp.status_code == 400
    resp = real.post(f"{base}/resources/h/signal", json=["a", "list"])
    assert resp.status_code == 400
    assert real.get(f"{base}/resources/h/metadata").get_json() == {"metadata": {}}
    assert _resource(real, base, "wc")["resource_status"] == "CREATE_IN_PROGRESS"
    events = real.get(f"{base}/resources/h/events").get_json()["events"]
    assert not [e for e in events if e["resource_status"].startswith("SIGNAL")]


def test_signal_after_the_stack_was_deleted_is_404(real):
    base = _create(real, "gone", _wait_template())
    assert real.delete(base).status_code == 204
    assert _stack(real, base)["stack_status"] == "DELETE_COMPLETE"
    resp = real.post(f"{base}/resources/h/signal", json={})
    assert resp.status_code == 404
    assert resp.get_json()["error"]["message"] == "The Stack (gone) could not be found."


def test_metadata_of_a_plain_resource_is_its_template_metadata(real):
    base = _create(real, "meta", {"heat_template_version": HOT, "resources": {
        "r": {"type": "OS::Heat::RandomString"},
        "n": {"type": "OS::Heat::None",
              "metadata": {"k": "v", "ref": {"get_resource": "r"}}}}})
    body = real.get(f"{base}/resources/n/metadata").get_json()
    ref = _resource(real, base, "r")["attributes"]["value"]  # RandomString's reference
    assert body == {"metadata": {"k": "v", "ref": ref}}
    assert real.get(f"{base}/resources/r/metadata").get_json() == {"metadata": {}}


def test_update_wait_condition_handle_takes_cfn_format_signals(real):
    base = _create(real, "uwch", {"heat_template_version": HOT, "resources": {
        "h": {"type": "OS::Heat::UpdateWaitConditionHandle"},
        "wc": {"type": "OS::Heat::WaitCondition",
               "properties": {"handle": {"get_resource": "h"}, "timeout": 600}}},
        "outputs": {"data": {"value": {"get_attr": ["wc", "data"]}},
                    "ref": {"value": {"get_resource": "h"}}}})
    resp = real.post(f"{base}/resources/h/signal", json={"status": "SUCCESS"})
    assert resp.status_code == 400  # the native fields are not the CFN ones
    resp = real.post(f"{base}/resources/h/signal", json={
        "Status": "SUCCESS", "Reason": "r", "Data": "cfn", "UniqueId": "u1"})
    assert resp.status_code == 200
    st = _stack(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    outs = _outputs(st)
    assert json.loads(outs["data"]) == {"u1": "cfn"}
    assert "/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3Aadmin%3Astacks/uwch/" in outs["ref"]


def test_unset_hook_signals_are_checked_as_heats(real):
    resp = real.post("/v1/admin/stacks", json={
        "stack_name": "hooks",
        "template": {"heat_template_version": HOT, "resources": {
            "n": {"type": "OS::Heat::None"}}},
        "environment": {"resource_registry": {"resources": {"n": {"hooks": "pre-update"}}}}})
    assert resp.status_code == 201, resp.get_json()
    sid = resp.get_json()["stack"]["id"]
    base = f"/v1/admin/stacks/hooks/{sid}"
    phys = _resource(real, base, "n")["physical_resource_id"]
    where = f'NoneResource "n" [{phys}] Stack "hooks" [{sid}]'
    resp = real.post(f"{base}/resources/n/signal", json={"unset_hook": "pre-nothing"})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["type"] == "InvalidBreakPointHook"
    assert resp.get_json()["error"]["message"] == f'Invalid hook type "pre-nothing" for {where}'
    resp = real.post(f"{base}/resources/n/signal", json={"unset_hook": "pre-create"})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == \
        f'The "pre-create" hook is not defined on {where}'
    resp = real.post(f"{base}/resources/n/signal", json={"unset_hook": "pre-update"})
    assert resp.status_code == 200  # a None takes no signal, but a hook is cleared on any
    events = real.get(f"{base}/resources/n/events").get_json()["events"]
    assert [e["resource_status_reason"] for e in events
            if e["resource_status_reason"].startswith("Hook")] == ["Hook pre-update is cleared"]


def test_a_signal_waits_for_the_resource_lock_and_gives_up_with_409(real, monkeypatch):
    from sqlalchemy import update

    from app.convergence.steps import signals as delivery
    from app.models import Resource, WorkerHeartbeat, session, utcnow
    base = _create(real, "locked", _wait_template())
    with session() as s:  # another live engine holds the handle
        s.add(WorkerHeartbeat(engine_id="elsewhere:1", last_seen=utcnow()))
        s.execute(update(Resource).where(Resource.name == "h").values(engine_id="elsewhere:1"))
    monkeypatch.setattr(delivery, "LOCK_WAIT_SECONDS", 0.05)
    resp = real.post(f"{base}/resources/h/signal", json={"id": "a"})
    assert resp.status_code == 409
    assert real.get(f"{base}/resources/h/metadata").get_json() == {"metadata": {}}
    with session() as s:  # released: the signal goes through
        s.execute(update(Resource).where(Resource.name == "h").values(engine_id=None))
    assert real.post(f"{base}/resources/h/signal", json={"id": "a"}).status_code == 200
    assert _stack(real, base)["stack_status"] == "CREATE_COMPLETE"
