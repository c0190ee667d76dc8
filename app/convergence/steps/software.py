"""The software config service: configs and deployments in the database (Heat's
``heat/engine/service_software_config.py`` and the ``software_*`` calls of ``heat/db/api.py``).

:class:`Store` is bound to one project and serves both the API (:mod:`app.services.software`)
and the plugins (:func:`attach` hands it to a plugin as ``plugin.software``). Configs and
deployments are returned as Heat's ``format_software_config`` / ``format_software_deployment``
give them. Creating or re-pointing a deployment rewrites its server's ``deployments`` metadata
(Heat's ``_push_metadata_software_deployments``): the server resource's live metadata, which the
API's ``.../metadata`` and the CFN API show, and which a server polls.
"""
from __future__ import annotations

import functools
import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import auth, errors
from app.convergence.store import definitions
from app.convergence.store.rows import ResourceRow, table
from app.models import (
    Resource,
    SoftwareConfig,
    SoftwareDeployment,
    Stack,
    after_commit,
    isotime,
    read_session,
    session,
    utcnow,
)
from app.resource_types import _software, _wait, _zaqar_signal, registry

log = logging.getLogger(__name__)

RT = table(Resource)
DEPLOYMENTS = "deployments"


def format_config(sc: SoftwareConfig, detail: bool = True,
                  include_project: bool = False) -> dict[str, Any]:
    """Heat's ``format_software_config``: ``{id, name, group, creation_time[, config, inputs,
    outputs, options][, project]}``."""
    out: dict[str, Any] = {"id": sc.id, "name": sc.name, "group": sc.group,
                           "creation_time": isotime(sc.created_at)}
    if detail:
        body = sc.config or {}
        out.update(config=body.get("config"), inputs=body.get("inputs"),
                   outputs=body.get("outputs"), options=body.get("options"))
    if include_project:
        out["project"] = sc.tenant
    return out


def format_deployment(sd: SoftwareDeployment) -> dict[str, Any]:
    """Heat's ``format_software_deployment``."""
    out: dict[str, Any] = {"id": sd.id, "server_id": sd.server_id,
                           "input_values": sd.input_values, "output_values": sd.output_values,
                           "action": sd.action, "status": sd.status,
                           "status_reason": sd.status_reason, "config_id": sd.config_id,
                           "creation_time": isotime(sd.created_at)}
    if sd.updated_at:
        out["updated_time"] = isotime(sd.updated_at)
    return out


class Store:
    """The software config service of project ``tenant`` (``is_admin`` sees every project's,
    as Heat's admin context)."""

    def __init__(self, tenant: str, is_admin: bool = False) -> None:
        self.tenant = tenant
        self.is_admin = is_admin

    # ---- configs -----------------------------------------------------------------------------
    def _config(self, s: Session, config_id: str) -> SoftwareConfig:
        found = s.get(SoftwareConfig, str(config_id))
        if found is None or (not self.is_admin and found.tenant != self.tenant):
            raise errors.NotFound("Software config", str(config_id),
                                  f"Software config with id {config_id} not found",
                                  heat_type="NotFound")
        return found

    def create_config(self, *, name: str | None, group: str | None, config: Any,
                      inputs: Any, outputs: Any, options: Any) -> dict[str, Any]:
        """Store a config (Heat's ``create_software_config``).

        :raises errors.BadRequest: inputs/outputs not a list of maps (Heat: 400 with webob's
            generic message; here the reason), or an input/output Heat's ``IOConfig`` refuses
            (Heat: 400 ``ValueError``)."""
        try:
            body = {"inputs": _software.inputs_of(inputs if inputs is not None else []),
                    "outputs": _software.outputs_of(outputs if outputs is not None else []),
                    "options": options if options is not None else {}, "config": config}
        except (TypeError, ValueError) as exc:
            raise errors.BadRequest(str(exc), heat_type=type(exc).__name__) from None
        with session() as s:
            sc = SoftwareConfig(name=name, group=group, config=body, tenant=self.tenant)
            s.add(sc)
            s.flush()
            return format_config(sc)

    def show_config(self, config_id: str) -> dict[str, Any]:
        """:raises errors.NotFound: "Software config with id X not found" (404)."""
        with read_session() as s:
            return format_config(self._config(s, config_id))

    def list_configs(self, limit: int | None = None, marker: str | None = None
                     ) -> list[dict[str, Any]]:
        """Summaries (no config body), oldest first, after ``marker``, at most ``limit``."""
        with read_session() as s:
            q = select(SoftwareConfig).order_by(SoftwareConfig.created_at, SoftwareConfig.id)
            if not self.is_admin:
                q = q.where(SoftwareConfig.tenant == self.tenant)
            rows = list(s.execute(q).scalars())
        if marker:
            ids = [r.id for r in rows]
            rows = rows[ids.index(marker) + 1:] if marker in ids else rows
        if limit is not None:
            rows = rows[:limit]
        return [format_config(r, detail=False, include_project=self.is_admin) for r in rows]

    def delete_config(self, config_id: str) -> None:
        """:raises errors.NotFound: unknown id. :raises errors.BadRequest: a deployment uses
        it (Heat's ``InvalidRestrictedAction``)."""
        with session() as s:
            sc = self._config(s, config_id)
            used = s.execute(select(SoftwareDeployment.id).where(
                SoftwareDeployment.config_id == sc.id).limit(1)).first()
            if used is not None:  # Heat answers 500 InvalidRestrictedAction: a 400 here
                raise errors.BadRequest(f"Software config with id {config_id} can not be "
                                        "deleted as it is referenced.",
                                        heat_type="InvalidRestrictedAction")
            s.delete(sc)

    # ---- deployments ---------------------------------------------------------------------------
    def _deployment(self, s: Session, deployment_id: str) -> SoftwareDeployment:
        found = s.get(SoftwareDeployment, str(deployment_id))
        if found is None or (not self.is_admin and self.tenant not in (
                found.tenant, found.stack_user_project_id)):
            raise errors.NotFound("Deployment", str(deployment_id),
                                  f"Deployment with id {deployment_id} not found",
                                  heat_type="NotFound")
        return found

    def create_deployment(self, *, deployment_id: str | None = None, server_id: str,
                          config_id: str, input_values: Any, action: str | None,
                          status: str | None, status_reason: str | None,
                          stack_user_project_id: str | None = None) -> dict[str, Any]:
        """:raises errors.NotFound: no such config ("Software config with id X not found",
        Heat's 404)."""
        if stack_user_project_id is not None and len(stack_user_project_id) > 64:
            raise errors.BadRequest('Invalid: "stack_user_project_id" should be no more '
                                    "than 64 characters", heat_type="Invalid")
        with session() as s:
            self._config(s, config_id)
            values: dict[str, Any] = {"config_id": str(config_id), "server_id": str(server_id),
                                      "input_values": input_values if input_values is not None
                                      else {}, "tenant": self.tenant,
                                      "stack_user_project_id": stack_user_project_id,
                                      "action": action, "status": status,
                                      "status_reason": str(status_reason)}
            if deployment_id:
                values["id"] = deployment_id
            sd = SoftwareDeployment(**values)
            s.add(sd)
            s.flush()
            out = format_deployment(sd)
            push_metadata(s, sd.server_id)
        return out

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        """:raises errors.NotFound: "Deployment with id X not found" (404)."""
        with read_session() as s:
            return format_deployment(self._deployment(s, deployment_id))

    def list_deployments(self, server_id: str | None = None) -> list[dict[str, Any]]:
        """The project's deployments (of ``server_id`` if given), oldest first."""
        with read_session() as s:
            q = select(SoftwareDeployment).order_by(SoftwareDeployment.created_at)
            if not self.is_admin:
                q = q.where((SoftwareDeployment.tenant == self.tenant)
                            | (SoftwareDeployment.stack_user_project_id == self.tenant))
            if server_id:
                q = q.where(SoftwareDeployment.server_id == server_id)
            return [format_deployment(r) for r in s.execute(q).scalars()]

    def metadata(self, server_id: str) -> list[dict[str, Any]]:
        """The configs deployed to ``server_id``, sorted by config name (Heat's
        ``metadata_software_deployments``). :raises errors.BadRequest: no server id."""
        if not server_id:
            raise errors.BadRequest("server_id must be specified", heat_type="ValueError")
        with read_session() as s:
            return server_configs(s, server_id, None if self.is_admin else self.tenant)

    def update_deployment(self, deployment_id: str, **values: Any) -> dict[str, Any]:
        """Set the given fields (``config_id``, ``input_values``, ``output_values``,
        ``action``, ``status``, ``status_reason``; falsy ones are ignored, as Heat's);
        ``updated_time`` becomes now. A new ``config_id`` rewrites the server's metadata.
        :raises errors.NotFound: unknown deployment or config (Heat's 404s)."""
        with session() as s:
            sd = self._deployment(s, deployment_id)
            config_id = values.get("config_id")
            if config_id:
                self._config(s, str(config_id))
            for key in ("config_id", "input_values", "output_values", "action", "status",
                        "status_reason"):
                if values.get(key):
                    setattr(sd, key, str(values[key]) if key == "status_reason"
                            else values[key])
            sd.updated_at = utcnow()
            s.flush()
            out = format_deployment(sd)
            if config_id:
                push_metadata(s, sd.server_id)
        return out

    def delete_deployment(self, deployment_id: str) -> None:
        """Delete it and rewrite its server's metadata. :raises errors.NotFound: unknown id."""
        with session() as s:
            sd = self._deployment(s, deployment_id)
            server_id = sd.server_id
            s.delete(sd)
            s.flush()
            push_metadata(s, server_id)

    def signal_deployment(self, deployment_id: str, details: Any) -> str | None:
        """A server's signal (``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code`` and
        outputs) to an IN_PROGRESS deployment: its outputs and COMPLETE/FAILED status (Heat's
        ``signal_software_deployment``). :returns: the event reason ("deployment X
        succeeded"), None when the deployment is not IN_PROGRESS (nothing changes).
        :raises errors.NotFound: unknown id."""
        with session() as s:
            sd = self._deployment(s, deployment_id)
            if sd.status != _software.IN_PROGRESS:
                return None
            config = s.get(SoftwareConfig, sd.config_id)
            outputs = ((config.config or {}).get("outputs") if config else None) or []
            status, reason, ov, event = _software.signal_result(
                details or {}, outputs, sd.output_values, sd.id)
            sd.output_values, sd.status, sd.status_reason = ov, status, reason
            sd.updated_at = utcnow()
        return event


def server_configs(s: Session, server_id: str, tenant: str | None) -> list[dict[str, Any]]:
    """The derived configs of the deployments to ``server_id``, sorted by name."""
    q = select(SoftwareConfig).join(
        SoftwareDeployment, SoftwareDeployment.config_id == SoftwareConfig.id).where(
        SoftwareDeployment.server_id == server_id)
    if tenant is not None:
        q = q.where((SoftwareDeployment.tenant == tenant)
                    | (SoftwareDeployment.stack_user_project_id == tenant))
    rows = list(s.execute(q.order_by(SoftwareDeployment.created_at)).scalars())
    return [format_config(c) for c in sorted(rows, key=lambda c: c.name or "")]


def push_metadata(s: Session, server_id: str) -> None:
    """Write the ``deployments`` of the server whose physical id is ``server_id`` into its
    live metadata (inside ``s``'s transaction); nothing when no live server resource has that
    id (Heat's ``_push_metadata_software_deployments``)."""
    rows = s.execute(select(RT.c.id, RT.c.action, RT.c.rsrc_data)
                     .where(RT.c.physical_resource_id == server_id)).all()
    for row in rows:
        data = dict(row.rsrc_data or {})
        if row.action == "DELETE" or _wait.METADATA not in data:
            continue
        metadata = dict(data[_wait.METADATA] or {})
        metadata[DEPLOYMENTS] = server_configs(s, server_id, None)
        data[_wait.METADATA] = metadata
        s.execute(RT.update().where(RT.c.id == row.id).values(rsrc_data=data))
        if data.get(_zaqar_signal.METADATA_QUEUE_KEY):   # ZAQAR_MESSAGE: posted to its queue
            after_commit(s, functools.partial(_post_metadata, int(row.id), metadata))


def _post_metadata(resource_id: int, metadata: dict[str, Any]) -> None:
    """Post a server's new metadata to its Zaqar queue, as its stack user (Heat's
    ``_push_metadata_software_deployments``); a refusal is logged (the metadata API has it)."""
    with read_session() as s:
        found = s.execute(select(RT).where(RT.c.id == resource_id)).first()
        st = s.get(Stack, found.stack_id) if found is not None else None
        ident = definitions.identity(st.name, st.id, st.tenant) if st is not None else None
    cls = registry.get(ResourceRow.of(found).impl()) if found is not None else None
    if found is None or ident is None or cls is None:
        return
    server = cls(found.name, dict(found.properties_data or {}),
                 resource_id=found.physical_resource_id, data=dict(found.rsrc_data or {}),
                 stack=ident, clients=auth.clients_for(ident), uuid=found.uuid)
    try:
        _zaqar_signal.post(server, metadata)
    except errors.StokerError as exc:
        log.warning("metadata of %s not posted to its queue: %s", found.name, exc)


def attach(plugin: Any, tenant: str) -> Any:
    """Give a plugin that uses the software config service (``software``) its project's."""
    if hasattr(type(plugin), "software"):
        plugin.software = Store(tenant)
    return plugin


def deployment_resource(deployment_id: str) -> tuple[str, int] | None:
    """``(stack id, resource id)`` of the resource whose physical id is ``deployment_id``."""
    with read_session() as s:
        row = s.execute(select(RT.c.stack_id, RT.c.id).where(
            RT.c.physical_resource_id == deployment_id)).first()
    return (str(row.stack_id), int(row.id)) if row is not None else None

