"""Record the fidelity vectors from a running OpenStack Heat 27.0.1 (not a test; Heat is not a
test dependency).

Usage: ``python -m tests.corpus.fidelity.record http://127.0.0.1:PORT/v1/admin [AREA ...]``
against the reference Heat's REST API (noauth, legacy engine). For every case of
:mod:`.cases` it creates stack ``vstack`` through Heat's API exactly as heatclient would
(template, files, parameters, environment_files) and writes what Heat answered — the fault's
HTTP status, ``error.type`` and ``error.message``, or the final status, outputs, parameters and
resource statuses — to ``vectors/<area>.json``, in the format of the public oracle vectors.
"""
from __future__ import annotations

import datetime
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.corpus.fidelity import cases as all_cases
from tests.corpus.fidelity import create_check_cases, group_cases, null_cases
from tests.corpus.fidelity.cases import Case

HERE = Path(__file__).resolve().parent
VOLATILE = ("OS::stack_id", "OS::project_id", "AWS::StackId")
#: Areas whose vectors also keep each resource's status reason and events (``resource_reasons``,
#: ``resource_events``: "<STATUS> <reason>" oldest first): a failure's whole trace.
EVENT_AREAS = {"create_checks"}
AREAS = {**all_cases.AREAS, "nulls": null_cases.nulls(), "groups": group_cases.groups(),
         "create_checks": create_check_cases.create_checks(),
         "paths": create_check_cases.paths()}


def _call(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers={
        "X-Auth-Token": "x", "Content-Type": "application/json",
        "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            text = r.read().decode()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, {"raw": text}


def _gone(status: int, shown: Any) -> bool:
    return status == 404 or shown["stack"]["stack_status"] in ("DELETE_COMPLETE",
                                                               "DELETE_FAILED")


def _clear(base: str) -> None:
    """Delete what an earlier run left (a stack whose delete did not finish)."""
    _, listed = _call(base, "GET", "/stacks")
    for s in (listed or {}).get("stacks", []):
        _call(base, "DELETE", f"/stacks/{s['stack_name']}/{s['id']}")
        for _ in range(600):
            st, shown = _call(base, "GET", f"/stacks/{s['stack_name']}/{s['id']}")
            if _gone(st, shown):
                break
            time.sleep(0.05)


def record(base: str, case: Case, area: str = "") -> dict[str, Any]:
    _clear(base)
    files = dict(case.files)
    env_names = []
    for i, e in enumerate(case.environments, start=1):
        files[f"env-{i}.yaml"] = e
        env_names.append(f"env-{i}.yaml")
    body: dict[str, Any] = {"stack_name": "vstack", "template": case.template,
                            "files": files, "parameters": case.parameters,
                            "disable_rollback": True}
    if env_names:
        body["environment_files"] = env_names
    for _ in range(20):  # the previous case's stack may still be going away
        status, answer = _call(base, "POST", "/stacks", body)
        if status != 409:
            break
        time.sleep(0.5)
    if status != 201:
        err = (answer or {}).get("error") or {}
        return {"outcome": "invalid", "http_status": status,
                "error_type": err.get("type"), "message": err.get("message")}
    sid = answer["stack"]["id"]
    while True:
        _, s = _call(base, "GET", f"/stacks/vstack/{sid}")
        s = s["stack"]
        if s["stack_status"] != "CREATE_IN_PROGRESS":
            break
        time.sleep(0.05)
    outputs = {}
    for o in s.get("outputs") or []:
        item = {"output_value": o.get("output_value")}
        if o.get("output_error"):
            item["output_error"] = o["output_error"]
        outputs[o["output_key"]] = item
    _, rs = _call(base, "GET", f"/stacks/vstack/{sid}/resources")
    out = {"outcome": "create", "stack_status": s["stack_status"],
           "stack_status_reason": s["stack_status_reason"], "outputs": outputs,
           "parameters": {k: v for k, v in s["parameters"].items() if k not in VOLATILE},
           "resources": {r["resource_name"]: r["resource_status"]
                         for r in rs["resources"]}}
    if area in EVENT_AREAS:  # a resource's reason and its events, oldest first
        out["resource_reasons"] = {r["resource_name"]: r["resource_status_reason"]
                                   for r in rs["resources"]}
        _, evs = _call(base, "GET", f"/stacks/vstack/{sid}/events?sort_dir=asc")
        events: dict[str, list[str]] = {}
        for e in evs["events"]:
            if e["resource_name"] != "vstack":
                events.setdefault(e["resource_name"], []).append(
                    f"{e['resource_status']} {e['resource_status_reason']}")
        out["resource_events"] = events
    _call(base, "DELETE", f"/stacks/vstack/{sid}")
    for _ in range(600):
        st, s = _call(base, "GET", f"/stacks/vstack/{sid}")
        if _gone(st, s):
            break
        time.sleep(0.05)
    return out


def main(argv: list[str]) -> int:
    """Record every case of the areas named (all by default); a name that is a case id
    re-records that case only, in place."""
    base, wanted = argv[0].rstrip("/"), set(argv[1:])
    today = datetime.date.today().isoformat()
    for area, cases in AREAS.items():
        ids = {c.id for c in cases} & wanted
        if wanted and area not in wanted and not ids:
            continue
        old = {}
        path = HERE / "vectors" / f"{area}.json"
        if ids and path.exists():
            old = {v["id"]: v for v in json.loads(path.read_text())}
        vectors = []
        for case in cases:
            if ids and case.id not in ids and case.id in old:
                vectors.append(old[case.id])
                continue
            v = case.as_vector()
            v["expect"] = record(base, case, area)
            v["oracle"] = {"heat_version": "27.0.1", "engine": "heat-api + legacy engine, "
                           "REST API (noauth)", "generated": today}
            vectors.append(v)
            print(area, case.id, v["expect"]["outcome"], v["expect"].get("message")
                  or v["expect"].get("stack_status"), file=sys.stderr)
        (HERE / "vectors").mkdir(exist_ok=True)
        (HERE / "vectors" / f"{area}.json").write_text(
            json.dumps(vectors, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
