"""Failing fast, through the in-process engine against the sandbox: a permanent cloud error
(Neutron's 404 "External network ... is not reachable from subnet ...") fails the resource at
once with the cloud's message (one request, the stack CREATE_FAILED), as Heat does; a transient
one is retried (``client_retry_limit``); and Heat's implicit dependency makes a floating IP wait
for the router interface on its port's subnet, so the same template with the interface (and no
``depends_on``) completes."""
from __future__ import annotations

from typing import Any

from app.context import RequestContext
from app.services import resources, stacks

CTX = RequestContext(tenant_id="admin")


def _left_behind(after: dict[str, Any], before: dict[str, Any]) -> dict[str, set[Any]]:
    """The cloud objects of ``after`` (the sandbox's inventory) not in ``before``: what the test
    made and did not remove (an earlier test's object finishing its delete meanwhile is not)."""
    extra = {kind: set(ids) - set(before.get(kind, ())) for kind, ids in after.items()}
    return {kind: ids for kind, ids in extra.items() if ids}


def template(with_interface: bool) -> dict[str, Any]:
    res: dict[str, Any] = {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.77.0.0/24"}},
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net"},
                                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
        "router": {"type": "OS::Neutron::Router",
                   "properties": {"external_gateway_info": {"network": "public"}}},
        "fip": {"type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public", "port_id": {"get_resource": "port"}}},
    }
    if with_interface:
        res["iface"] = {"type": "OS::Neutron::RouterInterface",
                        "properties": {"router": {"get_resource": "router"},
                                       "subnet": {"get_resource": "subnet"}}}
    return {"heat_template_version": "2018-08-31", "resources": res,
            "outputs": {"ip": {"value": {"get_attr": ["fip", "floating_ip_address"]}}}}


def test_an_unrouted_floating_ip_fails_the_stack_at_once_with_neutrons_message(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    before = sandbox.created()
    sandbox.admin("DELETE", "requests")
    st = stacks.create_stack(CTX, stack_name="unrouted", template=template(False))
    st = stacks.get_by_id(CTX, st.id)
    rows = {r.name: r for r, _ in resources.list_resources(CTX, st)}
    public = sandbox.admin("GET", "ids")["ids"]["network:public"]
    message = (f"External network {public} is not reachable from subnet "
               f"{rows['subnet'].physical_resource_id}.  Therefore, cannot associate Port "
               f"{rows['port'].physical_resource_id} with a Floating IP.")
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == f"Resource CREATE failed: NotFound: resources.fip: {message}"
    assert rows["fip"].status == "FAILED"
    assert rows["fip"].status_reason == f"NotFound: resources.fip: {message}"
    # asked once: a permanent error is neither retried by the client nor polled by the engine
    assert sandbox.admin("GET", "requests")["requests"]["network.PUT.floatingips"] == 1
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert _left_behind(sandbox.created(), before) == {}


def test_the_floating_ip_waits_for_the_router_interface_it_needs(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """No ``depends_on``: Heat's implicit dependency orders fip after iface and router."""
    before = sandbox.created()
    sandbox.admin("DELETE", "requests")
    st = stacks.create_stack(CTX, stack_name="routed", template=template(True))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    listed = {r.name: required_by for r, required_by in resources.list_resources(CTX, st)}
    assert "fip" in listed["iface"] and "fip" in listed["router"]
    assert sandbox.admin("GET", "requests")["requests"]["network.PUT.floatingips"] == 1
    out = {o["output_key"]: o.get("output_value") for o in stacks.stack_outputs(st)}
    assert str(out["ip"]).startswith("172.24.4.")
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert _left_behind(sandbox.created(), before) == {}


def test_a_transient_error_is_retried_up_to_client_retry_limit_then_fails(
        db: Any, cloud_settings: Any, sandbox: Any, faults: Any) -> None:
    """``client_retry_limit`` (Heat's default 2): 1 + 2 attempts, then CREATE_FAILED with the
    cloud's message; the sandbox's fault rule had one firing left."""
    before = sandbox.created()
    assert cloud_settings.client_retry_limit == 2
    faults({"match": "network.POST.networks", "status": 503, "times": 4,
            "message": "neutron-server is restarting"})
    sandbox.admin("DELETE", "requests")
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"net": {"type": "OS::Neutron::Net"}}}
    st = stacks.create_stack(CTX, stack_name="down", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == ("Resource CREATE failed: ServiceUnavailable: resources.net: "
                                "neutron-server is restarting")
    assert sandbox.admin("GET", "requests")["requests"]["network.POST.networks"] == 3
    left = [f for f in sandbox.admin("GET", "behaviour")["faults"] if f.get("times")]
    assert [f["times"] for f in left] == [1]
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert _left_behind(sandbox.created(), before) == {}
