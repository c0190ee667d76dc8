"""Compare a response with a recorded heat-api sample: same structure and field names, values of
the same JSON type; values that vary (ids, times, request ids) are checked by pattern."""
from __future__ import annotations

import re
from typing import Any

REQUEST_ID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ISOTIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def assert_shape(actual: Any, expected: Any, path: str = "$") -> None:
    """``actual`` has ``expected``'s structure: dicts with the same keys, lists whose items have
    the shape of the sample's first item, scalars of the same JSON type (null matches null).
    ``*_time`` fields may be null or a time in Heat's format whatever the sample holds."""
    if path.endswith("_time") and (expected is None or ISOTIME.match(str(expected))):
        assert actual is None or ISOTIME.match(str(actual)), f"{path}: {actual!r} is no time"
        return
    if path.endswith(".physical_resource_id") and actual is None:
        return  # Heat reports null before the resource has one (api-ref event show)
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r} is not an object"
        assert set(actual) == set(expected), (
            f"{path}: keys differ: missing {sorted(set(expected) - set(actual))}, "
            f"extra {sorted(set(actual) - set(expected))}")
        for key in expected:
            assert_shape(actual[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: {actual!r} is not a list"
        if expected:
            for i, item in enumerate(actual):
                assert_shape(item, expected[min(i, len(expected) - 1)], f"{path}[{i}]")
    elif expected is None:
        assert actual is None, f"{path}: {actual!r} is not null"
    elif isinstance(expected, bool):
        assert isinstance(actual, bool), f"{path}: {actual!r} is not a boolean"
    elif isinstance(expected, (int, float)):
        assert isinstance(actual, (int, float)) and not isinstance(actual, bool), path
    else:
        assert isinstance(actual, type(expected)), f"{path}: {actual!r} is not {type(expected)}"
        if ISOTIME.match(str(expected)):
            assert ISOTIME.match(actual), f"{path}: {actual!r} is not Heat's time format"


def assert_headers(resp: Any, sample: Any) -> None:
    """Status, request id and (when the sample has them) Content-Type and Location."""
    assert resp.status_code == sample.status
    assert REQUEST_ID.match(resp.headers["x-openstack-request-id"])
    if "content-type" in sample.headers:
        assert resp.headers["Content-Type"] == sample.headers["content-type"]
    else:
        assert "Content-Type" not in resp.headers
    if "location" in sample.headers:
        assert resp.headers["Location"] == sample.headers["location"]
