"""Aodh v2 alarms for the sandbox (threshold and gnocchi-style rules, alarm/ok/insufficient-data
actions, state, history) and the sandbox's metric endpoint that drives them.

More in docs/code/sandbox.md (app.sandbox.alarming).
"""
from __future__ import annotations

import ipaddress
import json
import logging
import operator
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, request

from app.sandbox import alarm_composite, auth, promql
from app.sandbox.http import SandboxError, body, iso, no_content, reply
from app.sandbox.runtime import Sandbox, sb, store
from app.sandbox.store import Obj

log = logging.getLogger(__name__)
bp = Blueprint("alarming", __name__)
metrics_bp = Blueprint("sandbox_metrics", __name__, url_prefix="/sandbox")
EXTRA_BLUEPRINTS = (metrics_bp,)

RULE_KEYS = {"threshold": "threshold_rule", "gnocchi_resources_threshold": "gnocchi_resources_threshold_rule",
             "gnocchi_aggregation_by_metrics_threshold": "gnocchi_aggregation_by_metrics_threshold_rule",
             "gnocchi_aggregation_by_resources_threshold": "gnocchi_aggregation_by_resources_threshold_rule",
             "event": "event_rule", "composite": "composite_rule",
             "loadbalancer_member_health": "loadbalancer_member_health_rule",
             "prometheus": "prometheus_rule"}
OPERATORS = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne, "ge": operator.ge,
             "gt": operator.gt}
STATES = ("ok", "alarm", "insufficient data")
# Aodh's notifiers; the sandbox delivers http(s) and trust+http(s), and records the others.
ACTION_SCHEMES = ("http", "https", "trust+http", "trust+https", "log", "test", "zaqar", "trust+zaqar")
EDITABLE = ("name", "description", "enabled", "alarm_actions", "ok_actions", "insufficient_data_actions",
            "repeat_actions", "severity", "time_constraints", "state")


def alarm_view(alarm: Obj) -> Obj:
    return {k: v for k, v in alarm.items() if not k.startswith("_")}


def get_alarm(alarm_id: str) -> Obj:
    alarm = store().get("alarms", alarm_id)
    if alarm is None or not auth.can_see(alarm):
        raise SandboxError(404, f"Alarm {alarm_id} not found")
    return alarm


def _history(alarm: Obj, kind: str, detail: Obj) -> None:
    st = store()
    st.add("alarm_history", {"id": st.new_id(), "event_id": st.new_id(), "alarm_id": alarm["alarm_id"],
                             "type": kind, "detail": json.dumps(detail), "timestamp": iso(st.clock(), "cinder"),
                             "on_behalf_of": alarm["project_id"], "project_id": alarm["project_id"],
                             "user_id": alarm["user_id"], "severity": alarm.get("severity")})


def _validate(data: Obj) -> tuple[str, Obj]:
    kind = data.get("type")
    if kind not in RULE_KEYS:
        raise SandboxError(400, f"Invalid input for field/attribute type. Value: '{kind}'.")
    rule = data.get(RULE_KEYS[kind])
    if not isinstance(rule, dict):
        raise SandboxError(400, f"{RULE_KEYS[kind]} must be set for {kind} type alarm")
    if "threshold" in kind:
        if not isinstance(rule.get("threshold"), (int, float)):
            raise SandboxError(400, "Invalid input for field/attribute threshold.")
        rule.setdefault("comparison_operator", "eq")
        if rule["comparison_operator"] not in OPERATORS:
            raise SandboxError(400, f"Invalid input for field/attribute comparison_operator. "
                               f"Value: '{rule['comparison_operator']}'.")
        rule.setdefault("evaluation_periods", 1)
        rule.setdefault("granularity", 60)
        rule.setdefault("aggregation_method", "mean")
    for key in ("alarm_actions", "ok_actions", "insufficient_data_actions"):
        for url in data.get(key) or []:
            if urlsplit(str(url)).scheme not in ACTION_SCHEMES:
                raise SandboxError(400, f"Unsupported action {url}")
    return kind, rule


@bp.post("/alarms")
def create_alarm() -> Any:
    c = auth.ctx()
    data = body()
    st = store()
    kind, rule = _validate(data)
    if not data.get("name"):
        raise SandboxError(400, "Invalid input for field/attribute name.")
    if any(a["name"] == data["name"] for a in st.find("alarms", project_id=c.project_id)):
        raise SandboxError(409, f"Alarm with name={data['name']} exists")
    now = iso(st.clock(), "cinder")
    alarm_id = st.new_id()
    alarm = {"id": alarm_id, "alarm_id": alarm_id, "name": data["name"], "description": data.get(
        "description", f"Alarm when {rule.get('metric')} is {rule.get('comparison_operator')} a "
                       f"{rule.get('aggregation_method')} of {rule.get('threshold')} over "
                       f"{rule.get('granularity')} seconds"),
        "type": kind, RULE_KEYS[kind]: rule, "enabled": data.get("enabled", True),
        "state": data.get("state", "insufficient data"), "state_reason": "Not evaluated yet",
        "severity": data.get("severity", "low"), "alarm_actions": list(data.get("alarm_actions") or []),
        "ok_actions": list(data.get("ok_actions") or []),
        "insufficient_data_actions": list(data.get("insufficient_data_actions") or []),
        "repeat_actions": bool(data.get("repeat_actions", False)), "time_constraints": data.get("time_constraints", []),
        "project_id": data.get("project_id") if c.is_admin and data.get("project_id") else c.project_id,
        "user_id": c.user_id, "timestamp": now, "state_timestamp": now, "evaluate_timestamp": None}
    st.add("alarms", alarm)
    _history(alarm, "creation", alarm_view(alarm))
    return reply(alarm_view(alarm), 201)


@bp.get("/alarms")
def list_alarms() -> Any:
    items = auth.visible(store().all("alarms"), admin_sees_all=False)
    fields = request.args.getlist("q.field")
    values = request.args.getlist("q.value")
    for field, value in zip(fields, values):
        items = [a for a in items if str(a.get(field)) == value]
    return reply([alarm_view(a) for a in items])


@bp.get("/alarms/<alarm_id>")
def show_alarm(alarm_id: str) -> Any:
    return reply(alarm_view(get_alarm(alarm_id)))


@bp.put("/alarms/<alarm_id>")
def update_alarm(alarm_id: str) -> Any:
    alarm = get_alarm(alarm_id)
    data = body()
    if "type" in data:
        kind, rule = _validate(data)
        alarm.pop(RULE_KEYS[alarm["type"]], None)
        alarm["type"], alarm[RULE_KEYS[kind]] = kind, rule
    for key in EDITABLE:
        if key in data:
            alarm[key] = data[key]
    alarm["timestamp"] = iso(store().clock(), "cinder")
    _history(alarm, "rule change", data)
    return reply(alarm_view(alarm))


@bp.delete("/alarms/<alarm_id>")
def delete_alarm(alarm_id: str) -> Any:
    st = store()
    get_alarm(alarm_id)
    st.remove("alarms", alarm_id)
    for h in st.find("alarm_history", alarm_id=alarm_id):
        st.remove("alarm_history", h["id"])
    return no_content()


@bp.get("/alarms/<alarm_id>/state")
def get_state(alarm_id: str) -> Any:
    return reply(get_alarm(alarm_id)["state"])


@bp.put("/alarms/<alarm_id>/state")
def set_state(alarm_id: str) -> Any:
    alarm = get_alarm(alarm_id)
    state = request.get_json(silent=True, force=True)
    if state not in STATES:
        raise SandboxError(400, f"Invalid input for field/attribute state. Value: '{state}'.")
    _transition(sb(), alarm, str(state), "Manually set via API", None)
    return reply(state)


@bp.get("/alarms/<alarm_id>/history")
def history(alarm_id: str) -> Any:
    get_alarm(alarm_id)
    items = [{k: v for k, v in h.items() if k != "id"} for h in store().find("alarm_history", alarm_id=alarm_id)]
    return reply(list(reversed(items)))


@bp.get("/capabilities")
def capabilities() -> Any:
    return reply({"api": {"alarms:query:simple": True, "alarms:history:query:simple": True},
                  "alarm_storage": {"storage:production_ready": True}})


# ---- evaluation and notification ------------------------------------------------------------
def _rule(alarm: Obj) -> Obj:
    return alarm.get(RULE_KEYS[alarm["type"]]) or {}


def _matches(alarm: Obj, metric: str, resource_id: str | None) -> bool:
    rule = _rule(alarm)
    names = rule.get("metrics") or [rule.get("metric") or rule.get("meter_name")]
    if metric not in names:
        return False
    return not (resource_id and rule.get("resource_id") and rule["resource_id"] != resource_id)


def _transition(sandbox: Sandbox, alarm: Obj, state: str, reason: str, value: float | None) -> None:
    previous = alarm["state"]
    st = sandbox.store
    alarm["evaluate_timestamp"] = iso(st.clock(), "cinder")
    if state == previous and not (alarm.get("repeat_actions") and state == "alarm"):
        return
    alarm.update(state=state, state_reason=reason, state_timestamp=iso(st.clock(), "cinder"))
    _history(alarm, "state transition", {"state": state, "transition_reason": reason})
    key = {"alarm": "alarm_actions", "ok": "ok_actions"}.get(state, "insufficient_data_actions")
    payload = {"alarm_name": alarm["name"], "alarm_id": alarm["alarm_id"], "severity": alarm.get("severity"),
               "previous": previous, "current": state, "reason": reason,
               "reason_data": {"type": "threshold", "disposition": "outside" if state == "alarm" else "inside",
                               "count": 1, "most_recent": value}}
    actions = list(alarm.get(key) or [])
    if actions:
        threading.Thread(target=_notify, args=(sandbox, actions, payload), daemon=True).start()


def _loopback(host: str | None) -> bool:
    if host in ("localhost", None):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _notify(sandbox: Sandbox, actions: list[str], payload: Obj) -> None:
    import requests
    for action in actions:
        parts = urlsplit(action)
        record: Obj = {"url": action, "payload": payload, "status": None, "error": None}
        headers = {"Content-Type": "application/json", "x-openstack-request-id": "req-sandbox-aodh"}
        url = action
        try:
            if parts.scheme not in ("http", "https", "trust+http", "trust+https"):
                record["error"] = f"scheme {parts.scheme} not delivered"
                continue
            if not _loopback(parts.hostname) and not sandbox.options.get("allow_remote_actions"):
                record["error"] = "not delivered: only loopback hosts are contacted"
                continue
            if parts.scheme.startswith("trust+"):
                headers["X-Auth-Token"] = _trust_token(sandbox, parts.username or "")
                netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
                url = urlunsplit((parts.scheme[len("trust+"):], netloc, parts.path, parts.query, parts.fragment))
            resp = requests.post(url, data=json.dumps(payload), headers=headers, timeout=10)
            record["status"] = resp.status_code
        except Exception as err:
            record["error"] = repr(err)
            log.warning("sandbox aodh: notification to %s failed: %s", action, err)
        finally:
            with sandbox.store.lock:
                sandbox.options.setdefault("notifications", []).append(record)


def _trust_token(sandbox: Sandbox, trust_id: str) -> str:
    st = sandbox.store
    with st.lock:
        trust = st.get("trusts", trust_id)
        if trust is None:
            return ""
        user = trust["trustor_user_id"] if trust["impersonation"] else trust["trustee_user_id"]
        record = auth.issue_token(st, user_id=user, project_id=trust["project_id"], role_ids=trust["_role_ids"],
                                  methods=["password"], trust_id=trust_id)
        st.save()
        return str(record["id"])


AGGREGATES = {"mean": lambda v: sum(v) / len(v), "max": max, "min": min, "sum": sum,
              "count": len, "last": lambda v: v[-1]}


def _aggregate(st: Any, rule: Obj, metric: str, value: float) -> float:
    """The value a rule compares: for a Gnocchi rule on several ``metrics`` (ids), its
    ``aggregation_method`` (mean, max, min, sum, count, last) over each metric's latest value
    set so far, as Aodh aggregates across metrics; for one metric, ``value``."""
    names = rule.get("metrics") or []
    if len(names) < 2:
        return value
    known = [value if name == metric else (st.get("metrics", f"{name}:*") or {}).get("value")
             for name in names]
    values = [float(v) for v in known if v is not None]
    method = str(rule.get("aggregation_method", "mean")).replace("rate:", "")
    return float(AGGREGATES.get(method, AGGREGATES["mean"])(values))


def _evaluate(sandbox: Sandbox, alarm: Obj, rule: Obj, values: list[float]) -> None:
    """Aodh's threshold evaluation of ``values`` (one per series): ``alarm`` when every one is
    outside the threshold, ``ok`` when none is, no change when they differ, ``insufficient
    data`` when there is none."""
    if not values:
        _transition(sandbox, alarm, "insufficient data", "No datapoint for the query", None)
        return
    compare = OPERATORS[rule.get("comparison_operator") or "eq"]
    outside = [compare(v, float(rule["threshold"])) for v in values]
    if any(outside) and not all(outside):
        return
    state = "alarm" if outside[0] else "ok"
    reason = (f"Transition to {state} due to {len(values)} samples {'outside' if outside[0] else 'inside'} "
              f"threshold, most recent: {values[-1]}")
    _transition(sandbox, alarm, state, reason, values[-1])


def _evaluate_composite(sandbox: Sandbox, alarm: Obj, rule: Obj) -> None:
    def latest(metric: str, resource_id: str | None) -> float | None:
        if resource_id:
            found = sandbox.store.get("metrics", f"{metric}:{resource_id}")
            return None if found is None else float(found["value"])
        series = [float(m["value"]) for m in sandbox.store.find("metrics", metric=metric)]
        return sum(series) / len(series) if series else None

    outcome = alarm_composite.evaluate(rule, latest)
    state = {True: "alarm", False: "ok", None: "insufficient data"}[outcome]
    _transition(sandbox, alarm, state, f"Composite rule alarm with composition form: {rule} "
                f"transition to {state}", None)


@metrics_bp.put("/metrics")
@metrics_bp.post("/metrics")
def set_metric() -> Any:
    data = body()
    metric = data.get("metric")
    try:
        value = float(data.get("value"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SandboxError(400, "'value' must be a number") from None
    if not metric:
        raise SandboxError(400, "'metric' is required")
    sandbox = sb()
    st = sandbox.store
    st.add("metrics", {"id": f"{metric}:{data.get('resource_id') or '*'}", "metric": metric, "value": value,
                       "resource_id": data.get("resource_id"), "timestamp": iso(st.clock(), "cinder")})
    evaluated = []
    for alarm in st.all("alarms"):
        if not alarm.get("enabled", True) or (data.get("alarm_id") and alarm["alarm_id"] != data["alarm_id"]):
            continue
        rule = _rule(alarm)
        if alarm["type"] == "prometheus":
            query = promql.parse(str(rule.get("query", "")))
            if query is None or query.metric != metric:
                continue
            values = query.values((({"resource_id": s["resource_id"]} if s.get("resource_id") else {}),
                                    float(s["value"])) for s in st.find("metrics", metric=metric))
        elif alarm["type"] == "composite" and metric in alarm_composite.metrics_of(rule):
            _evaluate_composite(sandbox, alarm, rule)
            evaluated.append({"alarm_id": alarm["alarm_id"], "state": alarm["state"]})
            continue
        elif "threshold" in alarm["type"] and _matches(alarm, metric, data.get("resource_id")):
            values = [_aggregate(st, rule, metric, value)]
        else:
            continue
        _evaluate(sandbox, alarm, rule, values)
        evaluated.append({"alarm_id": alarm["alarm_id"], "state": alarm["state"]})
    return reply({"metric": metric, "value": value, "alarms": evaluated})


@metrics_bp.get("/notifications")
def notifications() -> Any:
    return reply({"notifications": list(sb().options.get("notifications", []))})
