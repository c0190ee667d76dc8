"""Swift containers: OS::Swift::Container and AWS::S3::Bucket (Heat 27's
``heat/engine/resources/openstack/swift/container.py`` and ``aws/s3/s3.py``).

More in docs/code/resource_types.md (app.resource_types.swift).
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any, ClassVar
from urllib.parse import quote, urlparse

from app import errors
from app.clients import is_conflict, is_not_found
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import swift as sch
from app.resource_types.base import Resource, ResourceActionNotSupported


def swift(res: CloudResource, method: str, path: str = "", **kwargs: Any) -> Any:
    """``method`` on ``path`` under the account's storage URL (``""``: the account itself)
    through ``res``'s guarded connection; :returns: the ``requests`` response.

    :raises errors.CloudError: a status >= 400 (404 / 409 as ``is_not_found`` / ``is_conflict``
        tell)."""
    cloud = res.cloud()
    adapter = cloud.raw.object_store
    url = f"{storage_url(res)}{path}"
    return cloud.call(adapter.request, url, method, raise_exc=True, **kwargs)


class SwiftClientError(errors.CloudError):
    """swiftclient's ``ClientException``, as Heat's failure reasons name it."""
    heat_type = "ClientException"


def swift_error(what: str, resp: Any) -> str:
    """swiftclient's ``ClientException`` text for ``resp`` (a ``requests`` response):
    ``"<what>: <url> <status> <reason>"`` (the status's standard phrase, as Swift sends it)
    then the body (its first 60 characters when longer, after ``[first 60 chars of
    response]``)."""
    try:
        phrase = HTTPStatus(resp.status_code).phrase
    except ValueError:
        phrase = str(resp.reason)
    text = f"{what}: {resp.url} {resp.status_code} {phrase}"
    content = resp.text or ""
    if content:
        text += f"   {content}" if len(content) <= 60 else \
            f"  [first 60 chars of response] {content[:60]}"
    return text


def storage_url(res: CloudResource) -> str:
    """The account's storage URL from the catalog (``http://host/v1/AUTH_<project>``)."""
    url = res.data.get("_storage_url")
    if not url:
        url = res.data["_storage_url"] = str(res.cloud().raw.object_store.get_endpoint()).rstrip("/")
    return str(url)


def container_path(name: str) -> str:
    return "/" + quote(name, safe="")


def objects_of(res: CloudResource, container: str) -> list[dict[str, Any]] | None:
    """The container's object listing (``[{"name", "bytes", ...}]``); None when it is gone."""
    try:
        resp = swift(res, "GET", container_path(container), params={"format": "json"})
    except errors.CloudError as exc:
        if is_not_found(exc):
            return None
        raise
    return list(resp.json()) if resp.content else []


def head_container(res: CloudResource, container: str) -> dict[str, str]:
    """The container's headers, lower-cased (swiftclient's ``head_container``)."""
    resp = swift(res, "HEAD", container_path(container))
    return {k.lower(): v for k, v in resp.headers.items()}


class _Container(CloudResource):
    """What the two container types share: create with headers, reference id, delete."""

    #: Heat's message for a delete that meets objects (``%s``: the container name)
    not_empty: ClassVar[str] = ""

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def container_name(self) -> str:
        return self.physical_resource_name()

    def handle_create(self) -> None:
        """``PUT`` the container (a second ``PUT`` of a redelivered create is Swift's 202)."""
        name = self.resource_id or self.container_name()
        swift(self, "PUT", container_path(name), headers=self.headers())
        self.resource_id = name

    def get_reference_id(self) -> str:
        return str(self.resource_id) if self.resource_id else self.name

    def _fetch(self) -> Any:
        return head_container(self, str(self.resource_id))

    def purge(self) -> bool:
        return False

    def handle_delete(self) -> Any:
        """Heat's ``handle_delete``: a container still holding objects is refused unless it is
        purged. :raises ResourceActionNotSupported: Heat's message."""
        if not self.resource_id:
            return None
        objects = objects_of(self, self.resource_id)
        if objects is None:
            return None
        if objects and not self.purge():
            raise ResourceActionNotSupported(self.not_empty % self.resource_id)
        return {"objects": len(objects)}

    def check_delete_complete(self, handle: Any) -> bool:
        """Delete the objects (purge), then the container; an object that arrived in the
        meantime (Swift's 409) is deleted at the next look."""
        if handle is None:
            return True
        objects = objects_of(self, str(self.resource_id))
        if objects is None:
            return True
        if objects and not self.purge():
            raise ResourceActionNotSupported(self.not_empty % self.resource_id)
        for obj in objects:
            try:
                swift(self, "DELETE", f"{container_path(str(self.resource_id))}/"
                                      f"{quote(obj['name'])}")
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        try:
            swift(self, "DELETE", container_path(str(self.resource_id)))
        except errors.CloudError as exc:
            if is_not_found(exc):
                return True
            if is_conflict(exc):
                return False
            raise
        return True

    def _url_parts(self) -> tuple[str, str, str]:
        parsed = urlparse(storage_url(self))
        return parsed.scheme, parsed.netloc, parsed.path

    def _resolve_attribute(self, name: str) -> Any:
        scheme, netloc, path = self._url_parts()
        if name == "DomainName":
            return netloc.split(":")[0]
        if name == "WebsiteURL":
            return f"{scheme}://{netloc}{path}/{self.resource_id}"
        if name == "RootURL":
            return f"{scheme}://{netloc}{path}"
        return None


class SwiftContainer(_Container):
    """OS::Swift::Container."""

    type_name = "OS::Swift::Container"
    properties_schema = sch.CONTAINER_PROPERTIES
    attributes_schema = sch.CONTAINER_ATTRIBUTES
    not_empty = "Deleting non-empty container (%s) when PurgeOnDelete is False"

    def container_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def headers(self) -> dict[str, str]:
        out = {f"X-Container-Meta-{k}": str(v)
               for k, v in (self.get_property("X-Container-Meta") or {}).items()}
        for key in ("X-Container-Read", "X-Container-Write"):
            if self.properties.get(key) is not None:
                out[key] = str(self.properties[key])
        return out

    def handle_create(self) -> None:
        """The container, then the account metadata (Heat's order)."""
        super().handle_create()
        account = {f"X-Account-Meta-{k}": str(v)
                   for k, v in (self.get_property("X-Account-Meta") or {}).items()}
        if account:
            swift(self, "POST", "", headers=account)

    def purge(self) -> bool:
        return bool(self.get_property("PurgeOnDelete"))

    def handle_check(self) -> None:
        """Heat's ``handle_check``: swiftclient's ``get_container``, a ``GET`` of the listing.

        :raises SwiftClientError: Swift answered >= 400; the message as swiftclient words it,
            ``Container GET failed: <url>?format=json 404 Not Found  [first 60 chars of
            response] <body>``."""
        cloud = self.cloud()
        url = f"{storage_url(self)}{container_path(str(self.resource_id))}"
        resp = cloud.call(cloud.raw.object_store.request, url, "GET", raise_exc=False,
                          params={"format": "json"})
        if resp.status_code >= 400:
            raise SwiftClientError(swift_error("Container GET failed", resp))

    def _resolve_attribute(self, name: str) -> Any:
        if name in ("ObjectCount", "BytesUsed", "HeadContainer"):
            if not self.resource_id:
                return None
            shown = self.show_resource()
            if shown is None:
                return None
            if name == "HeadContainer":
                return shown
            return shown.get("x-container-object-count" if name == "ObjectCount"
                             else "x-container-bytes-used")
        return super()._resolve_attribute(name)


class S3Bucket(_Container):
    """AWS::S3::Bucket, a Swift container."""

    type_name = "AWS::S3::Bucket"
    properties_schema = sch.BUCKET_PROPERTIES
    attributes_schema = sch.BUCKET_ATTRIBUTES
    not_empty = "The bucket you tried to delete is not empty (%s)."

    def _who(self) -> tuple[str, str]:
        """``(project name, user name)`` of the connection's token (Heat's request context)."""
        sess = self.cloud().raw.session
        try:
            access = sess.auth.get_access(sess)
            return str(access.project_name or ""), str(access.username or "")
        except Exception:  # an auth plugin without access info: the ids it has
            return str(getattr(self.stack, "project_id", "") or ""), ""

    def headers(self) -> dict[str, str]:
        out = {f"X-Container-Meta-S3-Tag-{t['Key']}": str(t["Value"])
               for t in self.properties.get("Tags") or []}
        site = self.properties.get("WebsiteConfiguration")
        if site is not None:
            out["X-Container-Meta-Web-Index"] = str(site.get("IndexDocument") or "")
            out["X-Container-Meta-Web-Error"] = str(site.get("ErrorDocument") or "")
        acl = self.properties.get("AccessControl")
        project, user = self._who()
        owner = f"{project}:{user}"
        if acl in ("PublicRead", "PublicReadWrite"):
            out["X-Container-Read"] = ".r:*"
        elif acl == "AuthenticatedRead":
            out["X-Container-Read"] = project
        else:
            out["X-Container-Read"] = owner
        out["X-Container-Write"] = ".r:*" if acl == "PublicReadWrite" else owner
        return out


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (SwiftContainer, S3Bucket)}
