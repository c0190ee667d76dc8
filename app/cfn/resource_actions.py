"""Events and resources of the CFN query API (DescribeStackEvents, DescribeStackResource,
DescribeStackResources, ListStackResources), as heat-api-cfn's ``StackController`` answers
them, through :mod:`app.services.resources`. Handlers as in :mod:`app.cfn.stack_actions`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.cfn import faults, formats
from app.cfn.params import required
from app.cfn.stack_actions import identify
from app.context import RequestContext
from app.services import resources, stacks


def events(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStackEvents → ``{"StackEvents": [StackEvent...]}``, newest first (Heat's event
    query defaults to ``created_at`` descending; AWS answers the same order): the named
    stack's, or those of every live stack of the project without ``StackName``."""
    if params.get("StackName"):
        rows = [identify(ctx, params["StackName"])]
    else:
        rows = stacks.list_stacks(ctx)
    found = [(e, st) for st in rows for e in resources.list_events(ctx, st, sort_dir="desc")]
    found.sort(key=lambda pair: pair[0].id, reverse=True)  # Event.id: the order written
    return {"StackEvents": [formats.event(st, e) for e, st in found]}


def describe_resource(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStackResource → ``{"StackResourceDetail": {...}}`` of ``LogicalResourceId``."""
    st = identify(ctx, required(params, "StackName"))
    row, _, _ = resources.get_resource(ctx, st, required(params, "LogicalResourceId"))
    return {"StackResourceDetail": formats.resource_detail(st, row)}


def describe_resources(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStackResources → ``{"StackResources": [...]}`` of the stack named by
    ``StackName`` or owning ``PhysicalResourceId`` (one of them), optionally only
    ``LogicalResourceId`` (none when it names no resource, as Heat)."""
    name, physical = params.get("StackName"), params.get("PhysicalResourceId")
    if name and physical:
        raise faults.InvalidParameterCombination(
            "Use `StackName` or `PhysicalResourceId` but not both")
    if not name and not physical:
        raise faults.MissingParameter("StackName or PhysicalResourceId")
    st = identify(ctx, name) if name else resources.stack_of_physical(ctx, str(physical))
    logical = params.get("LogicalResourceId")
    return {"StackResources": [formats.resource(st, row)
                               for row, _ in resources.list_resources(ctx, st)
                               if logical is None or row.name == logical]}


def list_resources(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ListStackResources → ``{"StackResourceSummaries": [...]}``."""
    st = identify(ctx, required(params, "StackName"))
    return {"StackResourceSummaries": [formats.resource_summary(row)
                                       for row, _ in resources.list_resources(ctx, st)]}
