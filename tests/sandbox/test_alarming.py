"""Aodh v2 of the sandbox: alarms created through an openstacksdk session, fired by the sandbox's
metric endpoint, POSTing to a webhook served by a local test HTTP server."""
from __future__ import annotations

import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from keystoneclient.v3 import client as ks_client

from tests.sandbox.conftest import wait_for

ALARMING = {"service_type": "alarming", "interface": "public"}


@pytest.fixture()
def webhook():
    """A local HTTP server recording every POST as ``(path, headers, json body)``."""
    received: queue.Queue = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            received.put((self.path, dict(self.headers), json.loads(self.rfile.read(length) or b"{}")))
            self.send_response(202)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", received
    server.shutdown()


def create_alarm(conn, **body):
    resp = conn.session.post("/v2/alarms", endpoint_filter=ALARMING, json=body)
    assert resp.status_code == 201
    return resp.json()


def test_threshold_alarm_fires_webhook(no_leaks, sandbox, conn, webhook):
    url, received = webhook
    alarm = create_alarm(conn, name="cpu-high", type="gnocchi_aggregation_by_resources_threshold",
                         gnocchi_aggregation_by_resources_threshold_rule={
                             "metric": "cpu_util", "threshold": 80, "comparison_operator": "gt",
                             "aggregation_method": "mean", "granularity": 60, "resource_type": "instance",
                             "query": json.dumps({"=": {"server_group": "stack-1"}})},
                         alarm_actions=[f"{url}/scale-up"], ok_actions=[f"{url}/ok"])
    assert alarm["state"] == "insufficient data"
    listed = conn.session.get("/v2/alarms", endpoint_filter=ALARMING).json()
    assert alarm["alarm_id"] in [a["alarm_id"] for a in listed]
    result = sandbox.admin("PUT", "metrics", json={"metric": "cpu_util", "value": 95})
    assert result["alarms"] == [{"alarm_id": alarm["alarm_id"], "state": "alarm"}]
    path, _, payload = received.get(timeout=5)
    assert path == "/scale-up"
    assert payload["alarm_id"] == alarm["alarm_id"] and payload["current"] == "alarm"
    assert payload["previous"] == "insufficient data"
    sandbox.admin("PUT", "metrics", json={"metric": "cpu_util", "value": 95})   # no change: no new POST
    sandbox.admin("PUT", "metrics", json={"metric": "cpu_util", "value": 10})
    path, _, payload = received.get(timeout=5)
    assert path == "/ok" and payload["current"] == "ok"
    assert received.empty()
    state = conn.session.get(f"/v2/alarms/{alarm['alarm_id']}/state", endpoint_filter=ALARMING).json()
    assert state == "ok"
    history = conn.session.get(f"/v2/alarms/{alarm['alarm_id']}/history", endpoint_filter=ALARMING).json()
    assert [h["type"] for h in history][-1] == "creation"
    assert conn.session.delete(f"/v2/alarms/{alarm['alarm_id']}", endpoint_filter=ALARMING).status_code == 204


def test_trust_action_carries_a_trust_scoped_token(no_leaks, sandbox, conn, webhook):
    url, received = webhook
    kc = ks_client.Client(session=conn.session)
    trustee = kc.users.find(name="stoker")
    trust = kc.trusts.create(trustor_user=conn.current_user_id, trustee_user=trustee.id,
                             project=conn.current_project_id, role_names=["member"], impersonation=True)
    host = url.split("//", 1)[1]
    alarm = create_alarm(conn, name="trusted", type="threshold",
                         threshold_rule={"meter_name": "load", "threshold": 1, "comparison_operator": "ge"},
                         alarm_actions=[f"trust+http://{trust.id}:delete@{host}/signal"])
    sandbox.admin("PUT", "metrics", json={"metric": "load", "value": 3, "alarm_id": alarm["alarm_id"]})
    path, headers, _ = received.get(timeout=5)
    assert path == "/signal"
    access = kc.tokens.validate(headers["X-Auth-Token"])
    assert access.trust_id == trust.id and access.user_id == conn.current_user_id
    conn.session.delete(f"/v2/alarms/{alarm['alarm_id']}", endpoint_filter=ALARMING)
    kc.trusts.delete(trust)


def test_alarm_validation_and_isolation(conn, demo_conn):
    resp = conn.session.post("/v2/alarms", endpoint_filter=ALARMING, raise_exc=False,
                             json={"name": "bad", "type": "threshold"})
    assert resp.status_code == 400 and "faultstring" in resp.json()["error_message"]
    alarm = create_alarm(conn, name="mine", type="threshold",
                         threshold_rule={"meter_name": "x", "threshold": 1, "comparison_operator": "gt"})
    resp = demo_conn.session.get(f"/v2/alarms/{alarm['alarm_id']}", endpoint_filter=ALARMING, raise_exc=False)
    assert resp.status_code == 404
    conn.session.delete(f"/v2/alarms/{alarm['alarm_id']}", endpoint_filter=ALARMING)
    wait_for(lambda: True)


def test_gnocchi_alarm_on_several_metrics_compares_their_aggregation(no_leaks, conn, sandbox):
    """A gnocchi_aggregation_by_metrics_threshold alarm compares the mean (its
    aggregation_method) of its metrics' latest values; prometheus and composite alarms are
    stored with their rules."""
    rule = {"metrics": ["m-a", "m-b"], "threshold": 50, "comparison_operator": "gt",
            "aggregation_method": "mean"}
    alarm = create_alarm(conn, name="by-metrics", type="gnocchi_aggregation_by_metrics_threshold",
                         gnocchi_aggregation_by_metrics_threshold_rule=rule)
    fired = sandbox.admin("PUT", "metrics", json={"metric": "m-a", "value": 90})
    assert fired["alarms"] == [{"alarm_id": alarm["alarm_id"], "state": "alarm"}]
    fired = sandbox.admin("PUT", "metrics", json={"metric": "m-b", "value": 0})   # mean 45
    assert fired["alarms"] == [{"alarm_id": alarm["alarm_id"], "state": "ok"}]
    prom = create_alarm(conn, name="prom", type="prometheus",
                        prometheus_rule={"query": "up", "threshold": 1, "comparison_operator": "lt"})
    assert prom["prometheus_rule"]["query"] == "up"
    composite = create_alarm(conn, name="comp", type="composite", composite_rule={"or": [
        {"type": "threshold", "meter_name": "cpu_util", "threshold": 1},
        {"type": "threshold", "meter_name": "mem", "threshold": 1}]})
    assert list(composite["composite_rule"]) == ["or"]
    for a in (alarm, prom, composite):
        conn.session.delete(f"/v2/alarms/{a['alarm_id']}", endpoint_filter=ALARMING)
