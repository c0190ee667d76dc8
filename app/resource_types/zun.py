"""Zun: OS::Zun::Container (Heat 27, ``heat/engine/resources/openstack/zun/container.py``),
through ``Cloud.request("container", ...)`` (catalog type ``container``).

Create is Zun's ``run`` (``POST /containers?run=true``): ``restart_policy`` ``name[:count]``
becomes ``{"Name", "MaximumRetryCount"}``, ``command`` is split as a shell would, ``networks``
become ``nets`` (``network`` names resolved to ids, ``fixed_ip`` as ``v4-fixed-ip``), ``mounts``
``{"destination", "source"|"size"}``. The step polls until ``Running`` (or ``Stopped`` when not
interactive); ``Error`` fails it with Heat's "Error in creating container" reason. ``cpu``,
``memory`` and ``name`` change in place (``PATCH``), ``networks`` by detaching and attaching
(``network_detach`` / ``network_attach``, checked in ``network_list``); delete is ``DELETE ?stop=True``, polled
until the container is gone. ``addresses`` also lists each network's addresses under its name.
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import CloudResource, in_error
from app.resource_types._schemas import zun as sch
from app.resource_types.base import Resource

SERVICE = "container"
POLICIES = ("always", "unless-stopped", "on-failure", "no")


def restart_policy(policy: str) -> dict[str, str] | None:
    """Heat's ``_parse_restart_policy``; ``None`` for a policy Zun does not know."""
    if ":" in policy:
        name, count = policy.split(":", 1)
        return {"Name": name, "MaximumRetryCount": count or "0"} if name == "on-failure" else None
    return {"Name": policy, "MaximumRetryCount": "0"} if policy in POLICIES else None


class Container(CloudResource):
    """A Zun container, run at create."""

    type_name = "OS::Zun::Container"
    support_status = sch.CONTAINER_SUPPORT
    properties_schema = sch.CONTAINER_PROPERTIES
    attributes_schema = sch.CONTAINER_ATTRIBUTES

    def validate(self) -> None:
        """Heat's checks of ``restart_policy``, ``mounts`` and ``networks``."""
        policy = self.properties.get("restart_policy")
        if policy and restart_policy(str(policy)) is None:
            raise errors.ValidationError(
                f'restart_policy "{policy}" is invalid. Valid values are "no", '
                f'"on-failure[:max-retry]", "always", and "unless-stopped".')
        for mount in self.properties.get("mounts") or []:
            if mount.get("volume_id") is None and mount.get("volume_size") is None:
                raise errors.ValidationError(
                    f'One of the properties "volume_id" or "volume_size" should be set for the '
                    f'specified mount of container "{self.name}".')
            if mount.get("volume_id") and mount.get("volume_size"):
                raise errors.ValidationError("Cannot define the following properties at the same "
                                             "time: networks/volume_id, networks/volume_size")
        for net in self.properties.get("networks") or []:
            if net.get("network") is None and net.get("port") is None:
                raise errors.ValidationError("At least one of the following properties must be "
                                             "specified: network, port")
            if net.get("fixed_ip") and net.get("port") is not None:
                raise errors.ValidationError("Cannot define the following properties at the same "
                                             "time: networks.fixed_ip, networks.port")
        super().validate()

    def body(self) -> dict[str, Any]:
        args = {k: v for k, v in self.properties.items() if v is not None}
        if args.get("restart_policy"):
            args["restart_policy"] = restart_policy(str(args["restart_policy"]))
        if args.get("command"):
            args["command"] = shlex.split(str(args["command"]))
        mounts = args.pop("mounts", None)
        if mounts:
            args["mounts"] = [{"destination": m["mount_path"],
                               **({"source": m["volume_id"]} if m.get("volume_id") else {}),
                               **({"size": m["volume_size"]} if m.get("volume_size") else {})}
                              for m in mounts]
        networks = args.pop("networks", None)
        if networks:
            nets = []
            for n in networks:
                nic: dict[str, Any] = {}
                if n.get("network"):
                    nic["network"] = self.resolve("neutron.network", n["network"])
                if n.get("port"):
                    nic["port"] = self.resolve("neutron.port", n["port"])
                if n.get("fixed_ip"):
                    nic["v6-fixed-ip" if ":" in str(n["fixed_ip"]) else "v4-fixed-ip"] = n["fixed_ip"]
                nets.append(nic)
            args["nets"] = nets
        return args

    def handle_create(self) -> str:
        made = self.cloud().request(SERVICE, "POST", "/containers?run=true", json=self.body())
        self.resource_id = made["uuid"]
        return str(made["uuid"])

    def check_create_complete(self, handle: Any) -> bool:
        shown = self.polled()
        if shown is None:
            return False
        status = shown.get("status")
        if status in ("Creating", "Created"):
            return False
        if status == "Running":
            return True
        if status == "Stopped":
            if shown.get("interactive"):
                raise in_error(status, f"Error in creating container '{self.name}' - interactive "
                                       f"mode was enabled but the container has stopped running")
            return True
        if status == "Error":
            raise in_error(status, f"Error in creating container '{self.name}' - "
                                   f"{shown.get('status_reason')}")
        raise errors.StokerError(f"Unknown status Container '{self.name}' - "
                                 f"{shown.get('status_reason')}", heat_type="ResourceUnknownStatus")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """``cpu``, ``memory``, ``name`` in place (``PATCH``); a change of ``networks`` queues
        Heat's ``_update_networks``: the ports of entries that went are detached, entries that
        came are attached, equal entries keep their port (worked through by
        :meth:`check_update_complete`). :raises UpdateReplace: another property changed."""
        self.check_replace(changed, new_properties)
        old = [dict(n) for n in self.properties.get("networks") or []]
        self.properties = dict(new_properties)
        patch = {k: v for k, v in changed.items() if k in ("cpu", "memory", "name") and v is not None}
        if patch:
            self.cloud().request(SERVICE, "PATCH", f"/containers/{self.resource_id}", json=patch)
        self.refresh()
        todo: list[dict[str, Any]] = []
        if "networks" in changed:
            todo = self._network_steps(old, [dict(n) for n in new_properties.get("networks") or []])
        return {"todo": todo}

    def _entry(self, net: Mapping[str, Any]) -> dict[str, Any]:
        """A ``networks`` entry with ids for names, empty values as absent."""
        return {"network": self.resolve("neutron.network", net["network"]) if net.get("network")
                else None,
                "port": self.resolve("neutron.port", net["port"]) if net.get("port") else None,
                "fixed_ip": net.get("fixed_ip") or None}

    def _interfaces(self) -> list[dict[str, Any]]:
        return list(self.cloud().request(SERVICE, "GET", f"/containers/{self.resource_id}"
                                                          f"/network_list").get("networks") or [])

    def _network_steps(self, old: list[dict[str, Any]],
                       new: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Heat's ``calculate_networks`` for a list of networks: detach steps (by port) for the
        old entries without an equal new one, then attach steps for the new entries without an
        equal old one; nothing left at all attaches the project's network, as at create."""
        if not old and not new:
            return []
        ifaces = self._interfaces()
        olds, news = [self._entry(n) for n in old], [self._entry(n) for n in new]
        kept = 0
        for entry in list(news):
            if entry in olds:
                olds.remove(entry)
                news.remove(entry)
                kept += 1
        if not old:   # the container was on the project's network: it leaves it
            ports = [i["port_id"] for i in ifaces]
        else:
            ports = []
            for entry in olds:
                match = next((i for i in ifaces if i["port_id"] not in ports and (
                    i["port_id"] == entry["port"] if entry["port"] else
                    any(f.get("ip_address") == entry["fixed_ip"] for f in i.get("fixed_ips") or [])
                    if entry["fixed_ip"] else i["net_id"] == entry["network"])), None)
                if match is not None:
                    ports.append(match["port_id"])
        steps: list[dict[str, Any]] = [{"action": "detach", "port": p} for p in ports]
        if not news and not kept:
            news = [{"network": None, "port": None, "fixed_ip": None}]
        steps += [{"action": "attach", **e} for e in news]
        return steps

    def check_update_complete(self, handle: Any) -> bool:
        """One call or one check per poll, in order (Heat's ``ContainerUpdateProgress``): a
        detach is done when its port left ``network_list``, an attach of a port when the port
        is listed (an attach on a network at once)."""
        todo = (handle or {}).get("todo") or []
        while todo:
            step = todo[0]
            if not step.get("sent"):
                self._send(step)
                step["sent"] = True
                return False
            listed = {i["port_id"] for i in self._interfaces()}
            if step["action"] == "detach" and step["port"] in listed:
                return False
            if step["action"] == "attach" and step.get("port") and step["port"] not in listed:
                return False
            todo.pop(0)
        self.refresh()
        return True

    def _send(self, step: dict[str, Any]) -> None:
        """The step's ``network_detach`` / ``network_attach`` (a port already gone or a network
        already left is no error, as Heat's ``ignore_not_found``)."""
        path = f"/containers/{self.resource_id}/network_{step['action']}"
        query = {k: step[k] for k in ("network", "port", "fixed_ip") if step.get(k)}
        try:
            self.cloud().request(SERVICE, "POST", path, params=query)
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/containers/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/containers/{self.resource_id}?stop=True")

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        if shown is None:
            return "" if self.resource_id else None
        if name != "addresses":
            return shown.get(name, "")
        addresses = {k: list(v) for k, v in (shown.get("addresses") or {}).items()}
        for net_id, entries in list(addresses.items()):
            try:
                net = self.cloud().network.get_network(net_id)
            except errors.CloudError:
                continue
            addresses.setdefault(net.name, [])
            addresses[net.name] += entries
        return addresses


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {Container.type_name: Container}
