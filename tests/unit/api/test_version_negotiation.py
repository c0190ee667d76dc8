"""Unsupported API versions as heat-api's VersionNegotiationFilter answers them: an unknown
version in the URL (``/v2/...``, a minor version such as ``/v1.1/...``) or in the Accept header
of an unversioned path gets the versions document with ``300 Multiple Choices``."""
from __future__ import annotations

from typing import Any

import pytest

V2 = "application/vnd.openstack.orchestration-v2+json"


def _assert_versions(resp: Any) -> None:
    assert resp.status_code == 300, resp.get_data()
    assert resp.get_json() == {"versions": [{"id": "v1.0", "status": "CURRENT", "links": [
        {"rel": "self", "href": "http://localhost/v1/"}]}]}


def test_root_is_the_versions_document(client: Any) -> None:
    _assert_versions(client.get("/"))
    _assert_versions(client.get("/versions"))


@pytest.mark.parametrize("path", ["/v2/admin/stacks", "/v1.1/admin/stacks", "/v3", "/v2/"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_version_in_the_url_is_300(client: Any, path: str, method: str) -> None:
    _assert_versions(getattr(client, method)(path, json={}))


def test_an_unknown_version_in_the_accept_header_is_300(client: Any) -> None:
    _assert_versions(client.get("/admin/stacks", headers={"Accept": V2}))
    _assert_versions(client.get("/admin/stacks",
                            headers={"Accept": "application/vnd.openstack.orchestration-v1.1"}))


def test_an_unversioned_path_without_a_version_header_is_not_found(client: Any) -> None:
    assert client.get("/admin/stacks").status_code == 404
