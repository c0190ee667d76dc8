"""Corpus helpers: the HOT templates of ../shared/corpus with Heat's /validate verdicts, the
files map python-heatclient would build, and a type_schema backed by heat-reference."""
from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app import errors
from app.templates import StackIdentity, parse
from app.templates.loader import load_text
from app.templates.provider import template_resource_schema
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import heat_type_schema

CORPUS = (Path(__file__).resolve().parents[3] / "../shared/corpus").resolve()
TEMPLATE_SUFFIXES = (".yaml", ".template")


@dataclass
class Entry:
    path: str
    kind: str
    verdict: str


def entries() -> list[Entry]:
    """Every corpus row with its Heat verdict ('' when Heat gave none)."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    verdicts = json.loads((CORPUS / "heat-verdicts.json").read_text())
    with manifest.open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [Entry(r["path"], r["kind"], verdicts.get(r["path"], "")) for r in rows]


def _refs(data: Any) -> list[tuple[str, str]]:
    """(key, value) for every get_file target and template-file type in ``data``."""
    out: list[tuple[str, str]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "get_file" and isinstance(v, str):
                out.append(("get_file", v))
            elif k == "type" and isinstance(v, str) and v.endswith(TEMPLATE_SUFFIXES):
                out.append(("type", v))
            else:
                out.extend(_refs(v))
    elif isinstance(data, list):
        for v in data:
            out.extend(_refs(v))
    return out


def files_map(path: Path, files: dict[str, str] | None = None,
              seen: set[Path] | None = None) -> dict[str, str]:
    """The files map heatclient sends: get_file targets and template-file types, resolved
    relative to the including file (nested templates are scanned too). Missing files are left
    out (heatclient would refuse; such templates are not scored)."""
    files = {} if files is None else files
    seen = set() if seen is None else seen
    if path in seen:
        return files
    seen.add(path)
    try:
        data = load_text(path.read_bytes()).data
    except errors.StokerError:
        return files
    for kind, ref in _refs(data):
        if "://" in ref or ref.startswith("/"):
            continue
        target = (path.parent / ref).resolve()
        if target.is_file():
            files.setdefault(ref, target.read_text(errors="replace"))
            if kind == "type":
                files_map(target, files, seen)
    return files


#: heat-reference lists only what Heat's API shows. Heat still resolves these hidden
#: (deprecated/unsupported) types, properties and attributes, so templates using them validate.
HIDDEN_TYPES = frozenset({
    "OS::Designate::Domain", "OS::Designate::Record", "OS::Ceilometer::Alarm",
    "OS::Monasca::Notification", "OS::Monasca::AlarmDefinition", "OS::Neutron::RouterGateway",
    "OS::Neutron::Pool", "OS::Neutron::PoolMember", "OS::Neutron::HealthMonitor",
    "OS::Neutron::LoadBalancer", "OS::Neutron::Firewall", "OS::Neutron::FirewallPolicy",
    "OS::Neutron::FirewallRule", "OS::Neutron::VPNService", "OS::Neutron::IKEPolicy",
    "OS::Neutron::IPsecPolicy", "OS::Neutron::IPsecSiteConnection",
    "OS::Neutron::LBaaS::LoadBalancer", "OS::Neutron::LBaaS::Listener",
    "OS::Neutron::LBaaS::Pool", "OS::Neutron::LBaaS::PoolMember",
    "OS::Neutron::LBaaS::HealthMonitor", "OS::Heat::HARestarter", "OS::Glance::Image",
    "OS::Nova::FloatingIP", "OS::Nova::FloatingIPAssociation", "OS::Heat::CWLiteAlarm",
    "AWS::CloudWatch::Alarm", "OS::Heat::WaitConditionHandle"})
#: Deprecated names Heat still accepts and translates: {type: {old name: new name}}.
HIDDEN_PROPERTIES: dict[str, dict[str, str]] = {
    "OS::Neutron::Port": {"network_id": "network"},
    "OS::Neutron::Subnet": {"network_id": "network"},
    "OS::Neutron::RouterInterface": {"router_id": "router", "subnet_id": "subnet"},
    "OS::Neutron::FloatingIP": {"floating_network_id": "floating_network"},
}
HIDDEN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "OS::Nova::Server": ("first_address",),
}
#: Types whose get_attr accepts names not in the schema (Heat's dynamic get_attribute).
DYNAMIC_ATTRIBUTES = frozenset({
    "OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup", "OS::Heat::SoftwareDeployment",
    "OS::Heat::StructuredDeployment", "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::StructuredDeploymentGroup", "OS::Heat::SoftwareDeployments",
    "OS::Heat::StructuredDeployments", "OS::Heat::Stack", "AWS::CloudFormation::Stack",
    "OS::Heat::None"})


def corpus_type_schema(files: dict[str, str]) -> Callable[[str], dict[str, Any] | None]:
    """Heat's schemas, completed with what heat-reference cannot show: the ``description``
    property (the reference data had every key named "description" stripped), hidden types,
    properties and attributes, dynamic attributes. A template-file type present in the files
    map is accepted with any properties/attributes (nested stacks are a later issue)."""
    def lookup(name: str) -> dict[str, Any] | None:
        if name in files:
            try:
                return template_resource_schema(parse(files[name], files))
            except errors.StokerError:
                return {"properties": None, "attributes": None}
        if name in HIDDEN_TYPES:
            return {"properties": None, "attributes": None}
        schema = heat_type_schema(name)
        if schema is None:
            return None
        props = dict(schema.get("properties") or {})
        props.setdefault("description", {"type": "string"})
        for old, new in HIDDEN_PROPERTIES.get(name, {}).items():
            target = dict(props.get(new) or {"type": "string"})
            props[old] = {**target, "required": False}
            props[new] = {**target, "required": False}
        attrs: dict[str, Any] | None = dict(schema.get("attributes") or {})
        for attr in HIDDEN_ATTRIBUTES.get(name, ()):
            attrs[attr] = {}  # type: ignore[index]
        if name in DYNAMIC_ATTRIBUTES:
            attrs = None
        return {**schema, "properties": props, "attributes": attrs}
    return lookup


def validate(entry: Entry) -> tuple[str, str, float]:
    """Our verdict ('valid'/'invalid'), the error text, and seconds taken."""
    path = CORPUS / entry.path
    files = files_map(path)
    start = time.perf_counter()
    try:
        tmpl = parse(path.read_bytes(), files=files)
        bind(tmpl, {}, None, StackIdentity("validate"), corpus_type_schema(files),
                         strict=False, nesting=HEAT_NESTING)
        return "valid", "", time.perf_counter() - start
    except errors.StokerError as exc:
        return "invalid", f"{exc.heat_type}: {exc.message}", time.perf_counter() - start
