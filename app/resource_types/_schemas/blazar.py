"""Heat 27's schemas of the Blazar resource types, as ``resource_types.json`` records them,
with our own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Blazar::Host ----------------------------------------
HOST_PROPERTIES: dict[str, Any] = {
    "extra_capability": s.prop("map", "Extra capability."),
    "name": s.prop("string", "Name.", required=True),
}
HOST_ATTRIBUTES: dict[str, Any] = {
    "cpu_info": s.attr("Cpu info.", "map"),
    "created_at": s.attr("Created at.", "string"),
    "extra_capability": s.attr("Extra capability.", "map"),
    "hypervisor_hostname": s.attr("Hypervisor hostname.", "string"),
    "hypervisor_type": s.attr("Hypervisor type.", "string"),
    "hypervisor_version": s.attr("Hypervisor version.", "integer"),
    "local_gb": s.attr("Local gb.", "integer"),
    "memory_mb": s.attr("Memory mb.", "integer"),
    "reservable": s.attr("Reservable.", "boolean"),
    "service_name": s.attr("Service name.", "string"),
    "status": s.attr("Status.", "string"),
    "trust_id": s.attr("Trust id.", "string"),
    "updated_at": s.attr("Updated at.", "string"),
    "vcpus": s.attr("Vcpus.", "integer"),
}
HOST_SUPPORT = s.support_status("12.0.0")

# ---- OS::Blazar::Lease ----------------------------------------
LEASE_PROPERTIES: dict[str, Any] = {
    "before_end_date": s.prop(
        "string", "Before end date.", constraints=[s.allowed_pattern("\\d{4}-\\d{2}-\\d{2}\\s\\d{2}:\\d{2}")]
    ),
    "end_date": s.prop(
        "string",
        "End date.",
        required=True,
        constraints=[s.allowed_pattern("\\d{4}-\\d{2}-\\d{2}\\s\\d{2}:\\d{2}")],
    ),
    "events": s.prop(
        "list",
        "Events.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                "Item.",
                schema={
                    "event_type": s.prop("string", "Event type.", required=True),
                    "time": s.prop("string", "Time.", required=True),
                },
            )
        ),
    ),
    "name": s.prop("string", "Name.", required=True),
    "reservations": s.prop(
        "list",
        "Reservations.",
        required=True,
        schema=s.list_of(
            s.prop(
                "map",
                "Item.",
                schema={
                    "affinity": s.prop("boolean", "Affinity.", default=False),
                    "amount": s.prop(
                        "integer", "Amount.", constraints=[s.value_range(max=2147483647, min=0)]
                    ),
                    "before_end": s.prop(
                        "string",
                        "Before end.",
                        default="default",
                        constraints=[s.allowed_values(["default", "snapshot"])],
                    ),
                    "disk_gb": s.prop(
                        "integer", "Disk gb.", constraints=[s.value_range(max=2147483647, min=0)]
                    ),
                    "hypervisor_properties": s.prop("string", "Hypervisor properties."),
                    "max": s.prop("integer", "Max.", constraints=[s.value_range(min=1)]),
                    "memory_mb": s.prop(
                        "integer", "Memory mb.", constraints=[s.value_range(max=2147483647, min=0)]
                    ),
                    "min": s.prop("integer", "Min.", constraints=[s.value_range(min=1)]),
                    "resource_properties": s.prop("string", "Resource properties."),
                    "resource_type": s.prop(
                        "string",
                        "Resource type.",
                        required=True,
                        constraints=[s.allowed_values(["virtual:instance", "physical:host"])],
                    ),
                    "vcpus": s.prop("integer", "Vcpus.", constraints=[s.value_range(max=2147483647, min=0)]),
                },
            )
        ),
    ),
    "start_date": s.prop(
        "string",
        "Start date.",
        required=True,
        constraints=[s.allowed_pattern("\\d{4}-\\d{2}-\\d{2}\\s\\d{2}:\\d{2}")],
    ),
}
LEASE_ATTRIBUTES: dict[str, Any] = {
    "created_at": s.attr("Created at.", "string"),
    "degraded": s.attr("Degraded.", "boolean"),
    "end_date": s.attr("End date.", "string"),
    "events": s.attr("Events.", "list"),
    "name": s.attr("Name.", "string"),
    "project_id": s.attr("Project id.", "string"),
    "reservations": s.attr("Reservations.", "list"),
    "start_date": s.attr("Start date.", "string"),
    "status": s.attr("Status.", "string"),
    "trust_id": s.attr("Trust id.", "string"),
    "updated_at": s.attr("Updated at.", "string"),
    "user_id": s.attr("User id.", "string"),
}
LEASE_SUPPORT = s.support_status("12.0.0")
