"""heat-api-cfn's wait condition endpoint over the real services (SQLite, tasks in-process):
an AWS::CloudFormation::WaitCondition completes when its handle's pre-signed URL receives a
PUT; the same URL with a changed signature, key or ARN is refused."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, quote, urlencode, urlparse

import pytest

CFN_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "H": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
        "W": {"Type": "AWS::CloudFormation::WaitCondition",
              "Properties": {"Handle": {"Ref": "H"}, "Timeout": 600}}},
    "Outputs": {"Url": {"Value": {"Ref": "H"}},
                "Data": {"Value": {"Fn::GetAtt": ["W", "Data"]}}}}


@pytest.fixture()
def apis(db):  # type: ignore[no-untyped-def]
    from app import cfn
    from app.api import create_app
    api = create_app(db).test_client()
    return api, cfn.create_app(db).test_client()


def _stack(api, name: str) -> tuple[str, dict]:  # type: ignore[no-untyped-def]
    resp = api.post("/v1/admin/stacks", json={"stack_name": name, "template": CFN_TEMPLATE})
    assert resp.status_code == 201, resp.get_json()
    base = f"/v1/admin/stacks/{name}/{resp.get_json()['stack']['id']}"
    return base, api.get(base).get_json()["stack"]


def _reference(api, base: str) -> str:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from app.models import Resource, read_session
    stack_id = base.rsplit("/", 1)[1]
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                               Resource.name == "H")).scalar_one()
    return str(row.rsrc_data["ec2_signed_url"])


def _put(cfn, url: str, body: dict | None):  # type: ignore[no-untyped-def]
    parts = urlparse(url)
    return cfn.put(parts.path + "?" + parts.query, base_url=f"{parts.scheme}://{parts.netloc}",
                   data=json.dumps(body) if body is not None else None,
                   content_type="application/json")


def test_a_put_to_the_handles_presigned_url_completes_the_wait_condition(apis):
    api, cfn = apis
    base, st = _stack(api, "aws-wc")
    assert st["stack_status"] == "CREATE_IN_PROGRESS"
    url = _reference(api, base)
    stack_id = base.rsplit("/", 1)[1]
    arn = f"arn:openstack:heat::admin:stacks/aws-wc/{stack_id}/resources/H"
    assert url.startswith(f"http://127.0.0.1:8000/v1/waitcondition/{quote(arn)}?")
    query = parse_qs(urlparse(url).query)
    assert query["SignatureMethod"] == ["HmacSHA256"] and query["SignatureVersion"] == ["2"]
    assert {"AWSAccessKeyId", "Timestamp", "Signature"} <= set(query)

    resp = _put(cfn, url, {"Status": "SUCCESS", "Reason": "up", "Data": "hello",
                           "UniqueId": "1"})
    assert resp.status_code == 200, resp.data
    assert resp.get_json() == {"resource": "H", "metadata": {
        "1": {"Status": "SUCCESS", "Reason": "up", "Data": "hello"}}}
    st = api.get(base).get_json()["stack"]
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    outs = {o["output_key"]: o["output_value"] for o in st["outputs"]}
    assert json.loads(outs["Data"]) == {"1": "hello"} and outs["Url"] == url


def test_a_changed_signature_key_or_path_is_refused(apis):
    api, cfn = apis
    base, _ = _stack(api, "aws-wc-bad")
    url = _reference(api, base)
    parts = urlparse(url)
    params = {k: v[0] for k, v in parse_qs(parts.query).items()}
    body = {"Status": "SUCCESS", "Reason": "r", "Data": "d", "UniqueId": "1"}

    def with_params(**changes: str) -> str:
        return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode({**params, **changes})}"

    sig = params["Signature"]
    tampered = ("A" if sig[0] != "A" else "B") + sig[1:]
    for bad in (with_params(Signature=tampered), with_params(AWSAccessKeyId="someone-else"),
                with_params(Timestamp="2030-01-01T00:00:00Z")):
        resp = _put(cfn, bad, body)
        assert resp.status_code == 403, resp.data
        assert b"<Code>SignatureDoesNotMatch</Code>" in resp.data
    other = url.replace("resources/H", "resources/W")
    resp = _put(cfn, other, body)
    assert resp.status_code == 403  # W keeps no key: no URL of its own
    resp = _put(cfn, f"{parts.scheme}://{parts.netloc}{parts.path}", body)
    assert resp.status_code == 400 and b"IncompleteSignature" in resp.data
    assert api.get(f"{base}/resources/H/metadata").get_json() == {"metadata": {}}
    assert api.get(base).get_json()["stack"]["stack_status"] == "CREATE_IN_PROGRESS"
