"""In-place updates of OS::Nova::Server, as Heat's ``Server.handle_update`` (the base of
:class:`app.resource_types.nova.Server`).

More in docs/code/resource_types.md (app.resource_types._nova_update).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types import _nova_networks, _userdata
from app.resource_types._cloud import CloudResource, in_error
from app.resource_types.base import NotSupported

#: Nova statuses a server rests in and can be resized or rebuilt from (``check_instance_state``)
SETTLED = frozenset({"ACTIVE", "SHUTOFF"})
#: statuses of a task in progress: a resize or rebuild refused in one is sent again later
BUSY = frozenset({"BUILD", "REBUILD", "RESIZE", "REVERT_RESIZE", "REBOOT", "HARD_REBOOT",
                  "MIGRATING", "PASSWORD"})


def busy(shown: Mapping[str, Any]) -> bool:
    """Whether a server (Nova's JSON) has a task in progress: a ``task_state``, or a status
    that only a task gives; then a resize Nova refused (409) is sent again once it ends. A
    server resting in a state Nova will not resize from (SUSPENDED, PAUSED, SHELVED...) fails
    the update with Nova's 409 ("Cannot 'resize' instance ... while it is in vm_state
    suspended"), as Heat fails it, instead of waiting until the stack's timeout."""
    return bool(shown.get("OS-EXT-STS:task_state")) \
        or str(shown.get("status", "")).upper() in BUSY


class UpdatableServer(CloudResource):
    """The update half of :class:`app.resource_types.nova.Server`."""

    def needs_replace_with_prop_diff(self, changed: set[str],
                                     new_properties: Mapping[str, Any]) -> bool:
        """Heat's update policies: REPLACE for a changed flavor / image / user_data."""
        def policy(prop: str, default: str) -> str:
            return str(new_properties.get(prop) or default)
        return (("flavor" in changed and policy("flavor_update_policy", "RESIZE") == "REPLACE")
                or ("image" in changed and policy("image_update_policy", "REBUILD") == "REPLACE")
                or ("user_data" in changed
                    and policy("user_data_update_policy", "REPLACE") == "REPLACE"))

    def handle_update(self, new_properties: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> dict[str, Any]:
        """Quick changes now; resize / rebuild queued for ``check_update_complete``.

        :raises UpdateReplace: see :meth:`needs_replace_with_prop_diff`.
        :raises NotSupported: ``networks`` changed to or from ``allocate_network``.
        """
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        compute = self.cloud().compute
        server = self.resource_id
        if "name" in changed:
            compute.update_server(server, name=self.name_or_physical())
        if "metadata" in changed:
            new = {str(k): v if isinstance(v, str) else json.dumps(v)
                   for k, v in (self.properties.get("metadata") or {}).items()}
            removed = [k for k in (old.get("metadata") or {}) if k not in new]
            if removed:
                compute.delete_server_metadata(server, removed)
            if new:
                compute.set_server_metadata(server, **new)
        if "admin_pass" in changed and self.properties.get("admin_pass"):
            compute.change_server_password(server, self.properties["admin_pass"])
        if "tags" in changed:
            compute.remove_tags_from_server(server)
            for tag in self.properties.get("tags") or []:
                compute.add_tag_to_server(server, tag)
        todo: list[dict[str, Any]] = []
        if "networks" in changed:
            todo += self._network_steps(old.get("networks") or [],
                                        self.properties.get("networks") or [])
        if "flavor" in changed:
            todo.append({"action": "resize",
                         "flavor": self.resolve("nova.flavor", self.properties["flavor"])})
        rebuild_ud = ("user_data" in changed
                      and self.get_property("user_data_update_policy") == "REBUILD")
        if "image" in changed or rebuild_ud:
            image = self.properties.get("image") or old.get("image")
            preserve = self.get_property("image_update_policy") == "REBUILD_PRESERVE_EPHEMERAL"
            step: dict[str, Any] = {"action": "rebuild",
                                    "image": self.resolve("glance.image", image),
                                    "preserve_ephemeral": preserve}
            if rebuild_ud:
                step["user_data"] = _userdata.encode(_userdata.build(
                    self.properties.get("user_data") or "",
                    self.get_property("user_data_format")))
            todo.append(step)
        return {"todo": todo}

    def _network_steps(self, old: list[dict[str, Any]],
                       new: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Heat's ``calculate_networks`` (:mod:`app.resource_types._nova_networks`): the
        interfaces an old entry designates are kept by a new entry that still describes them
        (``{network: N}`` -> ``{subnet: S}`` keeps the port), the others detached (their
        internal port deleted, their floating IP disassociated), the new entries left attached.
        :raises NotSupported: ``allocate_network`` in the old or the new list."""
        if any(n.get("allocate_network") for n in [*old, *new]):
            raise NotSupported(f"Update to properties networks (allocate_network) of "
                               f"{self.name} ({self.type_name})")
        ports = dict(self.data.get("nic_ports") or {})
        fips = dict(self.data.get("floating_ips") or {})
        internal = {p["id"] for p in self.data.get("internal_ports") or []}
        ifaces = self._interfaces()
        old_n = [self._resolved_entry(e) for e in old]
        for index, entry in enumerate(old_n):   # the port Stoker recorded for the entry
            entry["port"] = entry["port"] or ports.get(str(index))
        new_n = [self._resolved_entry(e) for e in new]
        if old_n:
            _nova_networks.complete_from_interfaces(old_n, ifaces)
            kept, detached, attach = _nova_networks.split(old_n, new_n)
            detach_ports = [e["port"] for e in detached if e.get("port")]
        else:   # the server got a port of Nova's choosing: it goes
            kept, attach = {}, list(range(len(new_n)))
            detach_ports = [i["port"] for i in ifaces]
        position = {id(e): str(i) for i, e in enumerate(old_n)}
        self.data["nic_ports"] = {str(i): e["port"] for i, e in kept.items()}
        self.data["floating_ips"] = {str(i): fips[position[id(e)]]
                                     for i, e in kept.items() if position[id(e)] in fips}
        kept_old = {position[id(e)] for e in kept.values()}
        gone_fips = [fip for i, fip in fips.items() if i not in kept_old]
        for fip in gone_fips:
            try:
                self.cloud().network.update_ip(fip, port_id=None)
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        steps: list[dict[str, Any]] = [{"action": "detach", "port": p, "internal": p in internal}
                                       for p in detach_ports]
        return steps + [{"action": "attach", "index": i, "entry": new[i]} for i in attach]

    def _resolved_entry(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """A ``networks`` entry normalised, its network / subnet / port as ids; the network
        of a subnet-only entry is the subnet's."""
        out = _nova_networks.normalised(entry)
        out["network"] = self.resolve("neutron.network", out["network"])
        out["subnet"] = self.resolve("neutron.subnet", out["subnet"])
        out["port"] = self.resolve("neutron.port", out["port"])
        return out

    def _interfaces(self) -> list[dict[str, Any]]:
        """The server's interfaces (Nova's ``os-interface``) as matching entries."""
        out = []
        for iface in self.cloud().compute.server_interfaces(self.resource_id):
            first = (iface.fixed_ips or [{}])[0]
            out.append({"port": iface.port_id, "network": iface.net_id,
                        "fixed_ip": first.get("ip_address"), "subnet": first.get("subnet_id")})
        return out

    def _interface_step(self, step: dict[str, Any]) -> bool:
        """One poll of an attach / detach step; ``True`` when it is done."""
        net, compute = self.cloud().network, self.cloud().compute
        if step["action"] == "detach":
            if not step.get("started"):
                compute.delete_server_interface(step["port"], server=self.resource_id)
                step["started"] = True
            port = net.find_port(step["port"], ignore_missing=True)
            if port is not None and port.device_id == self.resource_id:
                return False
            if step["internal"]:
                net.delete_port(step["port"], ignore_missing=True)
                self.data["internal_ports"] = [p for p in self.data.get("internal_ports") or []
                                               if p["id"] != step["port"]]
            return True
        if not step.get("port"):
            entry = step["entry"]
            groups = self.properties.get("security_groups") or []
            step["port"] = (self.resolve("neutron.port", entry["port"]) if entry.get("port")
                            else self._internal_port(entry, step["index"], groups))
            compute.create_server_interface(self.resource_id, port_id=step["port"])
            self.data.setdefault("nic_ports", {})[str(step["index"])] = step["port"]
        port = net.get_port(step["port"])
        return bool(port.device_id == self.resource_id)

    def prepare_for_replace(self) -> dict[str, Any] | None:
        """Heat's ``prepare_ports_for_replace``: the ports the template gave this server
        (``networks: [{port: ...}]``) are detached so that the replacement can use them; the
        server's own internal ports stay and go with it."""
        if not self.resource_id:
            return None
        internal = {p["id"] for p in self.data.get("internal_ports") or []}
        ports = sorted({str(p) for p in (self.data.get("nic_ports") or {}).values()} - internal)
        if not ports:
            return None
        return {"steps": [{"action": "detach", "port": p, "internal": False} for p in ports]}

    def check_prepare_for_replace_complete(self, handle: Any) -> bool:
        """One poll of the detaches; ``True`` once every port is free."""
        steps = handle["steps"]
        while steps:
            if not self._interface_step(steps[0]):
                return False
            steps.pop(0)
        return True

    def _internal_port(self, net: dict[str, Any], index: int, groups: list[str]) -> str:
        raise NotImplementedError   # nova.Server's

    def check_update_complete(self, handle: Any) -> bool:
        """Work through the queued interface changes, resize and rebuild, one poll at a time;
        floating IPs of new entries are associated at the end."""
        todo = (handle or {}).get("todo") or []
        while todo and todo[0]["action"] in ("attach", "detach"):
            if not self._interface_step(todo[0]):
                return False
            todo.pop(0)
        while todo:
            step = todo[0]
            if not step.get("started") and not step.get("tried"):
                # the first look sends the call without reading the server first: it was
                # ACTIVE (or SHUTOFF) when its last action ended; Nova refuses a busy one (409)
                step["tried"] = True
                if self._try(step):
                    return False
            shown = self.polled() or {}
            status = str(shown.get("status", "")).upper()
            if status == "ERROR":
                raise in_error(status, "the server failed during an update")
            if not step.get("started"):
                if step["action"] == "resize" and status == "VERIFY_RESIZE" \
                        and self._on_flavor(shown, step["flavor"]):
                    step["started"] = True  # this resize, sent by a look whose end was lost
                else:
                    if not busy(shown):  # a refusal now (SUSPENDED, PAUSED...) is the failure
                        self._send(step)
                    return False
            if step["action"] == "resize" and status == "VERIFY_RESIZE":
                self._server_action({"confirmResize": None})
                step["confirmed"] = True
                return False
            # back to the power state it had (a stopped server stays SHUTOFF, as Nova keeps it)
            done = status in SETTLED and not busy(shown) \
                and (step["action"] != "resize" or step.get("confirmed")
                     or self._on_flavor(shown, step["flavor"]))
            if not done:
                return False
            todo.pop(0)
        return self._associate_floating_ips()

    def _try(self, step: dict[str, Any]) -> bool:
        """:meth:`_send`, or ``False`` when Nova refuses it for the server's state (409).
        :raises errors.CloudError: other errors."""
        try:
            self._send(step)
        except errors.CloudError as exc:
            if exc.status == 409:
                return False
            raise
        return True

    def _send(self, step: dict[str, Any]) -> None:
        """Send a resize or rebuild step's call and mark it started.
        :raises errors.CloudError: the cloud's error (a 409 names the server's state)."""
        if step["action"] == "resize":
            self._server_action({"resize": {"flavorRef": step["flavor"]}})
        else:
            extra = {"preserve_ephemeral": True} if step.get("preserve_ephemeral") else {}
            if step.get("user_data"):
                extra["user_data"] = step["user_data"]
            self.cloud().compute.rebuild_server(self.resource_id, step["image"], **extra)
        step["started"] = True

    def _server_action(self, body: dict[str, Any]) -> None:
        """Nova's ``POST /servers/{id}/action`` with ``body``, as the SDK's ``resize_server`` /
        ``confirm_server_resize`` send it, without the SDK server object they build for it."""
        self.cloud().request("compute", "POST", f"/servers/{self.resource_id}/action", json=body)

    def _on_flavor(self, shown: Mapping[str, Any], flavor_id: Any) -> bool:
        """Whether an ACTIVE server already runs on the resize's flavor: the step that confirmed
        the resize ran, but its progress was never stored (a redelivered or retried task), and
        Nova will not show VERIFY_RESIZE again. By id, or by name (microversion >= 2.47)."""
        flavor = shown.get("flavor") or {}
        return (str(flavor.get("id") or "") == str(flavor_id)
                or (bool(flavor.get("original_name"))
                    and flavor.get("original_name") == self.properties.get("flavor")))

    def _associate_floating_ips(self) -> bool:
        raise NotImplementedError   # nova.Server's
