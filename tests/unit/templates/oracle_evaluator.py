"""A tiny stand-in for the engine, used by the oracle tests: creates a stack of cloud-free
resources in dependency order on top of app.templates.

Resource behaviour (as Heat's plugins, enough for the oracle vectors):
* OS::Heat::Value: attribute ``value`` = the ``value`` property converted by ``type``;
  reference id = the physical name ``vstack-<name>-<12 chars>``.
* OS::Heat::RandomString: ``value`` honours length / character_classes / character_sequences;
  reference id = the value.
* OS::Heat::TestResource: ``output`` = ``value`` (default "test_string"); ``fail: true`` ->
  CREATE_FAILED; reference id = the physical name.
* OS::Heat::None: no attributes (any name gives null); reference id = a UUID.
* ``external_id``: the resource is adopted (CHECK_COMPLETE) and its reference id is the id.
* a type that is a file of the files map (a template resource): the file is instantiated with
  the resolved properties as parameters and the parent's metadata/deletion_policy as its
  resource_facade, created recursively; attributes are its outputs (an output that failed is
  "Error in <r> output <o>: ..."); reference id = the nested stack's ARN.
* a type that is a file of the files map (a template resource): the file is instantiated with
  the resolved properties as parameters and the parent's metadata/deletion_policy as its
  resource_facade, created recursively; attributes are its outputs (an output that failed is
  "Error in <r> output <o>: ..."); reference id = the nested stack's ARN.
Failure semantics are convergence's: dependents of a failed resource stay INIT_COMPLETE,
independent branches complete; a property that fails to resolve fails the stack but leaves the
resource INIT_COMPLETE (never started).
"""
from __future__ import annotations

import random
import string
import uuid
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import UNKNOWN, ParentFacade, StackDefinition, StackIdentity, parse
from app.templates import properties as props
from app.templates.parameters import to_bool, to_number
from app.templates.provider import template_resource_schema

from .conftest import heat_type_schema

CLASSES = {"lettersdigits": string.ascii_letters + string.digits,
           "letters": string.ascii_letters, "lowercase": string.ascii_lowercase,
           "uppercase": string.ascii_uppercase, "digits": string.digits,
           "hexdigits": string.digits + "abcdef", "octdigits": string.octdigits}


def physical_name(stack: str, name: str) -> str:
    suffix = "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(12))
    return f"{stack}-{name}-{suffix}"


def random_string(p: dict[str, Any]) -> str:
    length = p.get("length", 32)
    classes = p.get("character_classes")
    if classes is None:
        classes = [{"class": "lettersdigits", "min": 1}]
    seqs = p.get("character_sequences") or []
    pools = [(CLASSES[c.get("class", "lettersdigits")], c.get("min", 1)) for c in classes]
    pools += [(s["sequence"], s.get("min", 1)) for s in seqs]
    if not pools:
        pools = [(CLASSES["lettersdigits"], 1)]
    chars = [random.choice(pool) for pool, n in pools for _ in range(n)]
    union = "".join(pool for pool, _ in pools)
    chars += [random.choice(union) for _ in range(length - len(chars))]
    random.shuffle(chars)
    return "".join(chars)


def plugin_validate(stack: StackDefinition) -> None:
    """Type-specific static checks Heat's plugins make (RandomString's length)."""
    for name, rdef in stack.resources.items():
        if rdef.type != "OS::Heat::RandomString":
            continue
        known = stack.static_properties(name)
        length = known.get("length", 32)
        classes = known.get("character_classes", [{"class": "lettersdigits", "min": 1}])
        seqs = known.get("character_sequences", [])
        if UNKNOWN in (length, classes, seqs) or not isinstance(classes, list):
            continue
        total = sum(c.get("min", 1) for c in classes if isinstance(c, dict)) + \
            sum(s.get("min", 1) for s in (seqs or []) if isinstance(s, dict))
        if isinstance(length, int) and length < total:
            raise errors.ValidationError("Length property cannot be smaller than combined "
                                         "character class and character sequence minimums")


def value_of(p: dict[str, Any]) -> Any:
    value, vtype = p.get("value"), p.get("type")
    if vtype == "number":
        return to_number(value)
    if vtype == "boolean":
        return to_bool(value)
    if vtype == "comma_delimited_list" and isinstance(value, str):
        return value.split(",")
    if vtype == "string" and not isinstance(value, str):
        return str(value)
    return value


@dataclass
class Created:
    """The result of a create: states, refs, attributes, stack status."""

    states: dict[str, str] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    attrs: dict[str, dict[str, Any]] = field(default_factory=dict)
    status: str = "CREATE_COMPLETE"
    reasons: list[str] = field(default_factory=list)

    # ResolveContext
    def get_resource(self, name: str) -> str | None:
        return self.refs.get(name)

    def get_attr(self, name: str, attr: str, *path: Any) -> Any:
        if name not in self.attrs:
            return None
        if attr == "show":
            return {}
        if attr in self.errors_of.get(name, {}):
            raise errors.TemplateError(f"Error in {name} output {attr}: "
                                       f"{self.errors_of[name][attr]}")
        if name in self.errors_of and attr not in self.attrs[name]:
            raise errors.TemplateError(f"The Referenced Attribute ({name} {attr}) is incorrect.")
        if attr not in self.attrs[name]:
            schema = heat_type_schema(self.types[name]) if name in self.types else None
            if schema is not None and attr not in (schema.get("attributes") or {}) and \
                    self.types[name] != "OS::Heat::None":
                raise errors.TemplateError(f"The Referenced Attribute ({name} {attr}) is "
                                           f"incorrect.")
            return None
        value = self.attrs[name][attr]
        for key in path:
            try:
                if isinstance(value, list):
                    value = value[int(key)]
                elif isinstance(value, dict):
                    value = value[key]
                else:
                    return None
            except (KeyError, IndexError, ValueError, TypeError):
                return None
        return value

    def get_all_attrs(self, name: str) -> dict[str, Any]:
        return dict(self.attrs.get(name) or {})

    types: dict[str, str] = field(default_factory=dict)
    errors_of: dict[str, dict[str, str]] = field(default_factory=dict)


def type_schema_for(files: dict[str, str]) -> Any:
    """Heat's schemas, and template-resource schemas for types that are files."""
    def lookup(name: str) -> dict[str, Any] | None:
        if name in files:
            return template_resource_schema(parse(files[name], files))
        return heat_type_schema(name)
    return lookup


def create_nested(stack: StackDefinition, name: str, values: dict[str, Any], out: Created,
                  stack_name: str) -> str:
    """Create the template resource ``name``; returns its final state."""
    rdef = stack.resources[name]
    files = dict(stack.template.files)
    child_name = physical_name(stack_name, name)
    metadata = stack.resolve_metadata(name, out)
    child = parse(files[rdef.type], files).instantiate(
        values, None, StackIdentity(child_name, str(uuid.uuid4()), "project-id"),
        type_schema_for(files),
        parent=ParentFacade(metadata=metadata, deletion_policy=rdef.deletion_policy,
                            update_policy=rdef.update_policy))
    plugin_validate(child)
    created = create(child, child_name)
    out.refs[name] = f"arn:openstack:heat::project-id:stacks/{child_name}/{uuid.uuid4()}"
    out.attrs[name] = {}
    out.errors_of[name] = {}
    for o in child.resolve_outputs(created):
        if "output_error" in o:
            out.errors_of[name][o["output_key"]] = o["output_error"]
        else:
            out.attrs[name][o["output_key"]] = o["output_value"]
    return "CREATE_COMPLETE" if created.status == "CREATE_COMPLETE" else "CREATE_FAILED"


def create(stack: StackDefinition, stack_name: str = "vstack") -> Created:
    """Create every resource in dependency order (see module doc)."""
    out = Created()
    out.types = {n: r.type for n, r in stack.resources.items()}
    for name in stack.order():
        rdef = stack.resources[name]
        deps = stack.dependencies[name]
        if any(out.states.get(d) not in ("CREATE_COMPLETE", "CHECK_COMPLETE") for d in deps):
            out.states[name] = "INIT_COMPLETE"
            continue
        try:
            values = stack.resolve_properties(name, out)
            schema = type_schema_for(dict(stack.template.files))(rdef.type)
            if schema is not None and rdef.type != "OS::Heat::None":
                values = props.validate(schema.get("properties"), values,
                                        ("resources", name, "properties"))
        except errors.StokerError as exc:
            out.states[name] = "INIT_COMPLETE"
            out.status = "CREATE_FAILED"
            out.reasons.append(f"{type(exc).__name__}: resources.{name}: {exc}")
            continue
        if rdef.external_id is not None:
            out.refs[name] = str(rdef.external_id)
            out.attrs[name] = {}
            out.states[name] = "CHECK_COMPLETE"
            continue
        if rdef.type in stack.template.files:
            out.states[name] = create_nested(stack, name, values, out, stack_name)
            if out.states[name] == "CREATE_FAILED":
                out.status = "CREATE_FAILED"
            continue
        if rdef.type == "OS::Heat::TestResource" and values.get("fail"):
            out.states[name] = "CREATE_FAILED"
            out.status = "CREATE_FAILED"
            continue
        if rdef.type == "OS::Heat::Value":
            out.attrs[name] = {"value": value_of(values)}
            out.refs[name] = physical_name(stack_name, name)
        elif rdef.type == "OS::Heat::TestResource":
            out.attrs[name] = {"output": values.get("value", "test_string")}
            out.refs[name] = physical_name(stack_name, name)
        elif rdef.type == "OS::Heat::RandomString":
            value = random_string(values)
            out.attrs[name] = {"value": value}
            out.refs[name] = value
        else:
            out.attrs[name] = {}
            out.refs[name] = str(uuid.uuid4())
        out.states[name] = "CREATE_COMPLETE"
    return out
