"""Heat's global template resources (etc/heat/environment.d/default.yaml:
``AWS::CloudWatch::Alarm`` -> ``file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml``), below
the stack's own registry and files map, and Heat's ``TemplateResource.child_params``."""
from __future__ import annotations

from app.templates import global_templates
from app.templates.registry import Registry, Resolution

URL = "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml"


def _known(type_name: str) -> bool:
    return type_name in {"OS::Aodh::Alarm", "OS::Heat::None"}


def test_the_global_entry_is_a_template_resource_below_the_stacks_registry():
    assert global_templates.CLOUDWATCH_ALARM_URL == URL
    assert Registry.from_mapping({}).resolve("AWS::CloudWatch::Alarm", "a", known=_known) == \
        Resolution("AWS::CloudWatch::Alarm", URL)
    mine = Registry.from_mapping({"AWS::CloudWatch::Alarm": "OS::Heat::None"})
    assert mine.resolve("AWS::CloudWatch::Alarm", "a", known=_known) == \
        Resolution("OS::Heat::None", None)
    own = Registry.from_mapping({"AWS::CloudWatch::Alarm": "alarm.yaml"})
    assert own.resolve("AWS::CloudWatch::Alarm", "a", known=_known) == \
        Resolution("AWS::CloudWatch::Alarm", "alarm.yaml")


def test_the_stacks_files_map_wins_over_the_held_template():
    assert global_templates.provider({URL: "mine"}, URL) == "mine"
    held = global_templates.provider({}, URL)
    assert held["Resources"]["__alarm__"]["Type"] == "OS::Aodh::Alarm"
    assert global_templates.has({}, URL) and not global_templates.has({}, "file:///x.yaml")


def test_child_params_flatten_lists_of_maps_as_heats_member_strings():
    props = {"Dimensions": [{"Name": "g", "Value": "v1"}, {"Name": "h", "Value": "v2"}],
             "AlarmActions": ["http://a", "http://b"], "Threshold": "80", "OKActions": []}
    assert global_templates.child_params(props) == {
        "Dimensions": ".member.0.Name=g,.member.0.Value=v1,.member.1.Name=h,.member.1.Value=v2",
        "AlarmActions": ["http://a", "http://b"], "Threshold": "80", "OKActions": []}
