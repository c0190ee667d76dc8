"""Pure parts of the sandbox: IPAM, the store's lazy transitions and persistence, behaviour rules."""
from __future__ import annotations

import pytest

from app.sandbox import ipam
from app.sandbox.behaviour import Behaviour
from app.sandbox.http import SandboxError
from app.sandbox.store import Store


def test_ipam_defaults_and_allocation():
    net = ipam.parse_cidr("10.1.0.0/29")
    assert ipam.default_gateway(net) == "10.1.0.1"
    pools = ipam.default_pools(net, "10.1.0.1")
    assert pools == [{"start": "10.1.0.2", "end": "10.1.0.6"}]
    assert ipam.allocate(pools, ["10.1.0.2", "10.1.0.3"]) == "10.1.0.4"
    assert ipam.allocate(pools, [f"10.1.0.{i}" for i in range(2, 7)]) is None
    assert ipam.default_pools(net, "10.1.0.4") == [{"start": "10.1.0.1", "end": "10.1.0.3"},
                                                   {"start": "10.1.0.5", "end": "10.1.0.6"}]
    assert ipam.mac_address(0x010203) == "fa:16:3e:01:02:03"


@pytest.mark.parametrize("cidr", ["10.0.0.1/24", "300.0.0.0/8", "10.0.0.0/31", "nonsense"])
def test_ipam_rejects_bad_cidrs(cidr):
    with pytest.raises(SandboxError) as err:
        ipam.parse_cidr(cidr)
    assert err.value.status == 400


def test_ipam_pool_checks():
    net = ipam.parse_cidr("10.0.0.0/24")
    with pytest.raises(SandboxError, match="overlapping"):
        ipam.check_pools(net, [{"start": "10.0.0.5", "end": "10.0.0.9"}, {"start": "10.0.0.8", "end": "10.0.0.20"}],
                         None)
    with pytest.raises(SandboxError, match="spans beyond"):
        ipam.check_pools(net, [{"start": "10.0.0.5", "end": "10.0.1.9"}], None)
    with pytest.raises(SandboxError) as err:
        ipam.check_pools(net, [{"start": "10.0.0.1", "end": "10.0.0.9"}], "10.0.0.1")
    assert err.value.kind == "GatewayConflictWithAllocationPools"


def test_store_transitions_are_lazy_and_ordered():
    now = [100.0]
    st = Store(clock=lambda: now[0])
    obj = st.add("things", {"id": "a", "status": "BUILD"})
    st.schedule(obj, 2, {"status": "ACTIVE"})
    st.schedule(obj, 5, delete=True)
    assert st.get("things", "a")["status"] == "BUILD"
    now[0] = 102.5
    assert st.get("things", "a")["status"] == "ACTIVE"
    now[0] = 106
    assert st.get("things", "a") is None and st.all("things") == []


def test_store_persists_and_deterministic_ids(tmp_path):
    path = tmp_path / "state.json"
    st = Store(path, deterministic_ids=True)
    ids = [st.new_id(), st.new_id()]
    assert ids == ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]
    obj = st.add("things", {"id": ids[0]})
    st.schedule(obj, 3600, {"status": "LATER"})
    st.close()
    again = Store(path, deterministic_ids=True)
    assert again.get("things", ids[0])["_pending"][0]["set"] == {"status": "LATER"}
    assert again.new_id().endswith("000000000003")


def test_behaviour_rules():
    b = Behaviour(seed=1, latency=[{"match": "compute.*", "seconds": 0.25}, {"match": "*", "min": 0.1, "max": 0.2}])
    assert b.latency_for("compute.GET.servers") == 0.25
    assert 0.1 <= b.latency_for("network.GET.ports") <= 0.2
    b.configure(faults=[{"match": "network.POST.*", "times": 2, "status": 500}])
    assert b.fault_for("network.POST.ports") and b.fault_for("network.POST.ports")
    assert b.fault_for("network.POST.ports") is None
    assert b.fault_for("compute.POST.servers") is None
    b.configure(faults=[{"match": "*", "kind": "server_error"}])
    assert b.fault_for("compute.POST.servers") is None          # not an error/quota kind
    assert b.fault_for("compute.POST.servers", kinds=("server_error",))
