"""Software configs and deployments, pure parts: Heat's io schemas (software_config_io.py), what
a signal does to a deployment (service_software_config.signal_software_deployment), the
derived config of a deployment (software_deployment.py _build_derived_*), StructuredDeployment's
get_input substitution (structured_config.py), the config types' stored configs and
SOFTWARE_CONFIG user data (nova client plugin build_userdata), against an in-memory store."""
from __future__ import annotations

import email
import json
import uuid
from typing import Any

import pytest

from app import errors
from app.resource_types import _software, _userdata
from app.resource_types.heat_deployment import SoftwareDeployment
from app.resource_types.heat_software import (
    CloudConfig,
    MultipartMime,
    SoftwareComponent,
    SoftwareConfig,
)
from app.resource_types.heat_structured import StructuredDeployment, parse

from .helpers import Identity


class MemoryStore:
    """The :class:`_software.Store` protocol over dicts."""

    def __init__(self) -> None:
        self.configs: dict[str, dict[str, Any]] = {}
        self.deployments: dict[str, dict[str, Any]] = {}

    def create_config(self, **kw: Any) -> dict[str, Any]:
        cid = str(uuid.uuid4())
        self.configs[cid] = {"id": cid, **kw, "inputs": _software.inputs_of(kw["inputs"] or []),
                             "outputs": _software.outputs_of(kw["outputs"] or [])}
        return dict(self.configs[cid])

    def show_config(self, config_id: str) -> dict[str, Any]:
        if config_id not in self.configs:
            raise errors.NotFound("Software config", config_id)
        return dict(self.configs[config_id])

    def delete_config(self, config_id: str) -> None:
        self.show_config(config_id)
        del self.configs[config_id]

    def create_deployment(self, *, deployment_id: str, **kw: Any) -> dict[str, Any]:
        self.deployments[deployment_id] = {"id": deployment_id, "output_values": None, **kw}
        return dict(self.deployments[deployment_id])

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        if deployment_id not in self.deployments:
            raise errors.NotFound("Deployment", deployment_id)
        return dict(self.deployments[deployment_id])

    def update_deployment(self, deployment_id: str, **values: Any) -> dict[str, Any]:
        self.deployments[deployment_id].update({k: v for k, v in values.items() if v})
        return self.show_deployment(deployment_id)

    def delete_deployment(self, deployment_id: str) -> None:
        del self.deployments[deployment_id]

    def signal_deployment(self, deployment_id: str, details: Any) -> str | None:
        sd = self.deployments[deployment_id]
        outputs = self.configs[sd["config_id"]]["outputs"]
        sd["status"], sd["status_reason"], sd["output_values"], event = \
            _software.signal_result(details, outputs, sd["output_values"], deployment_id)
        return event


def test_io_schemas_get_heats_defaults() -> None:
    assert _software.inputs_of([{"name": "a"}, {"name": "b", "replace_on_change": True,
                                                "value": 3}]) == \
        [{"name": "a", "type": "String"},
         {"name": "b", "type": "String", "replace_on_change": True, "value": 3}]
    assert _software.outputs_of([{"name": "o", "description": "d"}]) == \
        [{"name": "o", "description": "d", "type": "String", "error_output": False}]
    with pytest.raises(TypeError, match="must be in a list"):
        _software.inputs_of({"name": "a"})
    with pytest.raises(TypeError, match="must be a dict"):
        _software.outputs_of(["a"])
    with pytest.raises(ValueError):
        _software.inputs_of([{"name": "a", "type": "Float"}])


def test_signal_results_as_heats_service() -> None:
    outputs = [{"name": "result"}, {"name": "err", "error_output": True}]
    status, reason, ov, event = _software.signal_result(
        {"deploy_stdout": "out", "deploy_status_code": 0, "result": "r"}, outputs, None, "d1")
    assert (status, reason, event) == ("COMPLETE", "Outputs received", "deployment d1 succeeded")
    assert ov == {"result": "r", "deploy_stdout": "out", "deploy_stderr": None,
                  "deploy_status_code": 0}
    status, reason, _, event = _software.signal_result({"deploy_status_code": 3}, outputs,
                                                       None, "d1")
    assert (status, event) == ("FAILED", "deployment d1 failed (3)")
    assert reason == "deploy_status_code : Deployment exited with non-zero status code: 3"
    status, reason, _, event = _software.signal_result({"err": "bad"}, outputs, None, "d1")
    assert (status, reason, event) == ("FAILED", "err : bad", "deployment d1 failed")


def test_structured_deployment_substitutes_get_input() -> None:
    config = {"a": {"get_input": "x"}, "b": [{"get_input": "y"}, 1], "c": {"keep": "me"}}
    assert parse({"x": 1, "y": "two"}, "get_input", config) == \
        {"a": 1, "b": ["two", 1], "c": {"keep": "me"}}
    assert parse({}, "get_input", {"a": {"get_input": "x"}}) == {"a": None}
    with pytest.raises(errors.ValidationError, match="x"):
        parse({}, "get_input", {"a": {"get_input": "x"}}, "STRICT")


def _plugin(cls: type[Any], props: dict[str, Any], store: MemoryStore) -> Any:
    plugin = cls("r", props, stack=Identity())
    plugin.software = store
    return plugin


def test_config_types_store_their_configs() -> None:
    store = MemoryStore()
    sc = _plugin(SoftwareConfig, {"group": "script", "config": "echo hi"}, store)
    sc.handle_create()
    assert sc.get_reference_id() == sc.resource_id
    assert store.configs[sc.resource_id]["group"] == "script"
    assert sc.resolve_attribute("config") == "echo hi"
    cc = _plugin(CloudConfig, {"cloud_config": {"packages": ["git"]}}, store)
    cc.handle_create()
    assert cc.resolve_attribute("config") == "#cloud-config\npackages:\n- git\n"
    mm = _plugin(MultipartMime, {"parts": [{"config": sc.resource_id},
                                           {"config": "#!/bin/sh\necho x",
                                            "subtype": "x-shellscript"}]}, store)
    mm.handle_create()
    parts = email.message_from_string(mm.resolve_attribute("config")).get_payload()
    assert [(p.get_content_type(), p.get_payload()) for p in parts] == \
        [("text/plain", "echo hi"), ("text/x-shellscript", "#!/bin/sh\necho x")]
    comp = _plugin(SoftwareComponent, {"configs": [{"tool": "script", "config": "a"}]}, store)
    comp.handle_create()
    assert store.configs[comp.resource_id]["group"] == "component"
    assert store.configs[comp.resource_id]["config"] == \
        {"configs": [{"actions": ["CREATE", "UPDATE"], "tool": "script", "config": "a"}]}
    twice = _plugin(SoftwareComponent, {"configs": [{"tool": "a", "actions": ["CREATE"]},
                                                    {"tool": "b", "actions": ["CREATE"]}]},
                    store)
    with pytest.raises(errors.ValidationError, match="more than one configuration"):
        twice.validate()
    sc.handle_delete()
    assert sc.resource_id not in store.configs
    sc.handle_delete()  # already gone: fine
    assert sc.resolve_attribute("config") is None


def test_a_deployment_derives_its_config_waits_and_takes_its_signal() -> None:
    store = MemoryStore()
    src = store.create_config(name="src", group="script", config="echo",
                              inputs=[{"name": "foo"}, {"name": "bar", "default": "B"}],
                              outputs=[{"name": "result"}], options={"o": 1})
    dep = _plugin(SoftwareDeployment, {"config": src["id"], "server": "srv",
                                       "input_values": {"foo": "F", "extra": 1},
                                       "signal_transport": "HEAT_SIGNAL"}, store)
    handle = dep.handle_create()
    assert handle == {"sd": dep.resource_id, "action": "CREATE"}
    sd = store.deployments[dep.resource_id]
    assert (sd["server_id"], sd["status"], sd["status_reason"]) == \
        ("srv", "IN_PROGRESS", "Deploy data available")
    derived = store.configs[sd["config_id"]]
    assert derived["name"] == "src" and derived["options"] == {"o": 1}
    values = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert {k: values[k] for k in ("foo", "bar", "extra", "deploy_server_id", "deploy_action",
                                   "deploy_stack_id", "deploy_resource_name",
                                   "deploy_signal_transport", "deploy_project_id")} == \
        {"foo": "F", "bar": "B", "extra": 1, "deploy_server_id": "srv",
         "deploy_action": "CREATE", "deploy_stack_id": f"vstack/{Identity().stack_id}",
         "deploy_resource_name": "r", "deploy_signal_transport": "HEAT_SIGNAL",
         "deploy_project_id": "admin"}
    assert dep.check_create_complete(handle) is False
    assert dep.waits_for(handle)[0] == f"deployment:{dep.resource_id}"
    assert dep.handle_signal({"deploy_status_code": 0, "deploy_stdout": "so",
                              "result": "R"}) == f"deployment {dep.resource_id} succeeded"
    assert dep.check_create_complete(handle) is True
    assert (dep.resolve_attribute("result"), dep.resolve_attribute("deploy_stdout")) == \
        ("R", "so")
    with pytest.raises(errors.TemplateError, match="incorrect"):
        dep.resolve_attribute("nope")
    dep.check_delete_complete(dep.handle_delete())
    assert store.deployments == {} and set(store.configs) == {src["id"]}


def test_cfn_and_no_signal_deployments_and_a_failure() -> None:
    store = MemoryStore()
    src = store.create_config(name=None, group=None, config="x", inputs=[], outputs=[],
                              options=None)
    none = _plugin(SoftwareDeployment, {"config": src["id"], "server": "srv",
                                        "signal_transport": "NO_SIGNAL"}, store)
    assert none.handle_create() is None and none.check_create_complete(None) is True
    assert store.deployments[none.resource_id]["status"] == "COMPLETE"
    derived = store.configs[store.deployments[none.resource_id]["config_id"]]
    assert (derived["group"], derived["name"]) == ("Heat::Ungrouped", none.physical_resource_name())
    cfn = _plugin(SoftwareDeployment, {"config": src["id"], "server": "srv"}, store)
    handle = cfn.handle_create()
    values = {i["name"]: i.get("value") for i in
              store.configs[store.deployments[cfn.resource_id]["config_id"]]["inputs"]}
    assert values["deploy_signal_verb"] == "POST"
    assert "/v1/signal/arn%3Aopenstack%3Aheat%3A%3Aadmin%3Astacks/vstack/" in \
        values["deploy_signal_id"]
    cfn.handle_signal({"deploy_status_code": "3"})
    with pytest.raises(errors.StokerError) as failed:
        cfn.check_create_complete(handle)
    assert failed.value.heat_type == "Error"
    assert failed.value.message == ("Deployment to server failed: deploy_status_code : "
                                    "Deployment exited with non-zero status code: 3")


def test_structured_deployment_derives_a_substituted_config() -> None:
    store = MemoryStore()
    src = store.create_config(name="s", group="os-apply-config",
                              config={"x": {"get_input": "foo"}}, inputs=[], outputs=[],
                              options={})
    dep = _plugin(StructuredDeployment, {"config": src["id"], "server": "srv",
                                         "input_values": {"foo": 5},
                                         "signal_transport": "NO_SIGNAL"}, store)
    dep.handle_create()
    assert store.configs[store.deployments[dep.resource_id]["config_id"]]["config"] == {"x": 5}


def test_software_config_user_data_is_heats_multipart_with_the_metadata() -> None:
    meta = {"deployments": [], "os-collect-config": {"collectors": ["heat", "local"]}}
    text = _userdata.build("#!/bin/sh\necho hi", "SOFTWARE_CONFIG", metadata=meta)
    parts = email.message_from_string(text).get_payload()
    assert [(p.get_content_type(), p.get_filename()) for p in parts] == [
        ("text/cloud-config", "cloud-config"), ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"), ("text/plain", ""),
        ("text/x-cfninitdata", "cfn-init-data")]
    assert parts[3].get_payload() == "#!/bin/sh\necho hi"
    assert json.loads(parts[4].get_payload()) == meta
    inner = _userdata.build("#!/bin/sh\necho hi", "HEAT_CFNTOOLS")
    nested = email.message_from_string(_userdata.build(inner, "SOFTWARE_CONFIG")).get_payload()
    assert len(nested) == 3 + len(email.message_from_string(inner).get_payload())


def test_heats_hidden_deployments_names_resolve_but_are_not_listed() -> None:
    from app.resource_types import registry
    from app.resource_types.heat_deployment_group import SoftwareDeploymentGroup
    hidden = registry.get("OS::Heat::SoftwareDeployments")
    assert hidden is not None and issubclass(hidden, SoftwareDeploymentGroup)
    assert hidden.support_status["status"] == "HIDDEN"
    assert hidden.support_status["previous_status"]["status"] == "DEPRECATED"
    assert registry.get("OS::Heat::StructuredDeployments") is not None
    assert "OS::Heat::SoftwareDeployments" not in registry.types()
    assert registry.schema("OS::Heat::SoftwareDeployments") is None


def test_a_deployment_to_a_server_of_the_stack_needs_software_config_user_data() -> None:
    """Heat's SoftwareDeployment.validate (at create): the server's user_data_format, whose
    default is HEAT_CFNTOOLS, must be SOFTWARE_CONFIG."""
    from types import SimpleNamespace

    from app.services import definitions
    tmpl: dict[str, Any] = {"heat_template_version": "2016-10-14", "resources": {
        "config": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "x"}},
        "server": {"type": "OS::Nova::Server",
                   "properties": {"image": "cirros", "flavor": "m1.tiny"}},
        "deployment": {"type": "OS::Heat::SoftwareDeployment", "properties": {
            "config": {"get_resource": "config"}, "server": {"get_resource": "server"}}}}}
    ident = SimpleNamespace(stack_name="s", stack_id="i", project_id="p")
    with pytest.raises(errors.ValidationError) as refused:
        definitions.parse_and_instantiate(tmpl, {}, None, {}, ident)
    assert refused.value.message == (
        "Resource server's property user_data_format should be set to SOFTWARE_CONFIG since "
        "there are software deployments on it.")
    tmpl["resources"]["server"]["properties"]["user_data_format"] = "SOFTWARE_CONFIG"
    definitions.parse_and_instantiate(tmpl, {}, None, {}, ident)
    tmpl["resources"]["deployment"]["properties"]["server"] = "an-existing-server-id"
    tmpl["resources"]["server"]["properties"]["user_data_format"] = "RAW"
    definitions.parse_and_instantiate(tmpl, {}, None, {}, ident)  # not a server of the stack
