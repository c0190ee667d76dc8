"""app.clients.status: batched status reads against a fake Nova/Cinder adapter."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from keystoneauth1 import exceptions as ksa_exc

from app import errors
from app.clients import is_not_found, status
from app.clients.retry import Cloud


class _Response:
    def __init__(self, body: Any) -> None:
        self.content = json.dumps(body).encode()
        self._body = body

    def json(self) -> Any:
        return self._body


class _Adapter:
    """A service endpoint: ``objects`` by id; ``gate`` (when set) holds every request until it
    is set, so the test can queue reads behind one in flight."""

    def __init__(self, one: str, many: str, objects: dict[str, dict[str, Any]]) -> None:
        self.one, self.many, self.objects = one, many, objects
        self.calls: list[str] = []
        self.lock = threading.Lock()
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.fail_lists: Exception | None = None
        self.page_size: int | None = None

    def request(self, path: str, method: str, raise_exc: bool = True, **kwargs: Any) -> Any:
        assert method == "GET" and raise_exc
        with self.lock:
            self.calls.append(path)
        self.entered.set()
        if self.gate is not None:
            assert self.gate.wait(10)
        base, _, query = path.partition("?")
        if base.endswith("/detail"):
            if self.fail_lists is not None:
                raise self.fail_lists
            items = sorted(self.objects.values(), key=lambda o: o["id"])
            if self.page_size:
                marker = query.partition("marker=")[2]
                start = next((i + 1 for i, o in enumerate(items) if o["id"] == marker), 0)
                page = items[start:start + self.page_size]
                links = ([{"rel": "next", "href": f"{base}?marker={page[-1]['id']}"}]
                         if start + self.page_size < len(items) else [])
                return _Response({self.many: page, f"{self.many}_links": links})
            return _Response({self.many: items})
        object_id = base.rsplit("/", 1)[1]
        if object_id not in self.objects:
            raise ksa_exc.NotFound(message=f"{self.one} {object_id} could not be found.",
                                   http_status=404)
        return _Response({self.one: self.objects[object_id]})


class _Conn:
    def __init__(self, compute: _Adapter) -> None:
        self.compute = compute


def _servers(n: int) -> dict[str, dict[str, Any]]:
    return {f"s{i}": {"id": f"s{i}", "status": "BUILD", "name": f"server{i}"} for i in range(n)}


@pytest.fixture
def nova() -> tuple[Cloud, _Adapter]:
    adapter = _Adapter("server", "servers", _servers(6))
    return Cloud(_Conn(adapter), retry_limit=0, backoff=0), adapter


def _read_all(cloud: Cloud, ids: list[str]) -> dict[str, Any]:
    """Read every id on its own thread; ``{id: object or the exception raised}``."""
    out: dict[str, Any] = {}

    def one(object_id: str) -> None:
        try:
            out[object_id] = status.server(cloud, object_id)
        except Exception as exc:  # the test looks at what each read raised
            out[object_id] = exc
    threads = [threading.Thread(target=one, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    return {"threads": threads, "out": out}


def _wait_queued(cloud: Cloud, n: int) -> None:
    """Until ``n`` reads wait in the batcher's pending batch."""
    b = status.batcher(cloud, status.SERVER)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with b._cond:
            if b._pending is not None and len(b._pending.ids) >= n:
                return
        time.sleep(0.005)
    raise AssertionError("the reads did not queue")


def _behind_one(cloud: Cloud, adapter: _Adapter, ids: list[str]) -> tuple[dict, dict]:
    """Read ``s0`` alone (its single GET held in flight), queue ``ids`` behind it, let the
    cloud answer and wait for every read. :returns: what ``s0`` and the others got."""
    adapter.gate = threading.Event()
    first = _read_all(cloud, ["s0"])
    assert adapter.entered.wait(5)           # s0's single GET is in flight...
    rest = _read_all(cloud, ids)
    _wait_queued(cloud, len(ids))            # ...and the others queued behind it
    adapter.gate.set()
    for t in first["threads"] + rest["threads"]:
        t.join(10)
    return first["out"], rest["out"]


def test_a_lone_read_is_the_single_get(nova: tuple[Cloud, _Adapter]) -> None:
    cloud, adapter = nova
    assert status.server(cloud, "s1") == {"id": "s1", "status": "BUILD", "name": "server1"}
    assert adapter.calls == ["/servers/s1"]


def test_a_gone_object_reads_as_the_clouds_404(nova: tuple[Cloud, _Adapter]) -> None:
    cloud, _ = nova
    with pytest.raises(errors.CloudError) as got:
        status.server(cloud, "nope")
    assert is_not_found(got.value)
    assert "server nope could not be found" in got.value.message


def test_concurrent_reads_share_one_list_request(nova: tuple[Cloud, _Adapter]) -> None:
    cloud, adapter = nova
    first_out, rest_out = _behind_one(cloud, adapter, ["s1", "s2", "s3", "s4"])
    assert adapter.calls == ["/servers/s0", "/servers/detail"]
    got = {**first_out, **rest_out}
    assert {k: v["name"] for k, v in got.items()} == {f"s{i}": f"server{i}" for i in range(5)}
    assert status.batcher(cloud, status.SERVER).requests == 2


def test_an_id_missing_from_the_list_is_read_alone(nova: tuple[Cloud, _Adapter]) -> None:
    """A server the list does not hold is not taken for gone on the list's word: its own GET
    answers (here: 404, as the single GET of a deleted server)."""
    cloud, adapter = nova
    _, rest_out = _behind_one(cloud, adapter, ["s1", "gone"])
    assert rest_out["s1"]["id"] == "s1"
    gone = rest_out["gone"]
    assert isinstance(gone, errors.CloudError) and is_not_found(gone)
    assert adapter.calls == ["/servers/s0", "/servers/detail", "/servers/gone"]


def test_the_shared_requests_error_reaches_every_read(nova: tuple[Cloud, _Adapter]) -> None:
    cloud, adapter = nova
    adapter.fail_lists = ksa_exc.ServiceUnavailable(message="nova is down", http_status=503)
    first_out, rest_out = _behind_one(cloud, adapter, ["s1", "s2", "s3"])
    assert first_out["s0"]["id"] == "s0"
    for key in ("s1", "s2", "s3"):
        err = rest_out[key]
        assert isinstance(err, errors.CloudError)
        assert (err.status, err.transient, err.message) == (503, True, "nova is down (HTTP 503)")
    assert len({id(rest_out[k]) for k in ("s1", "s2", "s3")}) == 3   # one exception each
    assert adapter.calls.count("/servers/detail") == 1
    # the batcher is free again: the next read is served
    adapter.fail_lists = None
    assert status.server(cloud, "s2")["id"] == "s2"


def test_a_read_is_never_served_by_a_request_sent_before_it() -> None:
    """A server created while a list is in flight is read by the next request, never missed."""
    adapter = _Adapter("server", "servers", _servers(2))
    cloud = Cloud(_Conn(adapter), retry_limit=0, backoff=0)
    adapter.gate = threading.Event()
    first = _read_all(cloud, ["s0"])
    assert adapter.entered.wait(5)
    adapter.objects["new"] = {"id": "new", "status": "BUILD", "name": "new"}
    late = _read_all(cloud, ["new"])
    _wait_queued(cloud, 1)
    adapter.gate.set()
    for t in first["threads"] + late["threads"]:
        t.join(10)
    assert late["out"]["new"]["id"] == "new"
    assert adapter.calls == ["/servers/s0", "/servers/new"]


def test_the_list_follows_its_pages() -> None:
    adapter = _Adapter("server", "servers", _servers(7))
    adapter.page_size = 3
    cloud = Cloud(_Conn(adapter), retry_limit=0, backoff=0)
    _, rest_out = _behind_one(cloud, adapter, ["s2", "s6"])
    assert rest_out["s6"]["id"] == "s6" and rest_out["s2"]["id"] == "s2"
    assert adapter.calls == ["/servers/s0", "/servers/detail", "/servers/detail?marker=s2",
                             "/servers/detail?marker=s5"]


def test_batchers_are_per_connection_and_kind() -> None:
    a = Cloud(_Conn(_Adapter("server", "servers", {})))
    b = Cloud(_Conn(_Adapter("server", "servers", {})))
    assert status.batcher(a, status.SERVER) is status.batcher(Cloud(a.raw), status.SERVER)
    assert status.batcher(a, status.SERVER) is not status.batcher(b, status.SERVER)
    assert status.batcher(a, status.SERVER) is not status.batcher(a, status.VOLUME)


class _Named(_Adapter):
    """A list that honours ``?name=`` loosely (as Nova's regex filter may): the caller must
    match exactly."""

    def request(self, path: str, method: str, raise_exc: bool = True, **kwargs: Any) -> Any:
        self.calls.append(path)
        name = (kwargs.get("params") or {}).get("name", "")
        return _Response({self.many: [o for o in self.objects.values() if name in o["name"]]})


def test_find_named_matches_the_name_exactly() -> None:
    adapter = _Named("server", "servers", {
        "a": {"id": "a", "name": "st-server-x"}, "b": {"id": "b", "name": "st-server-x-2"}})
    cloud = Cloud(_Conn(adapter), retry_limit=0, backoff=0)
    assert status.find_named(cloud, status.SERVER, "st-server-x") == {"id": "a", "name": "st-server-x"}
    assert status.find_named(cloud, status.SERVER, "nothing") is None
    assert adapter.calls == ["/servers", "/servers"]


def test_find_named_refuses_a_name_two_objects_have() -> None:
    adapter = _Named("server", "servers", {
        "a": {"id": "a", "name": "twin"}, "b": {"id": "b", "name": "twin"}})
    cloud = Cloud(_Conn(adapter), retry_limit=0, backoff=0)
    with pytest.raises(errors.CloudError) as got:
        status.find_named(cloud, status.SERVER, "twin")
    assert not got.value.transient and "More than one server" in got.value.message


def _neutron_batch(ports: dict[str, dict[str, Any]], first: str,
                   rest: list[str]) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """Read port ``first`` alone (its single GET held in flight), queue ``rest`` behind it, let
    the fake Neutron answer. :returns: what each read got, and the requests ``(path, params)``."""
    calls: list[tuple[str, Any]] = []
    gate = threading.Event()
    entered = threading.Event()

    class _Ports:
        def request(self, path: str, method: str, raise_exc: bool = True, **kw: Any) -> Any:
            calls.append((path, kw.get("params")))
            entered.set()
            assert gate.wait(10)
            if path == "/ports":
                wanted = kw["params"]["id"]
                return _Response({"ports": [ports[i] for i in wanted if i in ports]})
            return _Response({"port": ports[path.rsplit("/", 1)[1]]})

    class _Net:
        network = _Ports()
    cloud = Cloud(_Net(), retry_limit=0, backoff=0)
    got: dict[str, Any] = {}

    def one(port_id: str) -> None:
        got[port_id] = status.read(cloud, status.PORT, port_id)
    lead = threading.Thread(target=one, args=(first,))
    lead.start()
    assert entered.wait(5)
    queued = [threading.Thread(target=one, args=(p,)) for p in rest]
    for t in queued:
        t.start()
    b = status.batcher(cloud, status.PORT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with b._cond:
            if b._pending is not None and len(b._pending.ids) == len(rest):
                break
        time.sleep(0.005)
    gate.set()
    for t in [lead, *queued]:
        t.join(10)
    return got, calls


def test_a_neutron_batch_lists_only_its_ids() -> None:
    """Neutron's list takes the batch's ids (``?id=a&id=b``), so it never grows with the
    project; a lone read is still the single GET."""
    ports = {f"p{i}": {"id": f"p{i}", "name": f"port{i}"} for i in range(5)}
    got, calls = _neutron_batch(ports, "p0", ["p3", "p1"])
    assert {k: v["name"] for k, v in got.items()} == {"p0": "port0", "p1": "port1", "p3": "port3"}
    assert calls == [("/ports/p0", None), ("/ports", {"id": ["p1", "p3"]})]


def test_a_long_neutron_batch_is_listed_in_chunks_of_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of more ids than :data:`status.BY_ID_MAX` goes out as several lists, each with at
    most that many ``id`` filters: 200 port ids in one query line (8 KB) were refused by the
    sandbox's gunicorn (4 KB request lines, as uWSGI's; eventlet's is 8 KB) with a 400."""
    monkeypatch.setattr(status, "BY_ID_MAX", 4)
    ports = {f"p{i:02d}": {"id": f"p{i:02d}", "name": f"port{i}"} for i in range(11)}
    got, calls = _neutron_batch(ports, "p00", sorted(ports)[1:])
    assert all(len(params["id"]) <= 4 for _, params in calls[1:])
    assert {k: v["name"] for k, v in got.items()} == {k: v["name"] for k, v in ports.items()}
    assert [c[1]["id"] for c in calls[1:]] == [["p01", "p02", "p03", "p04"],
                                               ["p05", "p06", "p07", "p08"], ["p09", "p10"]]


def test_poll_reads_a_gone_object_as_none_and_raises_other_errors(
        nova: tuple[Cloud, _Adapter]) -> None:
    cloud, adapter = nova
    assert status.poll(cloud, status.SERVER, "s3")["id"] == "s3"
    assert status.poll(cloud, status.SERVER, "gone") is None
    assert status.poll(cloud, status.SERVER, None) is None
    adapter.objects["bad"] = {"id": "bad"}
    adapter.request = _failing(ksa_exc.Forbidden(message="no", http_status=403))  # type: ignore[method-assign]
    with pytest.raises(errors.CloudError) as got:
        status.poll(cloud, status.SERVER, "bad")
    assert got.value.status == 403


def _failing(exc: Exception) -> Any:
    def request(path: str, method: str, raise_exc: bool = True, **kwargs: Any) -> Any:
        raise exc
    return request


def test_delete_ignores_a_404_only() -> None:
    sent: list[tuple[str, str]] = []

    class _Ports:
        def request(self, path: str, method: str, raise_exc: bool = True, **kw: Any) -> Any:
            sent.append((method, path))
            if path.endswith("/gone"):
                raise ksa_exc.NotFound(message="gone", http_status=404)
            if path.endswith("/busy"):
                raise ksa_exc.Conflict(message="in use", http_status=409)
            return _Response(None)

    class _Net:
        network = _Ports()
    cloud = Cloud(_Net(), retry_limit=0, backoff=0)
    status.delete(cloud, status.PORT, "p1")
    status.delete(cloud, status.PORT, "gone")
    with pytest.raises(errors.CloudError) as got:
        status.delete(cloud, status.PORT, "busy")
    assert got.value.status == 409
    assert sent == [("DELETE", "/ports/p1"), ("DELETE", "/ports/gone"), ("DELETE", "/ports/busy")]


def test_a_batch_small_beside_the_last_list_is_read_by_single_gets() -> None:
    """A detailed list returns the whole project (Nova and Cinder filter by id for admins
    only): once a list showed 40 servers, a batch of 2 (under 40 / LIST_SHARE) is read by
    each poll's own GET, while a batch of at least 40 / LIST_SHARE still shares one list."""
    adapter = _Adapter("server", "servers", _servers(40))
    cloud = Cloud(_Conn(adapter), retry_limit=0, backoff=0)
    _behind_one(cloud, adapter, ["s1", "s2"])   # no list yet: the batch is listed
    assert adapter.calls == ["/servers/s0", "/servers/detail"]
    assert status.batcher(cloud, status.SERVER).population == 40
    adapter.calls.clear()
    adapter.entered.clear()
    _, small = _behind_one(cloud, adapter, ["s3", "s4"])
    assert {k: v["name"] for k, v in small.items()} == {"s3": "server3", "s4": "server4"}
    assert sorted(adapter.calls) == ["/servers/s0", "/servers/s3", "/servers/s4"]
    adapter.calls.clear()
    adapter.entered.clear()
    wide = [f"s{i}" for i in range(1, 1 + -(-40 // status.LIST_SHARE))]
    _, got = _behind_one(cloud, adapter, wide)
    assert set(got) == set(wide) and all(got[i]["id"] == i for i in wide)
    assert adapter.calls == ["/servers/s0", "/servers/detail"]
