"""Request-body schemas: the contract of ``POST /stacks`` and ``POST /validate`` in the OpenAPI
document, as python-heatclient sends them (``heatclient/v1/stacks.py``,
``heatclient/osc/v1/stack.py``).

Fields are permissive (heat-api itself accepts strings for numbers and booleans); the views apply
heat-api's own checks and wording (``InstantiationData``, ``param_utils``). Unknown keys are
ignored.
"""
from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields


class _Body(Schema):
    class Meta:
        unknown = EXCLUDE

    template = fields.Raw(allow_none=True, metadata={
        "description": "The template: a mapping, or its YAML/JSON text."})
    template_url = fields.String(allow_none=True, metadata={
        "description": "A URL to fetch the template from (refused unless the server is "
                       "configured to fetch URLs)."})
    files = fields.Dict(allow_none=True, metadata={
        "description": "Files the template and environments reference (get_file, nested "
                       "templates), by the names used in them."})
    environment = fields.Raw(allow_none=True, metadata={
        "description": "The environment: a mapping or its YAML text."})
    environment_files = fields.List(fields.String(), allow_none=True, metadata={
        "description": "Names, in `files`, of environments to merge in order."})
    parameters = fields.Dict(allow_none=True, metadata={
        "description": "User parameter values by name."})


class StackCreateBody(_Body):
    """``POST /v1/{tenant_id}/stacks``."""
    stack_name = fields.String(allow_none=True, metadata={"description": "Name of the stack."})
    timeout_mins = fields.Raw(allow_none=True, metadata={
        "description": "Create timeout in minutes (non-negative integer)."})
    disable_rollback = fields.Raw(allow_none=True, metadata={
        "description": "true (default): keep a failed stack as it is; false: roll it back."})
    tags = fields.Raw(allow_none=True, metadata={
        "description": "Comma separated tags (or a list)."})
    termination_protection = fields.Raw(allow_none=True, metadata={
        "description": "Stoker's: true refuses a delete until it is set false again "
                       "(PUT .../termination_protection); default false."})
    stack_policy = fields.Raw(allow_none=True, metadata={
        "description": "Stoker's: a CloudFormation stack policy document (object or JSON "
                       "text) checked before every update."})
    adopt_stack_data = fields.Raw(allow_none=True, metadata={
        "description": "Heat's abandon data (JSON text): adopt its resources instead of "
                       "creating them (needs enable_stack_adopt)."})


class ValidateBody(_Body):
    """``POST /v1/{tenant_id}/validate``."""


class _FaultError(Schema):
    type = fields.String(metadata={"description": "Heat's exception name, e.g. EntityNotFound."})
    traceback = fields.Raw(allow_none=True, metadata={"description": "Always null."})
    message = fields.String()


class FaultSchema(Schema):
    """Heat's fault body: every error answer (``heat/api/middleware/fault.py``)."""
    code = fields.Integer()
    title = fields.String()
    explanation = fields.String()
    error = fields.Nested(_FaultError)
