"""Heat 27's schemas of the OS::Keystone::* resource types, as ``resource_types.json`` records
them, with our own descriptions; ``*_UNLISTED`` holds each type's ``description`` property, which
that listing lost (see ``CloudResource.unlisted_properties``). Data only; the plugins are in
``app.resource_types.keystone`` and ``app.resource_types.keystone_roles``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

V3 = "Supported versions: keystone v3"


def _custom(kind: str) -> list[dict[str, Any]]:
    return [s.custom_constraint(f"keystone.{kind}")]


def _described(default: Any = None, *, has_default: bool = False) -> dict[str, Any]:
    if has_default:
        return {"description": s.prop("string", "Description of the object.", default=default,
                                      update_allowed=True)}
    return {"description": s.prop("string", "Description of the object.", update_allowed=True)}


def _name(what: str) -> dict[str, Any]:
    return s.prop("string", f"Name of the {what} (default: a generated physical name).",
                  update_allowed=True)


def _domain(update_allowed: bool = True, default: Any = "default") -> dict[str, Any]:
    extra = {"default": default} if default is not None else {}
    return s.prop("string", "Name or id of the Keystone domain.", update_allowed=update_allowed,
                  constraints=_custom("domain"), **extra)


def _enabled(what: str) -> dict[str, Any]:
    return s.prop("boolean", f"Whether the {what} is enabled.", default=True, update_allowed=True)


#: the ``roles`` property Users, Groups and the two assignment types share (Heat's
#: KeystoneRoleAssignmentMixin)
ROLES: dict[str, Any] = {
    "roles": s.prop(
        "list", "Role assignments, each a role on a project or on a domain.", update_allowed=True,
        schema=s.list_of(s.prop("map", "A role with either a project or a domain.", schema={
            "role": s.prop("string", "Name or id of the role.", required=True,
                           constraints=_custom("role")),
            "project": s.prop("string", "Name or id of the project.", constraints=_custom("project")),
            "domain": s.prop("string", "Name or id of the domain.", constraints=_custom("domain")),
        }))),
}

# ---- OS::Keystone::Domain ------------------------------------------------------------------
DOMAIN_PROPERTIES: dict[str, Any] = {"name": _name("domain"), "enabled": _enabled("domain")}
DOMAIN_UNLISTED = _described()
DOMAIN_SUPPORT = s.support_status("8.0.0", message=V3)

# ---- OS::Keystone::Project -----------------------------------------------------------------
PROJECT_PROPERTIES: dict[str, Any] = {
    "name": _name("project"),
    "domain": _domain(),
    "enabled": _enabled("project"),
    "parent": s.prop("string", "Name or id of the parent project.", constraints=_custom("project")),
    "tags": s.prop("list", "Tags of the project.", default=[], update_allowed=True),
}
PROJECT_UNLISTED = _described("", has_default=True)
PROJECT_ATTRIBUTES: dict[str, Any] = {
    "name": s.attr("Project name.", "string"),
    "parent_id": s.attr("Id of the parent project (the domain's for a top-level project).", "string"),
    "domain_id": s.attr("Id of the project's domain.", "string"),
    "enabled": s.attr("Whether the project is enabled.", "boolean"),
    "is_domain": s.attr("Whether the project acts as a domain.", "boolean"),
}
PROJECT_SUPPORT = s.support_status("2015.1", message=V3)

# ---- OS::Keystone::User --------------------------------------------------------------------
USER_PROPERTIES: dict[str, Any] = {
    "name": _name("user"),
    "domain": _domain(),
    "enabled": _enabled("user"),
    "email": s.prop("string", "Email address of the user.", update_allowed=True),
    "password": s.prop("string", "Password of the user.", update_allowed=True),
    "default_project": s.prop("string", "Name or id of the user's default project.",
                              update_allowed=True, constraints=_custom("project")),
    "groups": s.prop("list", "Groups the user belongs to.", update_allowed=True,
                     schema=s.list_of(s.prop("string", "Name or id of a group.",
                                             constraints=_custom("group")))),
    **ROLES,
}
USER_UNLISTED = _described("", has_default=True)
USER_ATTRIBUTES: dict[str, Any] = {
    "name": s.attr("User name.", "string"),
    "default_project_id": s.attr("Id of the user's default project.", "string"),
    "domain_id": s.attr("Id of the user's domain.", "string"),
    "enabled": s.attr("Whether the user is enabled.", "boolean"),
    "password_expires_at": s.attr("When the user's password expires.", "string"),
}
USER_SUPPORT = s.support_status("2015.1", message=V3)

# ---- OS::Keystone::Group -------------------------------------------------------------------
GROUP_PROPERTIES: dict[str, Any] = {"name": _name("group"), "domain": _domain(), **ROLES}
GROUP_UNLISTED = _described("", has_default=True)
GROUP_SUPPORT = s.support_status("2015.1", message=V3)

# ---- OS::Keystone::Role --------------------------------------------------------------------
ROLE_PROPERTIES: dict[str, Any] = {"name": _name("role"),
                                   "domain": _domain(update_allowed=False, default=None)}
ROLE_SUPPORT = s.support_status("2015.1", message=V3)

# ---- OS::Keystone::UserRoleAssignment / GroupRoleAssignment --------------------------------
USER_ROLE_ASSIGNMENT_PROPERTIES: dict[str, Any] = {
    "user": s.prop("string", "Name or id of the user.", required=True, update_allowed=True,
                   constraints=_custom("user")),
    **ROLES,
}
GROUP_ROLE_ASSIGNMENT_PROPERTIES: dict[str, Any] = {
    "group": s.prop("string", "Name or id of the group.", required=True, update_allowed=True,
                    constraints=_custom("group")),
    **ROLES,
}
ROLE_ASSIGNMENT_SUPPORT = s.support_status("5.0.0", message=V3)

# ---- OS::Keystone::Region ------------------------------------------------------------------
REGION_PROPERTIES: dict[str, Any] = {
    "id": s.prop("string", "Id of the region, unique in the deployment (URL-encoded by Heat)."),
    "parent_region": s.prop("string", "Id of the parent region.", update_allowed=True,
                            constraints=_custom("region")),
    "enabled": _enabled("region"),
}
REGION_UNLISTED = _described()
REGION_SUPPORT = s.support_status("6.0.0", message=V3)

# ---- OS::Keystone::Service -----------------------------------------------------------------
SERVICE_PROPERTIES: dict[str, Any] = {
    "name": _name("service"),
    "type": s.prop("string", "Type of the service (e.g. ``compute``).", required=True,
                   update_allowed=True),
    "enabled": _enabled("service"),
}
SERVICE_UNLISTED = _described()
SERVICE_SUPPORT = s.support_status("5.0.0", message=V3)

# ---- OS::Keystone::Endpoint ----------------------------------------------------------------
ENDPOINT_PROPERTIES: dict[str, Any] = {
    "name": _name("endpoint"),
    "region": s.prop("string", "Name or id of the region.", update_allowed=True,
                     constraints=_custom("region")),
    "service": s.prop("string", "Name or id of the service.", required=True, update_allowed=True,
                      constraints=_custom("service")),
    "interface": s.prop("string", "Interface of the endpoint.", required=True, update_allowed=True,
                        constraints=[s.allowed_values(["public", "internal", "admin"])]),
    "url": s.prop("string", "URL of the endpoint.", required=True, update_allowed=True),
    "enabled": _enabled("endpoint"),
}
ENDPOINT_SUPPORT = s.support_status("5.0.0", message=V3)
