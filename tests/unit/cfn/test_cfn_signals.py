"""A wait condition handle's pre-signed URL (app.resource_types._ec2sign) is signed as
keystoneclient's EC2 v2 signer signs it."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from app.resource_types import _ec2sign


def test_presigned_url_matches_keystoneclients_v2_signer():
    from keystoneclient.contrib.ec2.utils import Ec2Signer
    arn = _ec2sign.resource_arn("t", "s", "id-1", "h")
    url = _ec2sign.presigned_url("http://Host:8000/v1", arn, "AK", "secret",
                                 "2026-12-01T10:00:00Z")
    parts = urlparse(url)
    params = {k: v[0] for k, v in parse_qs(parts.query).items()}
    sig = params.pop("Signature")
    path = "/v1/waitcondition/" + arn
    assert Ec2Signer("secret").generate({"host": "host:8000", "verb": "PUT", "path": path,
                                         "params": dict(params)}) == sig
    assert _ec2sign.verify("secret", "PUT", "host:8000", path, {**params, "Signature": sig})
    assert not _ec2sign.verify("other", "PUT", "host:8000", path, {**params, "Signature": sig})
    assert _ec2sign.arn_of_url(url) == ("t", "s", "id-1", "h")
    assert _ec2sign.parse_arn("arn:openstack:heat::t:stacks/s") is None
