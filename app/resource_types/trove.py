"""Trove resource types: OS::Trove::Instance and OS::Trove::Cluster (Heat 27,
``heat/engine/resources/openstack/trove/``), through ``Cloud.request("database", ...)``.

As Heat: validation checks the datastore version against the datastore's versions ("Datastore
version x for datastore type y is not valid. Allowed versions are ..."), a version without a
type ("Not allowed - datastore_version without datastore_type."), users' databases against
``databases``, and each network's ``network`` / ``port`` ("Either network or port must be
provided."). An instance is polled from BUILD to ACTIVE (ERROR/FAILED: ResourceInError with
Heat's reasons). An update waits for ACTIVE, then applies one step per poll: name, flavor
resize, volume resize, then the databases and users by diff (created, deleted, users' host and
password changed, grants and revokes). A cluster is ready when every member is ACTIVE.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import trove as sch
from app.resource_types.base import Resource

SERVICE = "database"
REASONS = {"FAILED": "The database instance was created, but heat failed to set up the datastore. "
                     "If a database instance is in the FAILED state, it should be deleted and a "
                     "new one should be created.",
           "ERROR": "The last operation for the database instance failed due to an error."}


def _bad(status: str) -> errors.StokerError:
    return errors.StokerError(f'Went to status {status} due to "{REASONS.get(status, "Unknown")}"',
                              heat_type="ResourceInError")


class TroveResource(CloudResource):
    """Shared: the datastore and network checks."""

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.cloud().request(SERVICE, method, path, **kwargs)

    def _check_datastore(self) -> None:
        """Heat's ``validate_datastore``: the type's versions are listed (an unknown type is
        Trove's 404, which fails the validation as Heat's ``StackValidationFailed`` wraps it),
        and the version must be one of them.
        :raises errors.ValidationError: Heat's wording. :raises errors.CloudError: others."""
        kind, version = self.properties.get("datastore_type"), self.properties.get("datastore_version")
        if kind:
            try:
                versions = self.call("GET", f"/datastores/{kind}/versions")["versions"]
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
                raise errors.ValidationError(
                    f"NotFound: resources.{self.name}: {exc.message} (HTTP 404)") from None
            allowed = [v["name"] for v in versions]
            if version and version not in allowed:
                raise errors.ValidationError(
                    f"Datastore version {version} for datastore type {kind} is not valid. "
                    f"Allowed versions are {', '.join(allowed)}.")
        elif version:
            raise errors.ValidationError("Not allowed - datastore_version without datastore_type.")

    @staticmethod
    def _check_nics(nics: Any) -> None:
        for nic in nics or []:
            if (nic.get("network") is None) == (nic.get("port") is None):
                raise errors.ValidationError("Either network or port must be provided.")

    def _nics(self, nics: Any) -> list[dict[str, Any]]:
        out = []
        for nic in nics or []:
            entry: dict[str, Any] = {}
            if nic.get("network"):
                entry["net-id"] = self.resolve("neutron.network", nic["network"])
            if nic.get("port"):
                entry["port-id"] = self.resolve("neutron.port", nic["port"])
            if nic.get("fixed_ip"):
                entry["v4-fixed-ip"] = nic["fixed_ip"]
            out.append(entry)
        return out

    def _datastore(self) -> dict[str, Any] | None:
        kind = self.properties.get("datastore_type")
        if not kind:
            return None
        return {"type": kind, "version": self.properties.get("datastore_version")}


class Instance(TroveResource):
    """A database instance with its databases and users."""

    type_name = "OS::Trove::Instance"
    support_status = sch.INSTANCE_SUPPORT
    properties_schema = sch.INSTANCE_PROPERTIES
    attributes_schema = sch.INSTANCE_ATTRIBUTES

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's datastore, users and networks checks."""
        p = self.properties
        users, dbs = p.get("users") or [], p.get("databases") or []
        if users and not dbs:
            raise errors.ValidationError(f"Databases property is required if users property is "
                                         f"provided for resource {self.name}.")
        names = {d.get("name") for d in dbs}
        for user in users:
            missing = [d for d in user.get("databases") or [] if d not in names]
            if missing:
                raise errors.ValidationError(f"Database {missing} specified for user does not exist "
                                             f"in databases for resource {self.name}.")
        self._check_nics(p.get("networks"))
        super().validate()
        if self.clients is not None:
            self._check_datastore()

    @staticmethod
    def _user(u: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": u["name"], "password": u["password"], "host": u.get("host") or "%",
                "databases": [{"name": d} for d in u.get("databases") or []]}

    def handle_create(self) -> None:
        p = self.properties
        body: dict[str, Any] = {
            "name": self.name_or_physical(), "flavorRef": self.resolve("trove.flavor", p["flavor"]),
            "volume": {"size": p["size"]}, "databases": list(p.get("databases") or []),
            "users": [self._user(u) for u in p.get("users") or []], "nics": self._nics(p.get("networks"))}
        for key, field in (("availability_zone", "availability_zone"), ("replica_of", "replica_of"),
                           ("replica_count", "replica_count")):
            if p.get(key) is not None:
                body[field] = p[key]
        if p.get("restore_point"):
            body["restorePoint"] = {"backupRef": p["restore_point"]}
        if self._datastore():
            body["datastore"] = self._datastore()
        self.resource_id = self.call("POST", "/instances", json={"instance": body})["instance"]["id"]

    def _status(self) -> str:
        self.refresh()
        status = str((self.show_resource() or {}).get("status"))
        if status in ("ERROR", "FAILED"):
            raise _bad(status)
        return status

    def check_create_complete(self, handle: Any) -> bool:
        return self._status() == "ACTIVE"

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> dict[str, Any]:
        """The steps :meth:`check_update_complete` applies, one per poll once ACTIVE."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        steps: dict[str, Any] = {}
        if changed.get("name"):
            steps["name"] = changed["name"]
        if "flavor" in changed:
            steps["flavor"] = self.resolve("trove.flavor", changed["flavor"])
        if "size" in changed:
            steps["size"] = changed["size"]
        if "databases" in changed:
            steps["databases"] = [d["name"] for d in changed["databases"] or []]
            steps["database_specs"] = list(changed["databases"] or [])
        if "users" in changed:
            steps["users"] = [self._user(u) for u in changed["users"] or []]
        return steps

    def check_update_complete(self, handle: Any) -> bool:
        if self._status() != "ACTIVE":
            return False
        if not handle:
            return True
        shown = self.show_resource() or {}
        base = f"/instances/{self.resource_id}"
        if handle.get("name") and shown.get("name") != handle["name"]:
            self.call("PATCH", base, json={"instance": {"name": handle.pop("name")}})
            return False
        handle.pop("name", None)
        if handle.get("flavor") and str(shown.get("flavor", {}).get("id")) != str(handle["flavor"]):
            self.call("POST", f"{base}/action", json={"resize": {"flavorRef": handle.pop("flavor")}})
            return False
        handle.pop("flavor", None)
        if handle.get("size") and shown.get("volume", {}).get("size") != handle["size"]:
            self.call("POST", f"{base}/action", json={"resize": {"volume": {"size": handle.pop("size")}}})
            return False
        handle.pop("size", None)
        if "databases" in handle:
            self._sync_databases(base, handle.pop("databases"), handle.pop("database_specs"))
        if "users" in handle:
            self._sync_users(base, handle.pop("users"))
        return True

    def _sync_databases(self, base: str, wanted: list[str], specs: list[dict[str, Any]]) -> None:
        current = [d["name"] for d in self.call("GET", f"{base}/databases")["databases"]]
        new = [d for d in specs if d["name"] not in current]
        if new:
            self.call("POST", f"{base}/databases", json={"databases": new})
        for name in current:
            if name not in wanted:
                self.call("DELETE", f"{base}/databases/{name}")

    def _sync_users(self, base: str, wanted: list[dict[str, Any]]) -> None:
        current = [u["name"] for u in self.call("GET", f"{base}/users")["users"]]
        for user in wanted:
            if user["name"] not in current:
                self.call("POST", f"{base}/users", json={"users": [user]})
                continue
            self.call("PUT", f"{base}/users/{user['name']}",
                      json={"user": {"host": user["host"], "password": user["password"]}})
            live = [d["name"] for d in self.call("GET", f"{base}/users/{user['name']}")["user"]["databases"]]
            desired = [d["name"] for d in user["databases"]]
            grants = [d for d in desired if d not in live]
            if grants:
                self.call("PUT", f"{base}/users/{user['name']}/databases",
                          json={"databases": [{"name": d} for d in grants]})
            for db in live:
                if db not in desired:
                    self.call("DELETE", f"{base}/users/{user['name']}/databases/{db}")
        for name in current:
            if name not in [u["name"] for u in wanted]:
                self.call("DELETE", f"{base}/users/{name}")

    def _fetch(self) -> Any:
        return self.call("GET", f"/instances/{self.resource_id}")["instance"]

    def _delete(self) -> None:
        self.call("DELETE", f"/instances/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource() or {}
        if name == "href":
            return next((link["href"] for link in shown.get("links") or [] if link.get("rel") == "self"), None)
        return shown.get(name)


class Cluster(TroveResource):
    """A datastore cluster of ``instances``."""

    type_name = "OS::Trove::Cluster"
    support_status = sch.CLUSTER_SUPPORT
    properties_schema = sch.CLUSTER_PROPERTIES
    attributes_schema = sch.CLUSTER_ATTRIBUTES

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's datastore and networks checks."""
        for member in self.properties.get("instances") or []:
            for nic in member.get("networks") or []:
                if nic.get("network") is not None and nic.get("port") is not None:
                    raise errors.ValidationError("Cannot define the following properties at the same "
                                                 "time: network, port")
            self._check_nics(member.get("networks"))
        super().validate()
        if self.clients is not None:
            self._check_datastore()

    def handle_create(self) -> None:
        members = []
        for m in self.properties["instances"]:
            entry: dict[str, Any] = {"flavorRef": self.resolve("trove.flavor", m["flavor"]),
                                     "volume": {"size": m["volume_size"]}}
            nics = self._nics(m.get("networks"))
            if nics:
                entry["nics"] = nics
            if m.get("availability_zone"):
                entry["availability_zone"] = m["availability_zone"]
            members.append(entry)
        body = {"name": self.name_or_physical(), "datastore": self._datastore(), "instances": members}
        self.resource_id = self.call("POST", "/clusters", json={"cluster": body})["cluster"]["id"]

    def check_create_complete(self, handle: Any) -> bool:
        self.refresh()
        for member in (self.show_resource() or {}).get("instances") or []:
            if member.get("status") in ("ERROR", "FAILED"):
                raise _bad(str(member["status"]))
            if member.get("status") != "ACTIVE":
                return False
        return True

    def _fetch(self) -> Any:
        return self.call("GET", f"/clusters/{self.resource_id}")["cluster"]

    def _delete(self) -> None:
        self.call("DELETE", f"/clusters/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource() or {}
        if name == "instances":
            return [m["id"] for m in shown.get("instances") or []]
        return shown.get(name)


def resource_mapping() -> dict[str, type[Resource]]:
    return {Instance.type_name: Instance, Cluster.type_name: Cluster}
