"""Every oracle vector (results recorded from OpenStack Heat 27.0.1, ../shared/oracle) through
the whole product: the Orchestration API (Flask test client) → services → the convergence engine
(in-process dispatcher) → resource plugins. Compared as ../shared/oracle/README.md says.

A refused create must have Heat's HTTP status and fault type and carry the key facts of Heat's
message (tests/unit/templates/oracle_facts.py); where Heat answers 500 (a Heat bug) Stoker must
answer a clear 400 with a message.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.templates.oracle_facts import key_facts, refusal_problem

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
VECTORS = sorted((SHARED / "oracle" / "vectors").glob("*.json"))


def _as_text(value):
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                          separators=(",", ":"))


def _skip_field(v, field):
    return field in (v.get("unstable") or [])


def run_vector(client, v) -> str | None:
    """Create ``vstack`` from the vector through the API; None if it matches Heat, else why."""
    files = dict(v.get("files") or {})
    env_names = []
    for i, e in enumerate(v.get("environments") or [], start=1):
        files[f"env-{i}.yaml"] = e
        env_names.append(f"env-{i}.yaml")
    body = {"stack_name": "vstack", "template": v["template"], "files": files,
            "parameters": v.get("parameters") or {}, "disable_rollback": True}
    if env_names:
        body["environment_files"] = env_names
    want = v["expect"]
    r = client.post("/v1/vt/stacks", json=body)
    if r.status_code >= 500:
        return f"server error {r.status_code}: {r.get_data(as_text=True)[:200]}"
    if want["outcome"] == "invalid":
        if 400 <= r.status_code < 500:
            err = (r.get_json() or {}).get("error") or {}
            return refusal_problem(want, v.get("unstable"), r.status_code, err.get("type"),
                                   err.get("message"))
        return f"accepted ({r.status_code}); Heat rejects: {want.get('message', '')[:120]}"
    if r.status_code != 201:
        return f"rejected ({r.status_code}): {r.get_data(as_text=True)[:300]}"
    sid = r.get_json()["stack"]["id"]
    s = client.get(f"/v1/vt/stacks/vstack/{sid}").get_json()["stack"]
    if s["stack_status"] != want["stack_status"]:
        return f"status {s['stack_status']} != {want['stack_status']} ({s['stack_status_reason']})"
    got = {o["output_key"]: o for o in (s.get("outputs") or [])}
    for key, w in (want.get("outputs") or {}).items():
        g = got.get(key)
        if g is None:
            return f"output {key} missing"
        if "output_error" in w:
            if not g.get("output_error"):
                return f"output {key}: Heat gives an error, got {g.get('output_value')!r}"
            continue
        if g.get("output_error"):
            return f"output {key}: unexpected error {g['output_error'][:150]}"
        if "output_value_match" in w:
            if not re.fullmatch(w["output_value_match"], _as_text(g.get("output_value"))):
                return f"output {key}: {g.get('output_value')!r} !~ {w['output_value_match']}"
        elif g.get("output_value") != w.get("output_value"):
            return f"output {key}: {g.get('output_value')!r} != {w.get('output_value')!r}"
    for k, wv in (want.get("parameters") or {}).items():
        if s["parameters"].get(k) != wv:
            return f"parameter {k}: {s['parameters'].get(k)!r} != {wv!r}"
    if want.get("resources"):
        rs = client.get(f"/v1/vt/stacks/vstack/{sid}/resources").get_json()["resources"]
        got_res = {x["resource_name"]: x["resource_status"] for x in rs}
        for k, wv in want["resources"].items():
            if got_res.get(k) != wv:
                return f"resource {k}: {got_res.get(k)} != {wv}"
    d = client.delete(f"/v1/vt/stacks/vstack/{sid}")
    if d.status_code != 204:
        return f"delete answered {d.status_code}"
    s = client.get(f"/v1/vt/stacks/vstack/{sid}").get_json()["stack"]
    if s["stack_status"] != "DELETE_COMPLETE":
        return f"delete ended {s['stack_status']}: {s['stack_status_reason']}"
    return None


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_oracle_vector(client, path):
    v = json.loads(path.read_text())
    problem = run_vector(client, v)
    assert problem is None, problem


def test_vector_count():
    assert len(VECTORS) == 347


def test_every_invalid_vector_has_key_facts():
    """Every refusal Heat gives with a stable message yields facts to compare (its final
    clause at least), so no invalid vector is compared on type and status alone."""
    for path in VECTORS:
        v = json.loads(path.read_text())
        want = v["expect"]
        if want["outcome"] == "invalid" and "message" not in (v.get("unstable") or []):
            assert key_facts(want["message"]), v["id"]
