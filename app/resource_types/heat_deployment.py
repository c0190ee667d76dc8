"""OS::Heat::SoftwareDeployment (Heat's ``heat/engine/resources/openstack/heat/
software_deployment.py``; OS::Heat::StructuredDeployment is in
:mod:`app.resource_types.heat_structured`).

More in docs/code/resource_types.md (app.resource_types.heat_deployment).
"""
from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import _ec2sign, _software, _stack_user, _zaqar_signal
from app.resource_types import schema as s
from app.resource_types.aws_signals import sign
from app.resource_types.base import Resource, UpdateReplace
from app.resource_types.heat_software import UNGROUPED

ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")
OUTPUTS_KEY = "output_values"


def deployment_event(deployment_id: str | None) -> str:
    """The event a deployment waits for: its server's signal."""
    return f"deployment:{deployment_id}"


DEPLOYMENT_PROPERTIES: dict[str, Any] = {
    "config": s.prop("string", "ID of software configuration resource to execute when "
                     "applying to the server.", update_allowed=True),
    "server": s.prop("string", "ID of resource to apply configuration to. Normally this "
                     "should be a Nova server ID.", required=True),
    "input_values": s.prop("map", "Input values to apply to the software configuration on "
                           "this server.", update_allowed=True),
    "actions": s.prop("list", "Which lifecycle actions of the deployment resource will result "
                      "in this deployment being triggered.", update_allowed=True,
                      default=["CREATE", "UPDATE"], constraints=[s.allowed_values(ACTIONS)]),
    "name": s.prop("string", "Name of the derived config associated with this deployment. "
                   "This is used to apply a sort order to the list of configurations "
                   "currently deployed to a server.", update_allowed=True),
    "signal_transport": s.prop("string", "How the server should signal to heat with the "
                               "deployment output values.", default="CFN_SIGNAL",
                               constraints=[s.allowed_values(TRANSPORTS)]),
}


def _input(name: str, value: Any, description: str) -> dict[str, Any]:
    return {"name": name, "value": value, "description": description, "type": "String"}


class SoftwareDeployment(Resource):
    """OS::Heat::SoftwareDeployment (see the module docstring)."""

    type_name = "OS::Heat::SoftwareDeployment"
    support_status = s.support_status("2014.1")
    accepts_any_attributes = True    # each declared output of the config is an attribute
    properties_schema: ClassVar[dict[str, Any]] = dict(DEPLOYMENT_PROPERTIES)
    attributes_schema: ClassVar[dict[str, Any]] = {
        "deploy_stdout": s.attr("Captured stdout from the configuration execution.", "string"),
        "deploy_stderr": s.attr("Captured stderr from the configuration execution.", "string"),
        "deploy_status_code": s.attr("Returned status code from the configuration execution.",
                                     "string"),
    }
    #: set by the engine: the software config store of the stack's project
    software: _software.Store | None = None

    def _store(self) -> _software.Store:
        if self.software is None:
            raise RuntimeError("no software config store")
        return self.software

    @classmethod
    def validate_in_stack(cls, name: str, rdef: Any,
                          lookup: Callable[[str], tuple[str, dict[str, Any]] | None]) -> None:
        """Heat's ``SoftwareDeployment.validate``: a ``server`` that is a server of the stack
        (``{get_resource: s}``) must have ``user_data_format: SOFTWARE_CONFIG`` (its default
        is HEAT_CFNTOOLS). ``lookup(name)``: ``(type, static properties)`` or None.

        :raises errors.ValidationError: Heat's wording."""
        server = (getattr(rdef, "properties", None) or {}).get("server")
        target = server.get("get_resource") if isinstance(server, Mapping) and \
            len(server) == 1 else None
        if not isinstance(target, str):
            return
        found = lookup(target)
        if found is None or found[0] != "OS::Nova::Server":
            return
        fmt = found[1].get("user_data_format")
        fmt = "HEAT_CFNTOOLS" if fmt is None else fmt
        if isinstance(fmt, str) and fmt != "SOFTWARE_CONFIG":
            raise errors.ValidationError(
                f"Resource {target}'s property user_data_format should be set to "
                "SOFTWARE_CONFIG since there are software deployments on it.")

    def _transport(self) -> str:
        return str(self.get_property("signal_transport"))

    # ---- derived config (Heat's _build_derived_*) ------------------------------------------------
    def load_config(self, config_id: str | None = None) -> dict[str, Any]:
        """The source config (``{}`` when ``config`` is empty). :raises errors.NotFound."""
        config_id = config_id or self.get_property("config")
        found = dict(self._store().show_config(str(config_id))) if config_id else {}
        found["inputs"] = _software.inputs_of(found.get("inputs") or [])
        found["outputs"] = _software.outputs_of(found.get("outputs") or [])
        return found

    def signal_inputs(self) -> list[dict[str, Any]]:
        """The transport's ``deploy_*`` inputs (signal URL and verb, or API credentials)."""
        transport = self._transport()
        if transport == "CFN_SIGNAL":
            sign(self, _ec2sign.SIGNAL)
            return [_input("deploy_signal_id", self.data.get("ec2_signed_url"),
                           "ID of signal to use for signaling output values"),
                    _input("deploy_signal_verb", "POST",
                           "HTTP verb to use for signaling output values")]
        if transport in ("HEAT_SIGNAL", "ZAQAR_SIGNAL"):
            creds = _stack_user.signal_credentials(self)
            out = [_input("deploy_auth_url", creds["auth_url"], "URL for API authentication"),
                   _input("deploy_username", creds["username"],
                          "Username for API authentication"),
                   _input("deploy_user_id", creds["user_id"], "User ID for API authentication"),
                   _input("deploy_password", creds["password"],
                          "Password for API authentication"),
                   _input("deploy_project_id", creds["project_id"],
                          "ID of project for API authentication")]
            if creds["region_name"]:
                out.append(_input("deploy_region_name", creds["region_name"],
                                  "Region name for API authentication"))
            if transport == "ZAQAR_SIGNAL":
                out.append(_input("deploy_queue_id", _zaqar_signal.queue_id(self),
                                  "ID of queue to use for signaling output values"))
            return out
        return []

    def derived_inputs(self, action: str, source: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Heat's ``_build_derived_inputs``: the declared inputs with their values (the
        default when not given), undeclared ``input_values`` as String inputs, then the
        ``deploy_*`` inputs."""
        values = dict(self.get_property("input_values") or {})
        out = []
        for declared in source.get("inputs") or []:
            entry = {k: v for k, v in declared.items() if k != "value"}
            entry["value"] = values.pop(declared["name"], declared.get("default"))
            out.append(entry)
        out += [{"name": k, "type": "String", "value": v} for k, v in values.items()]
        st = self.stack
        out += [_input("deploy_server_id", self.get_property("server"),
                       "ID of the server being deployed to"),
                _input("deploy_action", action, "Name of the current action being deployed"),
                _input("deploy_stack_id", f"{st.stack_name}/{st.stack_id}" if st else None,
                       "ID of the stack this deployment belongs to"),
                _input("deploy_resource_name", self.name,
                       "Name of this deployment resource in the stack"),
                _input("deploy_signal_transport", self._transport(),
                       "How the server should signal to heat with the deployment output "
                       "values.")]
        return out + self.signal_inputs()

    def derived_config(self, action: str, source: Mapping[str, Any],
                       inputs: list[dict[str, Any]]) -> Any:
        """The derived config's body: the source's (StructuredDeployment substitutes)."""
        return source.get("config")

    def empty_config(self) -> Any:
        return ""

    def derived_params(self, action: str, source: Mapping[str, Any]) -> dict[str, Any]:
        """``create_config``'s arguments for the derived config."""
        inputs = self.derived_inputs(action, source)
        body = self.derived_config(action, source, inputs)
        return {"group": source.get("group") or UNGROUPED,
                "config": body or self.empty_config(), "options": source.get("options"),
                "inputs": inputs, "outputs": list(source.get("outputs") or []),
                "name": self.get_property("name") or source.get("name")
                or self.physical_resource_name()}

    # ---- actions -------------------------------------------------------------------------------
    def _triggered(self, action: str, source: Mapping[str, Any]) -> bool:
        if source.get("group") == "component":
            configs = (source.get("config") or {}).get("configs") or []
            return any(action in (c.get("actions") or []) for c in configs)
        return action in (self.get_property("actions") or [])

    def handle_action(self, action: str, source: dict[str, Any] | None = None) -> Any:
        """Heat's ``_handle_action``: derive and store the config, create or update the
        deployment record. :returns: the handle to wait on, None when not waiting."""
        source = source if source is not None else self.load_config()
        if not self._triggered(action, source):
            return None
        store = self._store()
        self.data["outputs_declared"] = [o["name"] for o in source.get("outputs") or []]
        derived = store.create_config(**self.derived_params(action, source))
        no_signal = self._transport() == "NO_SIGNAL"
        props = {"config_id": derived["id"], "action": action,
                 "input_values": self.get_property("input_values"),
                 "status": _software.COMPLETE if no_signal else _software.IN_PROGRESS,
                 "status_reason": "Not waiting for outputs signal" if no_signal
                 else "Deploy data available"}
        previous = self.data.get("derived_config")
        if self.resource_id is None:
            self.resource_id = str(uuid.uuid4())
            store.create_deployment(deployment_id=self.resource_id,
                                    server_id=str(self.get_property("server")), **props)
        else:
            store.update_deployment(self.resource_id, **props)
            if previous and previous != derived["id"]:
                self._delete_config(previous)
        self.data["derived_config"] = derived["id"]
        return None if no_signal else {"sd": self.resource_id, "action": action}

    def _delete_config(self, config_id: str) -> None:
        try:
            self._store().delete_config(config_id)
        except errors.NotFound:
            pass

    def check_complete(self, handle: Any) -> bool:
        """Heat's ``_check_complete``: COMPLETE -> True; FAILED -> raises Heat's ``Error``
        "Deployment to server failed: <status reason>"; otherwise False (keep waiting)."""
        if not handle:
            return True
        if self._transport() == "ZAQAR_SIGNAL":   # Heat's _refresh_zaqar_software_deployment
            for details in _zaqar_signal.pop(self):
                self.handle_signal(details)
        sd = self._store().show_deployment(str(self.resource_id))
        self.data[OUTPUTS_KEY] = sd.get("output_values") or {}
        if sd["status"] == _software.COMPLETE:
            return True
        if sd["status"] == _software.FAILED:
            raise errors.StokerError(f"Deployment to server failed: {sd['status_reason']}",
                                     heat_type="Error")
        return False

    def waits_for(self, handle: Any) -> tuple[str, float] | None:
        """``(event, deadline)``: the server's signal; no deadline of its own (the stack's
        timeout applies, as in Heat). None for ZAQAR_SIGNAL: polled, its queue read at each
        look."""
        if self._transport() == "ZAQAR_SIGNAL":
            return None
        return deployment_event(self.resource_id), self.clock() + 10 * 365 * 86400.0

    def handle_create(self) -> Any:
        """Deploy for CREATE (a redelivered create that stored its deployment waits on it)."""
        if self.resource_id is not None and self.data.get("derived_config"):
            return None if self._transport() == "NO_SIGNAL" else \
                {"sd": self.resource_id, "action": "CREATE"}
        return self.handle_action("CREATE")

    def check_create_complete(self, handle: Any) -> bool:
        return self.check_complete(handle)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]
                      ) -> Any:
        """Deploy again for UPDATE; a changed input with ``replace_on_change`` replaces it.
        :raises UpdateReplace: as Heat's ``handle_update``."""
        self.check_replace(changed, new_properties)
        old_inputs: dict[str, Any] = {}
        if self.resource_id is not None and self.data.get("derived_config"):
            try:
                old = self.load_config(str(self.data["derived_config"]))
                old_inputs = {i["name"]: i for i in old["inputs"]}
            except errors.NotFound:
                old_inputs = {}
        self.properties = dict(new_properties)
        source = self.load_config()
        for entry in self.derived_inputs("UPDATE", source):
            name = entry["name"]
            if entry.get("replace_on_change") and name in old_inputs \
                    and entry.get("value") != old_inputs[name].get("value"):
                raise UpdateReplace(self.name)
        return self.handle_action("UPDATE", source)

    def check_update_complete(self, handle: Any) -> bool:
        return self.check_complete(handle)

    def handle_delete(self) -> Any:
        """Deploy for DELETE when ``actions`` says so, else delete at once."""
        if self.resource_id is None or self.software is None:
            return None
        try:
            return self.handle_action("DELETE")
        except errors.NotFound:
            return None

    def check_delete_complete(self, handle: Any) -> bool:
        if handle and self.software is not None:
            try:
                if not self.check_complete(handle):
                    return False
            except errors.StokerError:
                pass  # a failed DELETE configuration still deletes (Heat: _check_complete)
        self._delete_resource()
        return True

    def _delete_resource(self) -> None:
        """The deployment record, its derived config, then the stack user (Heat's)."""
        if self.resource_id is not None and self.software is not None:
            derived = None
            try:
                derived = self.software.show_deployment(self.resource_id).get("config_id")
                self.software.delete_deployment(self.resource_id)
            except errors.NotFound:
                pass
            if derived:
                self._delete_config(str(derived))
        _zaqar_signal.delete_queue(self)
        _stack_user.delete_user(self)

    def handle_signal(self, details: Any = None) -> str | None:
        """The server's outputs (Heat's ``signal_software_deployment``). :returns: the event
        reason, e.g. "deployment <id> succeeded"; None when it is not IN_PROGRESS.
        :raises ValueError: a body that is not a JSON object (the API answers 400)."""
        if self.resource_id is None:
            return None
        if details is not None and not isinstance(details, Mapping):  # Heat: a 500
            raise ValueError("The signal's body must be a JSON object")
        result = self._store().signal_deployment(self.resource_id, details)
        sd = self._store().show_deployment(self.resource_id)
        self.data[OUTPUTS_KEY] = sd.get("output_values") or {}
        return result

    # ---- attributes ----------------------------------------------------------------------------
    def _output_values(self) -> dict[str, Any]:
        if self.resource_id is not None and self.software is not None:
            try:
                return dict(self.software.show_deployment(self.resource_id)
                            .get("output_values") or {})
            except errors.NotFound:
                return {}
        return dict(self.data.get(OUTPUTS_KEY) or {})

    def resolve_attribute(self, name: str) -> Any:
        """An output value; None for a declared output or a ``deploy_*`` not received yet.
        :raises errors.TemplateError: ``InvalidTemplateAttribute`` for another name."""
        if name == "show":
            return None
        values = self._output_values()
        if name in values:
            return copy.deepcopy(values[name])
        declared = self.data.get("outputs_declared")
        if declared is not None and name not in declared and name not in self.attributes_schema:
            raise errors.TemplateError(
                f"The Referenced Attribute ({self.name} {name}) is incorrect.",
                heat_type="InvalidTemplateAttribute", resource=self.name, key=name)
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {SoftwareDeployment.type_name: SoftwareDeployment}
