"""RequestContext: who is asking, on behalf of which project."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RequestContext:
    """Identity of one API request or deferred task.

    ``tenant_id`` is Heat's project id (the ``{tenant_id}`` of ``/v1/{tenant_id}/...``).
    """

    tenant_id: str
    user_id: str = "admin"
    username: str = "admin"
    roles: tuple[str, ...] = ("admin",)
    auth_token: str | None = None
    trust_id: str | None = None
    request_id: str = field(default_factory=lambda: f"req-{uuid.uuid4()}")
