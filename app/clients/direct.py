"""Raw GETs and DELETEs on a service's endpoint, sent straight to the HTTP session.

More in docs/code/clients.md (app.clients.direct).
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    import requests

#: Auth headers (the token) are asked of keystoneauth again after this many seconds
TOKEN_REUSE_SECONDS = 30.0
_USER_AGENT = "stoker keystoneauth1 python-requests"


class Direct:
    """GET and DELETE by path on one adapter's endpoint (see the module docstring)."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.session = session = adapter.session       # keystoneauth1.session.Session
        self.http: requests.Session = session.session  # its requests.Session (the pool)
        self.base = str(adapter.get_endpoint()).rstrip("/")
        self.timeout = session.timeout
        settings = self.http.merge_environment_settings(self.base, {}, False,
                                                        session.verify, session.cert)
        self.send_kwargs = {"timeout": self.timeout, "allow_redirects": False, **settings}
        self.user_agent = session.user_agent or _USER_AGENT
        self._lock = threading.Lock()
        self._auth: dict[str, str] | None = None
        self._auth_at = 0.0

    def _auth_headers(self) -> dict[str, str]:
        with self._lock:
            if self._auth is None or time.monotonic() - self._auth_at > TOKEN_REUSE_SECONDS:
                self._auth = dict(self.session.get_auth_headers(
                    getattr(self.adapter, "auth", None)) or {})
                self._auth_at = time.monotonic()
            return self._auth

    def forget_token(self) -> None:
        """Ask keystoneauth for the auth headers again at the next request."""
        with self._lock:
            self._auth = None

    def request(self, method: str, path: str, params: dict[str, Any] | None = None
                ) -> requests.Response | None:
        """``method`` on ``path`` (with ``params`` as its query, lists repeated).

        :returns: the response (status < 400); None after a 401 (the caller sends it by the
            usual path, which authenticates anew).
        :raises keystoneauth1.exceptions.HttpError: a status >= 400, as keystoneauth raises it.
        :raises keystoneauth1.exceptions.ConnectionError: the endpoint could not be reached.
        """
        url = path if path.startswith(("http://", "https://")) else \
            f"{self.base}/{path.lstrip('/')}"  # absolute: a list's next link
        if params:
            url = f"{url}?{urlencode(params, doseq=True)}"
        headers = {"Accept": "application/json", "User-Agent": self.user_agent,
                   **self._auth_headers()}
        import requests  # both loaded with the keystoneauth session that made self.http
        from keystoneauth1 import exceptions as ksa_exc
        prepared = requests.Request(method, url, headers=headers).prepare()
        try:
            resp = self.http.send(prepared, **self.send_kwargs)
        except requests.exceptions.ConnectionError as exc:
            raise ksa_exc.ConnectFailure(f"Unable to establish connection to {url}: {exc}") \
                from exc
        except requests.exceptions.Timeout as exc:
            raise ksa_exc.ConnectTimeout(f"Request to {url} timed out") from exc
        if resp.status_code == 401:
            self.forget_token()
            return None
        if resp.status_code >= 400:
            raise ksa_exc.from_response(resp, method, url)
        return resp


_direct: dict[int, tuple[Any, Direct | None]] = {}
_lock = threading.Lock()


def for_adapter(adapter: Any) -> Direct | None:
    """The :class:`Direct` of ``adapter`` (one per adapter object), or None where the usual
    path must serve (a default microversion, an endpoint override with settings of its own,
    no endpoint)."""
    key = id(adapter)
    with _lock:
        found = _direct.get(key)
        if found is not None and found[0] is adapter:
            return found[1]
    direct: Direct | None = None
    if getattr(adapter, "default_microversion", None) is None \
            and not getattr(adapter, "additional_headers", None) \
            and not getattr(getattr(adapter, "session", None), "additional_headers", None):
        try:
            direct = Direct(adapter)
        except Exception:  # no endpoint, or a session unlike keystoneauth's: the usual path
            direct = None
    with _lock:
        _direct[key] = (adapter, direct)
    return direct
