"""AWS::CloudWatch::Alarm refused through the services before anything is written when a
property breaks its schema (the schema itself: tests/unit/services/test_cloudwatch_alarm_type.py)."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app import errors
from app.context import RequestContext
from app.models import Stack, read_session
from app.services import stacks

CTX = RequestContext(tenant_id="admin")


def test_a_bad_comparison_operator_is_refused_before_anything_is_written(db):
    tmpl = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"A": {
        "Type": "AWS::CloudWatch::Alarm", "Properties": {
            "MetricName": "cpu_util", "Statistic": "Average", "Period": "60",
            "EvaluationPeriods": "1", "Threshold": "80", "ComparisonOperator": "Above"}}}}
    with pytest.raises(errors.StokerError) as err:
        stacks.create_stack(CTX, stack_name="cw-bad", template=tmpl)
    assert err.value.http_status == 400
    assert err.value.message == (
        'Property error: Resources.A.Properties.ComparisonOperator: "Above" is not an allowed '
        'value ["GreaterThanOrEqualToThreshold", "GreaterThanThreshold", "LessThanThreshold", '
        '"LessThanOrEqualToThreshold"]')
    with read_session() as s:
        assert s.execute(select(func.count()).select_from(Stack)).scalar() == 0
