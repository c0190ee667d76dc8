"""The base of the OS::Keystone::* plugins: one Keystone v3 collection over REST
(``Cloud.request("identity", ...)``, the wire calls python-keystoneclient makes for Heat), names
and ids resolved as Heat's ``KeystoneClientPlugin`` (the ``keystone.*`` custom constraints,
:mod:`app.clients.keystone`), ``show`` as ``GET /<collection>/<id>``, a 404 on delete counted
as done (Heat's ``ignore_not_found``).
"""
from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, ClassVar

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import CloudResource


class KeystoneResource(CloudResource):
    """A Keystone object of :attr:`collection` whose id is ``resource_id``."""

    #: ``"domains"``, ``"projects"``...; its singular is the body's key
    collection: ClassVar[str] = ""

    @property
    def single(self) -> str:
        return self.collection[:-1]

    def _unlisted_updatable(self) -> set[str]:
        return {k for k, v in self.unlisted_properties.items() if v.get("update_allowed")}

    def update_diff(self, new_properties: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's diff, where the unlisted ``description`` is updatable as Heat declares it
        (the base diff sees only ``properties_schema``)."""
        extra = self._unlisted_updatable()
        old = self.properties
        self.properties = {k: v for k, v in old.items() if k not in extra}
        try:
            changed = super().update_diff({k: v for k, v in new_properties.items() if k not in extra})
        finally:
            self.properties = old
        changed.update({k: new_properties.get(k) for k in extra if old.get(k) != new_properties.get(k)})
        return changed

    def check_replace(self, changed: Mapping[str, Any], new_properties: Mapping[str, Any]) -> None:
        extra = self._unlisted_updatable()
        super().check_replace({k: v for k, v in changed.items() if k not in extra}, new_properties)

    def ks(self, method: str, path: str, **kwargs: Any) -> Any:
        """A Keystone v3 call (``path`` under ``/v3``); the decoded JSON body (``None`` when
        empty). :raises errors.CloudError: as the cloud answers."""
        return self.cloud().request("identity", method, path, **kwargs)

    def resolve_id(self, kind: str, value: Any) -> str | None:
        """The id of the Keystone ``kind`` (``"domain"``, ``"project"``...) ``value`` names;
        ``None`` for no value. :raises errors.CloudError: 404 in Heat's wording."""
        return self.resolve(f"keystone.{kind}", value)

    def create_object(self, body: dict[str, Any]) -> str:
        """``POST /<collection>`` and set ``resource_id``; an earlier attempt's object of this
        resource's physical name is adopted instead (a redelivered task makes no second one)."""
        if self.adopt(self._find_named):
            return str(self.resource_id)
        made = self.ks("POST", f"/{self.collection}", json={self.single: body})[self.single]
        self.resource_id = str(made["id"])
        return self.resource_id

    def _find_named(self, name: str, ignore_missing: bool = True) -> Any:
        listed = self.ks("GET", f"/{self.collection}", params={"name": name})[self.collection]
        found = [o for o in listed if o.get("name") == name]
        return SimpleNamespace(id=found[0]["id"]) if len(found) == 1 else None

    def patch(self, changes: dict[str, Any]) -> None:
        """``PATCH /<collection>/<id>`` with the changes that are not ``None`` (keystoneclient
        drops them, as Heat relies on); nothing is sent without any."""
        changes = {k: v for k, v in changes.items() if v is not None}
        if changes:
            self.ks("PATCH", f"/{self.collection}/{self.resource_id}", json={self.single: changes})
        self.refresh()

    def new_name(self, changed: dict[str, Any]) -> str | None:
        """Heat's rename rule: ``None`` (unchanged) unless ``name`` changed; a name removed
        becomes the physical name."""
        if "name" not in changed:
            return None
        return str(changed["name"]) if changed["name"] else self.physical_resource_name()

    def _fetch(self) -> Any:
        return self.ks("GET", f"/{self.collection}/{self.resource_id}")[self.single]

    def _delete(self) -> None:
        self.ks("DELETE", f"/{self.collection}/{self.resource_id}")

    def handle_delete(self) -> Any:
        """Delete; done at once (Keystone deletes synchronously); already gone is done."""
        if not self.resource_id:
            return None
        try:
            self._delete()
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise
        return None

    def check_delete_complete(self, handle: Any) -> bool:
        return True
