"""``GET /v1/{tenant}/resource_types?name=``: Heat's api-ref makes ``name`` a regular expression.
An invalid one is a 400 with Heat's fault body (Heat 27 answers a 500), and one made to backtrack
without end is refused when its match runs out of time instead of holding an API worker
(Heat spins until the WSGI server kills it)."""
from __future__ import annotations


def _types(client, name):
    return client.get("/v1/admin/resource_types", query_string={"name": name})


def test_the_filter_is_a_regular_expression(client):
    resp = _types(client, r"^OS::Heat::(None|Value)$")
    assert resp.status_code == 200
    assert sorted(resp.get_json()["resource_types"]) == ["OS::Heat::None", "OS::Heat::Value"]


def test_an_invalid_expression_is_a_400_with_heats_fault(client):
    resp = _types(client, "[")
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"]["type"] == "HTTPBadRequest"
    assert "Invalid resource type name filter '['" in body["error"]["message"]


def test_the_backtracking_pattern_of_a_denial_of_service_answers_at_once(client):
    """Heat's ``re`` spins on this one; the matcher here answers (no type ends in ``!``)."""
    resp = _types(client, r"(\w*)*::(\w*)*::(\w*)*!")
    assert resp.status_code == 200 and resp.get_json()["resource_types"] == []


def test_a_match_that_runs_out_of_time_is_a_400(client, monkeypatch):
    from app.services import validation
    monkeypatch.setattr(validation, "NAME_FILTER_SECONDS", 1e-9)
    resp = _types(client, r"((\w|:)*)*X")
    assert resp.status_code == 400
    assert "takes too long to match" in resp.get_json()["error"]["message"]
