"""A pre-signed signal URL expires as Keystone's ``ec2tokens`` expires it (``_check_timestamp``:
the ``Timestamp`` plus ``[credential] auth_ttl``, 15 minutes): the noauth CFN API refuses an
older one with heat-api-cfn's 403 ``AccessDenied`` (Heat's ``EC2Token`` answer to Keystone's
401 "Credential is expired"), and one without a Timestamp (Heat's ``never_expire``) never
expires."""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlparse

import pytest

from app.resource_types import _ec2sign
from tests.integration.cfn.test_cfn_signals import _put, _reference, _stack
from tests.unit.cfn.test_cfn_signal_expiry import stamp


@pytest.fixture()
def both(db: Any) -> tuple[Any, Any]:
    from app import cfn
    from app.api import create_app
    return create_app(db).test_client(), cfn.create_app(db).test_client()


BODY = {"Status": "SUCCESS", "Reason": "r", "Data": "d", "UniqueId": "1"}


def _resigned(url: str, secret: str, **changes: str | None) -> str:
    parts = urlparse(url)
    params = {k: v[0] for k, v in parse_qs(parts.query).items() if k != "Signature"}
    params.update({k: v for k, v in changes.items() if v is not None})
    for k in [k for k, v in changes.items() if v is None]:
        params.pop(k, None)
    params["Signature"] = _ec2sign.signature_v2(secret, "PUT", parts.netloc,
                                                unquote(parts.path), params)
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(params)}"


def _secret(base: str) -> str:
    from sqlalchemy import select

    from app.models import Resource, read_session
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == base.rsplit("/", 1)[1],
                                               Resource.name == "H")).scalar_one()
    return str(row.rsrc_data["secret_key"])


def test_a_url_older_than_auth_ttl_is_refused_a_younger_one_is_honoured(both):
    api, cfn = both
    base, _ = _stack(api, "aws-expiry")
    url, secret = _reference(api, base), _secret(base)
    for bad in (_resigned(url, secret, Timestamp=stamp(15 * 60 + 5)),
                _resigned(url, secret, Timestamp="not-a-time")):
        resp = _put(cfn, bad, BODY)
        assert resp.status_code == 403, resp.data
        assert b"<Code>AccessDenied</Code>" in resp.data
    assert api.get(base).get_json()["stack"]["stack_status"] == "CREATE_IN_PROGRESS"
    # 14 minutes old: still honoured
    resp = _put(cfn, _resigned(url, secret, Timestamp=stamp(14 * 60)), BODY)
    assert resp.status_code == 200, resp.data
    assert api.get(base).get_json()["stack"]["stack_status"] == "CREATE_COMPLETE"
