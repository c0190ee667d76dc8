"""app.clients without a cloud: retry/back-off, error translation, connection scoping/caching."""
from __future__ import annotations

from typing import Any

import pytest
from keystoneauth1 import exceptions as ksa_exc
from openstack import exceptions as sdk_exc

from app import clients, config, errors
from app.clients import constraints
from app.clients.errors import translate
from app.clients.retry import Cloud


class FakeResponse:
    def __init__(self, status: int, body: Any) -> None:
        self.status_code = status
        self._body = body
        self.headers: dict[str, str] = {}
        self.text = str(body)

    def json(self) -> Any:
        return self._body


def http(status: int, body: Any = None) -> sdk_exc.HttpException:
    return sdk_exc.HttpException(message="Client Error for url: x", response=FakeResponse(
        status, body if body is not None else {}), http_status=status)


def test_translate_takes_the_clouds_message_and_heats_name() -> None:
    err = translate(http(409, {"NeutronError": {"type": "IpAddressInUse",
                                                "message": "IP 10.0.0.5 in use", "detail": ""}}))
    assert (err.status, err.transient, err.heat_type, err.message) == \
        (409, False, "Conflict", "IP 10.0.0.5 in use")
    err = translate(http(400, {"badRequest": {"code": 400, "message": "Invalid flavorRef"}}))
    assert (err.heat_type, err.message) == ("BadRequest", "Invalid flavorRef")
    err = translate(http(503, {"faultstring": "octavia is busy"}))
    assert (err.status, err.transient, err.message) == (503, True, "octavia is busy")


def test_translate_connection_errors_and_not_found_without_status() -> None:
    err = translate(ksa_exc.ConnectFailure("refused"))
    assert err.transient and err.status is None and "refused" in err.message
    err = translate(ksa_exc.ConnectTimeout("slow"))
    assert err.transient
    err = translate(sdk_exc.ResourceNotFound("No Flavor found for x"))
    assert err.status == 404 and not err.transient
    same = errors.CloudError("x", status=500, transient=True)
    assert translate(same) is same
    assert translate(ValueError("odd")).transient is False


def test_retry_transient_then_succeed_with_backoff() -> None:
    sleeps: list[float] = []
    calls = {"n": 0}

    def flaky() -> str:
        calls["n"] += 1
        if calls["n"] < 3:
            raise http(502, {"message": "bad gateway"})
        return "ok"
    cloud = Cloud(object(), retry_limit=2, backoff=0.1, sleep=sleeps.append)
    assert cloud.call(flaky) == "ok"
    assert sleeps == [0.1, 0.2]


def test_retry_gives_up_after_the_limit_and_never_retries_4xx() -> None:
    sleeps: list[float] = []
    cloud = Cloud(object(), retry_limit=2, backoff=0.05, sleep=sleeps.append)
    calls = {"n": 0}

    def down() -> None:
        calls["n"] += 1
        raise http(500, {"message": "boom"})
    with pytest.raises(errors.CloudError) as info:
        cloud.call(down)
    assert calls["n"] == 3 and info.value.message == "boom" and info.value.transient

    def denied() -> None:
        calls["n"] += 1
        raise http(403, {"message": "no"})
    calls["n"] = 0
    with pytest.raises(errors.CloudError):
        cloud.call(denied)
    assert calls["n"] == 1


def test_generators_are_drained_inside_the_retry() -> None:
    cloud = Cloud(object(), retry_limit=1, backoff=0, sleep=lambda s: None)
    state = {"n": 0}

    def pages() -> Any:
        state["n"] += 1
        yield 1
        if state["n"] == 1:
            raise http(500)
        yield 2
    assert cloud.call(pages) == [1, 2]


def test_service_proxy_wraps_sdk_methods() -> None:
    class Network:
        name = "network"

        def get_network(self, nid: str) -> str:
            raise http(404, {"NeutronError": {"message": f"Network {nid} could not be found."}})

    class Conn:
        network = Network()
    cloud = Cloud(Conn(), retry_limit=0)
    assert cloud.network.name == "network"
    with pytest.raises(errors.CloudError) as info:
        cloud.network.get_network("n1")
    assert clients.is_not_found(info.value) and not clients.is_conflict(info.value)


def test_scope_and_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, str]] = []

    def fake_build(st: config.Settings, project: str) -> object:
        built.append((st.cloud_auth_url, project))
        return object()
    monkeypatch.setattr(clients, "_build", fake_build)
    clients.reset_cache()
    st = config.load({}, sandbox_port=9999)
    assert st.cloud_auth_url == "http://127.0.0.1:9999/identity/v3"

    class Ident:
        stack_name, stack_id, project_id = "s", "i", "demo"
    a = clients.LazyClients(Ident(), st)
    b = clients.LazyClients(Ident(), st)
    assert a.project() == "demo" and a.connection() is b.connection()
    assert built == [("http://127.0.0.1:9999/identity/v3", "demo")]
    fixed = clients.LazyClients(Ident(), st.replace(cloud_scope_to_stack=False))
    assert fixed.project() == "admin"
    fixed.connection()
    assert len(built) == 2
    clients.reset_cache()


def test_constraint_messages() -> None:
    class Finder:
        def find_network(self, value: str, ignore_missing: bool) -> None:
            return None

        def find_flavor(self, value: str, ignore_missing: bool) -> None:
            return None

    class Conn:
        network = Finder()
        compute = Finder()
    cloud = Cloud(Conn(), retry_limit=0)
    assert constraints.check(cloud, "neutron.network", "x") == \
        "Unable to find network with name or id 'x'"
    assert constraints.check(cloud, "nova.flavor", "f") == \
        "No Flavor matching {'name': 'f'}. (HTTP 404)"
    assert constraints.check(cloud, "ip_addr", "nonsense") is None     # not cloud-backed
    assert constraints.check(cloud, "neutron.network", "") is None
    assert constraints.error_message("resources.r.properties.p", "x", "why") == \
        "Property error: resources.r.properties.p: Error validating value 'x': why"


def test_clouds_yaml_entry(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, cloud_settings: Any,
                           sandbox: Any) -> None:
    """``cloud_name`` picks a clouds.yaml entry; the stack's project still scopes it."""
    (tmp_path / "clouds.yaml").write_text(
        "clouds:\n  sbx:\n    auth:\n"
        f"      auth_url: {sandbox.auth_url}\n      username: admin\n      password: sandbox\n"
        "      project_name: demo\n      user_domain_name: Default\n"
        "      project_domain_name: Default\n    region_name: RegionOne\n")
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(tmp_path / "clouds.yaml"))
    clients.reset_cache()
    st = cloud_settings.replace(cloud_name="sbx", cloud_auth_url="http://127.0.0.1:1/unused")

    class Ident:
        stack_name, stack_id, project_id = "s", "i", "admin"
    conn = clients.LazyClients(Ident(), st).connection()
    assert conn.current_project.name == "admin"
    assert any(n.name == "private" for n in conn.network.networks())
    clients.reset_cache()
