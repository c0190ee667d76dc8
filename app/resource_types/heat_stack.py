"""Stacks as resources: OS::Heat::Stack and AWS::CloudFormation::Stack.

These classes declare the schemas (equal to ``resource_types.json``) and what the engine needs
to know; the child stack itself is created, updated, deleted and read by the engine's nested
driver (``app.convergence.nested.stacks``), as for provider templates, because a child stack is a
stack of this service. Behaviour as Heat's ``heat/engine/resources/openstack/heat/
remote_stack.py`` (OS::Heat::Stack: an inline ``template`` string, ``parameters``, ``timeout``
in minutes, rollback disabled; attributes ``outputs`` {key: value} and ``stack_name``;
reference id = the child's id; a failed child is Heat's ``ResourceInError``) and
``heat/engine/resources/aws/cfn/stack.py`` (AWS::CloudFormation::Stack: ``TemplateURL``,
``Parameters``, ``TimeoutInMinutes``; attributes ``Outputs.<name>``; reference id = the child's
ARN). One difference: an OS::Heat::Stack's stack is this service's child stack (listed under
its parent, deleted with it), in the same region (``context.region_name`` is not used).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types.base import Resource

OS_STACK, CFN_STACK = "OS::Heat::Stack", "AWS::CloudFormation::Stack"


class RemoteStack(Resource):
    """OS::Heat::Stack (schema only; the engine's nested driver runs it)."""

    type_name = OS_STACK
    nested_kind = "stack"
    support_status = s.support_status(None)
    properties_schema: ClassVar[dict[str, Any]] = {
        "context": s.prop("map", "Context for this stack.", update_allowed=True, schema={
            "region_name": s.prop("string", "Region name in which this stack will be "
                                  "created."),
            "ca_cert": s.prop("string", "CA Cert for SSL.", update_allowed=True),
            "insecure": s.prop("boolean", "If set, then the server's certificate will not be "
                               "verified.", default=False, update_allowed=True),
            "credential_secret_id": s.prop("string", "A Barbican secret ID holding the "
                                           "credentials of the remote cloud.",
                                           update_allowed=True),
        }),
        "template": s.prop("string", "Template that specifies the stack to be created as a "
                           "resource.", required=True, update_allowed=True),
        "timeout": s.prop("integer", "Number of minutes to wait for this stack creation.",
                          update_allowed=True),
        "parameters": s.prop("map", "Set of parameters passed to this stack.", default={},
                             update_allowed=True),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "stack_name": s.attr("Name of the stack.", "string"),
        "outputs": s.attr("A dict of key-value pairs output from the stack.", "map"),
    }

    def validate(self) -> None:
        """Heat's ``RemoteStack.validate`` at stack validation (a 400 before anything is
        created): ``context.region_name`` must be a region of this cloud ("Cannot establish
        connection to Heat endpoint at region ... endpoint for orchestration service in ...
        region not found"), and the child template must parse ("Failed validating stack
        template using Heat endpoint at region ... due to "ERROR: <why>"").

        :raises errors.ValidationError:"""
        super().validate()
        from app import config
        from app.templates import parse
        here = config.get().cloud_region
        region = (self.properties.get("context") or {}).get("region_name") or here
        if region != here:
            raise errors.ValidationError(
                f'Cannot establish connection to Heat endpoint at region "{region}" due to '
                f'"public endpoint for orchestration service in {region} region not found"')
        try:
            parse(self.properties.get("template") or "")
        except errors.StokerError as exc:
            raise errors.ValidationError(
                f'Failed validating stack template using Heat endpoint at region "{region}" '
                f'due to "ERROR: {exc.message}"') from None


class CfnStack(Resource):
    """AWS::CloudFormation::Stack (schema only; the engine's nested driver runs it)."""

    type_name = CFN_STACK
    nested_kind = "stack"
    support_status = s.support_status(None)
    #: ``Outputs.<name>`` is any of the child's outputs (Heat's ``get_attribute`` override):
    #: names are checked when the child's outputs are read
    accepts_any_attributes = True
    properties_schema: ClassVar[dict[str, Any]] = {
        "TemplateURL": s.prop("string", "The URL of a template that specifies the stack to be "
                              "created as a resource.", required=True, update_allowed=True),
        "TimeoutInMinutes": s.prop("integer", "The length of time, in minutes, to wait for the "
                                   "nested stack creation.", update_allowed=True),
        "Parameters": s.prop("map", "The set of parameters passed to this nested stack.",
                             update_allowed=True),
    }


def child_source(type_name: str, props: Mapping[str, Any], files: Mapping[str, Any]
                 ) -> tuple[Any, dict[str, Any], int | None]:
    """``(template, parameters, timeout_mins)`` of the child stack of a stack resource.

    An AWS ``TemplateURL`` is read from the request's ``files`` map (heatclient sends it there);
    the server fetches no URL itself.
    :raises errors.ResourceFailure: Heat's "Could not fetch remote template" for a URL that is
        not in ``files``."""
    if type_name == OS_STACK:
        timeout = props.get("timeout")
        return (props.get("template"), dict(props.get("parameters") or {}),
                int(timeout) if timeout is not None else None)
    url = str(props.get("TemplateURL"))
    if url not in files:
        raise errors.ResourceFailure(f"Could not fetch remote template \"{url}\": the template "
                                     "is not in the request's files.")
    timeout = props.get("TimeoutInMinutes")
    return (files[url], dict(props.get("Parameters") or {}),
            int(timeout) if timeout is not None else None)


def resource_mapping() -> dict[str, type[Resource]]:
    return {OS_STACK: RemoteStack, CFN_STACK: CfnStack}
