"""Fixtures for the API unit tests: ``world`` (fake ``app.services`` modules holding the stack of
Heat's recorded api-samples), ``api`` (a Flask test client whose requests come to
``http://127.0.0.1:8004``, the host of the samples) and ``sample`` (a recorded response)."""
from __future__ import annotations

import datetime as dt
import json
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app import errors
from app.services import resources, stack_reads, stacks, validation

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "heat-reference" / "api-samples"
HOST = "http://127.0.0.1:8004"
STACK_ID = "3d15da91-8545-49f0-ac62-cf8b6b696a2c"
STACK_NAME = "cap1795939567"
BASE = f"/v1/admin/stacks/{STACK_NAME}/{STACK_ID}"


@dataclass
class Sample:
    """One recorded heat-api response: status code, headers (lower-case names), JSON body."""
    status: int
    headers: dict[str, str]
    body: Any


def load_sample(name: str) -> Sample:
    status, headers, body_lines = 0, {}, []
    for line in (SAMPLES / f"{name}.txt").read_text().splitlines():
        if line.startswith("# HTTP/"):
            status = int(line.split()[2])
        elif line.startswith("# ") and ":" in line:
            key, value = line[2:].split(":", 1)
            headers[key.strip().lower()] = value.strip()
        else:
            body_lines.append(line)
    text = "\n".join(body_lines).strip()
    return Sample(status, headers, json.loads(text) if text else None)


@pytest.fixture()
def sample() -> Callable[[str], Sample]:
    return load_sample


def t(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def ns(**kw: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(**kw)


def stack_row(**kw: Any) -> types.SimpleNamespace:
    row: dict[str, Any] = {
        "id": STACK_ID, "name": STACK_NAME, "tenant": "admin", "username": "admin",
        "action": "CREATE", "status": "COMPLETE",
        "status_reason": "Stack CREATE completed successfully",
        "description": "anchor RandomString stack",
        "parameters_show": {"OS::stack_id": STACK_ID, "OS::project_id": "admin",
                            "OS::stack_name": STACK_NAME, "len": "16"},
        "disable_rollback": True, "timeout_mins": 10, "tags": None, "parent_id": None,
        "created_at": t("2026-11-29T08:06:07Z"), "updated_at": None, "deleted_at": None}
    row.update(kw)
    return ns(**row)


def _events() -> list[types.SimpleNamespace]:
    """The events of ``event_list.txt``, oldest first (as they were written)."""
    sample = load_sample("event_list").body["events"]
    rows = []
    for e in reversed(sample):
        action, status = e["resource_status"].split("_", 1)
        rows.append(ns(uuid=e["id"], resource_name=e["resource_name"],
                       physical_resource_id=e["physical_resource_id"],
                       resource_type="OS::Heat::Stack" if e["resource_name"] == STACK_NAME
                       else {"rs": "OS::Heat::RandomString", "v": "OS::Heat::Value"}[
                           e["resource_name"]],
                       action=action, status=status,
                       status_reason=e["resource_status_reason"],
                       created_at=t(e["event_time"])))
    return rows


@dataclass
class World:
    """State behind the fake services, and the calls they received (``calls``)."""
    stacks: list[Any] = field(default_factory=lambda: [
        stack_row(),
        stack_row(id="54e0ccef-81c9-4501-8396-ce69be7c008e", name="anc1", description="",
                  created_at=t("2026-11-29T08:05:51Z"))])
    outputs: list[dict[str, Any]] = field(default_factory=lambda: [
        {"output_key": "msg", "description": "No description given",
         "output_value": "pw=Bi6VKIuu2jI8ieAe"},
        {"output_key": "pw", "description": "the random string",
         "output_value": "Bi6VKIuu2jI8ieAe"}])
    resources: list[Any] = field(default_factory=lambda: [
        ns(name="rs", type="OS::Heat::RandomString", action="CREATE", status="COMPLETE",
           status_reason="state changed", physical_resource_id="cap1795939567-rs-xcsocj5auorj",
           created_at=t("2026-11-29T08:06:07Z"), updated_at=t("2026-11-29T08:06:07Z"),
           uuid="r-1"),
        ns(name="v", type="OS::Heat::Value", action="CREATE", status="COMPLETE",
           status_reason="state changed", physical_resource_id="cap1795939567-v-c47iyt4v3dx7",
           created_at=t("2026-11-29T08:06:07Z"), updated_at=None, uuid="r-2")])
    required_by: dict[str, list[str]] = field(default_factory=lambda: {"rs": ["v"], "v": []})
    attributes: dict[str, dict[str, Any]] = field(default_factory=lambda: {
        "rs": {"value": "Bi6VKIuu2jI8ieAe"}, "v": {"value": "pw=Bi6VKIuu2jI8ieAe"}})
    events: list[Any] = field(default_factory=_events)
    calls: list[tuple[str, Any]] = field(default_factory=list)

    def record(self, name: str, /, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, {"args": args, **kwargs}))

    def called(self, name: str, /) -> dict[str, Any]:
        matches = [c for n, c in self.calls if n == name]
        assert matches, f"{name} was not called; calls: {[n for n, _ in self.calls]}"
        return matches[-1]

    # ---- app.services.stacks -----------------------------------------------------------------
    def create_stack(self, ctx: Any, **kw: Any) -> Any:
        self.record("create_stack", ctx=ctx, **kw)
        if any(s.name == kw["stack_name"] and s.deleted_at is None for s in self.stacks):
            raise errors.StackExists(kw["stack_name"])
        row = stack_row(name=kw["stack_name"], action="CREATE", status="IN_PROGRESS",
                        tenant=ctx.tenant_id)
        return row

    def create_stack_id(self, ctx: Any, **kw: Any) -> str:
        return str(self.create_stack(ctx, **kw).id)

    def list_stacks(self, ctx: Any, **kw: Any) -> list[Any]:
        self.record("list_stacks", ctx=ctx, **kw)
        rows = [s for s in self.stacks if kw.get("show_deleted") or s.deleted_at is None]
        return rows[: kw["limit"]] if kw.get("limit") is not None else rows

    def count_stacks(self, ctx: Any, **kw: Any) -> int:
        self.record("count_stacks", ctx=ctx, **kw)
        return len([s for s in self.stacks if kw.get("show_deleted") or s.deleted_at is None])

    def lookup_stack(self, ctx: Any, identity: str) -> Any:
        self.record("lookup_stack", ctx=ctx, identity=identity)
        for s in self.stacks:
            if s.id == identity or (s.name == identity and s.deleted_at is None):
                return s
        raise errors.NotFound("Stack", identity)

    def get_stack(self, ctx: Any, stack_name: str, stack_id: str) -> Any:
        self.record("get_stack", ctx=ctx, stack_name=stack_name, stack_id=stack_id)
        for s in self.stacks:
            if s.id == stack_id and s.name == stack_name:
                return s
        raise errors.NotFound("Stack", stack_name)

    # ---- app.services.stack_reads: the read routes' stack, as get_stack finds it ------------
    def shown_stack(self, ctx: Any, stack_name: str, stack_id: str) -> Any:
        return self.get_stack(ctx, stack_name, stack_id)

    stack_ref = shown_stack

    def delete_stack(self, ctx: Any, stack_name: str, stack_id: str) -> None:
        self.record("delete_stack", ctx=ctx, stack_name=stack_name, stack_id=stack_id)
        self.get_stack(ctx, stack_name, stack_id)

    def stack_outputs(self, stack: Any) -> list[dict[str, Any]]:
        return list(self.outputs)

    def get_template(self, ctx: Any, stack: Any) -> Any:
        return load_sample("template_show").body

    def get_environment(self, ctx: Any, stack: Any) -> Any:
        return load_sample("environment_show").body

    def get_files(self, ctx: Any, stack: Any) -> Any:
        return {"file:///home/u/hello.sh": "#!/bin/sh\necho hello\n"}

    # ---- app.services.resources --------------------------------------------------------------
    def list_resources(self, ctx: Any, stack: Any, nested_depth: int = 0) -> list[Any]:
        self.record("list_resources", nested_depth=nested_depth)
        return [(r, self.required_by[r.name]) for r in self.resources]

    def stack_resources(self, ctx: Any, stack_name: str, stack_id: str,
                        nested_depth: int = 0) -> Any:
        stack = self.get_stack(ctx, stack_name, stack_id)
        return stack, self.list_resources(ctx, stack, nested_depth=nested_depth)

    def stack_events(self, ctx: Any, stack_name: str, stack_id: str,
                     resource_name: str | None = None, **kw: Any) -> Any:
        stack = self.get_stack(ctx, stack_name, stack_id)
        return stack, self.list_events(ctx, stack, resource_name, **kw)

    def get_resource(self, ctx: Any, stack: Any, name: str) -> Any:
        for r in self.resources:
            if r.name == name:
                return r, self.required_by[name], self.attributes[name]
        raise errors.NotFound("Resource", name)

    def list_events(self, ctx: Any, stack: Any, resource_name: str | None = None,
                    **kw: Any) -> list[Any]:
        self.record("list_events", resource_name=resource_name, **kw)
        rows = [e for e in self.events if resource_name in (None, e.resource_name)]
        return rows[::-1] if kw.get("sort_dir", "asc") == "desc" else rows

    def get_event(self, ctx: Any, stack: Any, resource_name: str, event_id: str) -> Any:
        for e in self.events:
            if e.uuid == event_id and e.resource_name == resource_name:
                return e
        raise errors.NotFound("Event", event_id)

    # ---- app.services.validation -------------------------------------------------------------
    def validate_template(self, ctx: Any, **kw: Any) -> Any:
        self.record("validate_template", **kw)
        if "OS::Nope" in json.dumps(kw["template"]):
            raise errors.TemplateError("The Resource Type (OS::Nope) could not be found.")
        return load_sample("validate").body

    def template_versions(self) -> list[Any]:
        return load_sample("template_versions").body["template_versions"]

    def template_functions(self, version: str, with_condition_func: bool = False) -> list[Any]:
        self.record("template_functions", version=version, with_condition_func=with_condition_func)
        if version == "nope":
            raise errors.NotFound("Template", version, heat_type="NotFound",
                                  message=f"Template with version {version} not found")
        return [{"functions": "get_param", "description": "A function for resolving parameter "
                                                         "references."}]

    def resource_types(self, ctx: Any, **kw: Any) -> list[Any]:
        self.record("resource_types", **kw)
        return load_sample("resource_types").body["resource_types"]

    def resource_type_schema(self, ctx: Any, type_name: str, with_description: bool = False) -> Any:
        if type_name != "OS::Heat::Value":
            raise errors.NotFound("Resource Type", type_name, heat_type="EntityNotFound")
        return {"resource_type": type_name, "support_status": {"status": "SUPPORTED"},
                "properties": {"value": {"type": "string", "required": True}},
                "attributes": {"value": {"type": "string"}}}

    def resource_type_template(self, ctx: Any, type_name: str, template_type: str = "cfn") -> Any:
        self.record("resource_type_template", type_name=type_name, template_type=template_type)
        return {"heat_template_version": "2016-10-14", "resources": {}}


@pytest.fixture()
def world(monkeypatch: pytest.MonkeyPatch) -> World:
    """``app.services.stacks`` / ``resources`` / ``validation`` functions replaced by a World's."""
    w = World()
    groups = {
        "stacks": ["create_stack", "create_stack_id", "list_stacks", "count_stacks", "lookup_stack", "get_stack", "delete_stack",
                   "stack_outputs", "get_template", "get_environment", "get_files"],
        "stack_reads": ["shown_stack", "stack_ref"],
        "resources": ["list_resources", "get_resource", "list_events", "get_event",
                      "stack_resources", "stack_events"],
        "validation": ["validate_template", "template_versions", "template_functions",
                       "resource_types", "resource_type_schema", "resource_type_template"],
    }
    modules = {"stacks": stacks, "stack_reads": stack_reads, "resources": resources,
               "validation": validation}
    for module, names in groups.items():
        for name in names:
            monkeypatch.setattr(modules[module], name, getattr(w, name))
    return w


@pytest.fixture()
def api(settings: Any, world: World) -> Any:
    """A test client for an app over the fake services; requests go to 127.0.0.1:8004."""
    from app.api import create_app
    flask_app = create_app(settings)
    flask_app.config.update(TESTING=True, SERVER_NAME="127.0.0.1:8004")
    return flask_app.test_client()
