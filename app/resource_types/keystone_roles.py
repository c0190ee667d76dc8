"""Keystone users, groups and role assignments: OS::Keystone::User, Group, UserRoleAssignment
and GroupRoleAssignment (Heat 27's ``keystone/user.py``, ``group.py``, ``role_assignments.py``).

The ``roles`` property (Heat's ``KeystoneRoleAssignmentMixin``) is a list of ``{role, project}``
or ``{role, domain}`` maps, names or ids. Created: each granted
(``PUT /{projects|domains}/{t}/{users|groups}/{a}/roles/{r}``). Updated: the old and new lists
are compared as (role, project|domain) pairs; new pairs are granted, dropped ones revoked when
Keystone still lists them (``GET /role_assignments``). An assignment resource's delete revokes
its roles (a user, group, role or project already gone is no error); a User's or Group's goes
with the object. Validation, as Heat's: a role with both a project and a domain is
``Cannot define the following properties at the same time: project, domain.``; with neither,
``Either project or domain must be specified for role <role>``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types._keystone import KeystoneResource
from app.resource_types._schemas import keystone as sch
from app.resource_types.base import Resource

Pair = tuple[str, str, str]  # (role id, "projects" | "domains", target id)


class RoleAssignments(KeystoneResource):
    """The ``roles`` behaviour shared by the four types; :attr:`actor` is ``"users"`` or
    ``"groups"``."""

    actor = "users"

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's ``validate_assignment_properties``."""
        for item in self.properties.get("roles") or []:
            project, domain = item.get("project"), item.get("domain")
            if project is not None and domain is not None:
                raise errors.ValidationError(
                    "Cannot define the following properties at the same time: project, domain.")
            if project is None and domain is None:
                raise errors.ValidationError(
                    f"Either project or domain must be specified for role {item.get('role')}")
        super().validate()

    def pairs(self, roles: Any, *, skip_missing: bool = False) -> list[Pair]:
        """``roles`` as id pairs (Heat's ``_normalize_to_id``); with ``skip_missing`` an item
        naming something gone is left out instead of raising."""
        out: list[Pair] = []
        for item in roles or []:
            try:
                role = str(self.resolve_id("role", item["role"]))
                if item.get("project") is not None:
                    out.append((role, "projects", str(self.resolve_id("project", item["project"]))))
                elif item.get("domain") is not None:
                    out.append((role, "domains", str(self.resolve_id("domain", item["domain"]))))
            except errors.CloudError as exc:
                if not (skip_missing and is_not_found(exc)):
                    raise
        return list(dict.fromkeys(out))

    def _grant_path(self, actor_id: str, pair: Pair) -> str:
        role, target, target_id = pair
        return f"/{target}/{target_id}/{self.actor}/{actor_id}/roles/{role}"

    def grant(self, actor_id: str, pairs: list[Pair]) -> None:
        for pair in pairs:
            self.ks("PUT", self._grant_path(actor_id, pair))

    def current(self, actor_id: str) -> set[Pair]:
        """The actor's assignments as Keystone lists them (Heat's ``parse_list_assignments``)."""
        key = "user.id" if self.actor == "users" else "group.id"
        listed = self.ks("GET", "/role_assignments", params={key: actor_id})["role_assignments"]
        out: set[Pair] = set()
        for a in listed:
            scope = a.get("scope") or {}
            if "project" in scope:
                out.add((a["role"]["id"], "projects", scope["project"]["id"]))
            elif "domain" in scope:
                out.add((a["role"]["id"], "domains", scope["domain"]["id"]))
        return out

    def revoke(self, actor_id: str, pairs: list[Pair]) -> None:
        """Revoke those of ``pairs`` Keystone still lists (a 404 meanwhile is no error)."""
        if not pairs:
            return
        held = self.current(actor_id)
        for pair in pairs:
            if pair in held:
                try:
                    self.ks("DELETE", self._grant_path(actor_id, pair))
                except errors.CloudError as exc:
                    if not is_not_found(exc):
                        raise

    def update_roles(self, actor_id: str | None, old: Any, new: Any) -> None:
        """Heat's ``update_assignment``: grant the new pairs, revoke the dropped ones."""
        if actor_id is None:
            return
        before, after = self.pairs(old, skip_missing=True), self.pairs(new)
        self.grant(actor_id, [p for p in after if p not in before])
        self.revoke(actor_id, [p for p in before if p not in after])


class User(RoleAssignments):
    """A Keystone user in ``domain``, member of ``groups``, with ``roles``; ``password`` and
    the rest updated in place (a property removed is left as it is, as Heat's
    ``_update_user``); groups joined and left by difference."""

    type_name = "OS::Keystone::User"
    support_status = sch.USER_SUPPORT
    properties_schema = sch.USER_PROPERTIES
    attributes_schema = sch.USER_ATTRIBUTES
    unlisted_properties = sch.USER_UNLISTED
    collection = "users"

    def _groups(self, values: Any) -> list[str]:
        return list(dict.fromkeys(str(self.resolve_id("group", g)) for g in values or []))

    def handle_create(self) -> None:
        p = self.properties
        body: dict[str, Any] = {"name": self.name_or_physical(),
                                "domain_id": self.resolve_id("domain", self.get_property("domain")),
                                "description": self.get_property("description"),
                                "enabled": self.get_property("enabled"), "email": p.get("email"),
                                "password": p.get("password"),
                                "default_project_id": self.resolve_id("project", p.get("default_project"))}
        user = self.create_object({k: v for k, v in body.items() if v is not None})
        for group in self._groups(p.get("groups")):
            self.ks("PUT", f"/groups/{group}/users/{user}")
        self.grant(user, self.pairs(p.get("roles")))

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        old, self.properties = self.properties, dict(new_properties)
        project = changed.get("default_project")
        values = {"name": self.new_name(dict(changed)), "description": changed.get("description"),
                  "enabled": changed.get("enabled"), "email": changed.get("email"),
                  "password": changed.get("password"),
                  "default_project_id": self.resolve_id("project", project) if project else None}
        if any(v is not None for v in values.values()):
            values["domain_id"] = self.resolve_id("domain", self.get_property("domain"))
        self.patch(values)
        if "groups" in changed:
            before, after = self._old_groups(old.get("groups")), self._groups(changed["groups"])
            for group in after:
                if group not in before:
                    self.ks("PUT", f"/groups/{group}/users/{self.resource_id}")
            for group in before:
                if group not in after:
                    self._leave(group)
        if "roles" in changed:
            self.update_roles(self.resource_id, old.get("roles"), changed["roles"])

    def _old_groups(self, values: Any) -> list[str]:
        out = []
        for g in values or []:
            try:
                out.append(str(self.resolve_id("group", g)))
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        return out

    def _leave(self, group: str) -> None:
        try:
            self.ks("DELETE", f"/groups/{group}/users/{self.resource_id}")
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise

    def _delete(self) -> None:
        """Leave the groups, then delete (Heat's order)."""
        for group in self._old_groups(self.properties.get("groups")):
            self._leave(group)
        super()._delete()


class Group(RoleAssignments):
    """A Keystone group in ``domain`` with ``roles``."""

    type_name = "OS::Keystone::Group"
    support_status = sch.GROUP_SUPPORT
    properties_schema = sch.GROUP_PROPERTIES
    unlisted_properties = sch.GROUP_UNLISTED
    collection = "groups"
    actor = "groups"

    def handle_create(self) -> None:
        group = self.create_object({"name": self.name_or_physical(),
                                    "domain_id": self.resolve_id("domain", self.get_property("domain")),
                                    "description": self.get_property("description")})
        self.grant(group, self.pairs(self.properties.get("roles")))

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        old, self.properties = self.properties, dict(new_properties)
        self.patch({"name": self.new_name(dict(changed)), "description": changed.get("description"),
                    "domain_id": self.resolve_id("domain", self.get_property("domain"))})
        if "roles" in changed:
            self.update_roles(self.resource_id, old.get("roles"), changed["roles"])


class _Assignment(RoleAssignments):
    """An assignment resource: no object of its own (no ``show``); its reference id is the
    resource name, as Heat's (it never sets a physical id)."""

    prop = "user"

    def actor_id(self, value: Any, *, missing_ok: bool = False) -> str | None:
        try:
            return self.resolve_id(self.actor[:-1], value)
        except errors.CloudError as exc:
            if missing_ok and is_not_found(exc):
                return None
            raise

    def handle_create(self) -> None:
        actor = self.actor_id(self.properties[self.prop])
        assert actor is not None
        self.grant(actor, self.pairs(self.properties.get("roles")))

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Heat diffs the roles for the *new* user or group only (a changed ``user`` keeps the
        old one's roles, as Heat's plugin does)."""
        self.check_replace(changed, new_properties)
        old, self.properties = self.properties, dict(new_properties)
        if "roles" in changed:
            self.update_roles(self.actor_id(self.properties[self.prop]), old.get("roles"), changed["roles"])

    def handle_delete(self) -> Any:
        actor = self.actor_id(self.properties.get(self.prop), missing_ok=True)
        if actor is not None:
            try:
                self.revoke(actor, self.pairs(self.properties.get("roles"), skip_missing=True))
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        return None

    def show_resource(self) -> dict[str, Any] | None:
        return None


class UserRoleAssignment(_Assignment):
    type_name = "OS::Keystone::UserRoleAssignment"
    support_status = sch.ROLE_ASSIGNMENT_SUPPORT
    properties_schema = sch.USER_ROLE_ASSIGNMENT_PROPERTIES


class GroupRoleAssignment(_Assignment):
    type_name = "OS::Keystone::GroupRoleAssignment"
    support_status = sch.ROLE_ASSIGNMENT_SUPPORT
    properties_schema = sch.GROUP_ROLE_ASSIGNMENT_PROPERTIES
    actor = "groups"
    prop = "group"


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (User, Group, UserRoleAssignment, GroupRoleAssignment)}
