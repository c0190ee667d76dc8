"""Pure rules of the stack actions: which resource states may be suspended or resumed (Heat's
Resource.suspend / resume), and the check conditions' failure text (Heat's
_verify_check_conditions)."""
from __future__ import annotations

import pytest

from app.convergence.steps.actions import invalid_state
from app.resource_types._actions import ActionError, verify_check_conditions


@pytest.mark.parametrize(("action", "state", "problem"), [
    ("SUSPEND", ("CREATE", "COMPLETE"), None),
    ("SUSPEND", ("UPDATE", "COMPLETE"), None),
    ("SUSPEND", ("SUSPEND", "FAILED"), None),        # a failed suspend may be tried again
    ("SUSPEND", ("SUSPEND", "IN_PROGRESS"), None),
    ("SUSPEND", ("INIT", "COMPLETE"), None),
    ("SUSPEND", ("CREATE", "FAILED"), "State ('CREATE', 'FAILED') invalid for suspend"),
    ("SUSPEND", ("CREATE", "IN_PROGRESS"), "State ('CREATE', 'IN_PROGRESS') invalid for suspend"),
    ("SUSPEND", ("DELETE", "COMPLETE"), "State ('DELETE', 'COMPLETE') invalid for suspend"),
    ("RESUME", ("SUSPEND", "COMPLETE"), None),
    ("RESUME", ("RESUME", "FAILED"), None),
    ("RESUME", ("RESUME", "COMPLETE"), None),
    ("RESUME", ("CREATE", "COMPLETE"), "State ('CREATE', 'COMPLETE') invalid for resume"),
    ("RESUME", ("SUSPEND", "FAILED"), "State ('SUSPEND', 'FAILED') invalid for resume"),
    ("CHECK", ("CREATE", "FAILED"), None),
    ("SNAPSHOT", ("CREATE", "FAILED"), None),
])
def test_invalid_state(action, state, problem):
    assert invalid_state(action, *state) == problem


def test_verify_check_conditions():
    verify_check_conditions([{"attr": "status", "expected": "ACTIVE", "current": "ACTIVE"},
                             {"attr": "x", "expected": [1, 2], "current": 2}])
    with pytest.raises(ActionError) as err:
        verify_check_conditions([{"attr": "status", "expected": "ACTIVE", "current": "SHUTOFF"},
                                 {"attr": "n", "expected": [1, 2], "current": 3}])
    assert err.value.message == ("'status': expected 'ACTIVE', got 'SHUTOFF'; "
                                 "'n': expected '[1, 2]', got '3'")
    assert err.value.heat_type == "Error"
