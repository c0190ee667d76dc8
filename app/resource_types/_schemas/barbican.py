"""Heat 27's schemas of the Barbican resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, constraints), with our own descriptions.
Data only; the plugins are in ``app.resource_types.barbican``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

_SECRET_REF = [s.custom_constraint("barbican.secret")]

# ---- OS::Barbican::Secret ----------------------------------------------------------------------
SECRET_PROPERTIES: dict[str, Any] = {
    "algorithm": s.prop("string", "Algorithm the secret is meant for (metadata only)."),
    "bit_length": s.prop("integer", "Bit length of the secret (metadata only).",
                         constraints=[s.value_range(min=0)]),
    "expiration": s.prop("string", "When the secret expires (ISO 8601).",
                         constraints=[s.custom_constraint("expiration")]),
    "mode": s.prop("string", "Block cipher mode the secret is meant for (metadata only)."),
    "name": s.prop("string", "Name of the secret."),
    "payload": s.prop("string", "The secret's data."),
    "payload_content_encoding": s.prop("string", "How the payload is encoded.",
                                       constraints=[s.allowed_values(["base64"])]),
    "payload_content_type": s.prop(
        "string", "Media type of the payload.",
        constraints=[s.allowed_values(["text/plain", "application/octet-stream"])]),
    "secret_type": s.prop(
        "string", "Kind of secret.", default="opaque",
        constraints=[s.allowed_values(["symmetric", "public", "private", "certificate",
                                       "passphrase", "opaque"])]),
}
SECRET_ATTRIBUTES: dict[str, Any] = {
    "decrypted_payload": s.attr("The secret's payload, decrypted.", "string"),
    "status": s.attr("Status of the secret.", "string"),
}
SECRET_SUPPORT = s.support_status("2014.2")

# ---- OS::Barbican::Order -----------------------------------------------------------------------
ORDER_PROPERTIES: dict[str, Any] = {
    "algorithm": s.prop("string", "Algorithm of the key to generate."),
    "bit_length": s.prop("integer", "Bit length of the key to generate."),
    "ca_id": s.prop("string", "Certificate authority to ask (certificate orders)."),
    "expiration": s.prop("string", "When the generated secret expires (ISO 8601).",
                         constraints=[s.custom_constraint("expiration")]),
    "mode": s.prop("string", "Block cipher mode of the key to generate."),
    "name": s.prop("string", "Name of the generated secret."),
    "pass_phrase": s.prop("string", "Pass phrase protecting a generated private key."),
    "payload_content_type": s.prop("string", "Media type of the generated secret."),
    "profile": s.prop("string", "Certificate profile of the CA (needs ca_id)."),
    "request_data": s.prop("string", "The certificate signing request (simple-cmc)."),
    "request_type": s.prop("string", "How the certificate is requested.",
                           constraints=[s.allowed_values(["stored-key", "simple-cmc", "custom"])]),
    "source_container_ref": s.prop("string", "RSA container whose key is certified (stored-key).",
                                   constraints=[s.custom_constraint("barbican.container")]),
    "subject_dn": s.prop("string", "Subject of the certificate (stored-key)."),
    "type": s.prop("string", "What the order generates.", required=True,
                   constraints=[s.allowed_values(["key", "asymmetric", "certificate"])]),
}
ORDER_ATTRIBUTES: dict[str, Any] = {
    "certificate": s.attr("Payload of the generated certificate.", "string"),
    "container_ref": s.attr("Reference of the generated container.", "string"),
    "intermediates": s.attr("Payload of the generated intermediate certificates.", "string"),
    "order_ref": s.attr("Reference of the order.", "string"),
    "private_key": s.attr("Payload of the generated private key.", "string"),
    "public_key": s.attr("Payload of the generated public key.", "string"),
    "secret_ref": s.attr("Reference of the generated secret.", "string"),
    "status": s.attr("Status of the order.", "string"),
}
ORDER_SUPPORT = s.support_status("2014.2")

# ---- containers --------------------------------------------------------------------------------
CONTAINER_ATTRIBUTES: dict[str, Any] = {
    "consumers": s.attr("Consumers registered on the container.", "list"),
    "container_ref": s.attr("Reference of the container.", "string"),
    "secret_refs": s.attr("The container's secret references by name.", "map"),
    "status": s.attr("Status of the container.", "string"),
}
CONTAINER_SUPPORT = s.support_status("6.0.0")
GENERIC_CONTAINER_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the container."),
    "secrets": s.prop("list", "Secrets held, each with the name it has in the container.",
                      schema=s.list_of(s.prop("map", schema={
                          "name": s.prop("string", "Name of the secret in the container.",
                                         required=True),
                          "ref": s.prop("string", "Reference of the secret.", required=True,
                                        constraints=_SECRET_REF)}))),
}
CERTIFICATE_CONTAINER_PROPERTIES: dict[str, Any] = {
    "certificate_ref": s.prop("string", "Reference of the certificate.", constraints=_SECRET_REF),
    "intermediates_ref": s.prop("string", "Reference of the intermediates.",
                                constraints=_SECRET_REF),
    "name": s.prop("string", "Name of the container."),
    "private_key_passphrase_ref": s.prop("string", "Reference of the private key's pass phrase.",
                                         constraints=_SECRET_REF),
    "private_key_ref": s.prop("string", "Reference of the private key.", constraints=_SECRET_REF),
}
RSA_CONTAINER_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the container."),
    "private_key_passphrase_ref": s.prop("string", "Reference of the private key's pass phrase.",
                                         constraints=_SECRET_REF),
    "private_key_ref": s.prop("string", "Reference of the private key.", constraints=_SECRET_REF),
    "public_key_ref": s.prop("string", "Reference of the public key.", constraints=_SECRET_REF),
}
