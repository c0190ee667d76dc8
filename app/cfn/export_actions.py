"""CloudFormation's export actions on the CFN query API, with AWS's names and shapes:
ListExports (``Exports``: ``ExportingStackId``, ``Name``, ``Value``) and ListImports
(``Imports``: the importing stacks' names), both paged by ``NextToken`` (100 a page, as AWS).
The rules an export is held to are :mod:`app.services.exports`'. Errors: ``ValidationError``
(an unknown export, one not imported, a bad token).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.cfn import faults, formats
from app.cfn.params import page, required
from app.context import RequestContext
from app.services import exports

PAGE = 100


def _page(items: list[Any], params: Mapping[str, str]) -> tuple[list[Any], str | None]:
    return page(items, params, PAGE)


def list_exports(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ListExports → ``{"Exports": [Export...], "NextToken"?}`` of the project, by name."""
    found = exports.list_exports(ctx)
    page, token = _page(found, params)
    body: dict[str, Any] = {"Exports": [
        {"ExportingStackId": formats.stack_arn(ctx.tenant_id, e["stack_name"], e["stack_id"]),
         "Name": e["name"], "Value": formats.output_value(e["value"])} for e in page]}
    if token is not None:
        body["NextToken"] = token
    return body


def list_imports(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ListImports → ``{"Imports": [stack name...], "NextToken"?}`` of ``ExportName``.
    AWS's error when no stack imports it, its Message exactly AWS's (no Heat explanation):
    "Export '<name>' is not imported by any stack."."""
    name = required(params, "ExportName")
    try:
        stacks = exports.list_imports(ctx, name)
    except errors.NotFound:
        stacks = []
    if not stacks:
        raise faults.ValidationError.aws(f"Export '{name}' is not imported by any stack.")
    page, token = _page(stacks, params)
    body: dict[str, Any] = {"Imports": page}
    if token is not None:
        body["NextToken"] = token
    return body
