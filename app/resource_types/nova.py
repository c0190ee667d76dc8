"""Nova's OS::Nova::Server (Heat 27's schema, ``heat/engine/resources/openstack/nova/``);
KeyPair, ServerGroup and Flavor are in :mod:`app.resource_types.nova_misc`.

More in docs/code/resource_types.md (app.resource_types.nova).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from app import errors
from app.clients import intent, is_no_unique, is_not_found
from app.clients.status import SERVER
from app.resource_types import _dependencies, _server_software, _stack_user, _userdata, _wait, _zaqar_signal
from app.resource_types._actions import ServerActions
from app.resource_types._cloud import in_error, plain
from app.resource_types._nova_update import UpdatableServer
from app.resource_types._schemas import nova as sch
from app.resource_types._server_ports import InternalPorts
from app.resource_types.base import Resource
from app.resource_types.neutron_l3 import associate


def _fault(shown: dict[str, Any]) -> str:
    fault = shown.get("fault") or {}
    if fault:
        return f"Message: {fault.get('message', 'Unknown')}, Code: {fault.get('code', 'Unknown')}"
    return "Unknown"


class Server(InternalPorts, UpdatableServer, ServerActions):
    """A Nova server (see the module docstring for what Heat behaviour is followed)."""

    #: Heat's Server.needs_replace_failed
    broken_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR", "DELETED", "SOFT_DELETED"})

    type_name = "OS::Nova::Server"
    support_status = sch.SERVER_SUPPORT
    properties_schema = sch.SERVER_PROPERTIES
    attributes_schema = sch.SERVER_ATTRIBUTES
    #: set by the engine: the resource's template ``metadata``, resolved (SOFTWARE_CONFIG)
    template_metadata: Callable[[], dict[str, Any]] | None = None

    @classmethod
    def implicit_requirements(cls, name: str, view: Any) -> set[str]:
        """Heat's ``Server.add_dependencies``: the subnets of the networks it boots on."""
        return _dependencies.subnets_of_server_networks(view, view.prop(name, "networks"))

    @classmethod
    def validate_in_stack(cls, name: str, rdef: Any,
                          lookup: Callable[[str], tuple[str, dict[str, Any]] | None]) -> None:
        """Heat's ``Server.validate``: no ``deployments`` in a SOFTWARE_CONFIG server's
        template ``metadata``. :raises errors.ValidationError: Heat's wording."""
        _server_software.check_template_metadata(name, rdef, lookup)

    #: Heat's hidden ``first_address`` (deprecated in 2014.2, hidden since 5.0.0, still resolved).
    hidden_attributes: ClassVar[dict[str, dict[str, Any]]] = {
        "first_address": {"description": "The first address of the server (deprecated).",
                          "type": "string"}}
    poll_initial: ClassVar[float] = 0.1
    status_kind = SERVER
    #: set by the engine: the software config store (user data given as a config id)
    software: Any = None

    def _fetch(self) -> Any:
        return self.cloud().compute.get_server(self.resource_id)

    def drift_view(self) -> dict[str, Any] | None:
        """``show`` for drift detection: Nova shows the image by id only, so the name the
        properties give it is added when it resolves to that id; ``networks`` is
        :meth:`_live_networks`."""
        shown = self.show_resource()
        if shown is not None and self.properties.get("networks"):
            shown = {**shown, "networks": self._live_networks()}
        image, given = (shown or {}).get("image"), self.properties.get("image")
        if isinstance(image, dict) and given and image.get("id") not in (None, given):
            try:
                if self.resolve("glance.image", given) == image["id"]:
                    shown = {**(shown or {}), "image": {**image, "name": given}}
            except errors.StokerError:
                pass   # a name that no longer resolves: reported as a difference
        return shown

    def _live_networks(self) -> list[dict[str, Any]]:
        """The server's networks as Heat's ``_get_live_networks``: each ``networks`` entry of
        the properties that one of the server's ports matches (by port, else by network and,
        when given, fixed IP) as the properties give it; then each port left over as
        ``{"network": <id>, "fixed_ip": <its first address>}``. One port listing."""
        ports = [(p.network_id, [ip.get("ip_address") for ip in p.fixed_ips or []], p.id)
                 for p in self.cloud().network.ports(device_id=self.resource_id)]

        def ref(kind: str, value: Any) -> Any:
            try:
                return self.resolve(kind, value) if value else None
            except errors.StokerError:
                return None
        out: list[dict[str, Any]] = []
        for net in self.properties.get("networks") or []:
            port, network = ref("neutron.port", net.get("port")), ref("neutron.network",
                                                                     net.get("network"))
            hit = next((p for p in ports if (port and p[2] == port) or (
                not port and network and p[0] == network
                and (not net.get("fixed_ip") or net["fixed_ip"] in p[1]))), None)
            if hit is not None:
                out.append(net)
                ports.remove(hit)
        return out + [{"network": p[0], "fixed_ip": p[1][0] if p[1] else None} for p in ports]

    # ---- create ----------------------------------------------------------------------------
    def marked(self) -> bool:
        """Whether this server carries the intent tag (a user-given name, a uuid, and a compute
        API that takes tags at create: :mod:`app.clients.intent`)."""
        return bool(self.properties.get("name") and self.uuid and self.stack is not None
                    and intent.nova_takes_tags(self.cloud()))

    def find_marked(self) -> str | None:
        if not self.marked():
            return None
        return intent.find_server(self.cloud(), str(self.properties["name"]), str(self.uuid))

    def handle_create(self) -> None:
        """Create the internal ports, then the server (adopted if ``resource_id`` is set)."""
        cloud = self.cloud()
        if self.adopt(SERVER):
            prefix = self._port_name("")
            self.data["internal_ports"] = [
                {"id": port.id} for port in cloud.network.ports(device_id=self.resource_id)
                if str(port.name or "").startswith(prefix)]
            return
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "flavor_id": self.resolve("nova.flavor", p.get("flavor"))}
        if p.get("image"):
            attrs["image_id"] = self.resolve("glance.image", p["image"])
        for key, api in (("key_name", "key_name"), ("availability_zone", "availability_zone"),
                         ("config_drive", "config_drive"), ("admin_pass", "admin_password"),
                         ("diskConfig", "disk_config"), ("reservation_id", "reservation_id")):
            if p.get(key) not in (None, ""):
                attrs[api] = p[key]
        if p.get("personality"):
            attrs["personality"] = [{"path": k, "contents": _userdata.encode(str(v))}
                                    for k, v in p["personality"].items()]
        metadata = p.get("metadata") or {}
        if metadata:
            attrs["metadata"] = {str(k): v if isinstance(v, str) else json.dumps(v)
                                 for k, v in metadata.items()}
        fmt = self.get_property("user_data_format")
        user_data = self.get_property("user_data") or ""
        sc_meta = None
        if fmt in ("RAW", "SOFTWARE_CONFIG"):
            user_data = _server_software.software_config_text(self, user_data)
        if fmt == "SOFTWARE_CONFIG":
            sc_meta = _server_software.deployments_metadata(self)
        text = _userdata.build(user_data, fmt, metadata=sc_meta)
        if text:
            attrs["user_data"] = _userdata.encode(text)
        if p.get("scheduler_hints"):
            attrs["scheduler_hints"] = dict(p["scheduler_hints"])
        bdm = self.block_devices()
        if bdm:
            attrs["block_device_mapping"] = bdm
        networks = p.get("networks")
        groups = p.get("security_groups") or []
        if networks:
            attrs["networks"] = self._nics(networks, groups)
        elif groups:
            attrs["security_groups"] = [{"name": g} for g in groups]
        if self.marked():
            attrs["tags"] = [intent.tag(str(self.uuid))]
        server = cloud.compute.create_server(
            find=self.lookup(SERVER, cloud.compute.get_server), **attrs)
        self.resource_id = server.id
        if p.get("tags"):
            self.data["tags"] = list(p["tags"])

    def block_devices(self) -> list[dict[str, Any]]:
        """Nova BDM v2 entries from ``block_device_mapping_v2`` / ``block_device_mapping``."""
        out: list[dict[str, Any]] = []
        for m in self.properties.get("block_device_mapping_v2") or []:
            entry: dict[str, Any] = {"delete_on_termination": bool(m.get("delete_on_termination"))}
            if m.get("volume_id"):
                entry.update(source_type="volume", destination_type="volume",
                             uuid=self.resolve("cinder.volume", m["volume_id"]))
            elif m.get("snapshot_id"):
                entry.update(source_type="snapshot", destination_type="volume",
                             uuid=self.resolve("cinder.snapshot", m["snapshot_id"]))
            elif m.get("image") or m.get("image_id"):
                entry.update(source_type="image", destination_type="volume",
                             uuid=self.resolve("glance.image", m.get("image") or m.get("image_id")))
            elif m.get("swap_size"):
                entry.update(source_type="blank", destination_type="local", guest_format="swap",
                             volume_size=m["swap_size"], boot_index=-1)
            elif m.get("ephemeral_size"):
                entry.update(source_type="blank", destination_type="local",
                             volume_size=m["ephemeral_size"], boot_index=-1,
                             guest_format=m.get("ephemeral_format"))
            if entry.get("destination_type") == "volume":
                entry.setdefault("boot_index", 0)
            if m.get("boot_index") is not None:
                entry["boot_index"] = m["boot_index"]
            for key in ("device_name", "device_type", "disk_bus", "volume_type"):
                if m.get(key):
                    entry[key] = m[key]
            if m.get("volume_size") and entry.get("destination_type") == "volume":
                entry["volume_size"] = m["volume_size"]
            out.append(entry)
        for m in self.properties.get("block_device_mapping") or []:
            entry = {"device_name": m.get("device_name"), "destination_type": "volume",
                     "delete_on_termination": bool(m.get("delete_on_termination")),
                     "boot_index": 0 if str(m.get("device_name", "")).endswith("da") else -1}
            if m.get("volume_id"):
                entry.update(source_type="volume", uuid=self.resolve("cinder.volume", m["volume_id"]))
            else:
                entry.update(source_type="snapshot",
                             uuid=self.resolve("cinder.snapshot", m.get("snapshot_id")))
            if m.get("volume_size"):
                entry["volume_size"] = m["volume_size"]
            out.append(entry)
        return out

    def check_create_complete(self, handle: Any) -> bool:
        """ACTIVE: associate floating IPs and tags, then done. ERROR: ResourceInError."""
        shown = self.polled()
        if shown is None:
            raise in_error("DELETED", "the server disappeared while building")
        status = str(shown.get("status", "")).upper()
        if status == "ERROR":
            raise in_error(status, _fault(shown))
        if status != "ACTIVE":
            return False
        if not self._associate_floating_ips():
            return False
        for tag in self.data.pop("tags", None) or []:
            self.cloud().compute.add_tag_to_server(self.resource_id, tag)
        return True

    def _associate_floating_ips(self) -> bool:
        """Associate the ``floating_ip`` of each ``networks`` entry with its port; ``True``.
        Neutron's refusal (the port's subnet not routed) is raised at once, as in Heat."""
        done = self.data.setdefault("floating_ips", {})
        for index, net in enumerate(self.properties.get("networks") or []):
            fip = net.get("floating_ip")
            port = (self.data.get("nic_ports") or {}).get(str(index))
            if fip and port and str(index) not in done:
                associate(self, fip, {"port_id": port})
                done[str(index)] = fip
        return True

    # ---- delete ----------------------------------------------------------------------------
    def handle_delete(self) -> dict[str, Any] | None:
        for fip in (self.data.get("floating_ips") or {}).values():
            try:
                self.cloud().network.update_ip(fip, port_id=None)
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        if not self.resource_id:
            self._delete_ports()
            return None
        return super().handle_delete() or {"conflicts": 0, "pending": False}

    def _delete(self) -> None:
        self.delete_by_id()

    def handle_snapshot_delete(self) -> dict[str, Any] | None:
        """``deletion_policy: Snapshot``: an image of the server (Heat's ``createImage``), then
        the delete once the image is active. A server in ERROR is just deleted."""
        shown = self.show_resource()
        if shown is None or str(shown.get("status", "")).upper() == "ERROR":
            return self.handle_delete()
        image = self.cloud().compute.create_server_image(
            self.resource_id, name=f"{self.physical_resource_name()}-snapshot")
        image_id = image if isinstance(image, str) else image.id
        self.data["snapshot_image_id"] = image_id
        return {"phase": "snapshot", "image": image_id}

    def check_delete_complete(self, handle: Any) -> bool:
        """Done once the server is gone (or DELETED) and the internal ports are deleted."""
        if isinstance(handle, dict) and handle.get("phase") == "snapshot":
            image = plain(self.cloud().image.get_image(handle["image"])) or {}
            status = str(image.get("status", "")).lower()
            if status in ("killed", "deleted"):
                raise in_error(status.upper(), "the snapshot image failed")
            if status != "active":
                return False
            handle.clear()
            handle.update(self.handle_delete() or {"conflicts": 0, "pending": False})
            return False
        if handle is not None and not super().check_delete_complete(handle):
            shown = self.last_polled or self.polled() or {}
            if str(shown.get("status", "")).upper() != "DELETED":
                return False
        self._delete_ports()
        # Heat's _delete_queue (ZAQAR_MESSAGE), then StackUser._delete_user (SOFTWARE_CONFIG)
        _zaqar_signal.delete_queue(self, _zaqar_signal.METADATA_QUEUE_KEY)
        _stack_user.delete_user(self)
        return True

    def _delete_ports(self) -> None:
        for port in self.data.get("internal_ports") or []:
            self.cloud().network.delete_port(port["id"], ignore_missing=True)
        self.data["internal_ports"] = []

    # ---- attributes ------------------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        if shown is None:
            return None
        if name == "addresses":
            return self._addresses(shown)
        if name == "networks":
            return self._networks(shown)
        if name == "instance_name":
            return shown.get("OS-EXT-SRV-ATTR:instance_name")
        if name == "console_urls":
            return self._console_urls()
        if name == "os_collect_config":  # Heat's: from the server's live metadata
            return dict((self.data.get(_wait.METADATA) or {}).get("os-collect-config") or {})
        if name == "first_address":
            return self._first_address(shown)
        return shown.get(name)

    @staticmethod
    def _first_address(shown: dict[str, Any]) -> str:
        """Heat's ``server_to_ipaddress``: the first address of the networks sorted by name in
        reverse, or ``''``."""
        addresses = shown.get("addresses") or {}
        for net in sorted(addresses, reverse=True):
            if addresses[net]:
                return str(addresses[net][0].get("addr") or "")
        return ""

    def _ports_by_mac(self) -> dict[str, str]:
        ports = self.cloud().network.ports(device_id=self.resource_id)
        return {p.mac_address: p.id for p in ports}

    def _addresses(self, shown: dict[str, Any]) -> dict[str, Any]:
        """Nova's ``addresses`` with each address's ``port`` id added, under the network's name
        and again under its id (Heat's ``_add_port_for_address`` + ``_extend_networks``, so
        ``get_attr: [server, addresses, {get_resource: net}, 0, port]`` works)."""
        by_mac = self._ports_by_mac()
        out: dict[str, Any] = {}
        for net, addrs in (shown.get("addresses") or {}).items():
            out[net] = [{**a, "port": by_mac.get(a.get("OS-EXT-IPS-MAC:mac_addr"))}
                        for a in addrs]
        return self._extend_networks(out)

    def _networks(self, shown: dict[str, Any]) -> dict[str, list[str]]:
        """``{network name: [ips], network id: [ips]}``, as Heat's ``networks`` attribute."""
        return self._extend_networks({net: [a.get("addr") for a in addrs]
                                      for net, addrs in (shown.get("addresses") or {}).items()})

    def _extend_networks(self, by_name: dict[str, Any]) -> dict[str, Any]:
        """``by_name`` with each entry repeated under its network's id when the name finds
        one network (Heat's ``Server._extend_networks``, nova/server.py): a name several
        networks share stays under the name only."""
        out = dict(by_name)
        for net, value in by_name.items():
            try:
                found = self.cloud().network.find_network(net, ignore_missing=True)
            except errors.CloudError as exc:
                if not (is_no_unique(exc) or is_not_found(exc)):
                    raise
                found = None
            if found is not None:
                out[found.id] = value
        return out

    def _console_urls(self) -> dict[str, Any]:
        """``{console type: url}``; a type the cloud refuses gives its message, as Heat."""
        out: dict[str, Any] = {}
        for kind in ("novnc", "xvpvnc", "spice-html5", "rdp-html5", "serial"):
            try:
                found = self.cloud().compute.get_server_console_url(self.resource_id, kind)
                out[kind] = found.get("url") if isinstance(found, dict) else found
            except errors.CloudError as exc:
                out[kind] = exc.message
        return out


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {Server.type_name: Server}
