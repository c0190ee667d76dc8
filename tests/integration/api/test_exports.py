"""Cross-stack exports through the Orchestration API (SQLite, tasks in-process): a CFN output
exported and imported by a second stack; the export's change and its stack's delete refused
while imported; the import removed, then both allowed; a missing import refused with nothing
written; ``import_value`` in Stoker's HOT version, refused by Heat's; ``GET /exports``."""
from __future__ import annotations

from typing import Any

from tests.fixtures.stacks import knob
from tests.integration.api.test_stack_guards import create, fault, show

CFN = "2010-09-09"


def exporter(value: str, name: str = "shared-net") -> dict[str, Any]:
    return {"AWSTemplateFormatVersion": CFN,
            "Parameters": {"V": {"Type": "String", "Default": value}},
            "Resources": {"net": {"Type": "OS::Heat::TestResource",
                                  "Properties": {"value": {"Ref": "V"}}}},
            "Outputs": {"NetId": {"Value": {"Ref": "V"}, "Export": {"Name": name}}}}


def importer(name: str = "shared-net") -> dict[str, Any]:
    return {"AWSTemplateFormatVersion": CFN,
            "Resources": {"port": {"Type": "OS::Heat::TestResource",
                                   "Properties": {"value": {"Fn::ImportValue": name}}}},
            "Outputs": {"Seen": {"Value": {"Fn::GetAtt": ["port", "output"]}}}}


PLAIN = {"AWSTemplateFormatVersion": CFN,
         "Resources": {"port": {"Type": "OS::Heat::TestResource",
                                "Properties": {"value": "own"}}}}


def outputs(client: Any, base: str) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in show(client, base)["outputs"]}


def test_an_imported_export_is_pinned_until_the_import_goes(client):
    base = create(client, "network", exporter("net-1"))
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"
    exports = client.get("/v1/t1/exports").get_json()["exports"]
    assert [(e["name"], e["value"], e["stack_name"], e["output_key"]) for e in exports] == [
        ("shared-net", "net-1", "network", "NetId")]

    app = create(client, "app", importer())
    assert show(client, app)["stack_status"] == "CREATE_COMPLETE"
    assert outputs(client, app) == {"Seen": "net-1"}

    msg = fault(client.put(base, json={"template": exporter("net-2")}), 409, "ExportInUse")
    assert msg == "Export shared-net cannot be updated as it is in use by app"
    msg = fault(client.put(base, json={"template": exporter("net-1", name="other")}), 409,
                "ExportInUse")
    assert msg == "Export shared-net cannot be deleted as it is in use by app"
    msg = fault(client.delete(base), 409, "ExportInUse")
    assert msg == "Export shared-net cannot be deleted as it is in use by app"
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"   # nothing changed
    # an update that keeps the value is allowed
    assert client.put(base, json={"template": exporter("net-1")}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"

    # a second stack cannot export the same name
    msg = fault(client.post("/v1/t1/stacks", json={
        "stack_name": "copy", "template": exporter("x")}), 400, "StackValidationFailed")
    assert msg == "Export with name shared-net is already exported by stack network."

    assert client.put(app, json={"template": PLAIN}).status_code == 202
    assert show(client, app)["stack_status"] == "UPDATE_COMPLETE"
    assert client.put(base, json={"template": exporter("net-2")}).status_code == 202
    assert client.get("/v1/t1/exports").get_json()["exports"][0]["value"] == "net-2"
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"
    assert client.get("/v1/t1/exports").get_json() == {"exports": []}


def test_deleting_the_importer_frees_the_export(client):
    base = create(client, "network", exporter("net-1"))
    app = create(client, "app", importer())
    fault(client.delete(base), 409, "ExportInUse")
    assert client.delete(app).status_code == 204
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"


def test_a_missing_export_fails_the_create_and_writes_nothing(client):
    msg = fault(client.post("/v1/t1/stacks", json={
        "stack_name": "app", "template": importer("nowhere")}), 400, "StackValidationFailed")
    assert msg == "No export named nowhere found."
    assert client.get("/v1/t1/stacks/app").status_code == 404
    base = create(client, "app", PLAIN)
    msg = fault(client.put(base, json={"template": importer("nowhere")}), 400,
                "StackValidationFailed")
    assert msg == "No export named nowhere found."
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"


def test_exports_are_per_project(client):
    create(client, "network", exporter("net-1"))
    other = {"X-Auth-Project": "other"}
    resp = client.post("/v1/other/stacks", json={"stack_name": "app", "template": importer()},
                       headers=other)
    assert fault(resp, 400, "StackValidationFailed") == "No export named shared-net found."
    assert client.get("/v1/other/exports", headers=other).get_json() == {"exports": []}
    assert len(client.get("/v1/t1/exports").get_json()["exports"]) == 1


def hot_importer(version: str) -> dict[str, Any]:
    return {"heat_template_version": version,
            "resources": {"port": knob({"import_value": "shared-net"})},
            "outputs": {"seen": {"value": {"get_attr": ["port", "output"]}}}}


def test_hot_imports_through_stokers_version_only(client):
    base = create(client, "network", exporter("net-1"))
    app = create(client, "app", hot_importer("stoker-2026-12-01"))
    assert show(client, app)["stack_status"] == "CREATE_COMPLETE"
    assert outputs(client, app) == {"seen": "net-1"}
    fault(client.delete(base), 409, "ExportInUse")

    resp = client.post("/v1/t1/stacks", json={"stack_name": "heat",
                                              "template": hot_importer("2021-04-16")})
    # Heat's version knows no such function: the map is plain data, not a string value
    assert fault(resp, 400, "StackValidationFailed").startswith(
        "Property error: resources.port.properties.value:")
    assert client.get("/v1/t1/stacks/heat").status_code == 404


def test_hot_exports_through_stokers_version(client):
    template = {"heat_template_version": "stoker-2026-12-01",
                "parameters": {"v": {"type": "string", "default": "net-9"}},
                "resources": {"net": knob({"get_param": "v"})},
                "outputs": {"id": {"value": {"get_attr": ["net", "output"]},
                                   "export": {"name": {"str_replace": {
                                       "template": "$s-net",
                                       "params": {"$s": {"get_param": "OS::stack_name"}}}}}}}}
    create(client, "hotnet", template)
    assert client.get("/v1/t1/exports").get_json()["exports"][0]["name"] == "hotnet-net"
    assert client.get("/v1/t1/exports").get_json()["exports"][0]["value"] == "net-9"


def resource_exporter(value: str, suffix: str = "") -> dict[str, Any]:
    """The export's value comes from a resource: not known before the update runs."""
    template = exporter(value)
    template["Outputs"]["NetId"]["Value"] = {"Fn::Join": ["", [
        {"Fn::GetAtt": ["net", "output"]}, suffix]]}
    return template


def exported(client: Any) -> list[tuple[str, Any]]:
    return [(e["name"], e["value"]) for e in client.get("/v1/t1/exports").get_json()["exports"]]


def test_an_export_from_a_resource_keeps_its_value_while_in_use(client):
    """AWS: an update that would change the value of an export another stack imports fails
    ("Export <name> cannot be updated as it is in use by <stack>") and rolls back; one that
    changes only how the same value is written succeeds."""
    base = create(client, "network", resource_exporter("net-1"))
    app = create(client, "app", importer())
    assert exported(client) == [("shared-net", "net-1")]
    # another expression, the same value: allowed
    same = resource_exporter("net-1")
    same["Outputs"]["NetId"]["Value"] = {"Fn::GetAtt": ["net", "output"]}
    assert client.put(base, json={"template": same}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    # the same expression, a new value known only once the resource is updated: refused then
    for rollback, status in ((False, "ROLLBACK_COMPLETE"), (True, "UPDATE_FAILED")):
        resp = client.put(base, json={"template": resource_exporter("net-2"),
                                      "disable_rollback": rollback})
        assert resp.status_code == 202, resp.get_json()
        st = show(client, base)
        assert st["stack_status"] == status
        failed = [e["resource_status_reason"] for e in
                  client.get(f"{base}/events").get_json()["events"]
                  if e["resource_name"] == "network" and e["resource_status"] == "UPDATE_FAILED"]
        assert failed[-1] == "Export shared-net cannot be updated as it is in use by app"
        assert exported(client) == [("shared-net", "net-1")]
    assert outputs(client, app) == {"Seen": "net-1"}
    # the failed update left the resource at net-2: a rollback to it cannot change the export
    resp = client.put(base, json={"template": resource_exporter("net-2", "-x"),
                                  "disable_rollback": False})
    assert resp.status_code == 202
    st = show(client, base)
    assert (st["stack_status"], st["stack_status_reason"]) == (
        "ROLLBACK_FAILED", "Export shared-net cannot be updated as it is in use by app")
    assert exported(client) == [("shared-net", "net-1")]


def test_an_update_rolled_back_imports_what_the_old_template_imports(client):
    base = create(client, "network", exporter("net-1"))
    other = create(client, "other", exporter("o-1", name="other-net"))
    app = create(client, "app", importer())
    failing = importer("other-net")
    failing["Resources"]["bad"] = {"Type": "OS::Heat::TestResource",
                                   "Properties": {"fail": True}}
    resp = client.put(app, json={"template": failing, "disable_rollback": False})
    assert resp.status_code == 202, resp.get_json()
    assert show(client, app)["stack_status"] == "ROLLBACK_COMPLETE"
    assert outputs(client, app) == {"Seen": "net-1"}
    assert client.delete(other).status_code == 204   # no longer imported after the rollback
    fault(client.delete(base), 409, "ExportInUse")                 # still imported


def random_exporter(length: int) -> dict[str, Any]:
    """The export's value is a generated string: a new length replaces the generator."""
    return {"AWSTemplateFormatVersion": CFN,
            "Parameters": {"L": {"Type": "Number", "Default": length}},
            "Resources": {"rand": {"Type": "OS::Heat::RandomString",
                                   "Properties": {"length": {"Ref": "L"}}}},
            "Outputs": {"NetId": {"Value": {"Fn::GetAtt": ["rand", "value"]},
                                  "Export": {"Name": "shared-net"}}}}


def test_an_update_replacing_what_an_export_in_use_refers_to_is_refused_first(client):
    """AWS fails such an update before its cleanup deletes the old resource; a traversal
    would delete the replaced generator before the outputs are known, so it is refused with
    nothing changed (409 ExportInUse), through PUT, PATCH and a change set's execution."""
    base = create(client, "network", random_exporter(8))
    create(client, "app", importer())
    [(_, value)] = exported(client)
    rand = client.get(f"{base}/resources/rand").get_json()["resource"]
    for call in (lambda: client.put(base, json={"template": random_exporter(12)}),
                 lambda: client.patch(base, json={"parameters": {"L": 12}})):
        assert fault(call(), 409, "ExportInUse") == (
            "Export shared-net cannot be updated as it is in use by app")
    resp = client.post(f"{base}/change_sets", json={"name": "grow", "existing": True,
                                                    "parameters": {"L": 12}})
    assert resp.status_code == 201, resp.get_json()
    fault(client.post(f"{base}/change_sets/grow/execute"), 409, "ExportInUse")
    st = show(client, base)
    assert st["stack_status"] == "CREATE_COMPLETE" and st["updated_time"] is None
    after = client.get(f"{base}/resources/rand").get_json()["resource"]
    assert after["physical_resource_id"] == rand["physical_resource_id"]
    assert exported(client) == [("shared-net", value)]
    # a change that keeps the generator is an ordinary update
    same = random_exporter(8)
    same["Resources"]["note"] = {"Type": "OS::Heat::None"}
    assert client.put(base, json={"template": same}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
