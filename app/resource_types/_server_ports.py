"""A server's internal ports: the ports Heat's Server makes for its ``networks`` entries that
name no port (``<server name>-port-<index>``), made before the server and deleted with it.

A port an earlier try of the create made is reused, not made again: found by its name when
the server has Heat's physical name, by the server's intent tag (:mod:`app.clients.intent`)
when the user named it. A transient error of a port's POST is retried only after that lookup.
"""
from __future__ import annotations

from typing import Any

from app.clients import intent
from app.resource_types.neutron import Port


class InternalPorts:
    """Mixed into the Server (``properties``, ``data``, ``cloud()``, ``resolve()``, ``uuid``,
    ``first_attempt`` and ``name_or_physical()`` are the Server's)."""

    properties: dict[str, Any]
    data: dict[str, Any]
    first_attempt: bool
    uuid: str | None
    name: str
    stack: Any
    clients: Any

    def _nics(self, networks: list[dict[str, Any]], groups: list[str]) -> Any:
        """Nova ``networks`` for the ``networks`` property, creating the internal ports."""
        first = networks[0] if networks else {}
        if len(networks) == 1 and first.get("allocate_network"):
            return first["allocate_network"]
        self.data.setdefault("internal_ports", [])
        nics: list[dict[str, Any]] = []
        for index, net in enumerate(networks):
            port = net.get("port")
            if port:
                port_id = self.resolve("neutron.port", port)
            else:   # (an earlier attempt's port of the same name is reused)
                port_id = self._internal_port(net, index, groups)
            nic: dict[str, Any] = {"port": port_id}
            if net.get("tag"):
                nic["tag"] = net["tag"]
            nics.append(nic)
            self.data.setdefault("nic_ports", {})[str(index)] = port_id
        return nics

    def _internal_port(self, net: dict[str, Any], index: int, groups: list[str]) -> str:
        props: dict[str, Any] = dict(net.get("port_extra_properties") or {})
        network = net.get("network") or net.get("uuid")
        if not network and net.get("subnet"):
            subnet = self.cloud().network.get_subnet(self.resolve("neutron.subnet", net["subnet"]))
            network = subnet.network_id
        props["network"] = network
        if net.get("fixed_ip") or net.get("subnet"):
            props["fixed_ips"] = [{"ip_address": net.get("fixed_ip"), "subnet": net.get("subnet")}]
        if groups:
            props["security_groups"] = groups
        name = self._port_name(index)
        port = None
        neutron = self.cloud().network

        marked = bool(self.properties.get("name") and self.uuid and self.stack is not None) \
            and intent.neutron_takes_tags(self.cloud(), "ports")

        def earlier() -> Any:   # a unique physical name, or the server's intent tag
            if not self.properties.get("name"):
                return neutron.find_port(name, ignore_missing=True)
            found = intent.find_neutron(self.cloud(), "ports", "ports", name, str(self.uuid))
            return None if found is None else neutron.get_port(found)
        known = marked or not self.properties.get("name")
        if known and not self.first_attempt:   # an earlier attempt's port is reused
            port = earlier()
        if port is None:
            helper = Port(self.name, {}, stack=self.stack, clients=self.clients, uuid=self.uuid)
            attrs = helper.port_attrs(props, name)
            if marked:
                attrs["tags"] = [intent.tag(str(self.uuid))]
            port = neutron.create_port(find=earlier if known else None, **attrs)
        self.data.setdefault("internal_ports", []).append({"id": port.id})
        return str(port.id)

    def _port_name(self, index: int | str) -> str:
        """Name of internal port ``index``: ``<server name>-port-<index>``."""
        return f"{self.name_or_physical()}-port-{index}"
