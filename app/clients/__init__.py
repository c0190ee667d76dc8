"""Cloud clients: the only package that imports openstacksdk (DESIGN.md).

``for_stack(identity)`` returns the client factory a resource plugin is handed as ``clients``.
It is lazy: nothing connects until a plugin asks, so cloud-free types cost nothing::

    clients = for_stack(identity)        # identity: .stack_name, .stack_id, .project_id
    cloud = clients.cloud()              # app.clients.retry.Cloud: retries + CloudError
    cloud.network.create_network(name="n")
    clients.connection()                 # the bare openstack.connection.Connection

Connections are built from :class:`app.config.Settings` (``cloud_*`` fields, or ``cloud_name`` for
a clouds.yaml entry) and cached per worker process per (cloud, project): a stack's connection is
scoped to the stack's project when ``cloud_scope_to_stack`` (a 32-hex project is taken as an id,
anything else as a name), else to ``cloud_project``. Trusts come later.
"""
from __future__ import annotations

import os
import re
import threading
from typing import Any

from app import config
from app.clients.errors import cloud_error, is_conflict, is_not_found, translate
from app.clients.retry import Cloud

__all__ = ["Cloud", "LazyClients", "cloud_error", "for_stack", "is_conflict", "is_not_found",
           "reset_cache", "translate"]

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_cache: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()


class LazyClients:
    """Per-stack client factory; ``connection()`` gives an ``openstack.connection.Connection``
    scoped to the stack's project (cached per worker process), ``cloud()`` the same connection
    behind the retry / error-translation layer."""

    def __init__(self, stack: Any, settings: config.Settings | None = None) -> None:
        self.stack = stack
        self._settings = settings
        self._cloud: Cloud | None = None
        self._cloud_retry_limit: int | None = None

    @property
    def settings(self) -> config.Settings:
        return self._settings or config.get()

    def project(self) -> str:
        """The project the connection is scoped to (id or name)."""
        st = self.settings
        own = getattr(self.stack, "project_id", None) if self.stack is not None else None
        return str(own) if (own and st.cloud_scope_to_stack) else st.cloud_project

    def connection(self) -> Any:
        """The cached ``Connection`` for this stack's project.

        :raises app.errors.CloudError: the cloud cannot be configured or authenticated against.
        """
        return _connection(self.settings, self.project())

    def cloud(self) -> Cloud:
        """:meth:`connection` wrapped by :class:`app.clients.retry.Cloud`
        (``client_retry_limit`` retries of transient errors; every error a ``CloudError``)."""
        if self._cloud is None:
            st = self.settings
            limit = self._cloud_retry_limit
            self._cloud = Cloud(self.connection(),
                                retry_limit=st.client_retry_limit if limit is None else limit,
                                backoff=st.client_retry_backoff)
        return self._cloud


def for_stack(stack: Any) -> LazyClients:
    """The client factory for a stack (``stack``: ``.stack_name``, ``.stack_id``,
    ``.project_id``). Cheap: connects on first use."""
    return LazyClients(stack)


def for_validation(stack: Any) -> LazyClients:
    """A client factory for request-time validation (constraint lookups in the API process):
    like :func:`for_stack`, but without retries — a cloud that fails now is left to the
    engine, which retries."""
    lazy = LazyClients(stack)
    lazy._cloud_retry_limit = 0
    return lazy


def _key(st: config.Settings, project: str) -> tuple[Any, ...]:
    """The cache key; the process id keeps a connection made before a fork (prefork Celery
    workers) from being shared by the children's sockets."""
    return (os.getpid(), st.cloud_name, st.cloud_auth_url, st.cloud_username, st.cloud_password,
            st.cloud_user_domain, st.cloud_project_domain, st.cloud_region, st.cloud_timeout,
            project)


def _connection(st: config.Settings, project: str) -> Any:
    key = _key(st, project)
    conn = _cache.get(key)
    if conn is not None:
        return conn
    with _lock:
        conn = _cache.get(key)
        if conn is None:
            conn = _build(st, project)
            _cache[key] = conn
    return conn


def _build(st: config.Settings, project: str) -> Any:
    import openstack

    scope: dict[str, Any] = {"project_id": project} if _HEX_ID.match(project) else {
        "project_name": project, "project_domain_name": st.cloud_project_domain}
    try:
        if st.cloud_name:
            return openstack.connect(cloud=st.cloud_name, timeout=st.cloud_timeout, **scope)
        return openstack.connection.Connection(
            auth_url=st.cloud_auth_url, username=st.cloud_username, password=st.cloud_password,
            user_domain_name=st.cloud_user_domain, region_name=st.cloud_region,
            timeout=st.cloud_timeout, **scope)
    except Exception as exc:  # translated at the boundary
        raise translate(exc) from exc


def reset_cache() -> None:
    """Forget every cached connection (tests; a worker after its configuration changed)."""
    with _lock:
        _cache.clear()
