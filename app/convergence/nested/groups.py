"""Resource groups' member lists and child templates (pure helpers of the nested driver).

An ``OS::Heat::ResourceGroup`` becomes a child stack whose resources are its members ("0",
"1", ...) and whose outputs carry every member reference and attribute the parent references,
as Heat's ResourceGroup builds its nested template.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from app import config, errors
from app.resource_types import registry

TEMPLATE, GROUP, SCALING, STACK = "template", "group", "scaling", "stack"
#: a plugin's declared ``nested_kind`` -> the label its rows record
_LABELS = {"resource_group": GROUP, "resource_chain": GROUP, "deployment_group": GROUP,
           "scaling_group": SCALING, "stack": STACK}
RESOURCE_CHAIN = "OS::Heat::ResourceChain"
#: deployment groups -> their member type (Heat's SoftwareDeploymentGroup, a ResourceGroup of
#: one deployment per ``servers`` entry, heat/engine/resources/openstack/heat/
#: software_deployment.py and structured_config.py)
DEPLOYMENT_GROUPS = {"OS::Heat::SoftwareDeploymentGroup": "OS::Heat::SoftwareDeployment",
                     "OS::Heat::StructuredDeploymentGroup": "OS::Heat::StructuredDeployment",
                     # Heat's HIDDEN names of the same
                     "OS::Heat::SoftwareDeployments": "OS::Heat::SoftwareDeployment",
                     "OS::Heat::StructuredDeployments": "OS::Heat::StructuredDeployment"}
#: a deployment group's attributes -> the member attribute they map (Heat's
#: ``_member_attribute_name``); any other name is the member attribute itself
DEPLOYMENT_GROUP_ATTRS = {"deploy_stdouts": "deploy_stdout", "deploy_stderrs": "deploy_stderr",
                          "deploy_status_codes": "deploy_status_code"}


def declared_kind(rdef: Any) -> str | None:
    """The ``nested_kind`` that ``rdef``'s plugin class declares (None: a plain plugin)."""
    cls = registry.get(getattr(rdef, "implementation", rdef.type))
    return getattr(cls, "nested_kind", None)


def kind(rdef: Any) -> str | None:
    """A resource definition's nested kind: TEMPLATE (a provider template), GROUP (a
    ResourceGroup, ResourceChain or deployment group), SCALING (an autoscaling group), STACK
    (OS::Heat::Stack, AWS::CloudFormation::Stack, the ELB) or None (a plain plugin), from the
    kind its plugin declares. O(1)."""
    if getattr(rdef, "template", None):
        return TEMPLATE
    return _LABELS.get(declared_kind(rdef) or "")


def plain(value: Any) -> Any:
    """``value`` as plain JSON (template objects and dates as strings); None stays None."""
    return json.loads(json.dumps(value, default=str)) if value is not None else None


def _substitute(value: Any, var: str, index: str) -> Any:
    if isinstance(value, str):
        return value.replace(var, index)
    if isinstance(value, dict):
        return {_substitute(k, var, index): _substitute(v, var, index) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, var, index) for v in value]
    return value


def _clean(properties: dict[str, Any]) -> dict[str, Any]:
    """A member's properties without those given null (Heat's ``ResourceGroup._clean_props``:
    a member does not get a top-level null, so its default applies or a required one is not
    assigned)."""
    return {k: v for k, v in properties.items() if v is not None}


def member_props(props: dict[str, Any], index: str) -> dict[str, Any]:
    """The resolved properties of member ``index`` (index_var substituted, nulls dropped as
    :func:`_clean`)."""
    rdef = props.get("resource_def") or {}
    var = props.get("index_var") or "%index%"
    return _clean(_substitute(copy.deepcopy(rdef.get("properties") or {}), var, index))


def requested_removals(props: dict[str, Any]) -> list[str]:
    """Every name or id ``removal_policies`` lists, as strings (Heat tolerates ints)."""
    return [str(n) for p in props.get("removal_policies") or []
            for n in (p or {}).get("resource_list") or []]


def skiplist_update(props: dict[str, Any], current: list[str], created: bool,
                    existing: list[str], refs: dict[str, Any]) -> list[str]:
    """The group's new name skiplist (Heat's ``_update_name_skiplist``): ``current`` (the
    stored list, kept unless ``removal_policies_mode`` is "update") plus every
    ``resource_list`` entry that is a skipped name already, any entry before the group exists
    (``created`` False), a member name in ``existing``, or a member's reference id in
    ``refs`` (member name -> reference id; the entry then names that member). Sorted."""
    mode = props.get("removal_policies_mode") or "append"
    result = set() if mode == "update" else set(current)
    by_ref = {str(v): k for k, v in refs.items()}
    for n in requested_removals(props):
        if n in current or not created or n in existing:
            result.add(n)
        elif n in by_ref:
            result.add(by_ref[n])
    return sorted(result)


#: Heat's ``StackResourceLimitExceeded.msg_fmt``, the message of its ``RequestLimitExceeded``
#: when a stack, or a nested stack with its root stack's other resources, has too many
RESOURCE_LIMIT = "Maximum resources per stack exceeded."


def over_resource_limit(count: int) -> bool:
    """Whether ``count`` resources exceed ``max_resources_per_stack`` (-1: no limit, Heat's)."""
    limit = config.get().max_resources_per_stack
    return limit != -1 and count > limit


def member_names(props: dict[str, Any], skiplist: list[str] | None = None) -> list[str]:
    """Member names in index order: ``count`` names from "0" up, skipping ``skiplist``
    (default: every ``resource_list`` entry, the skiplist of a group not created yet), as
    Heat's ``ResourceGroup._resource_names``. O(count + skiplist).

    :raises errors.ResourceFailure: more members than ``max_resources_per_stack`` (Heat's
        message; the child stack's create counts the root stack's other resources too).
    """
    count = int(props.get("count", 1) or 0)
    if over_resource_limit(count):
        raise errors.ResourceFailure(f"Request limit exceeded: {RESOURCE_LIMIT}")
    removed = set(requested_removals(props) if skiplist is None else skiplist)
    names: list[str] = []
    i = 0
    while len(names) < count:
        if str(i) not in removed:
            names.append(str(i))
        i += 1
    return names


def member_definition(props: dict[str, Any], name: str) -> dict[str, Any]:
    """Member ``name``'s resource snippet in the child template (index_var substituted, nulls
    dropped as :func:`_clean`)."""
    rdef = props.get("resource_def") or {}
    var = props.get("index_var") or "%index%"
    member: dict[str, Any] = {"type": rdef.get("type")}
    if rdef.get("properties"):
        member["properties"] = _clean(_substitute(copy.deepcopy(rdef["properties"]), var,
                                                  name))
    if rdef.get("metadata"):
        member["metadata"] = _substitute(copy.deepcopy(rdef["metadata"]), var, name)
    return member


def _member_attr(path: tuple[Any, ...]) -> str | None:
    head = str(path[0]) if path else ""
    if head in ("refs", "refs_map", "removed_rsrc_list", "show", ""):
        return None
    if head == "attributes":
        return str(path[1]) if len(path) > 1 else None
    if head.startswith("resource."):
        rest = head[len("resource."):]
        if "." in rest:
            return rest.split(".", 1)[1]
        return str(path[1]) if len(path) > 1 else None
    return head


def template_of(members: list[tuple[str, dict[str, Any]]],
                paths: set[tuple[Any, ...]], attrs: list[str] | None = None,
                refs: bool = True) -> dict[str, Any]:
    """A group's child template holding ``members`` ``(name, snippet)``, with outputs for
    every member attribute the parent references (``"<member>|<attr>"``; ``attrs``: those
    attributes, default as a ResourceGroup's ``paths`` name them) and, with ``refs``, every
    member reference id (``"<member>|ref"``: an autoscaling group's; a ResourceGroup reads
    its members' references from their rows, :func:`app.convergence.nested.group_batches.
    member_refs`, so its child of N members has no output unless attributes are referenced,
    as Heat's ``_nested_output_defns``). O(members x attrs)."""
    if attrs is None:
        attrs = sorted({a for p in paths if (a := _member_attr(p))})
    resources: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    for n, member in members:
        resources[n] = member
        if refs:
            outputs[f"{n}|ref"] = {"value": {"get_resource": n}}
        for a in attrs:
            outputs[f"{n}|{a}"] = {"value": {"get_attr": [n, a]}}
    template: dict[str, Any] = {"heat_template_version": "2021-04-16", "resources": resources}
    if outputs or refs:
        template["outputs"] = outputs
    return template


def group_template(props: dict[str, Any], paths: set[tuple[Any, ...]],
                   skiplist: list[str] | None = None) -> dict[str, Any]:
    """The child template of a group of ``count`` members (:func:`member_names` with
    ``skiplist``), all with the current definition (:func:`template_of`, no reference
    outputs)."""
    names = member_names(props, skiplist)
    rdef = props.get("resource_def") or {}
    if names and not _mentions([rdef.get("properties"), rdef.get("metadata")],
                               props.get("index_var") or "%index%"):
        one = member_definition(props, names[0])   # every member's, built once and shared
        return template_of([(n, one) for n in names], paths, refs=False)
    return template_of([(n, member_definition(props, n)) for n in names], paths, refs=False)


def _mentions(value: Any, var: str) -> bool:
    """Whether :func:`_substitute` would change anything in ``value`` (``var`` in a string
    key or value). O(size of value)."""
    if isinstance(value, str):
        return var in value
    if isinstance(value, dict):
        return any(_mentions(k, var) or _mentions(v, var) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions(v, var) for v in value)
    return False


def deployment_names(props: dict[str, Any]) -> list[str]:
    """A deployment group's member names: the keys of ``servers``, in order (Heat's
    ``SoftwareDeploymentGroup._resource_names``)."""
    return [str(k) for k in (props.get("servers") or {})]


def deployment_member_attr(head: str) -> str:
    """The member attribute a deployment group's attribute ``head`` reads."""
    return DEPLOYMENT_GROUP_ATTRS.get(head, head)


def deployment_template(impl: str, props: dict[str, Any],
                        paths: set[tuple[Any, ...]]) -> dict[str, Any]:
    """A deployment group's child template: one ``DEPLOYMENT_GROUPS[impl]`` per ``servers``
    entry, with the group's properties and ``server`` its value (Heat's
    ``build_resource_definition``); outputs as a group's, for each member attribute the
    parent references."""
    attrs = sorted({deployment_member_attr(str(p[1] if p[0] == "attributes" and len(p) > 1
                                               else p[0]))
                    for p in paths if p and p[0] not in ("refs", "refs_map", "show",
                                                         "removed_rsrc_list")})
    servers = props.get("servers") or {}
    common = {k: copy.deepcopy(v) for k, v in props.items() if k != "servers" and v is not None}
    members = [(n, {"type": DEPLOYMENT_GROUPS[impl],
                    "properties": {**copy.deepcopy(common), "server": servers[n]}})
               for n in deployment_names(props)]
    return template_of(members, paths, attrs, refs=False)


def chain_names(props: dict[str, Any]) -> list[str]:
    """An OS::Heat::ResourceChain's member names: "0", "1", ... one per entry of
    ``resources`` (Heat's ``_resource_names``)."""
    return [str(i) for i in range(len(props.get("resources") or []))]


def chain_template(props: dict[str, Any], paths: set[tuple[Any, ...]]) -> dict[str, Any]:
    """An OS::Heat::ResourceChain's child template, as Heat's ``child_template``: member ``i``
    of type ``resources[i]`` with ``resource_properties``, each depending on the one before
    unless ``concurrent``; outputs as a group's (:func:`group_template`), so the parent reads
    ``refs``, ``attributes`` and ``resource.<i>`` the same way."""
    attrs = sorted({a for p in paths if (a := _member_attr(p))})
    names = chain_names(props)
    resources: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    for i, (n, rtype) in enumerate(zip(names, props.get("resources") or [], strict=True)):
        member: dict[str, Any] = {"type": rtype}
        if props.get("resource_properties"):
            member["properties"] = copy.deepcopy(props["resource_properties"])
        if i > 0 and not props.get("concurrent"):
            member["depends_on"] = [names[i - 1]]
        resources[n] = member
        for a in attrs:
            outputs[f"{n}|{a}"] = {"value": {"get_attr": [n, a]}}
    template: dict[str, Any] = {"heat_template_version": "2021-04-16", "resources": resources}
    if outputs:
        template["outputs"] = outputs
    return template
