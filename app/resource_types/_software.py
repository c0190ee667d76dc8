"""Software config and deployment logic shared by the config and deployment types (pure).

As Heat's ``heat/engine/software_config_io.py`` (input/output schemas, ``InputConfig.as_dict``)
and the pure parts of ``heat/engine/service_software_config.py`` (what a deployment signal does
to a deployment's outputs and status). Plugins reach the store of configs and deployments
through the :class:`Store` the engine hands them (``plugin.software``), as Heat's plugins reach
the engine's RPC API; the store raises :class:`app.errors.NotFound` with Heat's wording for an
unknown id.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from app.resource_types import schema as s

TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")
IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"
#: Heat's ``rpc_api.SOFTWARE_DEPLOYMENT_OUTPUTS``
DEPLOY_OUTPUTS = ("deploy_stdout", "deploy_stderr", "deploy_status_code")
STATUS_CODE = "deploy_status_code"

#: the ``description`` of an input/output (Heat has it; the reference data lost every key
#: named ``description``, so it is accepted in validation but not listed)
DESCRIPTION = {"description": s.prop("string", "Description of the input or output.")}
INPUT_SCHEMA: dict[str, Any] = {
    "name": s.prop("string", "Name of the input.", required=True),
    "type": s.prop("string", "Type of the value of the input.", default="String",
                   constraints=[s.allowed_values(TYPES)]),
    "default": s.prop("any", "Default value for the input if none is specified."),
    "replace_on_change": s.prop("boolean", "Replace the deployment instead of updating it when "
                                "the input value changes.", default=False),
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "name": s.prop("string", "Name of the output.", required=True),
    "type": s.prop("string", "Type of the value of the output.", default="String",
                   constraints=[s.allowed_values(TYPES)]),
    "error_output": s.prop("boolean", "Denotes that the deployment is in an error state if "
                           "this output has a value.", default=False),
}


def io_properties(described: bool = False) -> dict[str, Any]:
    """The ``inputs``, ``outputs`` and ``options`` properties every config type shares
    (``described``: with the inputs' and outputs' ``description``, for validation)."""
    extra = DESCRIPTION if described else {}
    return {
        "inputs": s.prop("list", "Schema representing the inputs that this software config is "
                         "expecting.", schema=s.list_of(s.prop("map", "An input.",
                                                              schema={**INPUT_SCHEMA,
                                                                      **extra}))),
        "outputs": s.prop("list", "Schema representing the outputs that this software config "
                          "will produce.", schema=s.list_of(s.prop("map", "An output.",
                                                                  schema={**OUTPUT_SCHEMA,
                                                                          **extra}))),
        "options": s.prop("map", "Map containing options specific to the configuration "
                          "management tool used by this resource."),
    }


class Store(Protocol):
    """The engine's software config service, for one project (Heat's RPC calls of the same
    names). Configs and deployments are returned as the API shows them."""

    def create_config(self, *, name: str | None, group: str | None, config: Any,
                      inputs: Any, outputs: Any, options: Any) -> dict[str, Any]: ...

    def show_config(self, config_id: str) -> dict[str, Any]: ...

    def delete_config(self, config_id: str) -> None: ...

    def create_deployment(self, *, deployment_id: str, server_id: str, config_id: str,
                          input_values: Any, action: str, status: str, status_reason: str,
                          stack_user_project_id: str | None = None) -> dict[str, Any]: ...

    def show_deployment(self, deployment_id: str) -> dict[str, Any]: ...

    def update_deployment(self, deployment_id: str, **values: Any) -> dict[str, Any]: ...

    def delete_deployment(self, deployment_id: str) -> None: ...

    def signal_deployment(self, deployment_id: str, details: Any) -> str | None: ...


def check_io_list(items: Any) -> None:
    """Heat's ``check_io_schema_list``.

    :raises TypeError: "Software Config I/O Schema must be in a list" / "... must be a dict"."""
    if not isinstance(items, Sequence) or isinstance(items, (str, Mapping)):
        raise TypeError("Software Config I/O Schema must be in a list")
    if not all(isinstance(i, Mapping) for i in items):
        raise TypeError("Software Config I/O Schema must be a dict")


def _io(item: Mapping[str, Any], schema: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """One input/output with its defaults, as Heat's ``IOConfig(**item).as_dict()`` (None
    values dropped). :raises ValueError: a missing name, an unknown key or a bad type."""
    schema = {**schema, **DESCRIPTION}
    unknown = sorted(set(item) - set(schema) - ({"value"} if kind == "input" else set()))
    if unknown:
        raise ValueError(f'Unknown Property {unknown[0]}')
    if not item.get("name"):
        raise ValueError('Property name not assigned')
    if item.get("type", "String") not in TYPES:
        raise ValueError(f'Property error: type: "{item["type"]}" is not an allowed value '
                         f'[{", ".join(TYPES)}]')
    out: dict[str, Any] = {}
    for key, entry in schema.items():
        value = item.get(key, entry.get("default"))
        if value is not None:
            out[key] = value
    if kind == "input":
        if not out.get("replace_on_change"):
            out.pop("replace_on_change", None)
        if "value" in item:
            out["value"] = item["value"]
    return out


def inputs_of(items: Any) -> list[dict[str, Any]]:
    """Normalised input schemas (``InputConfig(**i).as_dict()``). :raises TypeError, ValueError."""
    check_io_list(items)
    return [_io(i, INPUT_SCHEMA, "input") for i in items]


def outputs_of(items: Any) -> list[dict[str, Any]]:
    """Normalised output schemas (``OutputConfig(**o).as_dict()``). :raises TypeError, ValueError."""
    check_io_list(items)
    return [_io(o, OUTPUT_SCHEMA, "output") for o in items]


def signal_result(details: Any, outputs: Sequence[Mapping[str, Any]],
                  output_values: Mapping[str, Any] | None, deployment_id: str
                  ) -> tuple[str, str, dict[str, Any], str]:
    """What a signal does to an IN_PROGRESS deployment (Heat's ``signal_software_deployment``):
    ``(status, status reason, output values, event reason)``.

    ``deploy_status_code`` other than 0 fails it ("deploy_status_code : Deployment exited with
    non-zero status code: 3"), so does a value of an ``error_output``; declared outputs and the
    ``deploy_*`` outputs are taken from ``details``. Otherwise "Outputs received"."""
    details = details if isinstance(details, Mapping) else {}
    ov = dict(output_values or {})
    status: str | None = None
    reasons: dict[str, Any] = {}
    code = details.get(STATUS_CODE)
    if code and str(code) != "0":
        status = FAILED
        reasons[STATUS_CODE] = f"Deployment exited with non-zero status code: {code}"
        event = f"deployment {deployment_id} failed ({code})"
    else:
        event = f"deployment {deployment_id} succeeded"
    for output in outputs or []:
        key = output["name"]
        if key in details:
            ov[key] = details[key]
            if output.get("error_output", False):
                status = FAILED
                reasons[key] = details[key]
                event = f"deployment {deployment_id} failed"
    for key in DEPLOY_OUTPUTS:
        ov[key] = details.get(key)
    if status == FAILED:
        return FAILED, ", ".join(f"{k} : {v}" for k, v in reasons.items()), ov, event
    return COMPLETE, "Outputs received", ov, event
