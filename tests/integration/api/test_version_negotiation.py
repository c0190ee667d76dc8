"""``v1`` and ``v1.0`` are served, in the URL or in the Accept header (the version segment read
as ``/v1``), as heat-api's VersionNegotiationFilter serves them: the stack list from the store."""
from __future__ import annotations

from typing import Any

V2 = "application/vnd.openstack.orchestration-v2+json"
V10 = "application/vnd.openstack.orchestration-v1.0+json"


def test_version_one_is_served_in_the_url_or_the_accept_header(client: Any) -> None:
    for resp in (client.get("/v1/admin/stacks"), client.get("/v1.0/admin/stacks"),
                 client.get("/admin/stacks", headers={"Accept": V10}),
                 client.get("/v1/admin/stacks", headers={"Accept": V2})):  # the URL wins
        assert resp.status_code == 200, resp.get_data()
        assert resp.get_json() == {"stacks": []}
