"""Barbican key manager: OS::Barbican::Secret, Order, GenericContainer, CertificateContainer and
RSAContainer (Heat 27, ``heat/engine/resources/openstack/barbican/``).

More in docs/code/resource_types.md (app.resource_types.barbican).
"""
from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar

from app import errors
from app.clients import keymanager
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import barbican as sch
from app.resource_types.base import Resource

SERVICE = keymanager.SERVICE


def _client_error(exc: errors.CloudError) -> errors.CloudError:
    """``exc`` as barbicanclient raises a 4xx: ``HTTPClientError`` ``"<Title>: <description>"``."""
    if exc.status is None or exc.status >= 500 or exc.status == 404:
        return exc
    title = errors.HTTP_TITLES.get(exc.status, ("Error", ""))[0]
    return errors.CloudError(f"{title}: {exc.message}", transient=False, status=exc.status,
                             heat_type="HTTPClientError")


class BarbicanResource(CloudResource):
    """Shared: the href as physical id, fetch and delete by it."""

    kind: ClassVar[str] = ""

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            return self.cloud().request(SERVICE, method, path, **kwargs)
        except errors.CloudError as exc:
            raise _client_error(exc) from exc

    def _path(self) -> str:
        return f"/{self.kind}/{keymanager.ref_id(self.resource_id)}"

    def _fetch(self) -> Any:
        return self.request("GET", self._path())

    def _delete(self) -> None:
        self.request("DELETE", self._path())


class Secret(BarbicanResource):
    """A secret stored in Barbican."""

    type_name = "OS::Barbican::Secret"
    support_status = sch.SECRET_SUPPORT
    properties_schema = sch.SECRET_PROPERTIES
    attributes_schema = sch.SECRET_ATTRIBUTES
    kind = "secrets"

    def validate(self) -> None:
        """Heat's ``Secret.validate``. :raises errors.ValidationError: Heat's wording."""
        p = self.properties
        ctype, encoding = p.get("payload_content_type"), p.get("payload_content_encoding")
        if ctype:
            if not p.get("payload"):
                raise errors.ValidationError(
                    "payload_content_type cannot be specified without payload.")
            if ctype == "application/octet-stream":
                if not encoding:
                    raise errors.ValidationError(
                        "Property unspecified. For 'application/octet-stream' value of "
                        "'payload_content_type' property, 'payload_content_encoding' property "
                        "must be specified.")
                try:
                    base64.b64decode(p["payload"])
                except (binascii.Error, ValueError):
                    raise errors.ValidationError(
                        f"Invalid payload for specified '{encoding}' value of "
                        "'payload_content_encoding' property.") from None
        if encoding and (not ctype or ctype == "text/plain"):
            raise errors.ValidationError(
                "payload_content_encoding property should only be specified for "
                "payload_content_type with value application/octet-stream.")
        super().validate()

    def handle_create(self) -> str:
        body = {k: v for k, v in self.properties.items() if v is not None}
        body["secret_type"] = self.get_property("secret_type")
        if body.get("payload") and not body.get("payload_content_type"):
            body["payload_content_type"] = "text/plain"
        self.resource_id = str(self.request("POST", "/secrets", json=body)["secret_ref"])
        return self.resource_id

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "decrypted_payload":
            return keymanager.payload(self.cloud(), self.resource_id)
        return super()._resolve_attribute(name)


class Order(BarbicanResource):
    """An order Barbican fulfils asynchronously (a key, a key pair or a certificate)."""

    type_name = "OS::Barbican::Order"
    support_status = sch.ORDER_SUPPORT
    properties_schema = sch.ORDER_PROPERTIES
    attributes_schema = sch.ORDER_ATTRIBUTES
    kind = "orders"
    _ALLOWED: ClassVar[dict[str, tuple[str, ...]]] = {
        "key": ("name", "algorithm", "bit_length", "mode", "payload_content_type", "expiration"),
        "asymmetric": ("name", "algorithm", "bit_length", "mode", "pass_phrase",
                       "payload_content_type", "expiration"),
        "certificate": ("name", "request_type", "subject_dn", "source_container_ref", "ca_id",
                        "profile", "request_data")}
    _PAYLOADS = ("public_key", "private_key", "certificate", "intermediates")

    def validate(self) -> None:
        """Heat's ``Order.validate``. :raises errors.ValidationError: Heat's wording."""
        p, kind = self.properties, self.properties.get("type")
        if kind != "certificate":
            if p.get("algorithm") is None or p.get("bit_length") is None:
                raise errors.ValidationError(f"Properties algorithm and bit_length are required "
                                             f"for {kind} type of order.")
        elif p.get("profile") and not p.get("ca_id"):
            raise errors.ValidationError("profile cannot be specified without ca_id.")
        allowed = sorted(self._ALLOWED.get(str(kind), ()))
        unexpected = sorted(k for k, v in p.items() if k != "type" and v is not None
                            and k not in allowed)
        if unexpected:
            raise errors.ValidationError(
                f"Unexpected properties: {', '.join(unexpected)}. Only these properties are "
                f"allowed for {kind} type of order: {', '.join(allowed)}.")
        super().validate()

    def handle_create(self) -> str:
        meta = {k: v for k, v in self.properties.items() if v is not None and k != "type"}
        order = self.request("POST", "/orders", json={"type": self.properties["type"],
                                                      "meta": meta})
        self.resource_id = str(order["order_ref"])
        return self.resource_id

    def check_create_complete(self, handle: Any) -> bool:
        """ACTIVE: done; ERROR: Heat's ``Order '<name>' failed: <code> - <reason>``."""
        order = self._fetch()
        if order.get("status") == "ERROR":
            raise errors.StokerError(f"Order '{self.name}' failed: "
                                     f"{order.get('error_status_code')} - "
                                     f"{order.get('error_reason')}", heat_type="Error")
        return bool(order.get("status") == "ACTIVE")

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        order = self.show_resource() or {}
        if name not in self._PAYLOADS:
            return order.get(name)
        if not order.get("container_ref"):
            return None
        container = self.request("GET", f"/containers/"
                                        f"{keymanager.ref_id(order['container_ref'])}")
        refs = {r["name"]: r["secret_ref"] for r in container.get("secret_refs") or []}
        return keymanager.payload(self.cloud(), refs[name]) if name in refs else None


class GenericContainer(BarbicanResource):
    """A container of any named secrets."""

    type_name = "OS::Barbican::GenericContainer"
    support_status = sch.CONTAINER_SUPPORT
    properties_schema = sch.GENERIC_CONTAINER_PROPERTIES
    attributes_schema = sch.CONTAINER_ATTRIBUTES
    kind = "containers"
    container_type: ClassVar[str] = "generic"
    #: property -> the secret's name in the container (certificate and rsa containers)
    ref_names: ClassVar[dict[str, str]] = {}

    def secret_refs(self) -> list[dict[str, Any]]:
        """``[{"name", "secret_ref"}]`` for the container's body."""
        if not self.ref_names:
            return [{"name": s["name"], "secret_ref": s["ref"]}
                    for s in self.properties.get("secrets") or []]
        return [{"name": self.ref_names[k], "secret_ref": v}
                for k, v in self.properties.items() if k in self.ref_names and v is not None]

    def validate(self) -> None:
        """Heat's check: no secret twice. :raises errors.ValidationError:"""
        refs = [r["secret_ref"] for r in self.secret_refs()]
        if len(refs) != len(set(refs)):
            raise errors.ValidationError("Duplicate refs are not allowed.")
        super().validate()

    def handle_create(self) -> str:
        body: dict[str, Any] = {"type": self.container_type, "secret_refs": self.secret_refs()}
        if self.properties.get("name") is not None:
            body["name"] = self.properties["name"]
        self.resource_id = str(self.request("POST", "/containers", json=body)["container_ref"])
        return self.resource_id

    def check_create_complete(self, handle: Any) -> bool:
        container = self._fetch()
        if container.get("status") == "ERROR":
            raise errors.StokerError(
                f"Went to status ERROR due to \"Container '{self.name}' creation failed: "
                f"{container.get('error_status_code')} - {container.get('error_reason')}\"",
                heat_type="ResourceInError")
        return bool(container.get("status") == "ACTIVE")

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        shown = self.show_resource() or {}
        if name == "secret_refs":
            return {r["name"]: r["secret_ref"] for r in shown.get("secret_refs") or []}
        return shown.get(name)


class CertificateContainer(GenericContainer):
    """A container of a certificate, its private key, pass phrase and intermediates."""

    type_name = "OS::Barbican::CertificateContainer"
    properties_schema = sch.CERTIFICATE_CONTAINER_PROPERTIES
    container_type = "certificate"
    ref_names: ClassVar[dict[str, str]] = {
        "certificate_ref": "certificate", "private_key_ref": "private_key",
        "private_key_passphrase_ref": "private_key_passphrase",
        "intermediates_ref": "intermediates"}


class RSAContainer(GenericContainer):
    """A container of an RSA key pair and the private key's pass phrase."""

    type_name = "OS::Barbican::RSAContainer"
    properties_schema = sch.RSA_CONTAINER_PROPERTIES
    container_type = "rsa"
    ref_names: ClassVar[dict[str, str]] = {
        "private_key_ref": "private_key", "private_key_passphrase_ref": "private_key_passphrase",
        "public_key_ref": "public_key"}


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Secret, Order, GenericContainer, CertificateContainer,
                                           RSAContainer)}
