"""Stacks routes against Heat's recorded responses (fake services)."""
from __future__ import annotations

import pytest

from tests.unit.api.conftest import BASE, HOST, STACK_ID, STACK_NAME, t
from tests.unit.api.shapes import assert_headers

CREATE = {"stack_name": STACK_NAME, "disable_rollback": True, "parameters": {"len": 16},
          "template": {"heat_template_version": "2018-08-31", "resources": {}},
          "files": {}, "environment": {}}


def test_create_is_201_with_location_and_heat_body(api, world, sample):
    world.stacks.clear()
    resp = api.post("/v1/admin/stacks", json=CREATE)
    expected = sample("stack_create")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_create_passes_heatclient_fields_to_the_service(api, world):
    body = {**CREATE, "stack_name": "fresh", "timeout_mins": "10", "tags": "a, b",
            "disable_rollback": "false", "environment_files": ["env.yaml"],
            "files": {"env.yaml": "parameters: {}"}}
    assert api.post("/v1/admin/stacks", json=body).status_code == 201
    call = world.called("create_stack")
    assert call["stack_name"] == "fresh" and call["template"] == CREATE["template"]
    assert call["timeout_mins"] == 10 and call["tags"] == ["a", "b"]
    assert call["disable_rollback"] is False
    assert call["parameters"] == {"len": 16} and call["environment"] == {}
    assert call["environment_files"] == ["env.yaml"] and call["files"] == body["files"]
    assert call["ctx"].tenant_id == "admin" and call["ctx"].user_id == "admin"


def test_create_accepts_template_text(api, world):
    text = "heat_template_version: 2018-08-31\nresources: {}\n"
    assert api.post("/v1/admin/stacks", json={**CREATE, "stack_name": "x",
                                              "template": text}).status_code == 201
    assert world.called("create_stack")["template"] == text


def test_duplicate_is_409_stack_exists(api, sample):
    resp = api.post("/v1/admin/stacks", json=CREATE)
    expected = sample("stack_create_dup")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


@pytest.mark.parametrize("body,message", [
    ({"template": {"heat_template_version": "2018-08-31"}}, "No stack name specified"),
    ({"stack_name": "x"}, "No template specified"),
    ({"stack_name": "x", "template": {}, "timeout_mins": "ten"},
     "Only integer is acceptable by 'timeout_mins'."),
    ({"stack_name": "x", "template": {}, "timeout_mins": -1},
     "Value '-1' is invalid for 'timeout_mins' which only accepts non-negative integer."),
    ({"stack_name": "x", "template": {}, "disable_rollback": "maybe"},
     'Unrecognized value "maybe" for "disable_rollback", acceptable values are: true, false.'),
    ({"stack_name": "x", "template": {}, "disable_rollback": None},  # heat/engine/api.py
     'Unrecognized value "None" for "disable_rollback", acceptable values are: true, false.'),
    ({"stack_name": "x", "template": {}, "tags": "a" * 81},
     f'Invalid tag, "{"a" * 81}" is longer than 80 characters'),
    ({"stack_name": "x", "template": {}, "tags": ["ok", "a\x00b"]},
     "Invalid tag 'a\\x00b': a NUL character (\\x00) is not allowed."),
])
def test_create_bad_request(api, world, body, message):
    resp = api.post("/v1/admin/stacks", json=body)
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {"type": "HTTPBadRequest", "traceback": None,
                                        "message": message}
    assert not [c for c in world.calls if c[0] == "create_stack"]


def test_template_url_is_not_fetched(api, world):
    resp = api.post("/v1/admin/stacks", json={"stack_name": "x",
                                              "template_url": "http://example.com/t.yaml"})
    assert resp.status_code == 400
    error = resp.get_json()["error"]
    assert error["type"] == "HTTPBadRequest" and "template_url" in error["message"]
    assert not [c for c in world.calls if c[0] == "create_stack"]


def test_list_matches_sample(api, world, sample):
    resp = api.get("/v1/admin/stacks")
    expected = sample("stack_list")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_list_passes_paging_sorting_and_filters(api, world):
    resp = api.get("/v1/admin/stacks?limit=1&marker=m&sort_keys=stack_name&sort_keys=created_at"
                   "&sort_dir=asc&show_deleted=true&status=COMPLETE&name=a&name=b&bogus=1")
    assert resp.status_code == 200
    call = world.called("list_stacks")
    assert call["limit"] == 1 and call["marker"] == "m" and call["sort_dir"] == "asc"
    assert call["sort_keys"] == ["stack_name", "created_at"] and call["show_deleted"] is True
    assert call["filters"] == {"status": "COMPLETE", "name": ["a", "b"]}
    links = resp.get_json()["links"]
    assert links[0]["rel"] == "next"
    assert links[0]["href"].startswith(f"{HOST}/v1/admin/stacks?")
    assert f"marker={STACK_ID}" in links[0]["href"] and "limit=1" in links[0]["href"]


def test_list_hides_deleted_and_bad_params_are_400(api, world):
    world.stacks[1].deleted_at = t("2026-11-29T09:00:00Z")
    assert [s["stack_name"] for s in api.get("/v1/admin/stacks").get_json()["stacks"]] == [
        STACK_NAME]
    assert api.get("/v1/admin/stacks?limit=x").status_code == 400
    assert api.get("/v1/admin/stacks?show_deleted=yes").status_code == 400


def test_list_without_admin_role_has_no_project(api, world):
    stacks = api.get("/v1/admin/stacks", headers={"X-Roles": "member"}).get_json()["stacks"]
    assert "project" not in stacks[0]


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch", "post"])
def test_lookup_by_name_redirects_with_heat_body(api, method, sample):
    resp = getattr(api, method)(f"/v1/admin/stacks/{STACK_NAME}")
    expected = sample("stack_lookup_redirect")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_lookup_by_id_and_sub_paths_redirect(api):
    resp = api.get(f"/v1/admin/stacks/{STACK_ID}")
    assert resp.status_code == 302
    assert resp.headers["Location"] == f"{HOST}{BASE}"
    for sub in ("resources", "events", "template", "environment", "files", "actions"):
        resp = api.get(f"/v1/admin/stacks/{STACK_NAME}/{sub}?nested_depth=2")
        assert resp.status_code == 302
        assert resp.headers["Location"] == f"{HOST}{BASE}/{sub}?nested_depth=2"
    assert api.post(f"/v1/admin/stacks/{STACK_NAME}/actions").status_code == 302
    assert api.post(f"/v1/admin/stacks/{STACK_NAME}/files").status_code == 405


def test_lookup_unknown_is_404(api, sample):
    resp = api.get("/v1/admin/stacks/nosuch")
    expected = sample("stack_not_found")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_follow_redirect_to_show(api, sample):
    resp = api.get(f"/v1/admin/stacks/{STACK_NAME}", follow_redirects=True)
    assert resp.status_code == 200
    assert resp.get_json() == sample("stack_show").body


def test_show_matches_sample(api, sample):
    resp = api.get(BASE)
    expected = sample("stack_show")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_show_without_outputs_and_after_delete(api, world, sample):
    body = api.get(f"{BASE}?resolve_outputs=false").get_json()["stack"]
    assert "outputs" not in body
    row = world.stacks[0]
    row.action, row.status = "DELETE", "COMPLETE"
    row.status_reason = "Stack DELETE completed successfully"
    row.updated_at, row.deleted_at = t("2026-11-29T08:06:12Z"), t("2026-11-29T08:06:13Z")
    resp = api.get(BASE)
    expected = sample("stack_show_after_delete")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_show_wrong_name_is_404(api):
    resp = api.get(f"/v1/admin/stacks/other/{STACK_ID}")
    assert resp.status_code == 404
    assert resp.get_json()["error"]["type"] == "EntityNotFound"


def test_delete_is_204_empty(api, world, sample):
    resp = api.delete(BASE)
    assert_headers(resp, sample("stack_delete"))
    assert resp.data == b""
    assert world.called("delete_stack")["stack_id"] == STACK_ID


def test_update_without_a_template_is_400_before_any_service_call(api):
    resp = api.put(BASE, json={})  # update itself: tests/integration/api/test_stack_update.py
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == "No template specified"


def test_template_environment_files(api, sample):
    resp = api.get(f"{BASE}/template")
    assert_headers(resp, sample("template_show"))
    assert resp.get_json() == sample("template_show").body
    resp = api.get(f"{BASE}/environment")
    assert_headers(resp, sample("environment_show"))
    assert resp.get_json() == sample("environment_show").body
    resp = api.get(f"{BASE}/files")
    assert resp.status_code == 200
    assert resp.get_json() == {"file:///home/u/hello.sh": "#!/bin/sh\necho hello\n"}


def test_outputs_list_and_show(api, world, sample):
    resp = api.get(f"{BASE}/outputs")
    assert_headers(resp, sample("output_list"))
    assert resp.get_json() == sample("output_list").body
    resp = api.get(f"{BASE}/outputs/pw")
    assert_headers(resp, sample("output_show"))
    assert resp.get_json() == sample("output_show").body


def test_output_error_and_unknown_output(api, world):
    world.outputs.append({"output_key": "bad", "description": "d", "output_value": None,
                          "output_error": "The Referenced Attribute (rs nope) is incorrect."})
    body = api.get(f"{BASE}/outputs/bad").get_json()["output"]
    assert body["output_error"] == "The Referenced Attribute (rs nope) is incorrect."
    resp = api.get(f"{BASE}/outputs/nope")
    assert resp.status_code == 404
    assert resp.get_json()["error"] == {"type": "NotFound", "traceback": None,
                                        "message": "Specified output key nope not found."}


def test_list_show_nested_and_with_count(api, world):
    body = api.get("/v1/admin/stacks?limit=1&with_count=true&show_nested=true").get_json()
    assert len(body["stacks"]) == 1 and body["count"] == 2
    assert world.called("list_stacks")["limit"] == 1
    call = world.called("count_stacks")  # Heat's count_stacks: no paging arguments
    assert call["show_nested"] is True and "limit" not in call and "marker" not in call
    api.get("/v1/admin/stacks")
    assert "show_nested" not in world.called("list_stacks")
    assert "count" not in api.get("/v1/admin/stacks").get_json()


def test_detail_lists_show_form_without_outputs(api, sample):
    resp = api.get("/v1/admin/stacks/detail")
    assert resp.status_code == 200
    first = resp.get_json()["stacks"][0]
    expected = dict(sample("stack_show").body["stack"])
    del expected["outputs"]
    assert first == expected


def test_arn_lookup_redirects_without_asking_the_engine(api, world):
    arn = f"arn:openstack:heat::admin:stacks/{STACK_NAME}/{STACK_ID}"
    resp = api.get(f"/v1/admin/stacks/{arn}")
    assert resp.status_code == 302 and resp.headers["Location"] == f"{HOST}{BASE}"
    resp = api.delete(f"/v1/admin/stacks/{arn}/resources/rs")
    assert resp.headers["Location"] == f"{HOST}{BASE}/resources/rs"
    assert not [c for c in world.calls if c[0] == "lookup_stack"]
    assert api.get("/v1/admin/stacks/arn:aws:nope").status_code == 400
