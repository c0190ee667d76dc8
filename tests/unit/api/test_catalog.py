"""Validate, template versions and functions, resource types, build info, version discovery."""
from __future__ import annotations

from tests.unit.api.conftest import HOST
from tests.unit.api.shapes import assert_headers

TEMPLATE = {"heat_template_version": "2018-08-31", "description": "anchor RandomString stack",
            "parameters": {"len": {"type": "number", "default": 10}}, "resources": {}}


def test_validate_matches_sample(api, world, sample):
    resp = api.post("/v1/admin/validate", json={"template": TEMPLATE, "environment": {},
                                                "files": {}, "parameters": {"len": 3}})
    expected = sample("validate")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body
    call = world.called("validate_template")
    assert call["template"] == TEMPLATE and call["parameters"] == {"len": 3}
    assert call["show_nested"] is False and call["ignore_errors"] is None


def test_validate_query_params(api, world):
    api.post("/v1/admin/validate?show_nested=true&ignore_errors=99001,99002",
             json={"template": TEMPLATE})
    call = world.called("validate_template")
    assert call["show_nested"] is True and call["ignore_errors"] == ["99001", "99002"]


def test_validate_bad_template_is_http_bad_request(api, sample):
    bad = {**TEMPLATE, "resources": {"x": {"type": "OS::Nope"}}}
    resp = api.post("/v1/admin/validate", json={"template": bad})
    expected = sample("validate_bad")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_validate_without_template(api):
    resp = api.post("/v1/admin/validate", json={})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == "No template specified"


def test_template_versions_matches_sample(api, sample):
    resp = api.get("/v1/admin/template_versions")
    assert_headers(resp, sample("template_versions"))
    assert resp.get_json() == sample("template_versions").body


def test_template_functions(api, world):
    version = "heat_template_version.2018-08-31"
    resp = api.get(f"/v1/admin/template_versions/{version}/functions")
    assert resp.status_code == 200
    assert resp.get_json() == {"template_functions": [
        {"functions": "get_param", "description": "A function for resolving parameter "
                                                  "references."}]}
    assert world.called("template_functions") == {"args": (), "version": version,
                                                  "with_condition_func": False}
    api.get(f"/v1/admin/template_versions/{version}/functions?with_condition_func=True")
    assert world.called("template_functions")["with_condition_func"] is True
    resp = api.get("/v1/admin/template_versions/nope/functions")
    assert resp.status_code == 404
    assert resp.get_json()["error"]["message"] == "Template with version nope not found"


def test_resource_types_matches_sample(api, world, sample):
    resp = api.get("/v1/admin/resource_types")
    assert_headers(resp, sample("resource_types"))
    assert resp.get_json() == sample("resource_types").body
    api.get("/v1/admin/resource_types?name=OS::Heat::*&support_status=SUPPORTED"
            "&version=5.0.0&with_description=true")
    call = world.called("resource_types")
    assert call["name"] == "OS::Heat::*" and call["support_status"] == "SUPPORTED"
    assert call["version"] == "5.0.0" and call["with_description"] is True


def test_resource_type_show_and_template(api, world):
    resp = api.get("/v1/admin/resource_types/OS::Heat::Value")
    assert resp.status_code == 200
    assert resp.get_json()["resource_type"] == "OS::Heat::Value"
    assert set(resp.get_json()) == {"resource_type", "support_status", "properties",
                                    "attributes"}
    assert api.get("/v1/admin/resource_types/OS::Nope").status_code == 404
    resp = api.get("/v1/admin/resource_types/OS::Heat::Value/template?template_type=hot")
    assert resp.status_code == 200
    assert world.called("resource_type_template")["template_type"] == "hot"
    resp = api.get("/v1/admin/resource_types/OS::Heat::Value/template?template_type=xml")
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == (
        'Template type is not supported: Invalid template type "xml", valid types are: cfn, hot.')


def test_build_info(api):
    resp = api.get("/v1/admin/build_info")
    assert resp.status_code == 200
    body = resp.get_json()
    assert set(body) == {"api", "engine"}
    assert isinstance(body["api"]["revision"], str) and body["engine"]["revision"]


def test_version_discovery(api):
    for path in ("/", "/v1/"):
        resp = api.get(path)
        assert resp.status_code == 300
        assert resp.headers["Content-Type"] == "application/json"
        assert resp.get_json() == {"versions": [{
            "id": "v1.0", "status": "CURRENT",
            "links": [{"rel": "self", "href": f"{HOST}/v1/"}]}]}


def test_openapi_document(api):
    resp = api.get("/v1/openapi.json")
    assert resp.status_code == 200
    spec = resp.get_json()
    assert spec["info"]["title"] == "Stoker Orchestration API"
    assert "/v1/{tenant_id}/stacks" in spec["paths"]
    assert "post" in spec["paths"]["/v1/{tenant_id}/stacks"]


def test_openapi_document_built_when_read_documents_every_blueprint(api):
    """The document is built on first read: it still names every registered blueprint as a tag,
    documents every API route, and refers to Heat's fault body for the default error."""
    from app.api import _blueprints
    spec = api.get("/v1/openapi.json").get_json()
    assert [t["name"] for t in spec["tags"]] == [b.name for b in _blueprints()]
    assert spec["components"]["responses"]["DEFAULT_ERROR"]["content"]["application/json"][
        "schema"] == {"$ref": "#/components/schemas/Fault"}
    assert len(spec["paths"]) >= 40
    assert api.get("/v1/openapi.json").get_json() == spec  # a second read builds nothing new
