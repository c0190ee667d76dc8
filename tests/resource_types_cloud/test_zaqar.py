"""Zaqar types against the sandbox (whose Mistral, ``workflowv2``, runs the trigger's workflows):
the MistralTrigger's subscription as Heat builds it, a subscription's bad subscriber refused
with Heat's message, and a redelivered subscription create that keeps the first one's."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app import errors

pytestmark = pytest.mark.usefixtures("no_leaks")

WORKFLOW = {"type": "direct", "tasks": [{"name": "noop", "action": "std.noop"}]}


def test_mistral_trigger_subscribes_the_workflow_execution(driver: Any, sandbox: Any) -> None:
    mistral = f"{sandbox.url}/workflow/v2"
    wf1 = driver.create("OS::Mistral::Workflow", "wf1", dict(WORKFLOW))
    wf2 = driver.create("OS::Mistral::Workflow", "wf2", dict(WORKFLOW))
    queue = driver.create("OS::Zaqar::Queue", "queue", {"name": "triggers"})
    trigger = driver.create("OS::Zaqar::MistralTrigger", "trigger", {
        "queue_name": "triggers", "workflow_id": wf1.resource_id, "params": {"env": {"a": 1}},
        "input": {"x": 2}, "ttl": 3600})
    shown = trigger.resolve_attribute("show")
    assert shown["subscriber"] == f"trust+{mistral}/executions"
    assert shown["ttl"] == 3600
    assert json.loads(shown["options"]["post_data"]) == {
        "workflow_id": wf1.resource_id, "params": {"env": {"a": 1, "notification": "$zaqar_message$"}},
        "input": {"x": 2}}
    # a message posted to the queue is recorded as the execution it would start
    queue.zaqar("POST", "/queues/triggers/messages", json={"messages": [{"body": {"go": 1}}]})
    store = sandbox.app.extensions["sandbox"].store
    assert store.get("zaqar_subscriptions", trigger.resource_id)["deliveries"] == \
        [{"subscriber": f"trust+{mistral}/executions", "body": {"go": 1}}]
    trigger = driver.update(trigger, {"queue_name": "triggers", "workflow_id": wf2.resource_id,
                                      "ttl": 3600})
    assert json.loads(trigger.resolve_attribute("show")["options"]["post_data"])[
        "workflow_id"] == wf2.resource_id
    assert queue.resolve_attribute("href").endswith("/messaging/v2/queues/triggers")
    driver.delete(trigger)
    driver.delete(queue)
    driver.delete(wf1)
    driver.delete(wf2)


def test_subscription_checks_its_subscriber_and_adopts_a_redelivered_create(driver: Any) -> None:
    bad = driver.make("OS::Zaqar::Subscription", "sub", {"queue_name": "q1",
                                                         "subscriber": "ftp://x"})
    with pytest.raises(errors.ValidationError) as caught:
        bad.validate()
    assert str(caught.value) == ("The subscriber type of must be one of: http, https, mailto, "
                                 "trust+http, trust+https.")
    props = {"queue_name": "q1", "subscriber": "mailto:a@example.com"}
    first = driver.create("OS::Zaqar::Subscription", "sub", props)
    again = driver.make("OS::Zaqar::Subscription", "sub", props)
    again.handle_create()               # the task redelivered: Zaqar's 409, the same one kept
    assert again.resource_id == first.resource_id
    assert first.resolve_attribute("show")["ttl"] == 220367260800
    driver.delete(first)
