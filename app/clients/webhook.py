"""POSTing JSON to a URL a template gave (an event sink's webhook), to the address that was
checked: no server-side request forgery through the URL or through DNS.

A template author may not make Stoker POST to its own loopback services (Flower, the sandbox's
control API), link-local metadata or a private network, unless the operator allows private
addresses. Checking a name's addresses and then letting an HTTP library resolve it again would
let a name that answers a global address first and ``127.0.0.1`` next (DNS rebinding) through;
so :func:`post_json` resolves once, checks every address, and connects to the checked one, with
the URL's host in ``Host`` and, for https, in SNI and the certificate check. It never follows
a redirect. Resolution happens at delivery time, on the caller's (a courier's) thread.
"""
from __future__ import annotations

import ipaddress
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from app import errors


class WebhookRefused(errors.BadRequest):
    """The URL may not be used: another scheme than http(s), no host, or (without private
    addresses allowed) a host that is or resolves to a non-global address. Permanent."""


class WebhookFailed(errors.CloudError):
    """The webhook answered, but not with a 2xx status (``status``)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message, status=status, transient=status >= 500)


def check_url(url: str, allow_private: bool) -> None:
    """What can be told without DNS: an http(s) URL with a host, and, for an IP literal host,
    a global address (unless ``allow_private``).

    :raises WebhookRefused: as the class says.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRefused(f"a webhook event sink needs an http(s) URL, not {url!r}")
    try:
        literal = ipaddress.ip_address(parts.hostname.split("%", 1)[0])
    except ValueError:
        return
    if not allow_private:
        _refuse_unless_global(parts.hostname, literal)


def _refuse_unless_global(host: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    if not address.is_global:
        raise WebhookRefused(f"the webhook host {host!r} is a non-global address ({address}); "
                             "STOKER_EVENT_SINK_PRIVATE_ADDRESSES allows it")


def resolve(host: str, port: int, allow_private: bool) -> str:
    """The address to connect to for ``host``: the first of its addresses, all of which must be
    global (unless ``allow_private``).

    :raises WebhookRefused: a non-global address among them.
    :raises OSError: the name does not resolve (``socket.gaierror``; worth a retry).
    """
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    addresses = [str(info[4][0]).split("%", 1)[0] for info in infos]
    if not addresses:
        raise OSError(f"the webhook host {host!r} has no address")
    if not allow_private:
        for found in addresses:
            _refuse_unless_global(host, ipaddress.ip_address(found))
    return addresses[0]


def post_json(url: str, body: Any, headers: dict[str, str], timeout: float,
              allow_private: bool, ca_certs: str | None = None) -> int:
    """POST ``body`` as JSON to ``url``, connected to the address :func:`resolve` checked; for
    https, the server's certificate must be valid for the URL's host (``ca_certs``: a CA bundle
    file, default requests' bundle).

    :returns: the 2xx status.
    :raises WebhookRefused: see :func:`check_url` and :func:`resolve`.
    :raises WebhookFailed: a status other than 2xx (a redirect included: not followed).
    :raises OSError: no such name; ``urllib3.exceptions.HTTPError``: no connection, timeout, TLS.
    """
    import urllib3
    from requests.utils import DEFAULT_CA_BUNDLE_PATH

    check_url(url, allow_private)
    parts = urlsplit(url)
    host = str(parts.hostname)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = resolve(host, port, allow_private)
    sent = {"Content-Type": "application/json", **headers,
            "Host": parts.netloc.rsplit("@", 1)[-1]}
    if parts.username is not None:
        sent.update(urllib3.util.make_headers(
            basic_auth=f"{parts.username}:{parts.password or ''}"))
    pool: urllib3.HTTPConnectionPool
    if https:
        pool = urllib3.HTTPSConnectionPool(
            address, port, timeout=timeout, retries=False, server_hostname=host,
            assert_hostname=host, cert_reqs="CERT_REQUIRED", ca_certs=ca_certs or DEFAULT_CA_BUNDLE_PATH)
    else:
        pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        resp = pool.urlopen("POST", path, body=json.dumps(body).encode(), headers=sent,
                            redirect=False, retries=False)
    finally:
        pool.close()
    if not 200 <= resp.status < 300:
        raise WebhookFailed(f"the webhook answered {resp.status}", resp.status)
    return int(resp.status)
