"""Zaqar v2 messaging for the sandbox (catalog type ``messaging``): queues, post, list, get,
claim and delete messages — what Heat's ``zaqar-queue`` event sink and a template author's
consumer need.

More in docs/code/sandbox.md (app.sandbox.messaging).
"""
from __future__ import annotations

import json
import uuid
from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth, workflow
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("messaging", __name__)
discovery_bp = Blueprint("messaging_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
QUEUES, MESSAGES = "zaqar_queues", "zaqar_messages"
#: subscriptions (:mod:`app.sandbox.messaging_share`); a posted message is recorded in each
#: of its queue's (``deliveries``, the newest :data:`MAX_DELIVERIES`)
SUBSCRIPTIONS, MAX_DELIVERIES = "zaqar_subscriptions", 20
DEFAULT_TTL, MIN_TTL, MAX_TTL = 3600, 60, 1209600
DEFAULT_LIMIT, MAX_LIMIT = 10, 20
TITLES = {400: "Invalid API request", 404: "Not found", 409: "Conflict"}


@bp.errorhandler(SandboxError)
def _error(err: SandboxError) -> Response:
    return reply({"title": TITLES.get(err.status, "Service temporarily unavailable"),
                  "description": err.message}, err.status)


def _version_doc() -> Obj:
    base = request.host_url.rstrip("/")
    return {"id": "2", "status": "CURRENT", "updated": "2014-9-24T04:06:47Z",
            "media-types": [{"base": "application/json",
                             "type": "application/vnd.openstack.messaging-v2+json"}],
            "links": [{"href": f"{base}/messaging/v2/", "rel": "self"}]}


@discovery_bp.get("/messaging")
@discovery_bp.get("/messaging/")
def versions() -> Any:
    return reply({"versions": [_version_doc()]}, 300)


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"version": _version_doc()})


# ---- helpers ----------------------------------------------------------------------------------
def _now() -> float:
    return float(store().clock())


def _client_id() -> str:
    cid = request.headers.get("Client-ID", "")
    if not cid:
        raise SandboxError(400, "The Client-ID header is required.")
    return cid


def _project() -> str:
    return str(auth.ctx().project_id or "")


def _queue(name: str, create: bool = False) -> Obj | None:
    if not name or len(name) > 64 or not all(c.isalnum() or c in "_-" for c in name):
        raise SandboxError(400, "Queue names may not be more than 64 characters long, and may "
                                "only contain ASCII letters, digits, underscores and dashes.")
    st = store()
    found = st.find(QUEUES, project_id=_project(), name=name)
    if found:
        return found[0]
    if not create:
        return None
    return st.add(QUEUES, {"id": st.new_id(), "name": name, "project_id": _project(),
                           "metadata": {}, "created": _now()})


def _ttl(value: Any, what: str = "message") -> int:
    ttl = DEFAULT_TTL if value is None else value
    if not isinstance(ttl, int) or isinstance(ttl, bool) or not MIN_TTL <= ttl <= MAX_TTL:
        raise SandboxError(400, f"The TTL for a {what} may not exceed {MAX_TTL} seconds, and "
                                f"must be at least {MIN_TTL} seconds long.")
    return ttl


def _limit() -> int:
    try:
        limit = int(request.args.get("limit", DEFAULT_LIMIT))
    except ValueError:
        raise SandboxError(400, "limit must be an integer") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise SandboxError(400, f"Limit must be at least 1 and may not be greater than {MAX_LIMIT}.")
    return limit


def _live(queue: str) -> list[Obj]:
    """The queue's messages that have not expired, oldest first (expired ones are dropped)."""
    st, now = store(), _now()
    out = []
    for m in st.find(MESSAGES, project_id=_project(), queue=queue):
        if m["created"] + m["ttl"] <= now:
            st.remove(MESSAGES, m["id"])
        else:
            out.append(m)
    return sorted(out, key=lambda m: m["seq"])


def _claimed(m: Obj) -> bool:
    return bool(m.get("claim_id")) and float(m.get("claim_expires", 0)) > _now()


def _view(queue: str, m: Obj) -> Obj:
    out = {"id": m["id"], "href": f"/v2/queues/{queue}/messages/{m['id']}", "ttl": m["ttl"],
           "age": int(_now() - m["created"]), "body": m["body"]}
    if _claimed(m):
        out["claim_id"] = m["claim_id"]
    return out


def _flag(name: str) -> bool:
    return request.args.get(name, "false").lower() == "true"


# ---- queues ------------------------------------------------------------------------------------
@bp.get("/queues")
def list_queues() -> Any:
    queues = sorted(store().find(QUEUES, project_id=_project()), key=lambda q: q["name"])
    marker = request.args.get("marker")
    if marker:
        queues = [q for q in queues if q["name"] > marker]
    page, detailed = queues[:_limit()], _flag("detailed")
    links = [{"rel": "next", "href": f"/v2/queues?marker={page[-1]['name']}&limit={_limit()}"}] \
        if page else []
    return reply({"queues": [{"name": q["name"], "href": f"/v2/queues/{q['name']}"}
                             | ({"metadata": q["metadata"]} if detailed else {})
                             for q in page], "links": links})


@bp.put("/queues/<name>")
def create_queue(name: str) -> Any:
    existed = _queue(name) is not None
    queue = _queue(name, create=True)
    assert queue is not None
    meta = body(required=False)
    if meta:
        queue["metadata"] = meta
        store().touch()
    return no_content(204 if existed else 201)


@bp.get("/queues/<name>")
def show_queue(name: str) -> Any:
    queue = _queue(name)
    return reply(queue["metadata"] if queue else {})


@bp.delete("/queues/<name>")
def delete_queue(name: str) -> Any:
    queue = _queue(name)
    st = store()
    if queue is not None:
        for m in st.find(MESSAGES, project_id=_project(), queue=name):
            st.remove(MESSAGES, m["id"])
        st.remove(QUEUES, queue["id"])
    return no_content()


@bp.get("/queues/<name>/stats")
def queue_stats(name: str) -> Any:
    msgs = _live(name)
    claimed = sum(1 for m in msgs if _claimed(m))
    return reply({"messages": {"free": len(msgs) - claimed, "claimed": claimed, "total": len(msgs)}})


# ---- messages ----------------------------------------------------------------------------------
@bp.post("/queues/<name>/messages")
def post_messages(name: str) -> Any:
    client = _client_id()
    data = request.get_json(silent=True, force=True)
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list) or not messages:
        raise SandboxError(400, "No messages to enqueue.")
    _queue(name, create=True)
    st, now, hrefs = store(), _now(), []
    for m in messages:
        if not isinstance(m, dict) or "body" not in m:
            raise SandboxError(400, "Missing \"body\" field.")
        ttl = _ttl(m.get("ttl"))
        mid = uuid.uuid4().hex[:24]
        st.add(MESSAGES, {"id": mid, "queue": name, "project_id": _project(), "body": m["body"],
                          "ttl": ttl, "created": now, "client_id": client,
                          "seq": st.next_number("zaqar_message_seq")})
        hrefs.append(f"/v2/queues/{name}/messages/{mid}")
        _notify(name, {"body": m["body"], "ttl": ttl})
    return reply({"resources": hrefs}, 201)


def _notify(queue: str, message: Obj) -> None:
    """Each subscription of ``queue`` gets the message: recorded in its ``deliveries``; a
    ``trust+http(s)://…/workflow/v2/executions`` subscriber (Heat's MistralTrigger) starts an
    execution of the sandbox's Mistral as Zaqar's trust notifier POSTs it: ``post_data`` with
    ``"$zaqar_message$"`` replaced by the message (``body``, ``ttl``, ``queue_name``). Other
    subscribers are only recorded."""
    for sub in store().find(SUBSCRIPTIONS, project_id=_project(), source=queue):
        sub["deliveries"] = [*sub["deliveries"], {"subscriber": sub["subscriber"],
                                                   "body": message["body"]}][-MAX_DELIVERIES:]
        store().touch()
        if sub["subscriber"].startswith("trust+") and \
                sub["subscriber"].endswith("/workflow/v2/executions"):
            _start_workflow(sub, {**message, "queue_name": queue})


def _start_workflow(sub: Obj, message: Obj) -> None:
    """The Mistral execution a trust subscription's ``post_data`` asks for, in the
    subscription's project; one Mistral refuses (unknown workflow, bad input) is dropped, as
    Zaqar only logs a failed notification."""
    post_data = (sub.get("options") or {}).get("post_data")
    if not isinstance(post_data, str):
        return
    try:
        data = json.loads(post_data.replace('"$zaqar_message$"', json.dumps(message)))
        wanted = str(data.get("workflow_id") or data.get("workflow_name") or "")
        wf = next((w for w in store().find(workflow.WORKFLOWS, project_id=sub["project_id"])
                   if wanted in (w["id"], w["name"])), None)
        if wf is not None:
            workflow.start_execution(wf, dict(data.get("input") or {}),
                                     dict(data.get("params") or {}))
    except (ValueError, AttributeError, TypeError, SandboxError):
        return


@bp.get("/queues/<name>/messages")
def list_messages(name: str) -> Any:
    client = _client_id()
    msgs = _live(name)
    if request.args.get("ids"):
        wanted = set(request.args["ids"].split(","))
        return reply({"messages": [_view(name, m) for m in msgs if m["id"] in wanted]})
    echo, claimed = _flag("echo"), _flag("include_claimed")
    shown = [m for m in msgs if (echo or m["client_id"] != client) and (claimed or not _claimed(m))]
    marker = request.args.get("marker")
    if marker:  # the id of the last message of the previous page
        seqs = [m["seq"] for m in msgs if m["id"] == marker]
        shown = [m for m in shown if not seqs or m["seq"] > seqs[0]]
    return reply({"messages": [_view(name, m) for m in shown[:_limit()]], "links": []})


def _message(name: str, mid: str) -> Obj:
    for m in _live(name):
        if m["id"] == mid:
            return m
    raise SandboxError(404, f"Message {mid} does not exist.")


@bp.get("/queues/<name>/messages/<mid>")
def show_message(name: str, mid: str) -> Any:
    _client_id()
    return reply(_view(name, _message(name, mid)))


@bp.delete("/queues/<name>/messages/<mid>")
def delete_message(name: str, mid: str) -> Any:
    _client_id()
    try:
        m = _message(name, mid)
    except SandboxError:
        return no_content()  # deleting a message that is gone is not an error
    claim = request.args.get("claim_id")
    if _claimed(m) and claim != m["claim_id"]:
        raise SandboxError(403, "A claimed message can only be deleted with its claim id.")
    if claim and not _claimed(m):
        raise SandboxError(400, f"The claim {claim} has expired or is not this message's.")
    store().remove(MESSAGES, mid)
    return no_content()


@bp.delete("/queues/<name>/messages")
def delete_messages(name: str) -> Any:
    _client_id()
    ids = [i for i in request.args.get("ids", "").split(",") if i]
    pop = int(request.args.get("pop", 0) or 0)
    if not ids and not pop:
        raise SandboxError(400, "ids or pop is required.")
    msgs = _live(name)
    chosen = [m for m in msgs if m["id"] in ids] if ids else \
        [m for m in msgs if not _claimed(m)][:pop]
    for m in chosen:
        store().remove(MESSAGES, m["id"])
    if pop:
        return reply({"messages": [_view(name, m) for m in chosen]})
    return no_content()


# ---- claims ------------------------------------------------------------------------------------
@bp.post("/queues/<name>/claims")
def claim_messages(name: str) -> Any:
    _client_id()
    data = body(required=False)
    ttl, grace = _ttl(data.get("ttl", 300), "claim"), int(data.get("grace", 60))
    cid, now = uuid.uuid4().hex[:24], _now()
    taken = [m for m in _live(name) if not _claimed(m)][:_limit()]
    for m in taken:
        m.update(claim_id=cid, claim_expires=now + ttl, claim_ttl=ttl)
        m["ttl"] = max(m["ttl"], int(now - m["created"]) + ttl + grace)  # outlives its claim
    if not taken:
        return no_content()
    store().touch()
    return reply({"messages": [_view(name, m) for m in taken]}, 201,
                 {"Location": f"/v2/queues/{name}/claims/{cid}"})


def _claim(name: str, cid: str) -> list[Obj]:
    msgs = [m for m in _live(name) if m.get("claim_id") == cid and _claimed(m)]
    if not msgs:
        raise SandboxError(404, f"Claim {cid} does not exist.")
    return msgs


@bp.get("/queues/<name>/claims/<cid>")
def show_claim(name: str, cid: str) -> Any:
    _client_id()
    msgs = _claim(name, cid)
    ttl = int(msgs[0]["claim_ttl"])
    age = int(_now() - (float(msgs[0]["claim_expires"]) - ttl))
    return reply({"id": cid, "ttl": ttl, "age": age, "href": f"/v2/queues/{name}/claims/{cid}",
                  "messages": [_view(name, m) for m in msgs]})


@bp.patch("/queues/<name>/claims/<cid>")
def update_claim(name: str, cid: str) -> Any:
    _client_id()
    data = body(required=False)
    ttl = _ttl(data.get("ttl", 300), "claim")
    for m in _claim(name, cid):
        m.update(claim_expires=_now() + ttl, claim_ttl=ttl)
    store().touch()
    return no_content()


@bp.delete("/queues/<name>/claims/<cid>")
def release_claim(name: str, cid: str) -> Any:
    _client_id()
    for m in [m for m in _live(name) if m.get("claim_id") == cid]:
        for key in ("claim_id", "claim_expires", "claim_ttl"):
            m.pop(key, None)
    store().touch()
    return no_content()
