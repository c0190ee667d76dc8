"""The pure convergence graph (app.engine.graph)."""
import pytest

from app.engine import graph

REQ = {"net": set(), "subnet": {"net"}, "port": {"subnet", "net"}, "server": {"port"},
       "lonely": set()}


def test_forward_predecessors_are_requirements():
    preds = graph.predecessors(REQ, True)
    assert preds["port"] == {"subnet", "net"}
    assert graph.leaves(preds) == ["lonely", "net"]


def test_reverse_predecessors_are_dependents():
    preds = graph.predecessors(REQ, False)
    assert preds["net"] == {"subnet", "port"}
    assert preds["server"] == set()
    assert graph.leaves(preds) == ["lonely", "server"]


def test_dangling_requirements_are_ignored():
    assert graph.predecessors({"a": {"ghost"}}, True) == {"a": set()}


def test_descendants_follow_successors():
    succ = graph.successors(REQ, True)
    assert graph.descendants(succ, "net") == {"subnet", "port", "server"}
    assert graph.descendants(succ, "server") == set()


def test_find_cycle_names_the_cycle():
    cyc = graph.find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()})
    assert cyc is not None and cyc[0] == cyc[-1] and set(cyc) == {"a", "b", "c"}
    assert graph.find_cycle(REQ) is None


def test_topological_order_and_cycle_error():
    order = graph.topological_order(REQ)
    assert order.index("net") < order.index("subnet") < order.index("port") < order.index("server")
    with pytest.raises(ValueError):
        graph.topological_order({"a": {"b"}, "b": {"a"}})
