"""A pre-signed signal URL expires as Keystone's ``ec2tokens`` expires it (``_check_timestamp``:
the ``Timestamp`` plus ``[credential] auth_ttl``, 15 minutes): the noauth CFN API refuses an
older one with heat-api-cfn's 403 ``AccessDenied`` (Heat's ``EC2Token`` answer to Keystone's
401 "Credential is expired"), and one without a Timestamp (Heat's ``never_expire``) never
expires."""
from __future__ import annotations

import time

from app.resource_types import _ec2sign


def stamp(seconds_ago: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds_ago))


def test_expired_is_keystones_rule():
    now = time.time()
    assert not _ec2sign.expired({}, 900, now)
    assert not _ec2sign.expired({"Timestamp": stamp(899)}, 900, now)
    assert _ec2sign.expired({"Timestamp": stamp(902)}, 900, now)
    assert _ec2sign.expired({"Timestamp": "yesterday"}, 900, now)
