"""``GET /v1/{tenant}/services`` is for system admins, under Heat's policy
(``service:index``)."""
from __future__ import annotations

from typing import Any

from app import config


def test_services_are_for_system_admins_under_heats_policy(tmp_path: Any) -> None:
    """Heat's ``service:index``: system-scoped admins only (heat/policies/service.py)."""
    from app.auth import policy
    policy.reset()
    try:
        ks = config.load({}, data_dir=str(tmp_path), auth_strategy="keystone")
        base = {"user_id": "u" * 32, "project_id": "p" * 32, "is_admin_project": True}
        project_admin = dict(base, roles=["admin", "member", "reader"], system_scope=None)
        system_admin = dict(base, project_id=None, roles=["admin", "member", "reader"],
                            system_scope="all")
        assert not policy.check(ks, "service:index", project_admin, "p" * 32)
        assert policy.check(ks, "service:index", system_admin, "p" * 32)
    finally:
        policy.reset()
