"""The stack actions of the CFN query API, as heat-api-cfn's ``StackController``
(``heat/api/cfn/v1/stacks.py``) answers them, through the same services as the Orchestration
API (a stack made through one is visible through the other).

Each handler takes the request context and its parameters (``{name: first value}``) and returns
the body of ``<Action>Result``; errors are raised as :mod:`app.cfn.faults` or the services' own
(translated once by the app). Everything is checked before a service writes anything.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from app.cfn import faults, formats, policy_params
from app.cfn.params import flag, integer, member_list, parameter_pairs, required
from app.context import RequestContext
from app.services import drift, exports, protection, stack_policy, stacks, validation
from app.services import stack_actions as stack_services

NO_TEMPLATE = "TemplateBody or TemplateUrl were not given."
GRATIS = "http://en.wikipedia.org/wiki/Gratis"  # Heat's EstimateTemplateCost answer


def identify(ctx: RequestContext, name_or_arn: str) -> Any:
    """The stack a ``StackName`` parameter names: an ARN (Heat's ``HeatIdentifier.from_arn``,
    deleted stacks too), else a live stack's name, else a stack id (Heat's ``identify_stack``).
    :raises errors.NotFound: no such stack in the caller's project.
    :raises faults.ValidationError: an ARN naming another project than the caller's (non-admin):
        Heat's ``InvalidTenant`` (``Searching Tenant <arn's> from Tenant <caller's>
        forbidden.``, heat/engine/service.py ``_get_stack``), which heat-api-cfn maps to
        ``ValidationError``."""
    arn = formats.parse_arn(name_or_arn)
    if arn is not None:
        st = stacks.get_stack(ctx, arn[1], arn[2])
        if arn[0] != ctx.tenant_id and not ctx.is_admin:
            raise faults.ValidationError(
                f"Searching Tenant {arn[0]} from Tenant {ctx.tenant_id} forbidden.")
        return st
    return stacks.lookup_stack(ctx, name_or_arn)


def template_of(params: Mapping[str, str]) -> str | None:
    """``TemplateBody``, None when absent. ``TemplateURL`` is refused: the server never fetches
    a URL on a request's behalf (DESIGN.md, Templates); Heat would fetch it.
    :raises faults.ValidationError: a ``TemplateURL`` was given."""
    if "TemplateBody" in params:
        return params["TemplateBody"]
    url = params.get("TemplateURL") or params.get("TemplateUrl")
    if url:
        raise faults.ValidationError(
            "Failed to fetch template: fetching TemplateURL is disabled on this server "
            "(Stoker does not fetch URLs on a request's behalf); send the template in "
            "TemplateBody")
    return None


def stack_args(params: Mapping[str, str]) -> dict[str, Any]:
    """``TimeoutInMinutes``, ``DisableRollback`` / ``OnFailure`` (Heat's ``extract_args``) and
    ``Capabilities.member.N`` (accepted; Heat needs no capability to create IAM-like types).
    Only what is given is returned. :raises faults.CfnError: bad values, or DisableRollback
    with OnFailure (``InvalidParameterCombination``)."""
    if "DisableRollback" in params and "OnFailure" in params:
        raise faults.InvalidParameterCombination("DisableRollback and OnFailure may not be used "
                                                 "together")
    out: dict[str, Any] = {}
    timeout = integer(params, "TimeoutInMinutes")
    if timeout is not None:
        out["timeout_mins"] = timeout or None
    rollback = flag(params, "DisableRollback")
    if rollback is not None:
        out["disable_rollback"] = rollback
    if "OnFailure" in params:
        value = params["OnFailure"]
        if value not in ("DO_NOTHING", "ROLLBACK", "DELETE"):
            raise faults.ValidationError(f'Unrecognized value "{value}" for "OnFailure", '
                                         "acceptable values are: DO_NOTHING, ROLLBACK, DELETE.")
        out["disable_rollback"] = value == "DO_NOTHING"
    member_list(params, "Capabilities")
    member_list(params, "NotificationARNs")
    return out


def create(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """CreateStack → ``{"StackId": arn}``; the stack goes CREATE_IN_PROGRESS. As Heat, a stack
    rolls back on failure only with ``DisableRollback=false`` or ``OnFailure=ROLLBACK``.
    ``EnableTerminationProtection`` and ``StackPolicyBody`` as AWS
    (:mod:`app.cfn.policy_params`)."""
    name = required(params, "StackName")
    user_params = parameter_pairs(params)
    args = stack_args(params)
    template = template_of(params)
    if template is None:
        raise faults.MissingParameter(NO_TEMPLATE)
    row = stacks.create_stack(ctx, stack_name=name, template=template, parameters=user_params,
                              **args, **policy_params.create_args(params))
    return {"StackId": formats.arn_of(row)}


def update_template(ctx: RequestContext, st: Any, params: Mapping[str, str]) -> Any:
    """The template an update of ``st`` asks for: ``TemplateBody``, or the stack's own with
    ``UsePreviousTemplate=true``.
    :raises faults.InvalidParameterCombination: both; :raises faults.MissingParameter: neither."""
    template: Any = template_of(params)
    previous = flag(params, "UsePreviousTemplate")
    if previous and template is not None:
        raise faults.InvalidParameterCombination("TemplateBody and UsePreviousTemplate may not "
                                                 "be used together")
    if previous:
        template = stacks.get_template(ctx, st)
    if template is None:
        raise faults.MissingParameter(NO_TEMPLATE)
    return template


def update(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """UpdateStack → ``{"StackId": arn}``, held against the stack policy (or
    ``StackPolicyDuringUpdateBody`` for this update; ``StackPolicyBody`` replaces the policy
    once the update is accepted): the new template (``TemplateBody``, or the stack's own
    with ``UsePreviousTemplate=true``) and parameters replace the stack's (Heat's PUT
    semantics: a parameter not given takes its default; ``UsePreviousValue=true`` keeps the
    stack's value)."""
    st = identify(ctx, required(params, "StackName"))
    template = update_template(ctx, st, params)
    user_params = parameter_pairs(params, previous=dict(st.parameters or {}))
    args = stack_args(params)
    during, policy = policy_params.update_policy_args(params)
    row = stack_policy.update_stack(ctx, st.name, st.id, template=template,
                                    parameters=user_params, stack_policy_during_update=during,
                                    **args)
    if policy is not None:  # AWS: StackPolicyBody on an update replaces the stack's policy
        stack_policy.set_policy(ctx, st.name, st.id, policy)
    return {"StackId": formats.arn_of(row)}


def delete(ctx: RequestContext, params: Mapping[str, str]) -> str:
    """DeleteStack → an empty result; the stack goes DELETE_IN_PROGRESS."""
    st = identify(ctx, required(params, "StackName"))
    stacks.delete_stack(ctx, st.name, st.id)
    return ""


def describe(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStacks → ``{"Stacks": [Stack...]}``: the named stack, or every live stack of
    the project when ``StackName`` is absent. An empty ``StackName=`` is looked up as a name,
    as heat-api-cfn does (``'StackName' in req.params``), so it is Heat's
    ``InvalidParameterValue`` "The Stack () could not be found.", not every stack."""
    if "StackName" in params:
        rows = [identify(ctx, params["StackName"])]
    else:
        rows = stacks.list_stacks(ctx)
    out = []
    names = exports.names_by_output([r.id for r in rows])
    checks = drift.last_checks([r.id for r in rows])
    for row in rows:
        final = not (row.action == "DELETE" and row.status == "COMPLETE")
        out.append(formats.stack(row, stacks.stack_outputs(row) if final else None,
                                 protection.is_protected(row), names.get(row.id),
                                 checks.get(row.id)))
    return {"Stacks": out}


def list_(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ListStacks → ``{"StackSummaries": [...]}`` of the project's live stacks (Heat keeps no
    deleted ones in the list; ``StackStatusFilter`` is accepted and, as Heat, not applied)."""
    member_list(params, "StackStatusFilter")
    return {"StackSummaries": [formats.stack_summary(r) for r in stacks.list_stacks(ctx)]}


def get_template(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """GetTemplate → ``{"TemplateBody": <the template as JSON text>}``."""
    st = identify(ctx, required(params, "StackName"))
    return {"TemplateBody": stacks.get_template(ctx, st)}


def validate(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ValidateTemplate → ``{"Description", "Parameters": [{"ParameterKey", "DefaultValue",
    "Description", "NoEcho"}...]}`` (Heat's ``format_validate_parameter``); an invalid
    template (an unknown resource type, a bad reference...) is a ValidationError."""
    template = template_of(params)
    if template is None:
        raise faults.MissingParameter(NO_TEMPLATE)
    validation.check_limits(template, None)
    body = validation.validate_template(ctx, template=template)
    return {"Description": body.get("Description") or _cfn_description(template),
            "Parameters": [{"ParameterKey": key,
                            "DefaultValue": _text(value.get("Default", "")),
                            "Description": value.get("Description", ""),
                            "NoEcho": value.get("NoEcho", "false")}
                           for key, value in (body.get("Parameters") or {}).items()]}


def _cfn_description(text: str) -> str:
    """A CFN template's ``Description`` (Heat's ``tmpl.get(tmpl.DESCRIPTION)``), which the
    validate body of the services leaves empty for that format; "" when there is none."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError:
        return ""
    return stacks.description_of(raw)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return formats.output_value(value)


def cancel_update(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """CancelUpdateStack → an empty result; an update in progress rolls back to the previous
    template (Heat's ``stack_cancel_update(cancel_with_rollback=True)``)."""
    st = identify(ctx, required(params, "StackName"))
    stack_services.cancel_update(ctx, st.name, st.id, rollback=True)
    return {}


def estimate_cost(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """EstimateTemplateCost → ``{"Url": "http://en.wikipedia.org/wiki/Gratis"}``, Heat's
    answer whatever the template."""
    return {"Url": GRATIS}
