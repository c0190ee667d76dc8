"""Mistral: OS::Mistral::Workflow, OS::Mistral::CronTrigger, OS::Mistral::ExternalResource
(Heat 27, ``heat/engine/resources/openstack/mistral/``), through ``Cloud.request("workflow",
...)`` (catalog type ``workflowv2``).

More in docs/code/resource_types.md (app.resource_types.mistral).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import yaml

from app import errors
from app.clients import is_not_found
from app.resource_types import _ec2sign
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource
from app.resource_types._schemas import mistral as sch
from app.resource_types._signal_urls import delete_signals, sign
from app.resource_types.base import Resource

SERVICE = "workflow"
_TASK_KEYS = ("description", "on_error", "on_complete", "on_success", "policies", "action",
              "publish", "input", "requires", "retry", "wait_before", "wait_after",
              "pause_before", "timeout", "with_items", "keep_result", "target", "join",
              "concurrency")


def _text_headers() -> dict[str, str]:
    return {"Content-Type": "text/plain", "Accept": "application/json"}


class Workflow(CloudResource):
    """A Mistral workflow built from the properties; signals start executions."""

    type_name = "OS::Mistral::Workflow"
    support_status = sch.WORKFLOW_SUPPORT
    properties_schema = sch.WORKFLOW_PROPERTIES
    attributes_schema = sch.WORKFLOW_ATTRIBUTES
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    #: a signal starts an execution, which ``executions`` lists (read again after the signal)
    signals_change_attributes: ClassVar[bool] = True
    #: the executions' states change as they run: resource show reads them live
    live_attributes: ClassVar[frozenset[str]] = frozenset({"executions"})

    def workflow_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def get_reference_id(self) -> str:
        return self.workflow_name() if self.stack is not None else self.name

    def validate(self) -> None:
        """Heat's checks: a reverse workflow names its ``task_name``; each task has exactly one
        of ``action`` / ``workflow``; ``requires`` only in reverse workflows.
        :raises errors.ValidationError: Heat's wording."""
        p = self.properties
        if p.get("type") == "reverse" and not (p.get("params") or {}).get("task_name"):
            raise errors.ValidationError(
                f"Mistral resource validation error: {self.name}.properties.params: 'task_name' "
                f"is not assigned in 'params' in case of reverse type workflow.")
        for task in p.get("tasks") or []:
            if task.get("workflow") and task.get("action"):
                raise errors.ValidationError(
                    "Cannot define the following properties at the same time: workflow, action")
            if not task.get("workflow") and not task.get("action"):
                raise errors.ValidationError(
                    "At least one of the following properties must be specified: workflow, action")
            if task.get("requires") is not None and p.get("type") == "direct":
                raise errors.ValidationError(
                    f"Mistral resource validation error: {self.name}.properties.tasks."
                    f"{task.get('name')}.requires: task {task.get('name')} contains property "
                    f"'requires' in case of direct workflow. Only reverse workflows can contain "
                    f"property 'requires'.")
        super().validate()

    def definition(self, props: Mapping[str, Any]) -> str:
        """Heat's ``prepare_properties``: the YAML text Mistral is given."""
        body: dict[str, Any] = {k: props.get(k) for k in ("type", "description", "tags", "output")
                                if props.get(k) is not None}
        if props.get("input") is not None:
            body["input"] = list(props["input"].keys())
        tasks: dict[str, Any] = {}
        for task in props.get("tasks") or []:
            task = {**task, **(task.get("policies") or {})}
            spec: dict[str, Any] = {}
            if task.get("workflow") is not None:
                spec["workflow"] = task["workflow"]
            for key in _TASK_KEYS:
                if key != "policies" and task.get(key) is not None:
                    spec[key.replace("_", "-")] = task[key]
            tasks[task["name"]] = spec
        body["tasks"] = tasks
        if props.get("task_defaults") is not None:
            body["task-defaults"] = {k.replace("_", "-"): v
                                     for k, v in props["task_defaults"].items() if v}
        return yaml.safe_dump({"version": "2.0", self.workflow_name(): body})

    def handle_create(self) -> None:
        sign(self, _ec2sign.SIGNAL, never_expire=True)
        made = self.cloud().request(SERVICE, "POST", "/workflows",
                                    data=self.definition(self.properties), headers=_text_headers())
        self.resource_id = made["workflows"][0]["name"]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """The definition is replaced (``PUT /workflows``) when anything changed."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if changed:
            self.cloud().request(SERVICE, "PUT", "/workflows",
                                 data=self.definition(self.properties), headers=_text_headers())

    def handle_signal(self, details: Any = None) -> None:
        """Start an execution (Heat's ``Workflow.handle_signal``).
        :raises errors.ValidationError: "Signal data error: ..." for a bad input or params."""
        p = self.properties
        if p.get("use_request_body_as_input"):
            inputs, params = details, None
        else:
            inputs = (details or {}).get("input") if isinstance(details, dict) else None
            params = (details or {}).get("params") if isinstance(details, dict) else None
        if inputs is not None:
            if not isinstance(inputs, dict):
                raise errors.ValidationError(f"Signal data error: Input in signal data must be "
                                             f"a map, find a {type(inputs)}")
            for key in inputs:
                if key not in (p.get("input") or {}):
                    raise errors.ValidationError(f"Signal data error: Unknown input {key}")
        if params is not None and not isinstance(params, dict):
            raise errors.ValidationError(f"Signal data error: Params must be a map, find a "
                                         f"{type(params)}")
        body = {"workflow_name": self.workflow_name(),
                "input": json.dumps({**(p.get("input") or {}), **(inputs or {})}),
                "params": json.dumps({**(p.get("params") or {}), **(params or {})})}
        execution = self.cloud().request(SERVICE, "POST", "/executions", json=body)
        known = [e for e in str(self.data.get("executions", "")).split(",") if e]
        self.data["executions"] = ",".join([execution["id"], *known])

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/workflows/{self.resource_id}")

    def _delete(self) -> None:
        for ex in [e for e in str(self.data.get("executions", "")).split(",") if e]:
            try:
                self.cloud().request(SERVICE, "DELETE", f"/executions/{ex}")
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        self.data.pop("executions", None)
        delete_signals(self)
        self.cloud().request(SERVICE, "DELETE", f"/workflows/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        if name == "executions":
            out = []
            for ex_id in [e for e in str(self.data.get("executions", "")).split(",") if e]:
                ex = self.cloud().request(SERVICE, "GET", f"/executions/{ex_id}")
                out.append({"id": ex["id"], "workflow_name": ex["workflow_name"],
                            "created_at": ex["created_at"], "updated_at": ex["updated_at"],
                            "state": ex["state"], "input": json.loads(ex["input"] or "{}"),
                            "output": json.loads(ex["output"] or "{}")})
            return out
        if name == "data":
            return {"name": self.resource_id, "input": self.properties.get("input")}
        if name == "alarm_url":
            return self.data.get("ec2_signed_url") if self.resource_id else None
        return None


class CronTrigger(CloudResource):
    """A Mistral cron trigger of a workflow."""

    type_name = "OS::Mistral::CronTrigger"
    support_status = sch.CRON_TRIGGER_SUPPORT
    properties_schema = sch.CRON_TRIGGER_PROPERTIES
    attributes_schema = sch.CRON_TRIGGER_ATTRIBUTES
    #: Mistral counts them down as the trigger fires (and deletes a spent trigger: null)
    live_attributes: ClassVar[frozenset[str]] = frozenset({"next_execution_time",
                                                           "remaining_executions"})

    def handle_create(self) -> None:
        p, workflow = self.properties, self.properties.get("workflow") or {}
        body = {"name": self.name_or_physical(), "pattern": p.get("pattern"),
                "workflow_name": workflow.get("name"),
                "workflow_input": json.dumps(workflow.get("input") or {}),
                "first_execution_time": p.get("first_time"),
                "remaining_executions": p.get("count")}
        made = self.cloud().request(SERVICE, "POST", "/cron_triggers",
                                    json={k: v for k, v in body.items() if v is not None})
        self.resource_id = made["name"]

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/cron_triggers/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/cron_triggers/{self.resource_id}")


class ExternalResource(CloudResource):
    """A user-defined resource whose actions are Mistral workflows."""

    type_name = "OS::Mistral::ExternalResource"
    support_status = sch.EXTERNAL_RESOURCE_SUPPORT
    properties_schema = sch.EXTERNAL_RESOURCE_PROPERTIES
    attributes_schema = sch.EXTERNAL_RESOURCE_ATTRIBUTES
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = {
        "description": {**UNLISTED_DESCRIPTION["description"], "default": "Heat managed",
                        "update_allowed": False}}

    def always_updates(self) -> bool:
        """``always_update``: the UPDATE workflow runs on every stack update, even when no
        property changed (Heat's ``_needs_update``)."""
        return bool(self.properties.get("always_update"))

    def needs_replace_with_prop_diff(self, changed: set[str],
                                     new_properties: Mapping[str, Any]) -> bool:
        """A change of an input named in ``replace_on_change_inputs`` replaces it."""
        old = self.properties.get("input") or {}
        new = new_properties.get("input") or {}
        return any(old.get(i) != new.get(i)
                   for i in new_properties.get("replace_on_change_inputs") or [])

    def _start(self, action: str, inputs: Mapping[str, Any] | None = None) -> str | None:
        spec = (self.properties.get("actions") or {}).get(action)
        if not spec:
            return None
        params = dict(spec.get("params") or {})
        if self.resource_id:
            env = dict(params.get("env") or {})
            env["heat_extresource_data"] = json.loads(self.data.get("outputs", "{}"))
            params["env"] = env
        body = {"workflow_name": spec["workflow"],
                "input": json.dumps(inputs or self.get_property("input") or {}),
                "params": json.dumps(params),
                "description": self.properties.get("description") or "Heat managed"}
        return str(self.cloud().request(SERVICE, "POST", "/executions", json=body)["id"])

    def _check_execution(self, execution_id: str | None) -> bool:
        if not execution_id:
            return True
        ex = self.cloud().request(SERVICE, "GET", f"/executions/{execution_id}")
        if ex["state"] in ("IDLE", "RUNNING", "PAUSED"):
            return False
        if ex["state"] in ("ERROR", "CANCELLED"):
            raise errors.StokerError(str(ex.get("state_info") or ex["state"]),
                                     heat_type="ResourceFailure")
        if ex["state"] != "SUCCESS":
            raise errors.StokerError(f"Mistral execution is in unknown state {ex['state']}.",
                                     heat_type="ResourceUnknownStatus")
        output = json.loads(ex.get("output") or "{}")
        outputs = {**json.loads(self.data.get("outputs", "{}")), **output}
        self.data["outputs"] = json.dumps(outputs)
        self.resource_id = str(output.get("resource_id") or execution_id)[:255]
        return True

    def handle_create(self) -> str | None:
        return self._start("CREATE")

    def check_create_complete(self, handle: Any) -> bool:
        return self._check_execution(handle)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        return self._start("UPDATE", changed.get("input"))

    def check_update_complete(self, handle: Any) -> bool:
        return self._check_execution(handle)

    def handle_suspend(self) -> Any:
        return self._start("SUSPEND")

    def check_suspend_complete(self, handle: Any) -> bool:
        return self._check_execution(handle)

    def handle_resume(self) -> Any:
        return self._start("RESUME")

    def check_resume_complete(self, handle: Any) -> bool:
        return self._check_execution(handle)

    def handle_delete(self) -> Any:
        return self._start("DELETE")

    def check_delete_complete(self, handle: Any) -> bool:
        return self._check_execution(handle)

    def show_resource(self) -> dict[str, Any] | None:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id and name == "output":
            return self.data.get("outputs")
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Workflow, CronTrigger, ExternalResource)}
