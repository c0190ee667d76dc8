"""RequestContext: who is asking, on behalf of which project."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RequestContext:
    """Identity of one API request or deferred task.

    ``tenant_id`` is Heat's project id (the ``{tenant_id}`` of ``/v1/{tenant_id}/...``).
    In keystone mode the rest comes from the validated token (``app.auth.keystone``):
    ``project_id`` the token's project, ``is_admin`` Heat's ``context_is_admin`` rule,
    ``domain_id`` / ``user_domain_id`` / ``project_domain_id`` its domains, ``project_name`` /
    ``project_domain_name`` the project's names.
    """

    tenant_id: str
    user_id: str = "admin"
    username: str = "admin"
    roles: tuple[str, ...] = ("admin",)
    auth_token: str | None = None
    trust_id: str | None = None
    request_id: str = field(default_factory=lambda: f"req-{uuid.uuid4()}")
    project_id: str | None = None
    is_admin: bool = False
    domain_id: str | None = None
    user_domain_id: str | None = None
    project_domain_id: str | None = None
    system_scope: str | None = None
    is_admin_project: bool = True
    #: the token's project name and its domain's name (a stack user's project is named after
    #: its stack: :func:`app.auth.is_stack_user_project`)
    project_name: str | None = None
    project_domain_name: str | None = None
