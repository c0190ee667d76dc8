"""OS::Glance::WebImage (Heat 27, ``heat/engine/resources/openstack/glance/image.py``): an
image record whose data Glance downloads from ``location`` (interoperable import,
``web-download``). Complete once the image is ``active`` (``killed`` fails); ``active: false``
then deactivates it; ``members`` are added. Reference id: the image id."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.resource_types._cloud import CloudResource, in_error
from app.resource_types._schemas import glance as sch
from app.resource_types.base import Resource

_PASSED = ("container_format", "disk_format", "min_disk", "min_ram", "protected", "visibility",
           "architecture", "kernel_id", "ramdisk_id", "os_distro", "os_version", "owner", "id")


class WebImage(CloudResource):
    """A Glance image imported from a URL."""

    type_name = "OS::Glance::WebImage"
    support_status = sch.WEB_IMAGE_SUPPORT
    properties_schema = sch.WEB_IMAGE_PROPERTIES
    attributes_schema = sch.WEB_IMAGE_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical()}
        for key in _PASSED:
            if p.get(key) is not None:
                attrs[key] = p[key]
        if p.get("tags"):
            attrs["tags"] = list(p["tags"])
        attrs.update({str(k): v for k, v in (p.get("extra_properties") or {}).items()})
        image = self.cloud().image.create_image(**attrs)
        self.resource_id = image.id
        self.cloud().image.import_image(image, method="web-download", uri=p["location"])

    def check_create_complete(self, handle: Any) -> bool:
        self.refresh()
        shown = self.show_resource() or {}
        status = str(shown.get("status", "")).lower()
        if status == "killed":
            raise in_error(status, "Unknown")
        if status != "active":
            return False
        image = self.cloud().image
        for member in self.properties.get("members") or []:
            if member not in self.data.setdefault("members", []):
                image.add_member(self.resource_id, member_id=member)
                self.data["members"].append(member)
        if self.get_property("active") is False and not self.data.get("deactivated"):
            image.deactivate_image(self.resource_id)
            self.data["deactivated"] = True
        return True

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Image properties, ``tags`` (replaced), ``members`` (added / removed) and ``active``
        (deactivate / reactivate) updated in place, as Heat's WebImage."""
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        p = self.properties
        image = self.cloud().image
        attrs = {k: p.get(k) for k in changed if k in _PASSED}
        if "extra_properties" in changed:
            attrs.update({str(k): v for k, v in (p.get("extra_properties") or {}).items()})
        if attrs:
            image.update_image(self.resource_id, **attrs)
        if "tags" in changed:
            new_tags, old_tags = set(p.get("tags") or []), set(old.get("tags") or [])
            for tag in sorted(old_tags - new_tags):
                image.remove_tag(self.resource_id, tag)
            for tag in sorted(new_tags - old_tags):
                image.add_tag(self.resource_id, tag)
        if "members" in changed:
            new_members, old_members = set(p.get("members") or []), set(old.get("members") or [])
            for member in sorted(old_members - new_members):
                image.remove_member(member, self.resource_id)
            for member in sorted(new_members - old_members):
                image.add_member(self.resource_id, member_id=member)
            self.data["members"] = sorted(new_members)
        if "active" in changed:
            if self.get_property("active") is False:
                image.deactivate_image(self.resource_id)
            else:
                image.reactivate_image(self.resource_id)
            self.data["deactivated"] = self.get_property("active") is False
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().image.get_image(self.resource_id)

    def _delete(self) -> None:
        self.cloud().image.delete_image(self.resource_id)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {WebImage.type_name: WebImage}
