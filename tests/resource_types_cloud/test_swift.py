"""Swift types against the sandbox, driven as the engine drives them: the SwiftSignal's reading
of its handle's signals (versions, default ids, a later signal of the same id replacing the
earlier one), a FAILURE signal, a handle URL of another stack refused with Heat's message, and
an S3 bucket's canned ACLs."""
from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from app import errors

pytestmark = pytest.mark.usefixtures("no_leaks")


def _put(url: str, body: Any) -> None:
    data = body if isinstance(body, str) else json.dumps(body)
    assert requests.put(url, data=data, timeout=5).status_code == 201


def test_signals_are_read_as_heat_reads_them(driver: Any) -> None:
    handle = driver.create("OS::Heat::SwiftSignalHandle", "handle", {})
    url = handle.get_reference_id()
    assert handle.resolve_attribute("curl_cli") == f"curl -i -X PUT '{url}'"
    _put(url, "")                                            # {} -> id 1, SUCCESS
    _put(url, {"id": "x", "data": "first"})
    _put(url, {"id": "x", "data": "second", "reason": "done"})
    signal = driver.create("OS::Heat::SwiftSignal", "signal",
                           {"handle": url, "timeout": 30, "count": 2})
    assert json.loads(signal.resolve_attribute("data")) == {"1": None, "x": "second"}
    _put(url, {"status": "FAILURE", "reason": "disk full"})
    with pytest.raises(errors.StokerError) as caught:
        driver.create("OS::Heat::SwiftSignal", "signal2", {"handle": url, "timeout": 30})
    assert (caught.value.heat_type, str(caught.value)) == ("SwiftSignalFailure", "disk full")
    driver.delete(handle)


def test_a_handle_of_another_stack_is_refused(driver: Any) -> None:
    other = "http://127.0.0.1:1/v1/AUTH_x/elsewhere/obj?temp_url_sig=a&temp_url_expires=1"
    signal = driver.make("OS::Heat::SwiftSignal", "signal", {"handle": other, "timeout": 5})
    with pytest.raises(ValueError, match=r'"/v1/AUTH_x/elsewhere/obj" is not a valid '
                                         r"SwiftSignalHandle.  The Swift TempURL path is invalid"):
        signal.handle_create()


@pytest.mark.parametrize(("acl", "read", "write"), [
    ("Private", "admin:admin", "admin:admin"),
    ("AuthenticatedRead", "admin", "admin:admin"),
    ("PublicReadWrite", ".r:*", ".r:*"),
])
def test_bucket_access_control(driver: Any, acl: str, read: str, write: str) -> None:
    bucket = driver.create("AWS::S3::Bucket", "bucket", {"AccessControl": acl})
    shown = bucket.resolve_attribute("show")
    assert (shown["x-container-read"], shown["x-container-write"]) == (read, write)
    assert bucket.get_reference_id() == bucket.resource_id
    driver.delete(bucket)
