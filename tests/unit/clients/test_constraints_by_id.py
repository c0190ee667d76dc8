"""app.clients.constraints: ids of a stack's own objects resolved from the API's JSON."""
from __future__ import annotations

import json
from typing import Any

import pytest
from keystoneauth1 import exceptions as ksa_exc

from app import errors
from app.clients import constraints
from app.clients.retry import Cloud

SERVER_ID = "0b5e9c2e-8f5c-4a4e-9d36-0f0c5d8f7a11"


class _Response:
    def __init__(self, body: Any) -> None:
        self.content = json.dumps(body).encode()  # what requests' Response carries
        self._body = body

    def json(self) -> Any:
        return self._body


class _Compute:
    def __init__(self, status: int | None = None) -> None:
        self.status = status
        self.paths: list[str] = []
        self.finds: list[str] = []

    def request(self, path: str, method: str, raise_exc: bool = True, **kwargs: Any) -> Any:
        self.paths.append(path)
        if self.status == 404:
            raise ksa_exc.NotFound(message="Instance could not be found.", http_status=404)
        if self.status == 503:
            raise ksa_exc.ServiceUnavailable(message="down", http_status=503)
        return _Response({"server": {"id": path.rsplit("/", 1)[1], "status": "ACTIVE"}})

    def find_server(self, value: str, ignore_missing: bool = True) -> Any:
        self.finds.append(value)

        class _Found:
            id = "by-name"
        return _Found()


class _Conn:
    def __init__(self, compute: _Compute) -> None:
        self.compute = compute


def test_an_id_is_read_without_the_sdks_find() -> None:
    compute = _Compute()
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    assert constraints.resolve(cloud, "nova.server", SERVER_ID) == SERVER_ID
    assert compute.paths == [f"/servers/{SERVER_ID}"] and compute.finds == []


def test_a_name_or_an_unknown_id_goes_to_the_sdks_find() -> None:
    compute = _Compute()
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    assert constraints.resolve(cloud, "nova.server", "my-server") == "by-name"
    assert compute.paths == [] and compute.finds == ["my-server"]
    gone = _Compute(status=404)
    cloud = Cloud(_Conn(gone), retry_limit=0, backoff=0)
    assert constraints.resolve(cloud, "nova.server", SERVER_ID) == "by-name"
    assert gone.finds == [SERVER_ID]


def test_a_failing_cloud_is_not_taken_for_a_missing_id() -> None:
    down = _Compute(status=503)
    cloud = Cloud(_Conn(down), retry_limit=0, backoff=0)
    with pytest.raises(errors.CloudError) as got:
        constraints.resolve(cloud, "nova.server", SERVER_ID)
    assert got.value.status == 503 and got.value.transient and down.finds == []


def test_an_id_the_cloud_showed_is_kept_and_a_name_is_not() -> None:
    """As Heat keeps a custom constraint's successful validation (60 s): an update that checks
    its servers' ports again does not read them again; a name may name a replacement, so it is
    always looked up, and an id the cloud did not show is never kept."""
    constraints.forget_catalogue()
    compute = _Compute()
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    for _ in range(3):
        assert constraints.resolve(cloud, "nova.server", SERVER_ID) == SERVER_ID
        assert constraints.resolve(cloud, "nova.server", "my-server") == "by-name"
    assert compute.paths == [f"/servers/{SERVER_ID}"] and compute.finds == ["my-server"] * 3
    gone = _Compute(status=404)
    cloud = Cloud(_Conn(gone), retry_limit=0, backoff=0)
    for _ in range(2):
        constraints.resolve(cloud, "nova.server", SERVER_ID)
    assert len(gone.paths) == 2
    constraints.forget_catalogue()
