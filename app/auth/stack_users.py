"""Heat's stack users on the identity side (keystone mode): who a stack user is, and the
sweep that removes a stack's stack users when the stack is deleted.

A stack user's token is scoped to its stack's project in the stack user domain
(:mod:`app.clients.stack_users`: named ``<tenant>-<stack id>``, cut to 64 characters), so the
signal URLs carry that project as their ``/v1/<tenant_id>``; :func:`is_stack_user_project`
lets such a request reach the stack, as Heat's ``_get_stack`` accepts a context whose tenant
is the stack's ``stack_user_project_id``. The domain is recognised by id when
``stack_user_domain_id`` is set, else by ``stack_user_domain_name``.
"""
from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select

from app import errors
from app.config import Settings
from app.context import RequestContext
from app.models import Resource, Stack

LOG = logging.getLogger(__name__)


def is_stack_user_project(ctx: RequestContext, tenant: str, stack_id: str,
                          settings: Settings) -> bool:
    """True when the token's project is the stack's stack-user project."""
    from app.clients.stack_users import project_name
    if settings.stack_user_domain_id:
        in_domain = ctx.project_domain_id == settings.stack_user_domain_id
    else:
        in_domain = bool(settings.stack_user_domain_name) and \
            ctx.project_domain_name == settings.stack_user_domain_name
    return in_domain and ctx.project_id == ctx.tenant_id and \
        ctx.project_name == project_name(tenant, stack_id)


def project_of_stack(s: Any, stack_id: str) -> str | None:
    """The stack-user project a resource of the stack made (its id is in the resource's data
    and stays there after the resource is deleted), None when none did. One query, at stack
    delete."""
    for data in s.execute(select(Resource.rsrc_data).where(
            Resource.stack_id == stack_id)).scalars():
        found = (data or {}).get("stack_user_project_id")
        if found:
            return str(found)
    return None


def delete_for_stack(s: Any, stack_id: str, settings: Settings) -> str | None:
    """Delete the stack's stack-user project and every user left in it (Heat's
    ``delete_stack_domain_project``; the users of resources deleted already are gone).

    :returns: None when done (or the stack never had one); Heat's ``Error deleting project:
        <Keystone's message>`` when Keystone failed (the stack delete fails and can be
        retried)."""
    from app.clients import stack_users
    users = stack_users.for_settings(settings)
    st = s.get(Stack, stack_id)
    if not users.keystone or st is None:
        return None
    project = project_of_stack(s, stack_id)
    if project is None or project == st.tenant:
        return None
    try:
        users.delete_project(project)
    except (errors.CloudError, ValueError) as exc:
        LOG.warning("stack user project of stack %s not deleted: %s", stack_id, exc)
        return f"Error deleting project: {getattr(exc, 'message', None) or exc}"
    return None
