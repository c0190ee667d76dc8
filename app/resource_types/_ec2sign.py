"""Pre-signed EC2 (signature version 2, HmacSHA256) URLs of the CFN signal endpoints (pure).

As Heat's ``SignalResponder._get_ec2_signed_url`` (heat/engine/resources/signal_responder.py)
signs them and keystoneclient's ``Ec2Signer`` checks them: the string to sign is
``"<VERB>\\n<host>\\n<unquoted path>\\n<canonical query>"`` (parameters sorted, values quoted
but ``-_~``), the signature its base64 HMAC-SHA256 under the secret key. The URL's path is
``/v1/waitcondition/<quoted ARN>`` (``/v1/signal/...`` for alarms), the ARN that of the resource
(``arn:openstack:heat::<tenant>:stacks/<stack name>/<stack id>/resources/<resource>``).
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import quote, unquote, urlencode, urlparse

WAITCONDITION, SIGNAL = "/waitcondition", "/signal"
VERBS = {WAITCONDITION: "PUT", SIGNAL: "POST"}


class ResourceArn(NamedTuple):
    """The parts of a resource ARN."""
    tenant: str
    stack_name: str
    stack_id: str
    resource_name: str


def resource_arn(tenant: str, stack_name: str, stack_id: str, resource_name: str) -> str:
    """Heat's ``ResourceIdentifier.arn()``."""
    return (f"arn:openstack:heat::{quote(tenant, '')}:stacks/{quote(stack_name, '')}/"
            f"{quote(stack_id, '')}/resources/{quote(resource_name, '')}")


def parse_arn(arn: str) -> ResourceArn | None:
    """The parts of an (unquoted) resource ARN, None if it is not one."""
    prefix = "arn:openstack:heat::"
    if not arn.startswith(prefix):
        return None
    tenant, _, rest = arn[len(prefix):].partition(":")
    parts = rest.split("/")
    if len(parts) != 5 or parts[0] != "stacks" or parts[3] != "resources":
        return None
    return ResourceArn(unquote(tenant), unquote(parts[1]), unquote(parts[2]), unquote(parts[4]))


def arn_of_url(url: str) -> ResourceArn | None:
    """The resource ARN in a signal URL's path (``.../waitcondition/<quoted ARN>``)."""
    path = unquote(urlparse(url).path)
    for kind in (WAITCONDITION, SIGNAL):
        marker = f"/v1{kind}/"
        if marker in path:
            return parse_arn(path.split(marker, 1)[1])
    return None


def signature_v2(secret: str, verb: str, host: str, path: str,
                 params: Mapping[str, str]) -> str:
    """The EC2 version-2 signature (HmacSHA256) of a request; ``params`` without
    ``Signature``."""
    pairs = [f"{quote(k, safe='')}={quote(str(params[k]), safe='-_~')}"
             for k in sorted(params)]
    to_sign = f"{verb}\n{host}\n{path}\n" + "&".join(pairs)
    digest = hmac.new(secret.encode(), to_sign.encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def presigned_url(base: str, arn: str, access_key: str, secret: str, timestamp: str | None,
                  kind: str = WAITCONDITION) -> str:
    """A pre-signed signal URL, as Heat builds it: ``base`` is the CFN API's ``.../v1``,
    ``timestamp`` ``YYYY-MM-DDTHH:MM:SSZ``, or None for a URL without one (Heat's
    ``never_expire=True``)."""
    signal_url = base.rstrip("/") + kind
    host = urlparse(signal_url)
    path = "/" + quote(arn)
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": access_key}
    if timestamp is not None:
        params["Timestamp"] = timestamp
    params["Signature"] = signature_v2(secret, VERBS[kind], host.netloc.lower(),
                                       unquote(host.path + path), params)
    return f"{signal_url.lower()}{path}?{urlencode(params)}"


def verify(secret: str, verb: str, host: str, path: str, params: Mapping[str, str]) -> bool:
    """Whether ``params["Signature"]`` signs this request (constant-time comparison)."""
    given = params.get("Signature")
    if not given:
        return False
    expected = signature_v2(secret, verb, host.lower(), path,
                            {k: v for k, v in params.items() if k != "Signature"})
    return hmac.compare_digest(given, expected)


def expired(params: Mapping[str, str], ttl: float, now: float) -> bool:
    """Whether a signed request's ``Timestamp`` is more than ``ttl`` seconds before ``now``
    (epoch seconds), as Keystone's ``ec2tokens`` checks it (``_check_timestamp``: the
    credential's ``auth_ttl``, 15 minutes by default); a request without one never expires
    (Heat's ``never_expire`` URLs); an unreadable one counts as expired (Keystone: "Credential
    timestamp is invalid")."""
    stamp = params.get("Timestamp")
    if not stamp:
        return False
    try:
        when = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return True
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return now > when.timestamp() + ttl
