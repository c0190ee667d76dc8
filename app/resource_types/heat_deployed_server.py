"""OS::Heat::DeployedServer (Heat's ``heat/engine/resources/openstack/heat/deployed_server.py``
on ``server_base.BaseServer``): a server deployed outside OpenStack that software deployments
can still configure. Nothing is created in a cloud: its physical id is the resource's uuid; it
is a stack user (:mod:`app.resource_types._stack_user`) whose credentials its local agent
(os-collect-config) uses to poll its deployments.

More in docs/code/resource_types.md (app.resource_types.heat_deployed_server).
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app.resource_types import _stack_user, _wait, _zaqar_signal
from app.resource_types import schema as s
from app.resource_types._server_software import deployments_metadata
from app.resource_types.base import Resource

TRANSPORTS = ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")


class DeployedServer(Resource):
    """OS::Heat::DeployedServer."""

    type_name = "OS::Heat::DeployedServer"
    support_status = s.support_status(None)
    properties_schema: ClassVar[dict[str, Any]] = {
        "name": s.prop("string", "Server name.", update_allowed=True),
        "metadata": s.prop("map", "Arbitrary key/value metadata to store for this server. "
                           "Both keys and values must be 255 characters or less. Non-string "
                           "values will be serialized to JSON (and the serialized string must "
                           "be 255 characters or less).", update_allowed=True),
        "software_config_transport": s.prop(
            "string", "How the server should receive the metadata required for software "
            "configuration. POLL_SERVER_CFN will allow calls to the cfn API action "
            "DescribeStackResource authenticated with the provided keypair. POLL_SERVER_HEAT "
            "will allow calls to the Heat API resource-show using the provided keystone "
            "credentials. POLL_TEMP_URL will create and populate a Swift TempURL with "
            "metadata for polling. ZAQAR_MESSAGE will create a dedicated zaqar queue and post "
            "the metadata for polling.", default="POLL_SERVER_CFN", update_allowed=True,
            constraints=[s.allowed_values(TRANSPORTS)]),
        "deployment_swift_data": s.prop(
            "map", "Swift container and object to use for storing deployment data for the "
            "server resource. The parameter is a map value with the keys \"container\" and "
            "\"object\", and the values are the corresponding container and object names. "
            "The software_config_transport parameter must be set to POLL_TEMP_URL for swift "
            "to be used. If not specified, and software_config_transport is set to "
            "POLL_TEMP_URL, a container will be automatically created from the resource "
            "name, and the object name will be a generated uuid.", default={},
            update_allowed=True, schema={
                "container": s.prop("string", "Name of the container.",
                                    constraints=[s.length(min=1)]),
                "object": s.prop("string", "Name of the object.",
                                 constraints=[s.length(min=1)])}),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "name": s.attr("Name of the server.", "string"),
        "os_collect_config": s.attr("The os-collect-config configuration for the server's "
                                    "local agent to be configured to connect to Heat to "
                                    "retrieve deployment data.", "map"),
    }
    #: set by the engine: the resource's template ``metadata``, resolved
    template_metadata: Callable[[], dict[str, Any]] | None = None
    #: Heat's ``max_server_name_length``
    physical_resource_name_limit: ClassVar[int | None] = 53

    def handle_create(self) -> str:
        """Physical id the resource's uuid; the transport's credentials and settings."""
        if self.resource_id is None:
            self.resource_id = self.uuid or str(uuid.uuid4())
        deployments_metadata(self)
        return str(self.resource_id)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]
                      ) -> None:
        """A new transport: its credentials and settings (Heat's
        ``_update_software_config_transport``); the rest needs nothing."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if "software_config_transport" in changed:
            deployments_metadata(self)

    def handle_delete(self) -> None:
        """The metadata queue (ZAQAR_MESSAGE), the stack user and its credentials go (Heat's
        ``_delete``)."""
        _zaqar_signal.delete_queue(self, _zaqar_signal.METADATA_QUEUE_KEY)
        _stack_user.delete_user(self)

    def handle_suspend(self) -> None:
        """The stack user is disabled (Heat's ``StackUser.handle_suspend``)."""
        _stack_user.set_enabled(self, False)

    def handle_resume(self) -> None:
        """The stack user is enabled again."""
        _stack_user.set_enabled(self, True)

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "name":
            return self.get_property("name") or self.physical_resource_name()
        if name == "os_collect_config":
            return dict((self.data.get(_wait.METADATA) or {}).get("os-collect-config") or {})
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {"OS::Heat::DeployedServer": DeployedServer}
