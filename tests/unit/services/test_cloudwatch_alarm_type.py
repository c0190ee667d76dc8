"""AWS::CloudWatch::Alarm in the type catalogue and in validation: Heat 27 lists it (its
global environment maps it onto etc/heat/templates/AWS_CloudWatch_Alarm.yaml) but answers
``GET /resource_types/AWS::CloudWatch::Alarm`` with a 500 when that file is not installed
(heat-reference/resource_types.json records ``{"error": 500}``); Stoker answers the template
resource's schema: the template's parameters as properties (strings; the actions and
Dimensions comma-delimited lists), ``show`` as the attribute."""
from __future__ import annotations

from app.context import RequestContext
from app.services import validation

CTX = RequestContext(tenant_id="admin")
REQUIRED = {"EvaluationPeriods", "MetricName", "Period", "ComparisonOperator", "Statistic",
            "Threshold"}


def test_listed_and_its_schema_is_the_templates_parameters():
    assert "AWS::CloudWatch::Alarm" in validation.resource_types(CTX)
    assert validation.resource_types(CTX, name="CloudWatch") == ["AWS::CloudWatch::Alarm"]
    schema = validation.resource_type_schema(CTX, "AWS::CloudWatch::Alarm")
    props = schema["properties"]
    assert set(props) == REQUIRED | {"AlarmDescription", "Namespace", "Units", "AlarmActions",
                                     "OKActions", "InsufficientDataActions", "Dimensions"}
    assert {n for n, p in props.items() if p["required"]} == REQUIRED
    assert {n for n, p in props.items() if p["type"] == "list"} == \
        {"AlarmActions", "OKActions", "InsufficientDataActions", "Dimensions"}
    assert props["ComparisonOperator"]["constraints"] == [{"allowed_values": [
        "GreaterThanOrEqualToThreshold", "GreaterThanThreshold", "LessThanThreshold",
        "LessThanOrEqualToThreshold"]}]
    assert props["Statistic"]["constraints"] == [{"allowed_values": [
        "SampleCount", "Average", "Sum", "Minimum", "Maximum"]}]
    # no defaults in a template resource's schema (Heat's Schema.from_parameter): the child's
    # own parameter defaults apply
    assert not any("default" in p for p in props.values())
    assert list(schema["attributes"]) == ["show"]
