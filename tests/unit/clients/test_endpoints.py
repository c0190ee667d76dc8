"""app.clients.endpoints: a connection's endpoint lookups kept per token."""
from __future__ import annotations

from typing import Any

from keystoneauth1 import plugin

from app.clients import endpoints


class _Data:
    def __init__(self, url: str) -> None:
        self.url = url


class _Auth:
    def __init__(self) -> None:
        self.auth_ref: Any = object()
        self.calls: list[dict[str, Any]] = []

    def get_endpoint_data(self, session: Any, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return _Data(f"http://cloud/{kwargs.get('service_type')}/{len(self.calls)}")


def test_a_lookup_is_answered_once_per_token() -> None:
    auth = endpoints.memoize(_Auth())
    session = object()
    first = auth.get_endpoint_data(session, service_type="compute", interface="public")
    again = auth.get_endpoint_data(session, service_type="compute", interface="public")
    assert (first.url, again.url) == ("http://cloud/compute/1", "http://cloud/compute/1")
    assert again is not first                     # a copy: a caller may refine it
    assert len(auth.calls) == 1
    other = auth.get_endpoint_data(session, service_type="volumev3", interface="public")
    assert other.url == "http://cloud/volumev3/2"
    auth.auth_ref = object()                      # a new token: asked again
    assert auth.get_endpoint_data(session, service_type="compute",
                                  interface="public").url == "http://cloud/compute/3"
    assert auth.get_endpoint_data(session, service_type="compute",
                                  interface="public").url == "http://cloud/compute/3"
    assert len(auth.calls) == 3


def test_no_token_yet_or_the_auth_url_is_never_kept() -> None:
    auth = _Auth()
    auth.auth_ref = None
    endpoints.memoize(auth)
    auth.get_endpoint_data(object(), service_type="compute")
    auth.get_endpoint_data(object(), service_type="compute")
    auth.auth_ref = object()
    session = object()
    auth.get_endpoint_data(session, interface=plugin.AUTH_INTERFACE)
    auth.get_endpoint_data(session, interface=plugin.AUTH_INTERFACE)
    assert len(auth.calls) == 4


def test_memoize_twice_wraps_once() -> None:
    auth = endpoints.memoize(endpoints.memoize(_Auth()))
    auth.get_endpoint_data(object(), service_type="compute")
    assert len(auth.calls) == 1


def test_the_environment_is_read_once_per_host(monkeypatch: Any) -> None:
    import requests

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    monkeypatch.setenv("NO_PROXY", "cloud.local")
    http = requests.Session()
    calls: list[str] = []
    original = http.merge_environment_settings

    def counting(url: str, *args: Any) -> Any:
        calls.append(url)
        return original(url, *args)
    http.merge_environment_settings = counting  # type: ignore[method-assign]
    endpoints.memoize_environment(http)
    bypassed = http.merge_environment_settings("https://cloud.local/v2.1/servers/a", {}, None,
                                               True, None)
    again = http.merge_environment_settings("https://cloud.local/v2.1/servers/b", {}, None,
                                            True, None)
    proxied = http.merge_environment_settings("https://other/x", {}, None, True, None)
    assert bypassed == again and "https" not in bypassed["proxies"]
    assert proxied["proxies"]["https"] == "http://proxy:3128"
    proxied["proxies"]["https"] = "changed"       # a caller's copy, not the kept answer
    assert http.merge_environment_settings("https://other/y", {}, None, True,
                                           None)["proxies"]["https"] == "http://proxy:3128"
    assert "https" not in http.merge_environment_settings("https://cloud.local/", {}, None,
                                                          True, None)["proxies"]
    assert calls == ["https://cloud.local/v2.1/servers/a", "https://other/x"]
