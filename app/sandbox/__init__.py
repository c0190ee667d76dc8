"""The sandbox cloud: one WSGI app speaking the Keystone v3, Nova v2.1, Neutron v2.0, Cinder v3,
Glance v2, Octavia v2 and Aodh v2 APIs (the subsets Stoker and template authors need), with its own
state store, asynchronous status transitions, latency and fault injection.

    app = create_app()                       # in memory
    app = create_app("~/.stoker/sandbox.json", deterministic_ids=True)

Every service path sits under a prefix of one host (``/identity/v3``, ``/compute/v2.1``,
``/network/v2.0``, ``/volume/v3``, ``/image/v2``, ``/load-balancer/v2``, ``/alarming/v2``); the
Keystone catalog names them with the request's host. Requests are served one at a time under the
store's lock (latency is applied before the lock is taken); a file-backed state is saved at most
every half second while requests change it, and on ``Store.close()``.
"""
from __future__ import annotations

import json
import logging
import secrets
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from app.sandbox import auth
from app.sandbox.behaviour import Behaviour
from app.sandbox.fastjson import FastJSONProvider
from app.sandbox.http import SandboxError, render_error
from app.sandbox.network_bodies import only_fields
from app.sandbox.runtime import Sandbox
from app.sandbox.store import Store

log = logging.getLogger(__name__)

#: Cinder's URLs with the project in them (``/v3/{project_id}/volumes``, as catalogs of real clouds
#: often give them); the project must be the token's ("Malformed request url" otherwise).
PROJECT_PREFIX = "/volume/v3/<url_project_id>"
# blueprint module -> URL prefix
BLUEPRINTS: tuple[tuple[str, str | None], ...] = (
    ("versions", None), ("admin", None), ("identity", None), ("identity_admin", None), ("identity_trusts", None),
    ("identity_grants", None), ("identity_catalog", None),
    ("network_core", "/network/v2.0"), ("network_ports", "/network/v2.0"), ("network_l3", "/network/v2.0"),
    ("network_sg", "/network/v2.0"), ("network_trunks", "/network/v2.0"), ("network_qos", "/network/v2.0"),
    ("network_vpn", "/network/v2.0"), ("network_sfc", "/network/v2.0"),
    ("compute_servers", "/compute/v2.1"), ("compute_actions", "/compute/v2.1"),
    ("compute_misc", "/compute/v2.1"), ("compute_admin", "/compute/v2.1"),
    ("compute_meta", "/compute/v2.1"), ("volume_extras", "/volume/v3"),
    ("volume", "/volume/v3"), ("volume_extras", PROJECT_PREFIX), ("volume", PROJECT_PREFIX),
    ("image", "/image/v2"), ("loadbalancer", "/load-balancer/v2/lbaas"),
    ("loadbalancer", "/load-balancer/v2.0/lbaas"), ("loadbalancer_members", "/load-balancer/v2/lbaas"),
    ("loadbalancer_members", "/load-balancer/v2.0/lbaas"),
    ("alarming", "/alarming/v2"), ("messaging", "/messaging/v2"),
    ("messaging_share", "/messaging/v2"), ("messaging", "/messaging/v1.1"),
    ("messaging_share", "/messaging/v1.1"), ("object_store", "/v1"),
    ("keymanager", "/key-manager/v1"), ("keymanager_containers", "/key-manager/v1"),
    ("keymanager_orders", "/key-manager/v1"),
    ("dns", "/dns/v2"),
    ("workflow", "/workflow/v2"), ("workflow_cron", "/workflow/v2"), ("container", "/container/v1"),
    ("reservation", "/reservation/v1"),
    ("baremetal", "/baremetal/v1"),
    ("container_infra", "/container-infra/v1"),
    ("share_misc", "/share/v2"), ("share_core", "/share/v2"), ("share_snapshots", "/share/v2"),
    ("share_misc", "/share/v2/<url_project_id>"), ("share_core", "/share/v2/<url_project_id>"),
    ("share_snapshots", "/share/v2/<url_project_id>"),
    ("database", "/database/v1.0/<url_project_id>"), ("database_users", "/database/v1.0/<url_project_id>"),
    ("loadbalancer_l7", "/load-balancer/v2/lbaas"), ("loadbalancer_l7", "/load-balancer/v2.0/lbaas"),
    ("loadbalancer_admin", "/load-balancer/v2/lbaas"),
    ("loadbalancer_admin", "/load-balancer/v2.0/lbaas"),
    ("compute_aggregates", "/compute/v2.1"), ("volume_qos", "/volume/v3"),
    ("volume_qos", PROJECT_PREFIX),
)
PATH_DIALECTS = {"identity": "identity", "compute": "compute", "network": "network", "volume": "volume",
                 "image": "image", "load-balancer": "loadbalancer", "alarming": "alarming", "messaging": "messaging",
                 "v1": "objectstore",
                 "key-manager": "keymanager", "dns": "dns",
                 "workflow": "workflow", "container": "container", "reservation": "reservation",
                 "baremetal": "baremetal",
                 "container-infra": "containerinfra", "share": "share", "database": "database"}
AUTHENTICATED = ("network", "compute", "volume", "image", "loadbalancer", "alarming", "messaging",
                 "keymanager", "dns",
                 "workflow", "container", "reservation", "baremetal",
                 "containerinfra", "share", "database")
#: dialects whose requests may carry another credential than a token: dialect -> the module whose
#: ``authenticate(store)`` checks the request instead of :func:`auth.authenticate` (a Zaqar
#: pre-signed URL); the object store checks its own (tokens, TempURLs, public ACLs).
AUTHENTICATORS = {"messaging": "messaging_share"}


def _dialect() -> str:
    name = request.blueprint or ""
    if name and name not in ("discovery", "sandbox"):
        return name.split("_")[0]
    first = request.path.strip("/").split("/")[0]
    return PATH_DIALECTS.get(first, "sandbox")


def operation() -> str:
    """The current request's operation name, ``"<service>.<METHOD>.<collection>"``."""
    parts = [p for p in request.path.strip("/").split("/") if p]
    service = PATH_DIALECTS.get(parts[0], parts[0]) if parts else ""
    rest = [p for p in parts[2:] if p not in ("lbaas", "OS-TRUST", g.get("url_project_id"))] \
        if len(parts) > 2 else []
    if service == "identity":
        rest = [p for p in parts[2:] if p != "OS-TRUST"]
    collection = rest[0] if rest else ""
    return f"{service}.{request.method}.{collection}"


def _latency_rules(latency: Any) -> list[dict[str, Any]]:
    if latency is None:
        return []
    if isinstance(latency, (int, float)):
        return [{"match": "*", "seconds": float(latency)}] if latency else []
    if isinstance(latency, tuple) and len(latency) == 2:
        return [{"match": "*", "min": float(latency[0]), "max": float(latency[1])}]
    return [dict(r) for r in latency]


def create_app(state_path: str | None = None, *, latency: Any = None,
               faults: list[dict[str, Any]] | None = None, delays: dict[str, float] | None = None,
               deterministic_ids: bool = False, seed: int | None = None,
               extra_catalog: list[dict[str, str]] | None = None,
               agent: dict[str, Any] | None = None) -> Flask:
    """Build the sandbox WSGI app.

    :param state_path: JSON file holding the state (survives restarts); ``None`` keeps it in memory.
    :param latency: seconds added to every request (a number), a ``(min, max)`` random range, or a
        list of latency rules (:mod:`app.sandbox.behaviour`).
    :param faults: fault-injection rules.
    :param delays: transition delays in seconds, overriding ``behaviour.DEFAULT_DELAYS``.
    :param deterministic_ids: predictable ids (tests).
    :param seed: seed of the random generator behind fault rates and latency ranges.
    :param extra_catalog: more catalog services ``{"type", "name", "url"}``.
    :param agent: the server agent's options (:mod:`app.sandbox.agent_configs`):
        ``run_configs`` (bool), ``config_timeout`` and ``poll_seconds`` (seconds).
    """
    from importlib import import_module

    from app.sandbox.admin import reseed

    flask_app = Flask("app.sandbox")
    flask_app.json = FastJSONProvider(flask_app)
    store = Store(state_path, deterministic_ids=deterministic_ids)
    behaviour = Behaviour(latency=_latency_rules(latency), faults=[dict(f) for f in faults or []], seed=seed)
    if delays:
        behaviour.configure(delays=delays)
    sandbox = Sandbox(store=store, behaviour=behaviour, extra_catalog=list(extra_catalog or []))
    sandbox.options["agent"] = dict(agent or {})
    authenticators = {d: import_module(f"app.sandbox.{m}").authenticate
                      for d, m in AUTHENTICATORS.items()}
    flask_app.extensions["sandbox"] = sandbox
    if not store.meta.get("bootstrap"):
        reseed(sandbox)
    elif state_path is not None:
        from app.sandbox import agent
        agent.resume(sandbox)

    for module_name, prefix in BLUEPRINTS:
        module = import_module(f"app.sandbox.{module_name}")
        if module.bp.name in flask_app.blueprints:  # the same API under a second prefix
            alias = f"{module.bp.name}_{'project' if prefix == PROJECT_PREFIX else 'alias'}"
            flask_app.register_blueprint(module.bp, url_prefix=prefix, name=alias)
            continue
        flask_app.register_blueprint(module.bp, url_prefix=prefix)
        for extra in getattr(module, "EXTRA_BLUEPRINTS", ()):
            flask_app.register_blueprint(extra)

    @flask_app.url_value_preprocessor
    def _url_project(_: str | None, values: dict[str, Any] | None) -> None:
        if values and "url_project_id" in values:
            g.url_project_id = values.pop("url_project_id")

    @flask_app.before_request
    def _before() -> Response | None:
        g.request_id = "req-" + secrets.token_hex(16)[:8] + "-" + secrets.token_hex(12)
        if request.blueprint in ("sandbox", "discovery"):
            return None
        op = operation()
        behaviour.count(op)
        behaviour.apply_latency(op)
        store.lock.acquire()
        g.locked = True
        dialect = _dialect()
        if dialect in AUTHENTICATED:
            caller = authenticators.get(dialect, auth.authenticate)(store)
            if g.get("url_project_id") not in (None, caller.project_id):
                raise SandboxError(400, "Malformed request url", "BadRequest")
        fault = behaviour.fault_for(op)
        if fault:
            if fault.get("kind") == "quota":
                from app.sandbox.quotas import exceeded_error
                raise exceeded_error(dialect, fault.get("resource", op.rsplit(".", 1)[-1]))
            raise SandboxError(int(fault.get("status", 500)),
                               fault.get("message", f"Injected fault for {op}"), fault.get("type"))
        return None

    @flask_app.after_request
    def _after(resp: Response) -> Response:
        if resp.status_code < 400 and request.blueprint not in ("sandbox", "discovery"):
            late = behaviour.fault_for(operation(), ("error",), after=True)
            if late:    # carried out, then answered with an error
                if request.method not in ("GET", "HEAD"):
                    store.save_soon()
                resp = render_error(_dialect(), SandboxError(
                    int(late.get("status", 500)), late.get("message", f"Injected fault for {operation()}"),
                    late.get("type")))
        resp.headers["X-Openstack-Request-Id"] = g.get("request_id", "")
        asked = request.headers.get("OpenStack-API-Version")
        if asked:
            resp.headers["OpenStack-API-Version"] = asked
            resp.headers["Vary"] = "OpenStack-API-Version"
        elif request.path.startswith("/compute/"):
            resp.headers["OpenStack-API-Version"] = "compute 2.1"
        if request.path.startswith("/compute/"):
            legacy = request.headers.get("X-OpenStack-Nova-API-Version")
            resp.headers["X-OpenStack-Nova-API-Version"] = legacy or (asked or "compute 2.1").split()[-1]
        if request.method not in ("GET", "HEAD"):
            store.save_soon()
        fields = request.args.getlist("fields")
        if fields and request.method == "GET" and resp.status_code == 200 and resp.is_json \
                and request.path.startswith("/network/"):
            resp.set_data(json.dumps(only_fields(resp.get_json(), fields)))
        return resp

    @flask_app.teardown_request
    def _teardown(_: BaseException | None) -> None:
        if g.pop("locked", False):
            store.lock.release()

    @flask_app.errorhandler(SandboxError)
    def _sandbox_error(err: SandboxError) -> Response:
        return render_error(_dialect(), err)

    @flask_app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        code = err.code or 500
        message = {404: "The resource could not be found.",
                   405: f"The method {request.method} is not allowed for this resource."}.get(code, err.description)
        return render_error(_dialect(), SandboxError(code, message or "", None))

    @flask_app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        log.exception("sandbox: unexpected error in %s %s", request.method, request.path)
        return render_error(_dialect(), SandboxError(500, f"Unexpected error: {err!r}", "InternalServerError"))

    return flask_app


__all__ = ["create_app"]
