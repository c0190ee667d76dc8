"""The UPDATE traversal's graph (Heat's convergence update dependencies), pure."""
from __future__ import annotations

from app.engine import graph
from app.engine.update_plan import plan


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
