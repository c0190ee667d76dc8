"""The software configs and deployments API's use cases (Heat's ``EngineService`` calls of the
same names, heat/engine/service.py and service_software_config.py), through
:class:`app.convergence.steps.software.Store`.

Beyond the store: the per-project limits (``max_software_configs_per_tenant``,
``max_software_deployments_per_tenant``, Heat's ``RequestLimitExceeded``), and a deployment
updated through the API wakes the stack resource that waits for it (its status may now be
COMPLETE or FAILED), as Heat's waiting resource would see at its next poll.
"""
from __future__ import annotations

from typing import Any

from app import config, errors
from app.context import RequestContext
from app.convergence import wakeups
from app.convergence.steps import software
from app.resource_types.heat_deployment import deployment_event

#: ``field -> (JSON type, name of the type, maximum length)`` of the bodies' fields, as Heat's
#: columns hold them (heat/db/models.py: ``String(255)``, ``String(36)``, ``Json``). Heat's
#: database refuses what does not fit with a 500; Stoker answers a 400 naming the field.
CONFIG_FIELDS: dict[str, tuple[type | tuple[type, ...], str, int | None]] = {
    "name": (str, "a string", 255), "group": (str, "a string", 255),
    "options": (dict, "a map", None)}
DEPLOYMENT_FIELDS: dict[str, tuple[type | tuple[type, ...], str, int | None]] = {
    "server_id": (str, "a string", 36), "config_id": (str, "a string", 36),
    "input_values": (dict, "a map", None), "output_values": (dict, "a map", None),
    "action": (str, "a string", 255), "status": (str, "a string", 255),
    "status_reason": (str, "a string", None), "stack_user_project_id": (str, "a string", None)}


def check_fields(body: dict[str, Any], fields: dict[str, tuple[Any, str, int | None]]) -> None:
    """Refuse a body field that is not null and not of its column's type or length.

    :raises errors.BadRequest: ``Invalid value for "name": must be a string of at most 255
        characters`` (Heat's database would fail the request with a 500)."""
    for key, (kind, label, most) in fields.items():
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise errors.BadRequest(f'Invalid value for "{key}": must be {label}')
        if most is not None and len(value) > most:
            raise errors.BadRequest(
                f'Invalid value for "{key}": must be {label} of at most {most} characters')


def store(ctx: RequestContext) -> software.Store:
    """The context's project store (admins see every project's, as Heat's admin context)."""
    return software.Store(ctx.tenant_id, is_admin=bool(ctx.is_admin))


def list_configs(ctx: RequestContext, limit: int | None = None,
                 marker: str | None = None) -> list[dict[str, Any]]:
    """``[{id, name, group, creation_time}]`` of the project."""
    return store(ctx).list_configs(limit, marker)


def create_config(ctx: RequestContext, body: dict[str, Any]) -> dict[str, Any]:
    """Store a config from the API body's ``name, group, config, inputs, outputs, options``.

    :raises errors.RequestLimitExceeded: the project has its maximum of configs.
    :raises errors.BadRequest: bad inputs/outputs, a field of the wrong type or length."""
    check_fields(body, CONFIG_FIELDS)
    st = store(ctx)
    tenant_limit = config.get().max_software_configs_per_tenant
    if not ctx.is_admin and 0 <= tenant_limit <= len(st.list_configs()):
        raise errors.RequestLimitExceeded(
            f"You have reached the maximum software configs per tenant, {tenant_limit}. "
            "Please delete some configs.")
    return st.create_config(name=body.get("name"), group=body.get("group"),
                            config=body.get("config"), inputs=body.get("inputs"),
                            outputs=body.get("outputs"), options=body.get("options"))


def show_config(ctx: RequestContext, config_id: str) -> dict[str, Any]:
    """:raises errors.NotFound: "Software config with id X not found"."""
    return store(ctx).show_config(config_id)


def delete_config(ctx: RequestContext, config_id: str) -> None:
    """:raises errors.NotFound: unknown. :raises errors.BadRequest: still deployed."""
    store(ctx).delete_config(config_id)


def list_deployments(ctx: RequestContext, server_id: str | None = None) -> list[dict[str, Any]]:
    """The project's deployments, of ``server_id`` if given."""
    return store(ctx).list_deployments(server_id)


def metadata(ctx: RequestContext, server_id: str) -> list[dict[str, Any]]:
    """The configs deployed to ``server_id``, by name."""
    return store(ctx).metadata(server_id)


def create_deployment(ctx: RequestContext, body: dict[str, Any]) -> dict[str, Any]:
    """A deployment from ``config_id, server_id, input_values, action, status,
    status_reason, stack_user_project_id``.

    :raises errors.NotFound: no config_id, or an unknown config (Heat's 404).
    :raises errors.BadRequest: no server_id.
    :raises errors.RequestLimitExceeded: the project has its maximum of deployments.
    :raises errors.BadRequest: a field of the wrong type or length."""
    check_fields(body, DEPLOYMENT_FIELDS)
    st = store(ctx)
    tenant_limit = config.get().max_software_deployments_per_tenant
    if not ctx.is_admin and 0 <= tenant_limit <= len(st.list_deployments()):
        raise errors.RequestLimitExceeded(
            f"You have reached the maximum software deployments per tenant, {tenant_limit}. "
            "Please delete some deployments.")
    if not body.get("config_id"):  # Heat looks the config up: 404
        raise errors.NotFound("Software config", "None",
                              "Software config with id None not found", heat_type="NotFound")
    if not body.get("server_id"):  # Heat's database refuses it: a 500 DBError there
        raise errors.BadRequest("server_id must be specified", heat_type="ValueError")
    return st.create_deployment(
        server_id=str(body["server_id"]), config_id=str(body["config_id"]),
        input_values=body.get("input_values"), action=body.get("action"),
        status=body.get("status"), status_reason=body.get("status_reason"),
        stack_user_project_id=body.get("stack_user_project_id"))


def show_deployment(ctx: RequestContext, deployment_id: str) -> dict[str, Any]:
    """:raises errors.NotFound: "Deployment with id X not found"."""
    return store(ctx).show_deployment(deployment_id)


def update_deployment(ctx: RequestContext, deployment_id: str,
                      body: dict[str, Any]) -> dict[str, Any]:
    """Set the body's non-null ``config_id, input_values, output_values, action, status,
    status_reason``; then wake the stack resource of the deployment (if one waits).
    :raises errors.NotFound: unknown id.
    :raises errors.BadRequest: a field of the wrong type or length."""
    check_fields(body, DEPLOYMENT_FIELDS)
    values = {k: body[k] for k in ("config_id", "input_values", "output_values", "action",
                                   "status", "status_reason") if body.get(k) is not None}
    out = store(ctx).update_deployment(deployment_id, **values)
    owner = software.deployment_resource(deployment_id)
    if owner is not None:
        wakeups.wake(owner[0], owner[1], deployment_event(deployment_id))
    return out


def delete_deployment(ctx: RequestContext, deployment_id: str) -> None:
    """:raises errors.NotFound: unknown id."""
    store(ctx).delete_deployment(deployment_id)
