"""AWS::IAM::User and AWS::IAM::AccessKey (Heat's ``heat/engine/resources/aws/iam/user.py``).

More in docs/code/resource_types.md (app.resource_types.aws_iam).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import _stack_user
from app.resource_types import schema as s
from app.resource_types.base import Resource

ACCESS_POLICY = "OS::Heat::AccessPolicy"


class User(_stack_user.StackUser):
    """AWS::IAM::User."""

    type_name = "AWS::IAM::User"
    support_status = s.support_status(None)
    properties_schema: ClassVar[dict[str, Any]] = {
        "Path": s.prop("string", "Not Implemented."),
        "Groups": s.prop("list", "Not Implemented."),
        "LoginProfile": s.prop("map", "A login profile for the user.", schema={
            "Password": s.prop("string", "The user's password.")}),
        "Policies": s.prop("list", "Access policies to apply to the user."),
    }

    #: set by the engine: the type of the stack's resource ``name`` (None: no such resource)
    stack_resource_type: Callable[[str], str | None] | None = None

    def _policies_valid(self) -> bool:
        """Heat's ``_validate_policies``: every string names an AccessPolicy of the stack."""
        for policy in self.get_property("Policies") or []:
            if not isinstance(policy, str):
                continue  # embedded IAM policies are ignored, as Heat ignores them
            kind = self.stack_resource_type(policy) if self.stack_resource_type else None
            if kind != ACCESS_POLICY:
                return False
        return True

    def handle_create(self) -> None:
        """The user (with LoginProfile's password, if any); its id is the physical id.

        :raises errors.TemplateError: ``The Referenced Attribute (<name> Policies) is
            incorrect.`` (a policy that is not an AccessPolicy of the stack)."""
        profile = self.get_property("LoginProfile") or {}
        if profile.get("Password") is not None:
            self.password = str(profile["Password"])
        if self.get_property("Policies") and not self._policies_valid():
            raise errors.TemplateError(
                f"The Referenced Attribute ({self.name} Policies) is incorrect.",
                heat_type="InvalidTemplateAttribute", resource=self.name, key="Policies")
        self.data["user_name"] = self.physical_resource_name()
        self.resource_id = _stack_user.create_user(self, self.password)

    def get_reference_id(self) -> str:
        """The physical name once created (Heat's ``physical_resource_name_or_FnGetRefId``)."""
        if self.resource_id and self.data.get("user_name"):
            return str(self.data["user_name"])
        return str(self.name)


class AccessKey(Resource):
    """AWS::IAM::AccessKey."""

    type_name = "AWS::IAM::AccessKey"
    support_status = s.support_status(None)
    properties_schema: ClassVar[dict[str, Any]] = {
        "UserName": s.prop("string", "The name of the user that the new key will belong to.",
                           required=True),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "UserName": s.attr("Username associated with the AccessKey.", "string"),
        "SecretAccessKey": s.attr("Keypair secret key.", "string"),
    }

    #: set by the engine: ``{"user_id", "stack_user_project_id"}`` of the stack's
    #: AWS::IAM::User whose reference is the given name (None: none)
    stack_user_of: Callable[[str], Mapping[str, Any] | None] | None = None

    def _user(self) -> Mapping[str, Any] | None:
        name = str(self.get_property("UserName"))
        return self.stack_user_of(name) if self.stack_user_of is not None else None

    def _users(self) -> Any:
        return _stack_user.client_of(self)

    def handle_create(self) -> None:
        """An EC2 keypair of the user; the access key id is the physical id (kept on a
        redelivered create).

        :raises errors.StokerError: Heat's ``NotFound``: ``could not find user <UserName>``."""
        if self.data.get("credential_id"):
            self.resource_id = str(self.data["access_key"])
            return
        user = self._user()
        if user is None or not user.get("user_id"):
            raise errors.StokerError(f"could not find user {self.get_property('UserName')}",
                                     heat_type="NotFound")
        project = str(user.get("stack_user_project_id") or "")
        kp = self._users().create_keypair(str(user["user_id"]), project)
        self.data.update(credential_id=kp.id, access_key=kp.access, secret_key=kp.secret,
                         user_id=str(user["user_id"]), stack_user_project_id=project)
        self.resource_id = kp.access

    def handle_delete(self) -> None:
        """The keypair goes (a user deleted already took it with it)."""
        credential_id, user_id = self.data.get("credential_id"), self.data.get("user_id")
        if credential_id and user_id:
            self._users().delete_keypair(str(user_id), str(self.data.get(
                "stack_user_project_id") or ""), str(credential_id))
        for key in ("credential_id", "access_key", "secret_key"):
            self.data.pop(key, None)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "UserName":
            return self.get_property("UserName")
        if name == "SecretAccessKey":
            return self.data.get("secret_key") or "000-000-000"
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "AWS::IAM::User": User,
        "AWS::IAM::AccessKey": AccessKey,
    }
