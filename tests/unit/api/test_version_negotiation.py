"""Unsupported API versions as heat-api's VersionNegotiationFilter answers them: an unknown
version in the URL (``/v2/...``, a minor version such as ``/v1.1/...``) or in the Accept header
of an unversioned path gets the versions document with ``300 Multiple Choices``; ``v1`` and
``v1.0`` are served (the version segment read as ``/v1``)."""
from __future__ import annotations

from typing import Any

import pytest

V2 = "application/vnd.openstack.orchestration-v2+json"
V10 = "application/vnd.openstack.orchestration-v1.0+json"


def _is_versions(resp: Any) -> None:
    assert resp.status_code == 300, resp.get_data()
    assert resp.get_json() == {"versions": [{"id": "v1.0", "status": "CURRENT", "links": [
        {"rel": "self", "href": "http://localhost/v1/"}]}]}


def test_root_is_the_versions_document(client: Any) -> None:
    _is_versions(client.get("/"))
    _is_versions(client.get("/versions"))


@pytest.mark.parametrize("path", ["/v2/admin/stacks", "/v1.1/admin/stacks", "/v3", "/v2/"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_version_in_the_url_is_300(client: Any, path: str, method: str) -> None:
    _is_versions(getattr(client, method)(path, json={}))


def test_an_unknown_version_in_the_accept_header_is_300(client: Any) -> None:
    _is_versions(client.get("/admin/stacks", headers={"Accept": V2}))
    _is_versions(client.get("/admin/stacks",
                            headers={"Accept": "application/vnd.openstack.orchestration-v1.1"}))


def test_version_one_is_served_in_the_url_or_the_accept_header(client: Any) -> None:
    for resp in (client.get("/v1/admin/stacks"), client.get("/v1.0/admin/stacks"),
                 client.get("/admin/stacks", headers={"Accept": V10}),
                 client.get("/v1/admin/stacks", headers={"Accept": V2})):  # the URL wins
        assert resp.status_code == 200, resp.get_data()
        assert resp.get_json() == {"stacks": []}


def test_an_unversioned_path_without_a_version_header_is_not_found(client: Any) -> None:
    assert client.get("/admin/stacks").status_code == 404
