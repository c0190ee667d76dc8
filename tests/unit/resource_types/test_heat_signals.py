"""Wait-condition logic (pure): Heat's signal defaults, metadata checks, completion, failure and
timeout messages (heat/engine/resources/wait_condition.py and openstack/heat/wait_condition*.py)."""
from __future__ import annotations

import json

import pytest

from app import errors
from app.convergence.steps.signals import signal_reason, takes_signal
from app.resource_types import _wait
from app.resource_types.aws_signals import UpdateWaitConditionHandle
from app.resource_types.base import UpdateReplace
from app.resource_types.heat import NoneResource
from app.resource_types.heat_signals import HeatWaitCondition, HeatWaitConditionHandle


def test_native_defaults_number_the_signal():
    assert _wait.normalise_native(None, {}) == {"reason": "Signal 1 received", "data": None,
                                                "id": 1, "status": "SUCCESS"}
    two = _wait.normalise_native({"data": "x"}, {"1": {}})
    assert two == {"reason": "Signal 2 received", "data": "x", "id": 2, "status": "SUCCESS"}
    with pytest.raises(ValueError, match="Metadata format invalid"):
        _wait.normalise_native(["a"], {})


def test_merge_checks_the_format_and_keys_by_id():
    new, reason = _wait.merge({"id": 7, "status": "FAILURE", "reason": "r", "data": 1}, {})
    assert new == {"7": {"status": "FAILURE", "reason": "r", "data": 1}}
    assert reason == "status:FAILURE reason:r"
    with pytest.raises(ValueError, match="Metadata format invalid"):
        _wait.merge({"id": 1, "status": "MAYBE", "reason": "r", "data": None}, {})
    with pytest.raises(ValueError, match="Metadata format invalid"):
        _wait.merge({"id": 1, "status": "SUCCESS", "reason": "r", "data": None, "x": 1}, {})
    with pytest.raises(errors.NoActionRequired):
        _wait.merge({"id": 7, "status": "FAILURE", "reason": "r", "data": 1}, new)


def test_check_counts_fails_and_times_out():
    ok = {"a": {"status": "SUCCESS", "reason": "ra", "data": 1}}
    assert _wait.check(ok, 1, 100.0, 5.0, 104.0) is True
    assert _wait.check(ok, 2, 100.0, 5.0, 104.0) is False
    with pytest.raises(_wait.WaitConditionTimeout, match=r"^1 of 2 received - ra$"):
        _wait.check(ok, 2, 100.0, 5.0, 105.5)
    with pytest.raises(_wait.WaitConditionTimeout, match=r"^0 of 1 received$"):
        _wait.check({}, 1, 100.0, 5.0, 106.0)
    bad = {**ok, "b": {"status": "FAILURE", "reason": "boom", "data": None}}
    with pytest.raises(_wait.WaitConditionFailure, match=r"^boom$"):
        _wait.check(bad, 1, 100.0, 5.0, 101.0)


def test_wait_condition_reads_its_handle_and_names_its_event():
    wc = HeatWaitCondition("wc", {"handle": "h-id", "timeout": 10, "count": 1})
    wc.clock = lambda: 1000.0
    with pytest.raises(ValueError, match="h-id is not a valid wait condition handle."):
        wc.handle_create()
    signals: dict = {}
    wc.signals_of = lambda ref: signals if ref == "h-id" else None
    handle = wc.handle_create()
    assert handle == {"started": 1000.0, "timeout": 10.0}
    assert wc.check_create_complete(handle) is False
    assert wc.waits_for(handle) == ("signal:h-id", 1010.5)
    signals["x"] = {"status": "SUCCESS", "reason": "r", "data": {"k": 1}}
    assert wc.check_create_complete(handle) is True
    assert json.loads(wc.resolve_attribute("data")) == {"x": {"k": 1}}
    wc.clock = lambda: 1011.0
    with pytest.raises(_wait.WaitConditionTimeout, match="1 of 1 received - r"):
        wc.check_create_complete(handle)


def test_handle_stores_signals_in_its_metadata():
    h = HeatWaitConditionHandle("h", {})
    assert h.handle_signal({"id": "a"}) == "status:SUCCESS reason:Signal 1 received"
    assert _wait.metadata_of(h.data) == {"a": {"status": "SUCCESS", "data": None,
                                               "reason": "Signal 1 received"}}
    h.handle_delete()
    assert _wait.metadata_of(h.data) == {}


def test_update_handle_is_always_replaced_and_takes_bare_metadata():
    h = UpdateWaitConditionHandle("u", {})
    with pytest.raises(UpdateReplace):
        h.update_diff({})
    with pytest.raises(ValueError, match="Metadata format invalid"):
        h.handle_signal({"Status": "SUCCESS"})  # the CFN format needs all four keys
    assert h.handle_signal(None) is None and _wait.metadata_of(h.data) == {}
    h.handle_signal({"UniqueId": "1", "Status": "SUCCESS", "Reason": "r", "Data": "d"})
    stored = _wait.metadata_of(h.data)
    assert stored == {"1": {"Status": "SUCCESS", "Reason": "r", "Data": "d"}}
    assert _wait.as_native(stored, _wait.CFN) == {"1": {"status": "SUCCESS", "reason": "r",
                                                        "data": "d"}}


def test_which_types_take_signals_and_heats_signal_reasons():
    assert takes_signal(HeatWaitConditionHandle) and not takes_signal(NoneResource)
    assert not takes_signal(None)
    assert signal_reason("status:SUCCESS reason:x", {}) == "Signal: status:SUCCESS reason:x"
    assert signal_reason(None, None) == "No signal details provided"
    assert signal_reason(None, "hi") == "hi"
    assert signal_reason(None, {"previous": "ok", "current": "alarm", "reason": "r"}) == \
        "alarm state changed from ok to alarm (r)"
    assert signal_reason(None, {"a": 1}) == "Unknown"


def test_delay_waits_min_wait_plus_jitter_for_its_actions_only():
    from app.resource_types.heat_delay import Delay
    d = Delay("d", {"min_wait": 2, "max_jitter": 3, "jitter_multiplier": 2.0,
                    "actions": ["CREATE"]})
    d.rand = lambda: 0.5
    d.clock = lambda: 100.0
    assert d.wait_seconds("CREATE") == 5.0 and d.wait_seconds("DELETE") == 0.0
    handle = d.handle_create()
    assert handle == {"started": 100.0, "wait": 5.0} and d.resource_id
    assert d.check_create_complete(handle) is False
    assert d.waits_for(handle) == ("delay", 105.25)
    d.clock = lambda: 105.0
    assert d.check_create_complete(handle) is True
    assert d.check_delete_complete(d.handle_delete()) is True  # DELETE not listed: no wait
    assert Delay("z", {}).check_create_complete(Delay("z", {}).handle_create()) is True
