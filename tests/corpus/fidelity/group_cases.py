"""The ``groups`` area of the fidelity cases: what a ResourceGroup's attributes read, and the
failure reason when its members fail validation during the group's create.

A member attribute of a group (``[g, out, 0]``, ``[g, attributes, out, 0]``) indexes each
member's value (``ResourceGroup._nested_output_defns`` makes ``get_attr [<member>, out, 0]``
outputs), ``refs`` indexes the list (``ResourceGroup.get_attribute``). A group whose nested
stack was never made (its create failed validating the members) falls back to
``grouputils.get_rsrc_attr``: one null per member name (``_resource_names``), null for
``resource.<n>``. (A removal policy's case is recorded last: the reference Heat's SQLite
reuses a deleted resource's id and its stale ``name_blacklist`` leaks into the next group.) The reason is ``Resource.create``'s: the member's ``StackValidationFailed``
with the group's name in front of its path (``g.resources[0].properties.n``). Only member 0
fails in these cases (``%index%`` gives each member its own value), since Heat validates
identical members once, picking one from a set (``StackDefinition.enabled_rsrc_names``).
The outcomes are recorded from the real Heat by ``record.py``.
"""
from __future__ import annotations

from tests.corpus.fidelity.cases import Case, hot

GET_ATTR = "heat.engine.resources.openstack.heat.resource_group.ResourceGroup.get_attribute"
OUTPUTS = "heat.engine.resources.openstack.heat.resource_group.ResourceGroup." \
    "_nested_output_defns"
FALLBACK = GET_ATTR + " (no nested stack: heat.common.grouputils.get_rsrc_attr)"
CREATE = "heat.engine.resource.Resource.create (StackValidationFailed path)"

CHILD = hot("parameters:\n  n: {type: number, default: 1, constraints: [{range: {min: 1, "
            "max: 3}}]}\nresources:\n  v: {type: OS::Heat::Value, properties: {value: "
            "{get_param: n}}}\noutputs:\n  out: {value: {get_attr: [v, value]}}\n")

ALL_OUTPUTS = ("outputs:\n  o: {value: {get_attr: [g, out]}}\n"
               "  o0: {value: {get_attr: [g, out, 0]}}\n"
               "  refs: {value: {get_attr: [g, refs]}}\n"
               "  refs0: {value: {get_attr: [g, refs, 0]}}\n"
               "  rmap: {value: {get_attr: [g, refs_map]}}\n"
               "  attrs: {value: {get_attr: [g, attributes, out]}}\n"
               "  r0: {value: {get_attr: [g, resource.0]}}\n"
               "  r0o: {value: {get_attr: [g, resource.0.out]}}\n"
               "  r1o: {value: {get_attr: [g, resource.1, out]}}\n"
               "  r7o: {value: {get_attr: [g, resource.7.out]}}\n"
               "  removed: {value: {get_attr: [g, removed_rsrc_list]}}\n")


def _group(i: str, about: str, cites: str, props: str, outputs: str = ALL_OUTPUTS,
           extra: str = "", child: str = CHILD) -> Case:
    body = (f"resources:\n  g:\n    type: OS::Heat::ResourceGroup\n{extra}    properties:\n"
            f"{props}" + outputs)
    return Case(f"group-{i}", about, cites, hot(body), files={"child.yaml": child})


def groups() -> list[Case]:
    g = _group
    member = "      resource_def: {type: child.yaml, properties: {n: '%index%'}}\n"
    value_def = ("      resource_def: {type: OS::Heat::Value, properties: {value: "
                 "[x%index%, {k: y%index%}]}}\n")
    return [
        g("failed-outputs", "a group whose member 0 fails validation at the group's "
          "create: every attribute read without a nested stack", FALLBACK,
          "      count: 2\n" + member),
        g("failed-one", "a group of one member that fails validation at create",
          FALLBACK + " + " + CREATE, "      count: 1\n      resource_def: {type: child.yaml, "
          "properties: {n: 7}}\n"),
        g("failed-batch", "a failed group created in batches of one", FALLBACK + " + "
          "ResourceGroup.handle_create (batch_create)", "      count: 2\n" + member,
          extra="    update_policy: {batch_create: {max_batch_size: 1, pause_time: 0}}\n"),
        g("failed-zero-ok", "a group of provider members where only member 0 is over the "
          "child's range, its reason naming member 0", CREATE, "      count: 3\n" + member,
          outputs="outputs:\n  o: {value: {get_attr: [g, out]}}\n"),
        g("member-path", "a member attribute's path indexes each member's value", OUTPUTS,
          "      count: 2\n" + value_def,
          outputs="outputs:\n  v: {value: {get_attr: [g, value]}}\n"
                  "  v0: {value: {get_attr: [g, value, 0]}}\n"
                  "  v1k: {value: {get_attr: [g, value, 1, k]}}\n"
                  "  v9: {value: {get_attr: [g, value, 9]}}\n"
                  "  a1: {value: {get_attr: [g, attributes, value, 1]}}\n"
                  "  a1k: {value: {get_attr: [g, attributes, value, 1, k]}}\n"
                  "  r1: {value: {get_attr: [g, resource.1.value, 0]}}\n"
                  "  r1b: {value: {get_attr: [g, resource.1, value, 1, k]}}\n"
                  "  n: {value: {yaql: {expression: '$.data.len()', data: "
                  "{get_attr: [g, refs]}}}}\n"),
        g("member-path-map", "a member attribute's path into a map value, per member",
          OUTPUTS, "      count: 2\n      resource_def: {type: OS::Heat::Value, properties: "
          "{value: {a: '%index%', b: [1, 2]}}}\n",
          outputs="outputs:\n  a: {value: {get_attr: [g, value, a]}}\n"
                  "  b1: {value: {get_attr: [g, value, b, 1]}}\n"
                  "  z: {value: {get_attr: [g, value, z]}}\n"),
        g("failed-removed", "a failed group with a removal policy: its names skip the "
          "removed member", FALLBACK + " + ResourceGroup._resource_names",
          "      count: 3\n      removal_policies: [{resource_list: ['1']}]\n" + member),
    ]
