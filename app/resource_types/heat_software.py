"""Heat's software config types: OS::Heat::SoftwareConfig, CloudConfig, MultipartMime,
StructuredConfig and SoftwareComponent (``heat/engine/resources/openstack/heat/
{software_config,cloud_config,multi_part,structured_config,software_component}.py``).

Each stores one immutable config through the engine's software config store
(``self.software``, a :class:`app.resource_types._software.Store`); the reference id is the
config id, the ``config`` attribute the stored config (``""``-less: None when it is gone).
Any property change replaces the resource (no property is ``update_allowed``), so a new config
is stored and the old one deleted, as in Heat. The config text is kept in ``data["config"]``
too, so the attribute resolves without the store (resource show).
"""
from __future__ import annotations

import email
import json
import os
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any, ClassVar

import yaml

from app import errors
from app.resource_types import _software
from app.resource_types import schema as s
from app.resource_types.base import Resource

UNGROUPED = "Heat::Ungrouped"
_CONFIG_ATTR = {"config": s.attr("The config value of the software config.", "string")}


def is_uuid_like(value: Any) -> bool:
    """oslo's ``uuidutils.is_uuid_like``: a UUID in any of its usual spellings."""
    import uuid
    try:
        return str(uuid.UUID(str(value))).replace("-", "") == \
            str(value).replace("-", "").lower()
    except (TypeError, ValueError, AttributeError):
        return False


class SoftwareConfig(Resource):
    """OS::Heat::SoftwareConfig: a script or manifest with its inputs, outputs and options."""

    type_name = "OS::Heat::SoftwareConfig"
    support_status = s.support_status("2014.1")
    properties_schema: ClassVar[dict[str, Any]] = {
        "group": s.prop("string", "Namespace to group this software config by when delivered "
                        "to a server. This may imply what configuration tool is going to "
                        "perform the configuration.", default=UNGROUPED),
        "config": s.prop("string", "Configuration script or manifest which specifies what "
                         "actual configuration is performed."),
        **_software.io_properties(),
    }
    attributes_schema: ClassVar[dict[str, Any]] = dict(_CONFIG_ATTR)
    #: set by the engine: the software config store of the stack's project
    software: _software.Store | None = None

    @classmethod
    def validation_schema(cls, values: Any) -> dict[str, Any] | None:
        """The listed schema, with the inputs' and outputs' ``description`` accepted."""
        if "inputs" not in cls.properties_schema:
            return cls.properties_schema
        return {**cls.properties_schema, **_software.io_properties(described=True)}

    def _store(self) -> _software.Store:
        if self.software is None:
            raise RuntimeError("no software config store")
        return self.software

    def config_props(self) -> dict[str, Any]:
        """``create_config``'s arguments (Heat's ``handle_create`` props)."""
        return {"group": self.get_property("group"), "config": self.get_property("config"),
                "inputs": self.get_property("inputs") or [],
                "outputs": self.get_property("outputs") or [],
                "options": self.get_property("options") or {}}

    def handle_create(self) -> None:
        """Store the config (once: a redelivered create keeps the first)."""
        if self.resource_id is not None:
            return
        props = self.config_props()
        created = self._store().create_config(name=self.physical_resource_name(), **props)
        self.resource_id = str(created["id"])
        self.data["config"] = created.get("config")

    def handle_delete(self) -> None:
        """Delete the stored config; a config already gone is fine (Heat ignores NotFound)."""
        if self.resource_id is None or self.software is None:
            return
        try:
            self.software.delete_config(self.resource_id)
        except errors.NotFound:
            pass

    def _resolve_attribute(self, name: str) -> Any:
        if name != "config" or not self.resource_id:
            return None
        if self.software is not None:
            try:
                return self.software.show_config(self.resource_id).get("config")
            except errors.NotFound:
                return None
        return self.data.get("config")


class CloudConfig(SoftwareConfig):
    """OS::Heat::CloudConfig: ``cloud_config`` dumped as YAML after ``#cloud-config``."""

    type_name = "OS::Heat::CloudConfig"
    properties_schema: ClassVar[dict[str, Any]] = {
        "cloud_config": s.prop("map", "Map representing the cloud-config data structure which "
                               "will be formatted as YAML."),
    }

    def config_props(self) -> dict[str, Any]:
        dumped = yaml.safe_dump(self.get_property("cloud_config"), default_flow_style=False)
        return {"group": UNGROUPED, "config": f"#cloud-config\n{dumped}", "inputs": [],
                "outputs": [], "options": {}}


def _message(part: str, subtype: str, filename: str | None) -> MIMEText:
    charset = "us-ascii"
    try:
        part.encode(charset)
    except UnicodeEncodeError:
        charset = "utf-8"
    msg = MIMEText(part, subtype, charset) if subtype else MIMEText(part, _charset=charset)
    if filename:
        msg.add_header("Content-Disposition", "attachment", filename=filename)
    return msg


class MultipartMime(SoftwareConfig):
    """OS::Heat::MultipartMime: parts (inline text, or config ids whose config is taken; a
    ``multipart`` part is split into its parts) assembled into one MIME message."""

    type_name = "OS::Heat::MultipartMime"
    properties_schema: ClassVar[dict[str, Any]] = {
        "group": s.prop("string", "Namespace to group this software config by when delivered "
                        "to a server. This may imply what configuration tool is going to "
                        "perform the configuration.", default=UNGROUPED),
        "parts": s.prop("list", "Parts belonging to this message.", default=[],
                        schema=s.list_of(s.prop("map", "A part.", schema={
                            "config": s.prop("string", "Content of part to attach, either "
                                             "inline or by referencing the ID of another "
                                             "software config resource.", required=True),
                            "filename": s.prop("string", "Optional filename to associate "
                                               "with part."),
                            "type": s.prop("string", "Whether the part content is text or "
                                           "multipart.", default="text",
                                           constraints=[s.allowed_values(["text",
                                                                          "multipart"])]),
                            "subtype": s.prop("string", "Optional subtype to specify with the "
                                              "type."),
                        }))),
    }

    def get_message(self) -> str:
        """The MIME message of the parts (Heat's ``get_message``)."""
        subparts: list[MIMEText] = []
        for item in self.get_property("parts") or []:
            config = item.get("config")
            part = config
            if is_uuid_like(config) and self.software is not None:
                try:
                    part = self.software.show_config(str(config)).get("config")
                except errors.NotFound:
                    part = config
            part = part if isinstance(part, str) else json.dumps(part)
            if item.get("type", "text") == "multipart":
                parsed = email.message_from_string(part)
                if parsed.is_multipart():
                    for sub in parsed.get_payload():
                        subparts.append(_message(str(sub.get_payload()),
                                                 sub.get_content_subtype(), sub.get_filename()))
                continue
            filename = item.get("filename") or ""
            subtype = item.get("subtype") or ""
            if not subtype and filename:
                subtype = os.path.splitext(filename)[0]
            subparts.append(_message(part, subtype, filename))
        return MIMEMultipart(_subparts=subparts).as_string()

    def config_props(self) -> dict[str, Any]:
        return {"group": self.get_property("group"), "config": self.get_message(),
                "inputs": [], "outputs": [], "options": {}}


class StructuredConfig(SoftwareConfig):
    """OS::Heat::StructuredConfig: a config that is a map (its ``get_input`` calls are
    substituted by OS::Heat::StructuredDeployment)."""

    type_name = "OS::Heat::StructuredConfig"
    properties_schema: ClassVar[dict[str, Any]] = {
        **SoftwareConfig.properties_schema,
        "config": s.prop("map", "Map representing the configuration data structure which will "
                         "be serialized to JSON format."),
    }


class SoftwareComponent(SoftwareConfig):
    """OS::Heat::SoftwareComponent: one config per lifecycle action, stored as ``{"configs":
    [...]}`` in group ``component``."""

    type_name = "OS::Heat::SoftwareComponent"
    support_status = s.support_status("2014.2")
    properties_schema: ClassVar[dict[str, Any]] = {
        "configs": s.prop("list", "The list of configurations for the different lifecycle "
                          "actions of the represented software component.", required=True,
                          constraints=[s.length(min=1)],
                          schema=s.list_of(s.prop("map", "A configuration.", schema={
                              "actions": s.prop("list", "Lifecycle actions to which the "
                                                "configuration applies.",
                                                default=["CREATE", "UPDATE"],
                                                constraints=[s.length(min=1)],
                                                schema=s.list_of(s.prop("string",
                                                                        "An action."))),
                              "config": s.prop("string", "Configuration script or manifest "
                                               "which specifies what actual configuration "
                                               "is performed."),
                              "tool": s.prop("string", "The configuration tool used to "
                                             "actually apply the configuration on a server.",
                                             required=True),
                          }))),
        **_software.io_properties(),
    }

    def validate(self) -> None:
        """:raises errors.ValidationError: two configs for one action (Heat's wording)."""
        seen: set[str] = set()
        for config in self.get_property("configs") or []:
            actions = config.get("actions") or ["CREATE", "UPDATE"]
            if any(a in seen for a in actions):
                raise errors.ValidationError(
                    "Defining more than one configuration for the same action in "
                    f'SoftwareComponent "{self.name}" is not allowed.')
            seen.update(actions)

    def config_props(self) -> dict[str, Any]:
        configs = [{"actions": ["CREATE", "UPDATE"], **c}
                   for c in self.get_property("configs") or []]
        return {"group": "component", "config": {"configs": configs},
                "inputs": self.get_property("inputs") or [],
                "outputs": self.get_property("outputs") or [],
                "options": self.get_property("options") or {}}


def resource_mapping() -> dict[str, type[Resource]]:
    return {cls.type_name: cls for cls in (SoftwareConfig, CloudConfig, MultipartMime,
                                           StructuredConfig, SoftwareComponent)}
