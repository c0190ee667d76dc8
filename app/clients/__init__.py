"""Cloud clients: the only package that imports openstacksdk (DESIGN.md).

More in docs/code/clients.md (app.clients).
"""
from __future__ import annotations

import os
import re
import threading
from typing import Any

from app import config
from app.clients import constraints, endpoints
from app.clients.errors import cloud_error, is_conflict, is_no_unique, is_not_found, translate
from app.clients.retry import Cloud

__all__ = ["Cloud", "LazyClients", "cloud_error", "for_stack", "forget_trust", "is_conflict",
           "is_no_unique", "is_not_found", "reset_cache", "translate", "trust_session"]

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_cache: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()


class LazyClients:
    """Per-stack client factory; ``connection()`` gives an ``openstack.connection.Connection``
    scoped to the stack's project (cached per worker process), ``cloud()`` the same connection
    behind the retry / error-translation layer."""

    def __init__(self, stack: Any, settings: config.Settings | None = None,
                 trust_id: str | None = None,
                 user_token: tuple[str, str] | None = None) -> None:
        self.stack = stack
        self.trust_id = trust_id
        self.user_token = user_token
        self._own: Any = None
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

        :raises app.errors.CloudError: the cloud cannot be configured or authenticated against
            (with a trust: Keystone refuses the trust, 401, permanent).
        """
        if self.trust_id:
            return _trust_connection(self.settings, self.trust_id)
        if self.user_token:
            if self._own is None:
                self._own = _build_token(self.settings, *self.user_token)
            return self._own
        return _connection(self.settings, self.project())

    def stack_users(self) -> Any:
        """Heat's stack users of this stack (:mod:`app.clients.stack_users`): Keystone's in
        keystone mode, the local equivalent in noauth."""
        from app.clients import stack_users
        return stack_users.for_settings(self.settings)

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


def for_stack(stack: Any, trust_id: str | None = None) -> LazyClients:
    """The client factory for a stack (``stack``: ``.stack_name``, ``.stack_id``,
    ``.project_id``); with ``trust_id``, every connection is scoped by that Keystone trust.
    Cheap: connects on first use."""
    return LazyClients(stack, trust_id=trust_id)


def for_validation(stack: Any, trust_id: str | None = None,
                   user_token: tuple[str, str] | None = None) -> LazyClients:
    """A client factory for request-time validation (constraint lookups in the API process):
    like :func:`for_stack`, but without retries — a cloud that fails now is left to the
    engine, which retries. ``user_token``: ``(token, project_id)`` of the request (keystone
    mode, a stack without a trust yet): the lookups run as the requesting user."""
    lazy = LazyClients(stack, trust_id=trust_id, user_token=user_token)
    lazy._cloud_retry_limit = 0
    return lazy


def _key(st: config.Settings, project: str) -> tuple[Any, ...]:
    """The cache key; the process id keeps a connection made before a fork (prefork Celery
    workers) from being shared by the children's sockets."""
    return (os.getpid(), st.cloud_name, st.cloud_auth_url, st.cloud_username, st.cloud_password,
            st.cloud_user_domain, st.cloud_project_domain, st.cloud_region, st.cloud_timeout,
            project)


def _cached(key: tuple[Any, ...], build: Any) -> Any:
    """The process's connection for ``key``, built once by ``build()`` (double-checked lock)."""
    conn = _cache.get(key)
    if conn is not None:
        return conn
    with _lock:
        conn = _cache.get(key)
        if conn is None:
            conn = _cache[key] = build()
    return conn


def _connection(st: config.Settings, project: str) -> Any:
    return _cached(_key(st, project), lambda: _pooled(_build(st, project)))


#: Idle HTTP connections a cached connection keeps per host. requests keeps 10 by default: a
#: worker with more threads or greenlets than that calling one cloud at once closed the extra
#: sockets after each call and opened new ones (a TCP handshake and urllib3's bookkeeping a call,
#: "Connection pool is full, discarding connection" in the log).
POOL_MAXSIZE = 256


def _pooled(conn: Any) -> Any:
    """``conn`` with its HTTP session keeping up to :data:`POOL_MAXSIZE` idle connections per
    host (keystoneauth's own adapter class, so its TCP keep-alive options stay), its endpoint
    lookups kept per token and its environment read once per host
    (:mod:`app.clients.endpoints`)."""
    auth = getattr(getattr(conn, "session", None), "auth", None)
    if auth is not None:
        endpoints.memoize(auth)
    http: Any = getattr(getattr(conn, "session", None), "session", None)
    adapters = getattr(http, "adapters", None)
    if http is None or not adapters:
        return conn
    endpoints.memoize_environment(http)
    for prefix, adapter in list(adapters.items()):
        http.mount(prefix, type(adapter)(pool_connections=10, pool_maxsize=POOL_MAXSIZE))
    return conn


def _build(st: config.Settings, project: str) -> Any:
    """A connection whose every request is bounded by ``cloud_timeout`` (openstacksdk's
    ``api_timeout``: its session's ``timeout``; a request the cloud holds longer raises a
    timeout, translated as a transient ``CloudError``)."""
    import openstack

    scope: dict[str, Any] = {"project_id": project} if _HEX_ID.match(project) else {
        "project_name": project, "project_domain_name": st.cloud_project_domain}
    try:
        if st.cloud_name:
            return openstack.connect(cloud=st.cloud_name, api_timeout=st.cloud_timeout, **scope)
        return openstack.connection.Connection(
            auth_url=st.cloud_auth_url, username=st.cloud_username, password=st.cloud_password,
            user_domain_name=st.cloud_user_domain, region_name=st.cloud_region,
            api_timeout=st.cloud_timeout, **scope)
    except Exception as exc:  # translated at the boundary
        raise translate(exc) from exc


def _trust_key(st: config.Settings, trust_id: str) -> tuple[Any, ...]:
    return (os.getpid(), "trust", st.keystone_url, st.service_username, st.service_password,
            st.service_user_domain, st.cloud_region, st.cloud_timeout, trust_id)


def _trust_connection(st: config.Settings, trust_id: str) -> Any:
    return _cached(_trust_key(st, trust_id), lambda: _pooled(_build_trust(st, trust_id)))


def trust_session(st: config.Settings, trust_id: str) -> Any:
    """A keystoneauth1 ``Session`` of Stoker's service user scoped by ``trust_id`` (not cached;
    :func:`for_stack` caches the connections built on it)."""
    from keystoneauth1 import exceptions as ksa_exc
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    class TrustPassword(v3.Password):
        """A refused trust is a 401 that names it — never a 404 that a delete would take
        for "already gone" (Keystone answers 404 TrustNotFound to the token request)."""

        def get_auth_ref(self, session: Any, **kwargs: Any) -> Any:
            try:
                return super().get_auth_ref(session, **kwargs)
            except (ksa_exc.NotFound, ksa_exc.Forbidden, ksa_exc.Unauthorized) as exc:
                raise ksa_exc.Unauthorized(
                    f"The stack's trust {trust_id} is not valid any more (deleted, expired or "
                    f"its trustor lost the roles): {exc}") from exc

    class TrustSession(ks_session.Session):
        """A 401 from a service (the trust's tokens were revoked with it) re-authenticates
        once: a refused trust then raises TrustPassword's 401, a merely expired token retries."""

        def request(self, url: str, method: str, **kwargs: Any) -> Any:  # type: ignore[override]
            if kwargs.get("authenticated") is False:
                return super().request(url, method, **kwargs)
            # keystoneauth raises a 401 itself with raise_exc (the default, and what raw REST
            # calls ask for): the first try looks at the answer, the retry raises as asked
            raise_exc = kwargs.pop("raise_exc", True)
            resp = super().request(url, method, raise_exc=False, **kwargs)
            if resp.status_code == 401:
                self.invalidate()
                self.get_token()
                return super().request(url, method, raise_exc=raise_exc, **kwargs)
            if raise_exc and resp.status_code >= 400:
                raise ksa_exc.from_response(resp, method, url)
            return resp

    auth = TrustPassword(auth_url=st.keystone_url, username=st.service_username,
                         password=st.service_password, user_domain_name=st.service_user_domain,
                         trust_id=trust_id)
    return TrustSession(auth=auth, timeout=st.cloud_timeout)


def _build_trust(st: config.Settings, trust_id: str) -> Any:
    import openstack
    from keystoneauth1 import exceptions as ksa_exc

    sess = trust_session(st, trust_id)
    try:
        sess.get_token()  # a trust Keystone refuses fails here, once, with its name
    except ksa_exc.Unauthorized as exc:
        raise cloud_error(str(exc), 401, transient=False, trust_id=trust_id) from exc
    except Exception as exc:  # translated at the boundary
        raise translate(exc) from exc
    return openstack.connection.Connection(session=sess, region_name=st.cloud_region)


def _build_token(st: config.Settings, token: str, project_id: str) -> Any:
    import openstack
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    auth = v3.Token(auth_url=st.keystone_url, token=token, project_id=project_id)
    try:
        return openstack.connection.Connection(
            session=ks_session.Session(auth=auth, timeout=st.cloud_timeout),
            region_name=st.cloud_region)
    except Exception as exc:  # translated at the boundary
        raise translate(exc) from exc


def forget_trust(trust_id: str) -> None:
    """Drop the cached connections of a trust (it was deleted)."""
    with _lock:
        for key in [k for k in _cache if len(k) > 1 and k[1] == "trust" and k[-1] == trust_id]:
            del _cache[key]


def reset_cache() -> None:
    """Forget every cached connection and catalogue lookup (tests; a worker after its
    configuration changed)."""
    with _lock:
        _cache.clear()
    constraints.forget_catalogue()
