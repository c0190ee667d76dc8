"""Nested kinds are strategies their plugins declare: each nested type Heat realises as a child
stack (ResourceGroup, ResourceChain, the deployment groups, the autoscaling groups,
OS::Heat::Stack, AWS::CloudFormation::Stack, the ELB) maps to one strategy, a provider template
to the template kind, a plain plugin to none."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from app.convergence.nested import groups, kinds
from app.resource_types import registry


def rdef(type_name: str, template: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(type=type_name, implementation=type_name, template=template)


@pytest.mark.parametrize(("type_name", "strategy", "label"), [
    ("OS::Heat::ResourceGroup", kinds.ResourceGroup, groups.GROUP),
    ("OS::Heat::ResourceChain", kinds.ResourceChain, groups.GROUP),
    ("OS::Heat::SoftwareDeploymentGroup", kinds.DeploymentGroup, groups.GROUP),
    ("OS::Heat::StructuredDeploymentGroup", kinds.DeploymentGroup, groups.GROUP),
    ("OS::Heat::AutoScalingGroup", kinds.ScalingGroup, groups.SCALING),
    ("AWS::AutoScaling::AutoScalingGroup", kinds.ScalingGroup, groups.SCALING),
    ("OS::Heat::InstanceGroup", kinds.ScalingGroup, groups.SCALING),
    ("OS::Heat::Stack", kinds.StackKind, groups.STACK),
    ("AWS::CloudFormation::Stack", kinds.StackKind, groups.STACK),
    ("AWS::ElasticLoadBalancing::LoadBalancer", kinds.StackKind, groups.STACK),
])
def test_each_nested_type_has_the_strategy_its_plugin_declares(type_name, strategy, label):
    found = kinds.of(rdef(type_name))
    assert isinstance(found, strategy)
    assert found.label == label == groups.kind(rdef(type_name))


def test_a_provider_template_is_the_template_kind_whatever_its_type_name():
    found = kinds.of(rdef("My::Server", template="server.yaml"))
    assert found is kinds.TEMPLATE_KIND
    assert groups.kind(rdef("My::Server", template="server.yaml")) == groups.TEMPLATE


@pytest.mark.parametrize("type_name", ["OS::Nova::Server", "OS::Heat::RandomString",
                                       "OS::Heat::None", "Unknown::Type"])
def test_a_plain_plugin_has_no_nested_kind(type_name):
    assert kinds.of(rdef(type_name)) is None
    assert groups.kind(rdef(type_name)) is None


def test_every_declared_kind_has_a_strategy():
    declared = {t: getattr(registry.get(t), "nested_kind", None) for t in registry.types()}
    unknown = {t: k for t, k in declared.items() if k is not None and k not in kinds.KINDS}
    assert unknown == {}
    assert {k for k in declared.values() if k} == set(kinds.KINDS)


def test_a_group_template_shares_one_member_snippet_unless_the_index_is_used():
    plain = groups.group_template({"count": 3, "resource_def": {
        "type": "OS::Heat::None", "properties": {"a": "x", "b": None}}}, set(), [])
    members = plain["resources"]
    assert list(members) == ["0", "1", "2"]
    assert all(m == {"type": "OS::Heat::None", "properties": {"a": "x"}}
               for m in members.values())
    indexed = groups.group_template({"count": 3, "index_var": "__i__", "resource_def": {
        "type": "OS::Heat::None", "properties": {"a": ["n-__i__"]}}}, set(), ["1"])
    assert {n: m["properties"] for n, m in indexed["resources"].items()} == {
        "0": {"a": ["n-0"]}, "2": {"a": ["n-2"]}, "3": {"a": ["n-3"]}}
