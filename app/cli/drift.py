"""``stoker stack drift NAME`` (:mod:`app.cli.stack`): detect the drift and print a diff.

Starts a detection (``POST .../drift``), waits for it (``GET .../drift/{id}``) and prints the
stack's drift status, the counts, then each resource that is not IN_SYNC: MODIFIED with one
line per difference (``+`` in the cloud only, ``-`` in the template only, ``~`` changed),
DELETED, NOT_CHECKED with its reason. Exit status 0 IN_SYNC, 1 DRIFTED or UNKNOWN, 2 error.
``--revert-drift`` then previews the update that brings the drifted resources back to the
template (``POST .../drift/{id}/revert/preview``) and starts it (``POST .../drift/{id}/revert``)
once confirmed (``--yes``, or asked on a terminal).
"""
from __future__ import annotations

import json
import time
from typing import Any

from app.cli.client import Client, CliError

MARKS = {"ADD": "+", "REMOVE": "-", "NOT_EQUAL": "~"}
#: s between two reads of a detection in progress, and the longest wait
POLL_SECONDS, WAIT_SECONDS = 0.2, 600.0


def detect(client: Client, stack: dict[str, Any]) -> dict[str, Any]:
    """Start a detection and wait until it ends. :raises CliError: it did not end in time."""
    path = f"{client.stack_path(stack)}/drift"
    found = dict(client.request("POST", path)["drift_detection"])
    deadline = time.monotonic() + WAIT_SECONDS
    while found["status"] == "DETECTION_IN_PROGRESS":
        if time.monotonic() > deadline:
            raise CliError(f"drift detection {found['id']} did not end in {WAIT_SECONDS:g}s")
        time.sleep(POLL_SECONDS)
        found = dict(client.request("GET", f"{path}/{found['id']}")["drift_detection"])
    return found


def _value(value: Any) -> str:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else repr(value)


def lines(found: dict[str, Any]) -> list[str]:
    """The readable diff of a detection body."""
    given = found.get("counts") or {}
    counts = ", ".join(f"{given[k]} {k.lower().replace('_', ' ')}"
                       for k in ("IN_SYNC", "MODIFIED", "DELETED", "NOT_CHECKED")
                       if given.get(k))
    out = [f"Stack {found['stack_name']}: {found['stack_drift_status']} "
           f"(detected {found['detection_time']}; {counts or 'no resources'})"]
    if found["status"] == "DETECTION_FAILED":
        out.append(f"  detection failed: {found['status_reason']}")
    for res in found["resources"]:
        status = res["drift_status"]
        if status == "IN_SYNC":
            continue
        head = f"  {status:<11} {res['path']} ({res['resource_type']})"
        if status == "NOT_CHECKED":
            out.append(f"{head}: {res['reason']}")
            continue
        out.append(head)
        for d in res["property_differences"]:
            mark = MARKS.get(d["difference_type"], "?")
            if d["difference_type"] == "NOT_EQUAL":
                out.append(f"      {mark} {d['path']}: {_value(d['expected'])} -> "
                           f"{_value(d['actual'])}")
            else:
                shown = d["actual"] if d["difference_type"] == "ADD" else d["expected"]
                out.append(f"      {mark} {d['path']}: {_value(shown)}")
    return out


#: a revert preview's lists, in the order they are printed, and their verbs
REVERT_KINDS = (("created", "create"), ("updated", "update"), ("replaced", "replace"))


def revert_preview(client: Client, stack: dict[str, Any], detection_id: str) -> dict[str, Any]:
    """What reverting the detection would do (``POST .../revert/preview``; nothing written)."""
    path = f"{client.stack_path(stack)}/drift/{detection_id}/revert"
    return dict(client.request("POST", f"{path}/preview")["drift_revert"])


def revert(client: Client, stack: dict[str, Any], detection_id: str) -> dict[str, Any]:
    """Start the update that reverts the detection (``POST .../revert``)."""
    path = f"{client.stack_path(stack)}/drift/{detection_id}/revert"
    return dict(client.request("POST", path)["drift_revert"])


def revert_lines(plan: dict[str, Any]) -> list[str]:
    """The preview as text: one line per resource, ``update``/``replace``/``create``."""
    out = ["Reverting the drift would:"]
    changes = plan.get("resource_changes") or {}
    for kind, verb in REVERT_KINDS:
        out += [f"  {verb:<8} {e['path']} ({e['resource_type']}): {e['reason']}"
                for e in changes.get(kind) or []]
    return out
