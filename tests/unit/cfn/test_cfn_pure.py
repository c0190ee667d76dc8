"""The CFN API's pure pieces: XML serialisation (Heat's XMLResponseSerializer rules), ARNs
(Heat's HeatIdentifier), member lists (Heat's extract_param_list), signature and access key
extraction (Heat's EC2Token), and the translation of service errors (Heat's map_remote_error)."""
from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from app import config, errors
from app.cfn import faults, formats, params, signing, xml


def test_xml_members_json_keys_booleans_and_none() -> None:
    doc = xml.to_xml({"R": {"List": [{"A": 1}, {"A": 2}], "TemplateBody": {"k": [1]},
                            "Metadata": {}, "Flag": True, "Off": False, "Gone": None,
                            "Text": "a<b&c"}})
    root = ET.fromstring(doc)
    assert [m.findtext("A") for m in root.findall("List/member")] == ["1", "2"]
    assert root.findtext("TemplateBody") == '{"k": [1]}'
    assert root.find("Metadata") is not None and root.findtext("Metadata") == ""
    assert (root.findtext("Flag"), root.findtext("Off")) == ("true", "false")
    assert root.find("Gone") is None and root.findtext("Text") == "a<b&c"
    assert doc.startswith(b"<?xml")
    assert xml.response("ListStacks", {"X": 1}) == {
        "ListStacksResponse": {"ListStacksResult": {"X": 1}}}
    with pytest.raises(ValueError):
        xml.to_xml({"a": 1, "b": 2})


def test_arn_quotes_every_part_and_round_trips() -> None:
    arn = formats.stack_arn("ten ant", "my/stack", "1234")
    assert arn == "arn:openstack:heat::ten%20ant:stacks/my%2Fstack/1234"
    assert formats.parse_arn(arn) == ("ten ant", "my/stack", "1234")
    assert formats.parse_arn("mystack") is None
    assert formats.parse_arn("arn:aws:cloudformation:us-east-1:1:stack/x/y") is None


def test_member_lists_order_by_index_and_refuse_malformed_keys() -> None:
    given = {"P.member.10.K": "ten", "P.member.2.K": "two", "P.member.2.V": "v",
             "Other": "x"}
    assert params.member_list(given, "P") == [{"K": "two", "V": "v"}, {"K": "ten"}]
    assert params.member_list({"C.member.1": "CAPABILITY_IAM"}, "C") == [
        {"": "CAPABILITY_IAM"}]
    for bad in ({"P.member.0.K": "x"}, {"P.members.1.K": "x"}, {"P.1.K": "x"}):
        with pytest.raises(faults.InvalidQueryParameter):
            params.member_list(bad, "P")


def test_parameter_pairs() -> None:
    pairs = {"Parameters.member.1.ParameterKey": "a", "Parameters.member.1.ParameterValue": "1",
             "Parameters.member.2.ParameterKey": "b",
             "Parameters.member.2.UsePreviousValue": "true"}
    assert params.parameter_pairs(pairs, previous={"b": "old"}) == {"a": "1", "b": "old"}
    with pytest.raises(faults.ValidationError):
        params.parameter_pairs(pairs)  # no previous value on a create
    with pytest.raises(faults.InvalidParameterCombination):
        params.parameter_pairs({**pairs, "Parameters.member.2.ParameterValue": "x"},
                               previous={"b": "old"})
    with pytest.raises(faults.MissingParameter) as missing:
        params.parameter_pairs({"Parameters.member.1.ParameterValue": "1"})
    assert missing.value.message == ("A mandatory input parameter is missing:"
                                     "Parameters.member.1.ParameterKey")
    assert params.flag({"X": "TRUE"}, "X") is True and params.flag({}, "X") is None
    with pytest.raises(faults.ValidationError):
        params.flag({"X": "maybe"}, "X")
    assert params.integer({"T": "5"}, "T") == 5
    for bad in ("-1", "five"):
        with pytest.raises(faults.ValidationError):
            params.integer({"T": bad}, "T")


V4 = ("AWS4-HMAC-SHA256 Credential=AKID/20261201/RegionOne/cloudformation/aws4_request, "
      "SignedHeaders=content-type;host;x-amz-date, Signature=abcdef0123")


def test_signature_and_access_from_every_signing_version() -> None:
    assert signing.signature_of({}, {"Authorization": V4}) == "abcdef0123"
    assert signing.access_of({}, {"Authorization": V4}) == "AKID"
    v2 = {"Signature": "sig2", "AWSAccessKeyId": "AK2", "SignatureVersion": "2"}
    assert (signing.signature_of(v2, {}), signing.access_of(v2, {})) == ("sig2", "AK2")
    presigned = {"X-Amz-Signature": "s4", "X-Amz-Credential": "AK4/20261201/r/s/aws4_request"}
    assert (signing.signature_of(presigned, {}), signing.access_of(presigned, {})) == (
        "s4", "AK4")
    assert signing.signature_of({}, {}) is None and signing.access_of({}, {}) is None


def test_noauth_needs_the_shapes_and_acts_in_the_default_project() -> None:
    s = config.load({}, tenant="demo", default_user="alice")
    common = {"host": "h", "verb": "POST", "path": "/v1/", "body": b"", "request_id": "req-1"}
    with pytest.raises(faults.IncompleteSignature):
        signing.authenticate(s, params={}, headers={}, **common)
    with pytest.raises(faults.MissingAuthenticationToken):
        signing.authenticate(s, params={"Signature": "x"}, headers={}, **common)
    ctx = signing.authenticate(s, params={}, headers={"Authorization": V4}, **common)
    assert (ctx.tenant_id, ctx.user_id, ctx.request_id) == ("demo", "alice", "req-1")


def test_ec2tokens_url() -> None:
    assert signing.ec2tokens_url(config.load({}, keystone_url="http://k/identity/v3/")) == \
        "http://k/identity/v3/ec2tokens"
    assert signing.ec2tokens_url(config.load({}, keystone_url="http://k:5000")) == \
        "http://k:5000/v3/ec2tokens"
    assert signing.ec2tokens_url(config.load({}, cfn_ec2_auth_url="http://x/ec2")) == \
        "http://x/ec2"


def test_service_errors_map_as_heat_maps_them() -> None:
    cases = [(errors.StackExists("s"), 400, "AlreadyExistsException"),
             (errors.NotFound("Stack", "s"), 400, "ValidationError"),
             (errors.TemplateError("bad"), 400, "ValidationError"),
             (errors.BadRequest("bad", heat_type="NotSupported"), 400, "ValidationError"),
             (errors.RequestLimitExceeded("big"), 400, "RequestLimitExceeded"),
             (errors.Forbidden("no"), 403, "AccessDenied"),
             (errors.CloudError("down"), 500, "InternalFailure")]
    for exc, status, code in cases:
        err = faults.from_stoker(exc)
        assert (err.code, err.title) == (status, code)
    body = ET.fromstring(faults.from_stoker(errors.NotFound("Stack", "s")).body("req-9"))
    assert body.tag == "ErrorResponse" and body.findtext("RequestId") == "req-9"
    assert body.findtext("Error/Type") == "Sender"
    assert body.findtext("Error/Message") == (
        "A bad or out-of-range value was supplied:The Stack (s) could not be found.")
    assert ET.fromstring(faults.InternalFailure().body()).findtext("Error/Type") == "Server"
