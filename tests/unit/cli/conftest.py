"""A fake Orchestration API on a real loopback port (werkzeug in a thread) for the CLI's tests.

``fake_api`` answers with the shapes of ``../shared/heat-reference/api-samples``; a test scripts the
stack's life by setting ``fake_api.statuses`` (the ``stack_status`` of successive GETs) and reads
the requests it received from ``fake_api.requests``.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask, jsonify, request
from werkzeug.serving import make_server

STACK_ID = "3d15da91-8545-49f0-ac62-cf8b6b696a2c"
#: a finished drift detection as ``GET .../drift/{id}`` answers it
DRIFTED = {
    "status": "DETECTION_COMPLETE", "status_reason": "", "stack_drift_status": "DRIFTED",
    "detection_time": "2026-12-06T08:00:00Z",
    "counts": {"IN_SYNC": 1, "MODIFIED": 1, "DELETED": 1, "NOT_CHECKED": 1},
    "resources": [
        {"path": "net", "resource_type": "OS::Neutron::Net", "drift_status": "IN_SYNC",
         "reason": "", "property_differences": []},
        {"path": "group/0", "resource_type": "OS::Neutron::SecurityGroup",
         "drift_status": "MODIFIED", "reason": "", "property_differences": [
             {"path": "/name", "expected": "a", "actual": "b", "difference_type": "NOT_EQUAL"},
             {"path": "/rules/1", "expected": None, "actual": {"protocol": "udp"},
              "difference_type": "ADD"}]},
        {"path": "port", "resource_type": "OS::Neutron::Port", "drift_status": "DELETED",
         "reason": "", "property_differences": []},
        {"path": "token", "resource_type": "OS::Heat::RandomString",
         "drift_status": "NOT_CHECKED", "property_differences": [],
         "reason": "The live state of OS::Heat::RandomString resources cannot be read."}]}


def fault(code: int, kind: str, message: str, title: str = "Bad Request") -> Any:
    body = {"code": code, "title": title, "explanation": "explanation",
            "error": {"type": kind, "traceback": None, "message": message}}
    return jsonify(body), code


@dataclass
class FakeApi:
    url: str = ""
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    statuses: list[str] = field(default_factory=lambda: ["CREATE_COMPLETE"])
    resources: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    exists: bool = True
    gone_after_delete: bool = False
    deleted: bool = False
    create_fault: tuple[int, str, str] | None = None
    disable_rollback: bool = True

    def status(self) -> str:
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    def stack(self, name: str = "s1") -> dict[str, Any]:
        link = f"{self.url}/stacks/{name}/{STACK_ID}"
        status = self.status()
        return {"stack_name": name, "id": STACK_ID, "links": [{"href": link, "rel": "self"}],
                "stack_status": status, "stack_status_reason": f"Stack {status} reason",
                "creation_time": "2026-11-29T08:06:07Z", "updated_time": None,
                "disable_rollback": self.disable_rollback, "parameters": {"len": "16"},
                "outputs": self.outputs, "description": "d"}


def make_app(api: FakeApi) -> Flask:
    app = Flask("fake-heat")

    @app.before_request
    def record() -> None:
        api.requests.append((request.method, request.full_path.rstrip("?"),
                             request.get_json(silent=True)))

    @app.post("/v1/admin/stacks")
    def create() -> Any:
        if api.create_fault:
            return fault(*api.create_fault)
        body = request.get_json()
        link = f"{api.url}/stacks/{body['stack_name']}/{STACK_ID}"
        return jsonify({"stack": {"id": STACK_ID, "links": [{"href": link, "rel": "self"}]}}), 201

    @app.get("/v1/admin/stacks")
    def list_() -> Any:
        return jsonify({"stacks": [api.stack()]})

    @app.get("/v1/admin/stacks/<name>")
    def lookup(name: str) -> Any:
        if not api.exists or name == "nosuch":
            return fault(404, "EntityNotFound", f"The Stack ({name}) could not be found.",
                         "Not Found")
        resp = jsonify({"message": "found", "code": "302 Found", "title": "Found"})
        resp.status_code = 302
        resp.headers["Location"] = f"{api.url}/stacks/{name}/{STACK_ID}"
        return resp

    @app.get("/v1/admin/stacks/<name>/<sid>")
    def show(name: str, sid: str) -> Any:
        if api.deleted and api.gone_after_delete:
            return fault(404, "EntityNotFound", f"The Stack ({name}) could not be found.", "Not Found")
        return jsonify({"stack": api.stack(name)})

    @app.delete("/v1/admin/stacks/<name>/<sid>")
    def delete(name: str, sid: str) -> Any:
        api.deleted = True
        return "", 204

    @app.get("/v1/admin/stacks/<name>/<sid>/resources")
    def resources(name: str, sid: str) -> Any:
        return jsonify({"resources": api.resources})

    @app.get("/v1/admin/stacks/<name>/<sid>/events")
    def events(name: str, sid: str) -> Any:
        marker = request.args.get("marker")
        evs = api.events
        if marker:
            ids = [e["id"] for e in evs]
            evs = evs[ids.index(marker) + 1:]
        return jsonify({"events": evs})

    @app.get("/v1/admin/stacks/<name>/<sid>/outputs/<key>")
    def output(name: str, sid: str, key: str) -> Any:
        for out in api.outputs:
            if out["output_key"] == key:
                return jsonify({"output": out})
        return fault(404, "NotFound", f"Specified output key {key} not found.", "Not Found")

    @app.get("/v1/admin/stacks/<name>/<sid>/template")
    def template(name: str, sid: str) -> Any:
        return jsonify({"heat_template_version": "2018-08-31", "resources": {}})

    @app.get("/v1/admin/exports")
    def exports() -> Any:
        return jsonify({"exports": [{"name": "net-VpcId", "value": "vpc-1", "stack_id": STACK_ID,
                                     "stack_name": "s1", "output_key": "VpcId"}]})

    @app.post("/v1/admin/stacks/<name>/<sid>/drift")
    def drift_start(name: str, sid: str) -> Any:
        return jsonify({"drift_detection": {"id": "d1", "status": "DETECTION_IN_PROGRESS"}}), 202

    @app.get("/v1/admin/stacks/<name>/<sid>/drift/<did>")
    def drift_show(name: str, sid: str, did: str) -> Any:
        return jsonify({"drift_detection": {**DRIFTED, "id": did, "stack_name": name}})

    @app.post("/v1/admin/validate")
    def validate() -> Any:
        body = request.get_json()
        if "OS::Nope" in str(body.get("template")):
            resp, code = fault(400, "HTTPBadRequest",
                               "The Resource Type (OS::Nope) could not be found.")
            if request.args.get("show_all_errors") == "true":
                listed = resp.get_json()
                listed["error"]["errors"] = [
                    {"message": "The Resource Type (OS::Nope) could not be found.",
                     "type": "StackValidationFailed", "path": "resources.x.type", "line": 2,
                     "column": 19},
                    {"message": "Property error: resources.y.properties: Unknown Property z",
                     "type": "StackValidationFailed", "path": "resources.y.properties",
                     "line": None, "column": None}]
                return jsonify(listed), code
            return resp, code
        return jsonify({"Description": "ok", "Parameters": {}})

    @app.get("/v1/odd/stacks")
    def odd() -> Any:
        return jsonify({"items": []})

    @app.get("/v1/admin/boom")
    def boom() -> Any:
        return "<html>oops</html>", 500

    return app


@pytest.fixture()
def fake_api() -> Iterator[FakeApi]:
    api = FakeApi()
    server = make_server("127.0.0.1", 0, make_app(api), threaded=True)
    api.url = f"http://127.0.0.1:{server.server_port}/v1/admin"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield api
    server.shutdown()
    thread.join(5)


@pytest.fixture(autouse=True)
def _keep_settings() -> Iterator[None]:
    """CLI commands install their Settings process-wide; give other tests theirs back."""
    from app import config
    previous = config._current
    yield
    config._current = previous


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live view polls once a second; tests poll at once."""
    from app.cli import render as cli_render
    monkeypatch.setattr(cli_render.Watch, "__init__", _fast_init(cli_render.Watch.__init__))


def _fast_init(init: Any) -> Any:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.sleep = lambda _s: None
    return wrapper
