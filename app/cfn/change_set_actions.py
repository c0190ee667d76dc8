"""The change set actions of the CFN query API, with AWS's names, shapes and errors
(CreateChangeSet, DescribeChangeSet, ExecuteChangeSet, DeleteChangeSet, ListChangeSets),
through :mod:`app.services.change_sets` — so boto3's ``change_set_create_complete`` waiter
works unchanged. A change set's ARN is
``arn:openstack:heat::<tenant>:changeSet/<name>/<id>``. ``ChangeSetType=CREATE`` makes a
REVIEW_IN_PROGRESS stack, as AWS does. Errors: ``ChangeSetNotFound`` (404),
``InvalidChangeSetStatus`` (400), ``AlreadyExistsException`` (400), ``ValidationError``.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

from app import errors
from app.cfn import faults, formats
from app.cfn.params import flag, member_list, page, parameter_pairs, required
from app.cfn.stack_actions import (
    NO_TEMPLATE,
    identify,
    stack_args,
    template_of,
    update_template,
)
from app.context import RequestContext
from app.services import change_sets, stacks

TYPES = ("UPDATE", "CREATE")


def change_set_arn(tenant: str, name: str, cs_id: str) -> str:
    return (f"arn:openstack:heat::{quote(tenant, safe='')}:changeSet/{quote(name, safe='')}/"
            f"{quote(cs_id, safe='')}")


def _on_failure(params: Mapping[str, str]) -> dict[str, Any]:
    """``OnStackFailure`` (DO_NOTHING / ROLLBACK / DELETE) as the stack's ``disable_rollback``."""
    args = stack_args({k: v for k, v in params.items() if k != "OnStackFailure"})
    value = params.get("OnStackFailure")
    if value is not None:
        if value not in ("DO_NOTHING", "ROLLBACK", "DELETE"):
            raise faults.ValidationError(f'Unrecognized value "{value}" for "OnStackFailure", '
                                         "acceptable values are: DO_NOTHING, ROLLBACK, DELETE.")
        args["disable_rollback"] = value == "DO_NOTHING"
    return args


def _locate(ctx: RequestContext, params: Mapping[str, str]) -> tuple[Any, str]:
    """The stack and the change set's name or id from ``ChangeSetName`` (a name needs
    ``StackName``; an ARN does not). :raises: ``ChangeSetNotFound``, ``ValidationError``."""
    name = required(params, "ChangeSetName")
    if name.startswith("arn:"):
        cs_id = unquote(name.rsplit("/", 1)[-1]) if ":changeSet/" in name else ""
        if not cs_id:
            raise faults.ValidationError(f"ChangeSetName {name} is not a change set ARN")
        return change_sets.stack_of_change_set(ctx, cs_id), cs_id
    if "StackName" not in params:
        raise faults.ValidationError("StackName must be specified if ChangeSetName is not "
                                     "specified as an ARN.")
    return identify(ctx, params["StackName"]), name


def create(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """CreateChangeSet → ``{"Id": change set ARN, "StackId": stack ARN}``. UPDATE (default):
    the new template (``TemplateBody`` or ``UsePreviousTemplate=true``) and parameters, as
    UpdateStack takes them; CREATE: a new stack kept REVIEW_IN_PROGRESS."""
    stack_name, name = required(params, "StackName"), required(params, "ChangeSetName")
    kind = params.get("ChangeSetType", "UPDATE")
    if kind not in TYPES:
        raise faults.ValidationError(f'Unrecognized value "{kind}" for "ChangeSetType", '
                                     "acceptable values are: CREATE, UPDATE.")
    member_list(params, "Tags")
    member_list(params, "ResourceTypes")
    args = _on_failure(params)
    description = params.get("Description", "")
    template: Any = template_of(params)
    previous = flag(params, "UsePreviousTemplate")
    if kind == "CREATE":
        if previous:
            raise faults.ValidationError("UsePreviousTemplate cannot be used with a CREATE "
                                         "change set")
        if template is None:
            raise faults.MissingParameter(NO_TEMPLATE)
        try:
            made = change_sets.create_stack_change_set(
                ctx, stack_name, name, description, template=template,
                parameters=parameter_pairs(params), **args)
        except errors.StackExists:
            raise faults.AlreadyExists(f"Stack [{stack_name}] already exists and cannot be "
                                       f"created again with the changeSet [{name}].") from None
    else:
        st = identify(ctx, stack_name)
        if st.action == change_sets.REVIEW:
            raise faults.ValidationError(f"Stack:{formats.arn_of(st)} is in "
                                         f"{st.stack_status} state and can not be updated.")
        template = update_template(ctx, st, params)
        made = change_sets.create_change_set(
            ctx, st.name, st.id, name, description, template=template,
            parameters=parameter_pairs(params, previous=dict(st.parameters or {})), **args)
    st = stacks.get_by_id(ctx, made["stack_id"])
    return {"Id": change_set_arn(st.tenant, made["name"], made["id"]),
            "StackId": formats.arn_of(st)}


def _summary(st: Any, cs: dict[str, Any]) -> dict[str, Any]:
    return {"StackId": formats.arn_of(st), "StackName": st.name,
            "ChangeSetId": change_set_arn(st.tenant, cs["name"], cs["id"]),
            "ChangeSetName": cs["name"], "ExecutionStatus": cs["execution_status"],
            "Status": cs["status"], "StatusReason": cs["status_reason"] or None,
            "CreationTime": cs["creation_time"], "Description": cs["description"] or None}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _change(entry: dict[str, Any]) -> dict[str, Any]:
    """AWS ``Change`` of one entry (:mod:`app.services.change_set_entries`)."""
    details = [{"Target": {"Attribute": "Properties", "Name": d["name"],
                           "RequiresRecreation": d["requires_recreation"],
                           "BeforeValue": _text(d["before"]), "AfterValue": _text(d["after"])},
                "Evaluation": d["evaluation"],
                "ChangeSource": d.get("change_source") or "DirectModification",
                **({"CausingEntity": d["causing_entity"]} if d.get("causing_entity") else {})}
               for d in entry["details"]]
    return {"Type": "Resource", "ResourceChange": {
        "Action": entry["action"], "LogicalResourceId": entry["logical_resource_id"],
        "PhysicalResourceId": entry["physical_resource_id"],
        "ResourceType": entry["resource_type"], "Replacement": entry["replacement"],
        "Scope": entry["scope"], "Details": details}}


def describe(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeChangeSet → AWS ``DescribeChangeSetOutput``: the summary fields, ``Parameters``
    and ``Changes`` (one ``Resource`` change per resource that changes)."""
    st, name = _locate(ctx, params)
    cs = change_sets.show_change_set(ctx, st.name, st.id, name)
    body = _summary(st, cs)
    body["Parameters"] = [{"ParameterKey": k, "ParameterValue": _text(v)}
                          for k, v in sorted(cs["parameters"].items())]
    body["Changes"] = [_change(e) for e in cs["changes"]]
    return body


def execute(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ExecuteChangeSet → an empty result; the stack's update (or create) starts."""
    st, name = _locate(ctx, params)
    change_sets.execute_change_set(ctx, st.name, st.id, name, flag(params, "DisableRollback"))
    return {}


def delete(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DeleteChangeSet → an empty result."""
    st, name = _locate(ctx, params)
    change_sets.delete_change_set(ctx, st.name, st.id, name)
    return {}


def list_(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ListChangeSets → ``{"Summaries": [ChangeSetSummary...], "NextToken"?}`` of the stack,
    oldest first, 100 a page (:func:`app.cfn.params.page`: "Invalid NextToken" as the other
    listings)."""
    st = identify(ctx, required(params, "StackName"))
    found, token = page(change_sets.list_change_sets(ctx, st.name, st.id), params)
    body: dict[str, Any] = {"Summaries": [_summary(st, cs) for cs in found]}
    if token is not None:
        body["NextToken"] = token
    return body
