"""The UPDATE traversal's graph (Heat's convergence update dependencies), pure."""
from __future__ import annotations

from app.engine import graph
from app.engine.update_plan import plan, settle


def _edges(p):
    return {(a, b) for a, succ in p.successors.items() for b in succ}


def test_forward_nodes_follow_the_new_template_and_cleanup_nodes_the_old_graph():
    old = {"net": set(), "subnet": {"net"}, "port": {"subnet"}}
    new = {"net": set(), "subnet": {"net"}, "server": {"subnet"}}  # port removed, server added
    p = plan(old, new)
    assert set(p.expected) == {("net", True), ("subnet", True), ("server", True),
                               ("net", False), ("subnet", False), ("port", False)}
    e = _edges(p)
    # forward: what a resource requires in the new template comes first
    assert (("net", True), ("subnet", True)) in e and (("subnet", True), ("server", True)) in e
    # cleanup: a resource is cleaned up after what required it in the old graph...
    assert (("port", False), ("subnet", False)) in e
    assert (("subnet", False), ("net", False)) in e
    # ...and after its own forward node
    assert (("net", True), ("net", False)) in e and (("subnet", True), ("subnet", False)) in e
    # ...and after the forward nodes of what requires it in the new template
    assert (("server", True), ("subnet", False)) in e
    assert ("port", True) not in p.expected  # a removed resource has no forward node
    assert p.leaves() == [("net", True), ("port", False)]
    counts = {n: 0 for n in p.expected}
    for _, b in e:
        counts[b] += 1
    assert counts == p.expected


def test_a_removed_resource_is_cleaned_up_after_its_former_dependents_moved_on():
    # old: app requires db; new: app no longer does, db removed
    p = plan({"app": {"db"}, "db": set()}, {"app": set()})
    e = _edges(p)
    assert (("app", True), ("app", False)) in e and (("app", False), ("db", False)) in e
    assert p.expected[("db", False)] == 1


def test_reversed_dependencies_between_templates_make_no_cycle():
    # old: a requires b; new: b requires a (a forward-only cycle would deadlock)
    p = plan({"a": {"b"}, "b": set()}, {"a": set(), "b": {"a"}})
    as_requires = {f"{n}{int(u)}": {f"{a}{int(au)}" for (a, au), succ in p.successors.items()
                                    if (n, u) in succ} for n, u in p.expected}
    assert graph.find_cycle(as_requires) is None
    assert len(graph.topological_order(as_requires)) == 4


def test_dangling_names_are_ignored_and_an_empty_update_has_no_nodes():
    p = plan({"a": {"ghost"}}, {"a": {"ghost2"}})
    assert p.expected == {("a", True): 0, ("a", False): 1}
    assert plan({}, {}).expected == {}


# -- settle: the no-op nodes known at the start -------------------------------------------
#: the cloud bench's shape: net <- subnet <- port_i <- server_i -> volume_i, attachment_i
BENCH = {"net": set(), "subnet": {"net"}, "port": {"subnet"}, "volume": set(),
         "server": {"port"}, "attach": {"server", "volume"}}


def _check_invariant(p):
    counts = {n: 0 for n in p.expected}
    for n, succ in p.successors.items():
        assert n in p.expected
        for sn in succ:
            counts[sn] += 1
    assert counts == p.expected


def test_settled_forward_nodes_give_their_data_to_what_runs_and_idle_cleanups_go():
    # only the servers change: what they stand on is settled; what stands on them runs
    out = settle(plan(BENCH, BENCH), {"net", "subnet", "port", "volume", "attach"})
    assert out.settled == {"net", "subnet", "port", "volume"}  # attach waits for server
    # cleanup nodes that only order other no-ops go; attach's and server's cleanups stay
    assert out.dropped == {"net", "subnet", "port", "volume"}
    assert set(out.plan.expected) == {("server", True), ("attach", True),
                                      ("server", False), ("attach", False)}
    assert out.plan.expected[("server", True)] == 0  # it starts at once...
    assert out.given == {("server", True): ["port"],  # ...with the port's data
                         ("attach", True): ["volume"]}
    assert out.plan.expected[("attach", True)] == 1  # still after the server
    assert out.plan.leaves() == [("server", True)]
    _check_invariant(out.plan)


def test_a_node_is_settled_only_when_everything_before_it_is():
    # the subnet changes: the ports after it cannot be known at the start
    out = settle(plan(BENCH, BENCH), {"net", "port", "volume", "server", "attach"})
    assert out.settled == {"net", "volume"}
    assert out.given == {("subnet", True): ["net"], ("attach", True): ["volume"]}
    # the net's cleanup does nothing and nothing waits for it: it goes, though the subnet's
    # (which may delete a replaced subnet) stays
    assert out.dropped == {"net", "volume"} and ("subnet", False) in out.plan.expected
    assert out.plan.successors[("subnet", False)] == []
    _check_invariant(out.plan)


def test_a_kept_cleanup_node_still_orders_what_follows_it():
    # a replaced or removed resource's cleanup runs after its former dependents' cleanups
    old = {"db": set(), "app": {"db"}}
    new = {"app": set()}  # db removed; app unchanged and settled
    out = settle(plan(old, new), {"app"})
    assert out.settled == {"app"}
    assert ("app", False) in out.plan.expected  # db's deletion waits for it
    assert out.plan.successors[("app", False)] == [("db", False)]
    assert out.plan.expected[("db", False)] == 1
    _check_invariant(out.plan)


def test_nothing_unchanged_leaves_the_plan_as_it_was_and_everything_unchanged_empties_it():
    p = plan(BENCH, BENCH)
    out = settle(p, set())
    assert out.plan.expected == p.expected and out.given == {} and not out.settled
    assert settle(p, set(BENCH)).plan.expected == {}
