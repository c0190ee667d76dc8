"""The HOT template language (pure: stdlib, yaml, yaql and app.errors only).

Public API (see docs/contracts.md)::

    tmpl = parse(text_or_mapping, files=None, max_size=None)      # -> Template
    stack = instantiate(tmpl, params, env, identity, type_schema,
                        nesting=Nesting(max_depth=settings.max_nested_stack_depth))
    stack.resolve_properties(name, ctx); stack.resolve_outputs(ctx)
    found = all_errors(tmpl, params, env, identity, type_schema, nesting=...)  # every error
    env = merge_request(body_env, body_params, environment_files, files, param_types)
"""
from app.templates.env_merge import merge_request
from app.templates.environment import Environment
from app.templates.functions.base import ABSENT, UNKNOWN, FunctionError
from app.templates.identity import Nesting, StackIdentity
from app.templates.resources import ResourceDefinition
from app.templates.scope import ParentFacade, ResolveContext
from app.templates.stack import StackDefinition, all_errors, instantiate
from app.templates.template import Template, parse

__all__ = ["ABSENT", "UNKNOWN", "Environment", "FunctionError", "Nesting", "ParentFacade",
           "ResolveContext", "ResourceDefinition", "StackDefinition", "StackIdentity",
           "Template", "all_errors", "instantiate", "merge_request", "parse"]
