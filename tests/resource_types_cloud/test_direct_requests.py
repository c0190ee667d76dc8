"""app.clients.direct: a raw GET or DELETE goes straight to the HTTP session with the
connection's token, and answers as keystoneauth's path does (same JSON, same errors); a
refused token (401) falls back to keystoneauth, which authenticates anew; an adapter with a
default microversion keeps keystoneauth's path."""
from __future__ import annotations

from typing import Any

import pytest

from app import clients, errors
from app.clients import direct, is_not_found, status
from tests.resource_types_cloud.conftest import Identity


@pytest.fixture()
def cloud(cloud_settings: Any) -> Any:
    return clients.for_stack(Identity()).cloud()


def _count(sandbox: Any, op: str) -> int:
    return int(sandbox.admin("GET", "requests")["requests"].get(op, 0))


def test_a_get_is_sent_directly_and_reads_as_the_sdk_path_reads(cloud: Any, sandbox: Any) -> None:
    net = cloud.network.create_network(name="direct-net")
    try:
        adapter = cloud.raw.network
        fast = direct.for_adapter(adapter)
        assert fast is not None and fast.base == adapter.get_endpoint().rstrip("/")
        before = _count(sandbox, "network.GET.networks")
        got = cloud.request("network", "GET", f"/networks/{net.id}")
        assert _count(sandbox, "network.GET.networks") == before + 1
        usual = adapter.request(f"/networks/{net.id}", "GET", raise_exc=True).json()
        assert got == usual and got["network"]["name"] == "direct-net"
        listed = cloud.request("network", "GET", "/networks", params={"id": [net.id]})
        assert [n["id"] for n in listed["networks"]] == [net.id]
    finally:
        status.delete(cloud, status.NETWORK, net.id)
    with pytest.raises(errors.CloudError) as gone:
        cloud.request("network", "GET", f"/networks/{net.id}")
    assert is_not_found(gone.value)
    status.delete(cloud, status.NETWORK, net.id)  # a 404 on DELETE is ignored, as before


def test_a_refused_token_is_sent_again_by_keystoneauth(cloud: Any, sandbox: Any) -> None:
    net = cloud.network.create_network(name="direct-401")
    try:
        fast = direct.for_adapter(cloud.raw.network)
        assert fast is not None
        fast._auth_headers()
        fast._auth = {"X-Auth-Token": "not-a-token"}  # as if Keystone had revoked it
        got = cloud.request("network", "GET", f"/networks/{net.id}")
        assert got["network"]["id"] == net.id
        assert fast._auth is None  # forgotten: the next request asks keystoneauth again
        assert cloud.request("network", "GET", f"/networks/{net.id}")["network"]["id"] == net.id
        assert fast._auth and fast._auth["X-Auth-Token"] != "not-a-token"
    finally:
        status.delete(cloud, status.NETWORK, net.id)


def test_an_adapter_with_a_default_microversion_keeps_keystoneauths_path() -> None:
    class _Adapter:
        default_microversion = "2.79"
    assert direct.for_adapter(_Adapter()) is None


def test_a_post_keeps_keystoneauths_path(cloud: Any, sandbox: Any, monkeypatch: Any) -> None:
    sent: list[str] = []
    real = direct.Direct.request

    def spy(self: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return real(self, method, *args, **kwargs)
    monkeypatch.setattr(direct.Direct, "request", spy)
    body = cloud.request("network", "POST", "/networks", json={"network": {"name": "p"}})
    status.delete(cloud, status.NETWORK, body["network"]["id"])
    assert sent == ["DELETE"]
