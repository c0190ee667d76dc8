"""Heat 27's schemas of the Swift-backed resource types (OS::Swift::Container, AWS::S3::Bucket,
OS::Heat::SwiftSignal, OS::Heat::SwiftSignalHandle), as ``resource_types.json`` records them,
with our own descriptions. Data only; the plugins are in ``app.resource_types.swift`` and
``app.resource_types.swift_signal``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Swift::Container ----------------------------------------------------------------------
CONTAINER_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Container name; a unique one is made when it is not given."),
    "X-Container-Read": s.prop("string", "ACL of who may read the container's objects."),
    "X-Container-Write": s.prop("string", "ACL of who may write objects into the container."),
    "X-Container-Meta": s.prop(
        "map", "Container metadata: each key becomes an X-Container-Meta-<key> header.",
        default={}),
    "X-Account-Meta": s.prop(
        "map", "Account metadata: each key becomes an X-Account-Meta-<key> header.", default={}),
    "PurgeOnDelete": s.prop(
        "boolean", "Delete the container's objects with it; otherwise a container that still "
        "holds objects cannot be deleted.", default=False),
}
CONTAINER_ATTRIBUTES: dict[str, Any] = {
    "DomainName": s.attr("Host part of the container's URL.", "string"),
    "WebsiteURL": s.attr("URL of the container.", "string"),
    "RootURL": s.attr("URL of the account the container is in.", "string"),
    "ObjectCount": s.attr("How many objects the container holds.", "integer"),
    "BytesUsed": s.attr("How many bytes the container's objects take.", "integer"),
    "HeadContainer": s.attr("Every header of the container, as a map.", "map"),
}

# ---- AWS::S3::Bucket ---------------------------------------------------------------------------
ACCESS_CONTROLS = ["Private", "PublicRead", "PublicReadWrite", "AuthenticatedRead",
                   "BucketOwnerRead", "BucketOwnerFullControl"]
BUCKET_PROPERTIES: dict[str, Any] = {
    "AccessControl": s.prop("string", "Canned ACL granting access to the bucket.",
                            constraints=[s.allowed_values(ACCESS_CONTROLS)]),
    "WebsiteConfiguration": s.prop(
        "map", "Static website settings of the bucket.",
        schema={"IndexDocument": s.prop("string", "Name of the index page."),
                "ErrorDocument": s.prop("string", "Name of the error page.")}),
    "Tags": s.prop(
        "list", "Key/value tags of the bucket.",
        schema=s.list_of(s.prop("map", "One tag.", schema={
            "Key": s.prop("string", "Tag name.", required=True),
            "Value": s.prop("string", "Tag value.", required=True)}))),
}
BUCKET_ATTRIBUTES: dict[str, Any] = {
    "DomainName": s.attr("Host name of the bucket's endpoint.", "string"),
    "WebsiteURL": s.attr("Website URL of the bucket.", "string"),
}

# ---- OS::Heat::SwiftSignalHandle / SwiftSignal ---------------------------------------------------
SIGNAL_SUPPORT = s.support_status("2014.2")
HANDLE_PROPERTIES: dict[str, Any] = {}
HANDLE_ATTRIBUTES: dict[str, Any] = {
    "token": s.attr("Always empty: a TempURL needs no token (kept for compatibility with "
                    "OS::Heat::WaitConditionHandle).", "string"),
    "endpoint": s.attr("The TempURL to PUT a signal to.", "string"),
    "curl_cli": s.attr("curl command prefix that signals the handle; add --data-binary "
                       "'{\"status\": \"SUCCESS\"}' (or FAILURE).", "string"),
}
SIGNAL_PROPERTIES: dict[str, Any] = {
    "handle": s.prop("string", "The SwiftSignalHandle's TempURL the signals are PUT to.",
                     required=True),
    "timeout": s.prop("number", "Seconds to wait for the signals before failing.",
                      required=True, constraints=[s.value_range(1, 43200)]),
    "count": s.prop("integer", "How many SUCCESS signals complete the wait.", default=1,
                    constraints=[s.value_range(1, 1000)]),
}
SIGNAL_ATTRIBUTES: dict[str, Any] = {
    "data": s.attr("JSON map of each signal's id to the data it carried.", "string"),
}
