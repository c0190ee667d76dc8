"""A create is not retried blindly (app.clients.retry): after a transient error other than a
503 it is sent again only when the lookup of what the failed try made finds nothing; what the
lookup finds is the create's answer. Idempotent calls keep their plain retries."""
from __future__ import annotations

from typing import Any

import pytest
from keystoneauth1 import exceptions as ksa_exc

from app import errors
from app.clients.errors import cloud_error
from app.clients.retry import Cloud


def _cloud(conn: Any = None) -> Cloud:
    return Cloud(conn if conn is not None else object(), retry_limit=2, backoff=0.01,
                 sleep=lambda s: None)


class Recorder:
    """A create that fails with ``errors`` in turn (then answers ``"made"``), and its lookup,
    which answers ``found`` in turn; ``calls`` is the order of both."""

    def __init__(self, errors_: list[BaseException], found: list[Any]) -> None:
        self.errors = list(errors_)
        self.found = list(found)
        self.calls: list[str] = []

    def post(self, **attrs: Any) -> str:
        self.calls.append("post")
        if self.errors:
            raise self.errors.pop(0)
        return "made"

    def find(self) -> Any:
        self.calls.append("find")
        return self.found.pop(0) if self.found else None


def test_a_create_that_got_a_500_is_looked_for_and_adopted_not_sent_again() -> None:
    rec = Recorder([cloud_error("nova-api: boom", 500)], found=["the first try's server"])
    assert _cloud().create(rec.post, find=rec.find) == "the first try's server"
    assert rec.calls == ["post", "find"]


def test_a_create_is_sent_again_only_after_the_lookup_found_nothing() -> None:
    rec = Recorder([cloud_error("boom", 500), cloud_error("bad gateway", 502)], found=[])
    assert _cloud().create(rec.post, find=rec.find) == "made"
    assert rec.calls == ["post", "find", "post", "find", "post"]


def test_a_timed_out_create_is_looked_for_before_it_is_sent_again() -> None:
    rec = Recorder([ksa_exc.ConnectTimeout("Request to http://nova/servers timed out")],
                   found=["made while we waited"])
    assert _cloud().create(rec.post, find=rec.find) == "made while we waited"
    assert rec.calls == ["post", "find"]


def test_a_create_gives_up_after_the_retry_limit_with_the_last_error() -> None:
    rec = Recorder([cloud_error("down", 500)] * 3, found=[])
    with pytest.raises(errors.CloudError) as info:
        _cloud().create(rec.post, find=rec.find)
    assert info.value.status == 500 and info.value.transient
    assert rec.calls == ["post", "find", "post", "find", "post"]


def test_a_create_without_a_lookup_is_retried_only_after_a_503() -> None:
    rec = Recorder([cloud_error("boom", 500)], found=[])
    with pytest.raises(errors.CloudError):
        _cloud().create(rec.post)
    assert rec.calls == ["post"]
    rec = Recorder([cloud_error("Service Unavailable", 503)], found=[])
    assert _cloud().create(rec.post) == "made"
    assert rec.calls == ["post", "post"]


def test_a_refused_create_is_never_retried() -> None:
    rec = Recorder([cloud_error("Quota exceeded", 403)], found=["x"])
    with pytest.raises(errors.CloudError):
        _cloud().create(rec.post, find=rec.find)
    assert rec.calls == ["post"]


def test_the_sdk_proxys_create_methods_go_through_the_create_rule() -> None:
    rec = Recorder([cloud_error("boom", 500)], found=["adopted"])
    listing = Recorder([cloud_error("boom", 500)], found=[])

    class Network:
        def create_port(self, **attrs: Any) -> str:
            return rec.post(**attrs)

        def ports(self) -> str:
            return listing.post()

    class Conn:
        network = Network()
    cloud = _cloud(Conn())
    assert cloud.network.create_port(name="p", find=rec.find) == "adopted"
    assert rec.calls == ["post", "find"]
    assert cloud.network.ports() == "made"               # a read: retried as before
    assert listing.calls == ["post", "post"]
    rec = Recorder([cloud_error("boom", 500)], found=[])
    with pytest.raises(errors.CloudError):               # no lookup given: not sent again
        cloud.network.create_port(name="p")
    assert rec.calls == ["post"]


def test_a_raw_post_is_a_create() -> None:
    class Resp:
        content = b'{"alarm": {"id": "a1"}}'

    class Adapter:
        def __init__(self) -> None:
            self.sent: list[str] = []

        def request(self, path: str, method: str, **kwargs: Any) -> Resp:
            self.sent.append(method)
            if len(self.sent) == 1:
                raise ksa_exc.InternalServerError("boom", http_status=500)
            return Resp()

    class Conn:
        alarming = Adapter()
    cloud = _cloud(Conn())
    looked: list[int] = []

    def find() -> Any:
        looked.append(1)
        return {"alarm": {"id": "a0"}}
    assert cloud.request("alarming", "POST", "/v2/alarms", json={}, find=find) == \
        {"alarm": {"id": "a0"}}
    assert Conn.alarming.sent == ["POST"] and looked == [1]


def test_only_a_call_that_may_be_sent_again_says_so_when_it_gives_up() -> None:
    """The engine polls again after what a read, a delete or an update gave up on, never after
    a create or an action (``resize_server``: sent again, it could act twice)."""
    class Compute:
        def get_server(self, sid: str) -> None:
            raise cloud_error("down", 500)

        def delete_server(self, sid: str) -> None:
            raise cloud_error("down", 502)

        def resize_server(self, sid: str, flavor: str) -> None:
            raise cloud_error("down", 500)

        def create_server(self, **attrs: Any) -> None:
            raise cloud_error("down", 503)

    class Conn:
        compute = Compute()
    cloud = _cloud(Conn())
    said = {}
    for name, call in (("get", lambda: cloud.compute.get_server("s")),
                       ("delete", lambda: cloud.compute.delete_server("s")),
                       ("resize", lambda: cloud.compute.resize_server("s", "f")),
                       ("create", lambda: cloud.compute.create_server(name="s"))):
        with pytest.raises(errors.CloudError) as info:
            call()
        said[name] = info.value.data.get("idempotent")
    assert said == {"get": True, "delete": True, "resize": False, "create": False}
