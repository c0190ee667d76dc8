"""The listings' JSON, written by orjson (:mod:`app.api.json_out`), is byte for byte what Flask's
``json.dumps`` writes for every other route, whatever the values a listing can hold (every JSON
value; a float NaN, which is not JSON, no listing holds)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from unittest import mock

import pytest
from flask import Flask

from app.api import json_out

STACK = {"id": "bc6e7a8d-0a4f-43eb-83fa-7e8ae84006f6", "links": [{"href": "http://h/v1/p/stacks/s/1",
         "rel": "self"}], "stack_name": "s1", "description": "", "creation_time":
         "2026-12-07T12:30:44Z", "updated_time": None, "tags": ["a", "b"], "count": 3,
         "disable_rollback": True}


@dataclasses.dataclass
class Point:
    x: int
    y: str


BODIES = [
    {"stacks": [STACK] * 20, "links": [{"href": "http://h/next", "rel": "next"}]},
    {"stacks": []},
    {"events": [{**STACK, "stack_name": "naïve ünïcode ✓"}]},       # not ASCII
    {"resources": [{"value": 1.5, "big": 1e16, "small": 1e-05}]},    # floats
    {"resources": {1: "int key"}},
    {"resources": [2 ** 70]},
    {"resources": [dt.datetime(2026, 12, 7, 12, 0, 1), dt.date(2026, 12, 7)]},
    {"resources": [uuid.UUID(int=7), Point(1, "a")]},
    {"resources": "a 3e8 and 1.5 inside a string, [1.5"},
]


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("endpoint", sorted(json_out.LISTINGS))
def test_listing_answers_are_flasks_bytes(body, endpoint):
    app = Flask("t")
    app.json = json_out.JSONProvider(app)
    app.json.sort_keys = False
    plain = Flask("p")
    plain.json.sort_keys = False
    with app.test_request_context("/"), mock.patch.object(json_out, "request",
                                                         mock.Mock(endpoint=endpoint)):
        ours = app.json.response(body)
    with plain.test_request_context("/"):
        theirs = plain.json.response(body)
    assert ours.get_data() == theirs.get_data()
    assert ours.mimetype == theirs.mimetype == "application/json"

    assert ours.get_data().startswith(b"{") and ours.get_data().endswith(b"}\n")


def test_other_routes_and_debug_answers_are_json_dumps(monkeypatch):
    """Only the listings' answers are orjson's: elsewhere, and in debug mode (indented), the
    answer is ``json.dumps``'."""
    app = Flask("t")
    app.json = json_out.JSONProvider(app)
    monkeypatch.setattr(json_out.orjson, "dumps", mock.Mock(side_effect=AssertionError))
    for endpoint, debug in (("stacks.Stack", False), ("stacks.Stacks", True)):
        app.debug = debug
        with app.test_request_context("/"), mock.patch.object(json_out, "request",
                                                             mock.Mock(endpoint=endpoint)):
            assert app.json.response({"a": [1]}).get_json() == {"a": [1]}
