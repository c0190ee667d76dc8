"""Heat 27's schemas of the Designate resource types, as ``resource_types.json`` records them,
with our own descriptions; plus Heat's HIDDEN Domain and Record support statuses. Data only; the
plugins are in ``app.resource_types.designate``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

_TTL = [s.value_range(min=1, max=2147483647)]

# ---- OS::Designate::Zone -----------------------------------------------------------------------
ZONE_PROPERTIES: dict[str, Any] = {
    "attributes": s.prop("map", "Zone attributes the DNS scheduler may use to place it."),
    "email": s.prop("string", "Administrator e-mail of the zone (required for PRIMARY zones).",
                    update_allowed=True),
    "masters": s.prop("list", "Primary servers of a SECONDARY zone (deprecated: primaries).",
                      update_allowed=True),
    "name": s.prop("string", "DNS name of the zone, ending with a dot.", required=True,
                   constraints=[s.length(max=255)]),
    "primaries": s.prop("list", "Primary servers of a SECONDARY zone.", update_allowed=True),
    "ttl": s.prop("integer", "Time to live of the zone's records, in seconds.",
                  update_allowed=True, constraints=_TTL),
    "type": s.prop("string", "PRIMARY or SECONDARY.", default="PRIMARY",
                   constraints=[s.allowed_values(["PRIMARY", "SECONDARY"])]),
}
ZONE_ATTRIBUTES: dict[str, Any] = {"serial": s.attr("Serial number of the zone.", "string")}
ZONE_SUPPORT = s.support_status("8.0.0")

# ---- OS::Designate::RecordSet ------------------------------------------------------------------
RECORDSET_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the recordset (relative names are put in the zone).",
                   constraints=[s.length(max=255)]),
    "records": s.prop("list", "The records' data, as the record type wants it.", required=True,
                      update_allowed=True),
    "ttl": s.prop("integer", "Time to live of the records, in seconds.", update_allowed=True,
                  constraints=_TTL),
    "type": s.prop("string", "DNS record type.", required=True,
                   constraints=[s.allowed_values(["A", "AAAA", "CNAME", "MX", "SRV", "TXT",
                                                  "SPF", "NS", "PTR", "SSHFP", "SOA", "CAA",
                                                  "CERT", "NAPTR"])]),
    "zone": s.prop("string", "Zone id or name.", required=True,
                   constraints=[s.custom_constraint("designate.zone")]),
}
RECORDSET_ATTRIBUTES: dict[str, Any] = {}
RECORDSET_SUPPORT = s.support_status("8.0.0")

#: Heat's ``description`` properties (missing from the reference data): at most 160 characters.
DESCRIPTION: dict[str, dict[str, Any]] = {
    "description": s.prop("string", "Description.", update_allowed=True,
                          constraints=[s.length(max=160)])}

# ---- HIDDEN: OS::Designate::Domain, OS::Designate::Record --------------------------------------
DOMAIN_SUPPORT = s.support_status(
    "10.0.0", "HIDDEN", message="This resource has been removed, use OS::Designate::Zone instead.",
    previous_status=s.support_status("8.0.0", "DEPRECATED",
                                     previous_status=s.support_status("5.0.0")))
RECORD_SUPPORT = s.support_status(
    "10.0.0", "HIDDEN",
    message="This resource has been removed, use OS::Designate::RecordSet instead.",
    previous_status=s.support_status("8.0.0", "DEPRECATED",
                                     previous_status=s.support_status("5.0.0")))
