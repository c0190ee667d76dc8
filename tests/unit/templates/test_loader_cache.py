"""The loader keeps the parse of a short text (every member of a group loads its provider
template's same text): each caller gets its own copy, and an error raises every time, worded
for what the caller loads."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import loader

TEXT = "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Heat::None}\n"


def test_the_same_text_twice_gives_equal_independent_copies():
    first = loader.load_text(TEXT)
    first.data["resources"]["a"]["type"] = "changed"
    second = loader.load_text(TEXT)
    assert second.data["resources"]["a"] == {"type": "OS::Heat::None"}
    assert second.locations == first.locations and second.locations


@pytest.mark.parametrize("what", ["template", "environment"])
def test_a_bad_text_raises_each_time_in_the_callers_words(what):
    bad = "resources: [a\n"
    for _ in range(2):
        with pytest.raises(errors.BadRequest, match=f"Error parsing {what} "):
            loader.load_text(bad, what=what)
