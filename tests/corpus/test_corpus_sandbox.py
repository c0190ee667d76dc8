"""Every corpus template that Stoker can run, created and deleted on the sandbox cloud.

A template of ``../shared/corpus`` is *runnable* when Heat 27 judged it valid
(``heat-verdicts.json``; ``invalid`` and ``client:...`` verdicts are left out, with their count
printed) and every resource type it uses — nested ``resource_def`` types included, as
MANIFEST.tsv lists them — is implemented (``app.resource_types.registry.types()``, or a
template resource of Heat's global environment: ``app.templates.global_templates``); templates
with outputs only (TripleO's service templates) are run too. Byte-identical copies
(``duplicate_of``) run once. A type named by a path (a nested template file) or an alias that
only an environment's ``resource_registry`` resolves counts as not implemented: the corpus's
environment files map TripleO's aliases to files the sample does not hold. Each runnable
template goes through ``app.services.stacks`` and the convergence engine (in-process dispatcher)
against a sandbox set up as a DevStack cloud is (a key pair, the images CFN templates' mappings
name, the ``public`` and ``private`` networks), with parameters taken from :data:`SANDBOX_VALUES`
(matched by name, then by type and constraints). It must reach CREATE_COMPLETE with every output
resolved (no ``output_error``), then DELETE_COMPLETE, leaving the sandbox's inventory as it was.

The module prints how many templates it covered and which types blocked the others. Templates
that cannot pass yet are listed in :data:`KNOWN_DIVERGENCES` with the reason; the list is
asserted exactly, so it can only shrink.
"""
from __future__ import annotations

import csv
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import yaml
from werkzeug.serving import WSGIRequestHandler, make_server

from app import clients, config
from app.context import RequestContext
from app.resource_types import registry
from app.templates import global_templates
from app.templates.registry import global_target
from tests.sandbox.conftest import SandboxHandle, start_sandbox

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
CTX = RequestContext(tenant_id="admin", is_admin=True)   # the admin project, as noauth
DELAYS = {k: 0.0 for k in ("server_build", "server_delete", "server_action", "volume_create",
                           "volume_delete", "snapshot_create", "backup_create", "lb_provision",
                           "lb_delete", "image_import")}
KEY_NAME = "corpus-key"

#: Template path -> why it does not pass on the sandbox yet (asserted exactly: only shrinks).
KNOWN_DIVERGENCES: dict[str, str] = {
    "heat-templates/hot/barbican/order.yaml":
        "the order's generated secret outlives the stack (Barbican keeps what an order made when "
        "the order is deleted, and Heat deletes only the order), so the empty-sandbox check "
        "cannot hold; tests/types_api/test_barbican.py runs it and deletes the secret",
    "heat-templates/hot/multi_region_hello_world.yaml":
        "its second remote stack is in RegionTwo; the sandbox's catalog has RegionOne only, so "
        "the create is refused with Heat's 'Cannot establish connection to Heat endpoint at "
        "region \"RegionTwo\"' (as Heat's on a one-region cloud)",
    "heat-templates/cfn/F17/WordPress_With_LB.template":
        "its DatabaseServer AWS::CloudFormation::Stack's TemplateURL is a remote https URL "
        "(raw.github.com); Heat's engine fetches it, Stoker takes nested templates from the "
        "request's files only (runnable since AWS::ElasticLoadBalancing::LoadBalancer exists)",
    "heat-templates/cfn/F17/WordPress_Composed_Instances.template":
        "its AWS::CloudFormation::Stack's TemplateURL is a remote https URL (raw.github.com); "
        "Heat's engine fetches it, Stoker takes nested templates from the request's files only",
    "heat-templates/openshift-origin/centos65/OpenShift-1B1N.yaml":
        "the broker's cfn-signal sends --data \"${DNS_SEC_KEY}\", a key the script generates on "
        "the server at run time: the sandbox agent runs no shell, so it skips that signal and "
        "the wait condition never completes",
    "heat-tempest-plugin/heat_tempest_plugin/tests/scenario/templates/"
    "test_volumes_create_from_backup.yaml":
        "the success signal's data holds $TESTDATA, read at run time from a file on the "
        "restored volume: the sandbox agent runs no shell, so it skips that signal",
    "heat/heat_integrationtests/scenario/templates/test_volumes_create_from_backup.yaml":
        "the success signal's data holds $TESTDATA, read at run time from a file on the "
        "restored volume: the sandbox agent runs no shell, so it skips that signal",
    "heat/heat_integrationtests/scenario/test_volumes_create_from_backup.yaml":
        "the success signal's data holds $TESTDATA, read at run time from a file on the "
        "restored volume: the sandbox agent runs no shell, so it skips that signal",
    "heat-templates/hot/software-config/example-templates/example-chef-template.yaml":
        "its StructuredConfig's config is a list where the schema (Heat's too) wants a map: "
        "the create refuses it ('\"[...]\" is not a map', as Heat's properties.py); Heat's "
        "validate checks no properties, hence its verdict",
    "heat-templates/openshift-origin/F19/hot-template/openshift-scalable-cpu-nbgears/"
    "nodeinstance.yaml":
        "the node's cfn-signal URL is ${NODE_WAIT_HANDLE}, a shell variable of the server's "
        "script: the sandbox agent runs no shell of RAW user data, so it skips that signal",
    "heat-templates/openshift-origin/F19/hot-template/openshift-scalable-nbgears/"
    "nodeinstance.yaml":
        "the node's cfn-signal URL is ${NODE_WAIT_HANDLE}, a shell variable of the server's "
        "script: the sandbox agent runs no shell of RAW user data, so it skips that signal",
    "heat-templates/cfn/F17/VPN_Service.template":
        "its VPNService waits for nothing but its router and subnet, not for the router's "
        "gateway (OS::Neutron::RouterGateway), and Neutron's VPNaaS refuses a service on a router "
        "without one ('Router <id> has no external network gateway set'); Heat's VPNService "
        "adds no dependency either, so Heat with Neutron fails it the same way",
    "heat-templates/openshift-origin/F19/aws-template/openshift.template":
        "the broker's cfn-signal sends --data \"${DNS_SEC_KEY}\" to ${BROKER_WAIT_HANDLE}, shell "
        "values of the server's script: the sandbox agent runs no shell of RAW user data, so it "
        "skips that signal and the wait condition never completes",
    **{f"heat-templates/openshift-origin/F19/hot-template/{variant}/openshift.yaml":
       "the broker's cfn-signal sends --data \"${DNS_SEC_KEY}\" to ${BROKER_WAIT_HANDLE}, shell "
       "values of the server's script: the sandbox agent runs no shell of RAW user data, so it "
       "skips that signal and the wait condition never completes"
       for variant in ("openshift", "openshift-scalable-cpu", "openshift-scalable-nbgears",
                       "openshift-scalable-cpu-nbgears")},
    "tripleo-heat-templates/puppet/extraconfig/pre_deploy/compute/neutron-ml2-bigswitch.yaml":
        "it deploys to an existing server given as a parameter, which runs no os-collect-config "
        "(not a SOFTWARE_CONFIG server of the stack): as on Heat, nothing ever signals the "
        "deployment",
}

#: Outputs that are errors on Heat too (the template's own mistake), with Heat's message.
TEMPLATE_OUTPUT_ERRORS: dict[str, dict[str, str]] = {
    # the Outputs section refers to a resource "IPAddress" the template does not have
    "heat-templates/cfn/F17/WordPress_Single_Instance_With_Neutron.template": {
        "InstanceIPAddress": 'The specified reference "IPAddress" (in unknown) is incorrect.'},
}

#: Per template: parameters whose meaning the name does not tell (``@`` = a bootstrap id).
TEMPLATE_VALUES: dict[str, dict[str, Any]] = {
    # a compute host the cloud has (the sandbox's are sandbox-1 ... sandbox-8)
    "heat-templates/hot/blazar/blazar_host.yaml": {"name": "sandbox-1"},
    # the cluster's key pair must exist: DevStack's extras made one
    "heat-templates/hot/magnum/create_coe_cluster.yaml": {"keypair": KEY_NAME},
    # the network is the router's external gateway
    "heat-tempest-plugin/heat_tempest_plugin/tests/scenario/templates/remote_nested_base.yaml":
        {"network_name": "@network:public"},
    # as its nested remote_nested_base.yaml: the router's external gateway
    "heat-tempest-plugin/heat_tempest_plugin/tests/scenario/templates/remote_nested_root.yaml":
        {"network_name": "@network:public"},
    # Heat's integration test passes the group's desired capacity
    "heat/heat_integrationtests/scenario/templates/test_neutron_autoscaling.yaml":
        {"capacity": "1"},
    # the template creates a key pair named key_name
    "heat/heat_integrationtests/scenario/templates/test_base_resources.yaml":
        {"key_name": "corpus-new-key"},
    # Heat's own implementation of AWS::CloudWatch::Alarm: its parent passes the alarm's figures
    "heat/etc/heat/templates/AWS_CloudWatch_Alarm.yaml":
        {"EvaluationPeriods": "1", "Period": "60", "Threshold": "50", "MetricName": "cpu_util"},
    # Heat's AWS::RDS::DBInstance passes its DBInstanceClass (the mapping's keys)
    "heat/etc/heat/templates/AWS_RDS_DBInstance.yaml": {"DBInstanceClass": "db.m1.small"},
    # TripleO's parent stack passes the service data (the control plane's CIDRs)
    "tripleo-heat-templates/deployment/tripleo-firewall/tripleo-firewall-baremetal-ansible.yaml":
        {"ServiceData": json.dumps({"net_cidr_map": {"ctlplane": ["192.168.24.0/24"]}})},
    # Keystone's samples: names of new objects, and the bootstrap's roles, domain and project
    # a disabled domain: Heat deletes a domain with the DELETE alone, which Keystone refuses
    # for an enabled one
    "heat-templates/hot/keystone/keystone_domain.yaml":
        {"domain_name": "corpus-domain", "domain_enabled": False},
    "heat-templates/hot/keystone/keystone_region.yaml":
        {"region_id": "corpus-child", "parent_region_id": "corpus-parent"},
    "heat-templates/hot/keystone/keystone_project.yaml":
        {"project_name": "corpus-project", "project_domain": "default"},
    "heat-templates/hot/keystone/keystone_group.yaml":
        {"group_name": "corpus-group", "group_domain": "default", "group_role": "member",
         "group_role_domain": "default", "group_role_project": "demo"},
    "heat-templates/hot/keystone/keystone_user.yaml":
        {"user_name": "corpus-user", "user_domain": "default", "user_default_project": "demo",
         "user_groups": "", "group_role": "reader", "group_role_domain": "default",
         "group_role_project": "demo"},
    "tripleo-heat-templates/deployment/snmp/snmp-baremetal-puppet.yaml":
        {"ServiceData": json.dumps({"net_cidr_map": {"ctlplane": ["192.168.24.0/24"]}}),
         "ServiceNetMap": json.dumps({"SnmpdNetwork": "ctlplane"})},
}


# ---- which templates run ---------------------------------------------------------------------
def _manifest() -> list[dict[str, str]]:
    with open(CORPUS / "MANIFEST.tsv", newline="") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] in ("hot", "cfn")]


def _type_label(t: str) -> str:
    return "(nested template file)" if ("/" in t or t.endswith((".yaml", ".template"))) else t


BLOCKED_PATHS: list[str] = []


def _implemented(type_name: str, plugins: set[str]) -> bool:
    """A plugin type (a HIDDEN one too: templates use them as Heat's), one Heat's global
    environment maps to a plugin type, or a template resource of the global environment
    (``AWS::CloudWatch::Alarm``: global_templates)."""
    return type_name in plugins or registry.get(type_name) is not None or \
        global_target(type_name) in plugins or type_name in global_templates.ENTRIES


def select() -> tuple[list[str], Counter[str], Counter[str], int]:
    """(runnable paths, blocking types with their template counts, verdicts left out,
    valid templates without resources)."""
    verdicts = json.loads((CORPUS / "heat-verdicts.json").read_text())
    implemented = set(registry.types())
    runnable: list[str] = []
    blocked: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    empty = 0
    for row in _manifest():
        verdict = verdicts.get(row["path"])
        if verdict != "valid":
            excluded[str(verdict) if verdict else "no verdict"] += 1
            continue
        if row["duplicate_of"]:
            continue
        types = [t for t in row["resource_types"].split(",") if t]
        if not types:  # outputs only (TripleO's service templates): run too, no cloud needed
            empty += 1
        missing = {_type_label(t) for t in types if not _implemented(t, implemented)}
        if missing:
            blocked.update(missing)
            BLOCKED_PATHS.append(row["path"])
        else:
            runnable.append(row["path"])
    return sorted(runnable), blocked, excluded, empty


def registry_rescued(blocked_paths: list[str]) -> list[str]:
    """Blocked templates whose every missing type some corpus environment's
    ``resource_registry`` maps to an implemented type (they would run with that mapping)."""
    implemented = set(registry.types())
    mapped: dict[str, set[str]] = {}
    with open(CORPUS / "MANIFEST.tsv", newline="") as f:
        envs = [r for r in csv.DictReader(f, delimiter="\t") if r["kind"] == "env"]
    for row in envs:
        doc = _load(row["path"])
        for alias, target in (doc.get("resource_registry") or {}).items():
            if isinstance(target, str):
                mapped.setdefault(alias, set()).add(target)
    out = []
    for row in _manifest():
        if row["path"] not in blocked_paths:
            continue
        missing = [t for t in row["resource_types"].split(",")
                   if t and not _implemented(t, implemented)]
        if all(mapped.get(t, set()) & implemented for t in missing):
            out.append(row["path"])
    return out


RUNNABLE, BLOCKED, EXCLUDED, EMPTY = select()
RUN = [p for p in RUNNABLE if p not in KNOWN_DIVERGENCES]


# ---- files -------------------------------------------------------------------------------
def _get_file_refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if set(node) == {"get_file"} and isinstance(node["get_file"], str):
            yield node["get_file"]
        kind = node.get("type")
        if isinstance(kind, str) and kind.endswith((".yaml", ".template")):
            yield kind  # heatclient fetches a template resource type's file too
        for value in node.values():
            yield from _get_file_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _get_file_refs(value)


def files_of(path: str) -> dict[str, str]:
    """What python-heatclient sends as ``files`` (template_utils): the content of each local
    file a ``get_file`` or a resource ``type`` ending in ``.yaml``/``.template`` names, found
    beside the file naming it, and the files that a fetched
    template names in turn; keyed by the name as written (heatclient writes absolute
    ``file://`` URLs in both places: the same lookup)."""
    out: dict[str, str] = {}
    todo = [path]
    while todo:
        current = todo.pop()
        for ref in _get_file_refs(_load(current)):
            target = ((CORPUS / current).parent / ref).resolve()
            if ref in out or "://" in ref or not target.is_file() \
                    or not target.is_relative_to(CORPUS):
                continue
            out[ref] = target.read_text()
            if target.suffix in (".yaml", ".template", ".json"):
                todo.append(str(target.relative_to(CORPUS)))
    return out


# ---- parameters ------------------------------------------------------------------------------
def _load(path: str) -> dict[str, Any]:
    """A corpus file parsed as YAML by libyaml (the same documents as ``yaml.safe_load`` on
    every corpus file, at a tenth of its CPU: the tests read each file several times)."""
    return yaml.load((CORPUS / path).read_text(), Loader=yaml.CSafeLoader) or {}


#: Parameter name (lower case, without ``_`` / ``-``) -> sandbox value or bootstrap-id key.
SANDBOX_VALUES: dict[str, str] = {
    "keyname": KEY_NAME, "sshkeyname": KEY_NAME, "key": KEY_NAME,
    "image": "cirros", "imageid": "cirros", "chefimagename": "cirros", "imagename": "cirros",
    "flavor": "m1.small", "chefflavorname": "m1.small", "instancetype": "m1.small",
    "publicnetid": "@network:public", "externalnetwork": "@network:public",
    "publicnet": "@network:public", "publicnetwork": "@network:public",
    "floatingnetwork": "@network:public",
    "privatenetid": "@network:private", "netid": "@network:private",
    "internalnetwork": "@network:private", "networkname": "@network:private",
    "network": "@network:private", "privatenet": "@network:private",
    "privatesubnetid": "@subnet:private-subnet", "subnetid": "@subnet:private-subnet",
    "internalsubnet": "@subnet:private-subnet", "subnet": "@subnet:private-subnet",
    "fixedsubnet": "@subnet:private-subnet",
    "privatesubnetwork": "@subnet:private-subnet", "securitygroup": "default",
    "instanceid": "@server:corpus-server", "server": "@server:corpus-server",
    "backupid": "@backup:corpus-backup",
    "hosts": "sandbox-1,sandbox-2",   # the sandbox's compute hosts (an aggregate's members)
}


def _constraints(p: dict[str, Any]) -> list[dict[str, Any]]:
    out = list(p.get("constraints") or [])
    if "AllowedValues" in p:
        out.append({"allowed_values": p["AllowedValues"]})
    if "AllowedPattern" in p:
        out.append({"allowed_pattern": p["AllowedPattern"]})
    if "MinLength" in p or "MaxLength" in p:
        out.append({"length": {"min": p.get("MinLength"), "max": p.get("MaxLength")}})
    return out


def _fits(value: str, constraints: list[dict[str, Any]]) -> bool:
    for c in constraints:
        if "allowed_values" in c and value not in [str(v) for v in c["allowed_values"]]:
            return False
        if "allowed_pattern" in c and not re.fullmatch(str(c["allowed_pattern"]), value):
            return False
        if "length" in c:
            lo, hi = (c["length"] or {}).get("min"), (c["length"] or {}).get("max")
            if (lo is not None and len(value) < int(lo)) or (hi is not None and len(value) > int(hi)):
                return False
    return True


def parameters(path: str, ids: dict[str, str]) -> dict[str, str]:
    """Values for the template's parameters: the sandbox's (by name) where they fit the
    parameter's constraints; else, for a parameter without default, a value made to fit."""
    doc = _load(path)
    params = doc.get("parameters") or doc.get("Parameters") or {}
    out: dict[str, str] = {}
    fixed = TEMPLATE_VALUES.get(path, {})
    for name, p in params.items():
        p = p or {}
        if name in fixed:
            value = str(fixed[name])
            out[name] = ids[value[1:]] if value.startswith("@") else value
            continue
        # Heat: a null default is no default (the parameter must be given)
        has_default = p.get("default", p.get("Default")) is not None
        cons = _constraints(p)
        key = re.sub(r"[_\-]", "", name.lower())
        value = SANDBOX_VALUES.get(key)
        if value is not None:
            value = ids[value[1:]] if value.startswith("@") else value
            if _fits(value, cons):
                out[name] = value
                continue
            allowed = [c["allowed_values"] for c in cons if "allowed_values" in c]
            if allowed and not has_default:
                out[name] = str(allowed[0][0])
            continue
        if has_default:
            continue
        kind = str(p.get("type") or p.get("Type") or "string").lower()
        allowed = [c["allowed_values"] for c in cons if "allowed_values" in c]
        if allowed:
            out[name] = str(allowed[0][0])
        elif kind == "number" and "timeout" in key:  # a wait condition's: the agent signals
            out[name] = "120"
        elif kind == "number":
            out[name] = "1"
        elif kind in ("comma_delimited_list", "commadelimitedlist"):
            out[name] = "1,2"
        elif kind == "json":
            out[name] = "{}"
        elif kind == "boolean":
            out[name] = "false"
        else:
            out[name] = next((v for v in ("corpus", "Secret1", "abc", "secret-12", "x1")
                              if _fits(v, cons)), "corpus")
    return out


def _template_images() -> set[str]:
    """Image names the runnable templates use as they stand: CFN ``Mappings``
    (``AWSRegionArch2AMI``...), literal ``image`` / ``ImageId`` properties, and the defaults of
    image parameters the sandbox values do not replace; and the HAProxy image a load balancer's
    child stack defaults to."""
    from app.resource_types.aws_elb import DEFAULT_LB_IMAGE
    names: set[str] = set()
    for path in RUNNABLE:
        doc = _load(path)
        if any((r or {}).get("Type") == "AWS::ElasticLoadBalancing::LoadBalancer"
               for r in (doc.get("Resources") or {}).values()):
            names.add(DEFAULT_LB_IMAGE)
        for mname, mapping in (doc.get("Mappings") or {}).items():
            if "ami" not in mname.lower() and "image" not in mname.lower():
                continue
            for row in (mapping or {}).values():
                names.update(v for v in (row or {}).values() if isinstance(v, str))
        for res in (doc.get("resources") or doc.get("Resources") or {}).values():
            props = (res or {}).get("properties") or (res or {}).get("Properties") or {}
            for key in ("image", "ImageId"):
                if isinstance(props.get(key), str):
                    names.add(props[key])
        for name, p in (doc.get("parameters") or doc.get("Parameters") or {}).items():
            default = (p or {}).get("default", (p or {}).get("Default"))
            if "image" in name.lower() and isinstance(default, str) and default:
                names.add(default)
    return names - {"cirros"}


# ---- fixtures --------------------------------------------------------------------------------
class _Admin:
    project_id = "admin"


@pytest.fixture(scope="module")
def cloud(endpoints: tuple[_Served, _Served]) -> Iterator[tuple[SandboxHandle, dict[str, str]]]:
    """The sandbox (no delays) with DevStack's extras: a key pair, ``router1`` joining the
    ``private`` subnet to ``public``, a server ``corpus-server``, a volume backup
    ``corpus-backup`` (for ``backup_id`` parameters), and the images the templates name. Its
    catalog names the Orchestration API (where POLL_SERVER_HEAT servers poll); its agent
    records the corpus's software configs instead of running their scripts here."""
    api_port = endpoints[0].server.server_port
    handle = start_sandbox(delays=DELAYS, agent={"run_configs": False, "poll_seconds": 0.2},
                           extra_catalog=[{"type": "orchestration", "name": "heat",
                                           "url": f"http://127.0.0.1:{api_port}/v1/"
                                                  "%(tenant_id)s"}])
    ids = dict(handle.admin("GET", "ids")["ids"])
    settings = config.load({}, cloud_auth_url=handle.auth_url, client_retry_backoff=0.01)
    previous = config._current
    config.set_current(settings)
    clients.reset_cache()
    conn = clients.for_stack(_Admin()).cloud()
    conn.compute.create_keypair(name=KEY_NAME)
    router = conn.network.create_router(  # DevStack's router1: private reaches public
        name="router1", external_gateway_info={"network_id": ids["network:public"]})
    conn.network.add_interface_to_router(router.id, subnet_id=ids["subnet:private-subnet"])
    server = conn.compute.create_server(  # an existing server for "instance_id" parameters
        name="corpus-server", flavor_id=ids.get("flavor:m1.tiny", "1"),
        image_id=ids["image:cirros"], networks=[{"uuid": ids["network:private"]}])
    ids["server:corpus-server"] = server.id
    volume = conn.block_storage.create_volume(name="corpus-volume", size=1)
    conn.block_storage.wait_for_status(volume, "available", interval=0.05, wait=10)
    backup = conn.block_storage.create_backup(volume_id=volume.id, name="corpus-backup")
    conn.block_storage.wait_for_status(backup, "available", interval=0.05, wait=10)
    ids["backup:corpus-backup"] = backup.id
    images = []
    for name in sorted(_template_images()):
        image = conn.image.create_image(name=name, container_format="bare", disk_format="qcow2")
        conn.image.import_image(image, method="web-download", uri="http://127.0.0.1:1/image")
        images.append(image.id)
    deadline = time.monotonic() + 30
    while any(conn.image.get_image(i).status != "active" for i in images):
        assert time.monotonic() < deadline, "images never became active"
        time.sleep(0.05)
    clients.reset_cache()
    config._current = previous
    yield handle, ids
    handle.server.shutdown()


class _Served:
    """A WSGI server on a free port whose application each test installs (``app``)."""

    def __init__(self) -> None:
        self.app: Any = None
        self.server = make_server("127.0.0.1", 0, self._call, threaded=True,
                                  request_handler=_Quiet)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _call(self, environ: Any, start_response: Any) -> Any:
        return self.app(environ, start_response)


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@pytest.fixture(scope="module")
def endpoints() -> Iterator[tuple[_Served, _Served]]:
    """The Orchestration API and the CFN API, where a server's user data signals its wait
    condition handle (the sandbox agent sends the ``curl`` / ``cfn-signal`` requests)."""
    api, cfn = _Served(), _Served()
    yield api, cfn
    api.server.shutdown()
    cfn.server.shutdown()


@pytest.fixture()
def on_sandbox(cloud: tuple[SandboxHandle, dict[str, str]], db: config.Settings,
               endpoints: tuple[_Served, _Served],
               ) -> Iterator[tuple[SandboxHandle, dict[str, str]]]:
    from app import cfn as cfn_app
    from app.api import create_app
    handle, _ = cloud
    api, cfn = endpoints
    s = db.replace(cloud_auth_url=handle.auth_url, client_retry_backoff=0.01,
                   api_port=api.server.server_port, cfn_port=cfn.server.server_port)
    api.app, cfn.app = create_app(s), cfn_app.create_app(s)
    config.set_current(s)
    clients.reset_cache()
    yield cloud
    clients.reset_cache()


def _settled(handle: SandboxHandle, before: dict[str, set[str]]) -> dict[str, set[str]]:
    deadline = time.monotonic() + 10
    while True:
        after = handle.created()
        leaked = {k: v - before.get(k, set()) for k, v in after.items() if v - before.get(k, set())}
        if not leaked or time.monotonic() > deadline:
            return leaked
        time.sleep(0.05)


#: seconds a stack may stay CREATE_IN_PROGRESS (a wait condition that the sandbox agent
#: signals once its server is ACTIVE) before the test reads the status it has
SIGNAL_WAIT = 60.0


def _settled_stack(stack_id: str) -> Any:
    """The stack once its action is over (or :data:`SIGNAL_WAIT` has passed)."""
    from app.services import stacks
    deadline = time.monotonic() + SIGNAL_WAIT
    while True:
        st = stacks.get_by_id(CTX, stack_id)
        if not st.stack_status.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            return st
        time.sleep(0.05)


def _always_replaced(path: str) -> set[str]:
    """The template's resources Heat replaces on every update, changed or not
    (``OS::Heat::UpdateWaitConditionHandle``: its ``_needs_update`` raises UpdateReplace)."""
    doc = _load(path)
    return {n for n, r in (doc.get("resources") or doc.get("Resources") or {}).items()
            if (r or {}).get("type", (r or {}).get("Type")) == "OS::Heat::UpdateWaitConditionHandle"}


def _snapshot_volumes(path: str) -> int:
    """How many volumes of the template have ``deletion_policy: Snapshot``."""
    doc = _load(path)
    return sum(1 for r in (doc.get("resources") or doc.get("Resources") or {}).values()
               if (r or {}).get("type", (r or {}).get("Type")) in ("OS::Cinder::Volume",
                                                                   "AWS::EC2::Volume")
               and (r or {}).get("deletion_policy", (r or {}).get("DeletionPolicy")) == "Snapshot")


def _snapshot_backups(path: str, leaked: dict[str, set[str]]) -> set[str]:
    """The backups a ``Snapshot`` deletion policy left (Heat's Volume.handle_snapshot_delete
    backs the volume up and keeps the backup), taken out of ``leaked`` and deleted so the
    sandbox's inventory is as before."""
    if not _snapshot_volumes(path):
        return set()
    kept = leaked.pop("backups", set())
    conn = clients.for_stack(_Admin()).cloud()
    for backup_id in kept:
        conn.block_storage.delete_backup(backup_id)
    return kept


# ---- the tests -------------------------------------------------------------------------------
def test_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the coverage figures; the known divergences are exactly those still failing."""
    with capsys.disabled():
        print(f"\ncorpus on the sandbox: {len(RUN)} templates run, "
              f"{len(KNOWN_DIVERGENCES)} known divergences, {len(RUNNABLE)} runnable in all")
        print(f"  excluded by Heat's verdict: {sum(EXCLUDED.values())} "
              f"({', '.join(f'{k} {n}' for k, n in sorted(EXCLUDED.items()))}); "
              f"valid without resources: {EMPTY}")
        rescued = registry_rescued(BLOCKED_PATHS)
        print(f"  blocked: {len(BLOCKED_PATHS)} templates; of them {len(rescued)} would run "
              "with a corpus environment's resource_registry mapping")
        print("  blocked by types not implemented (templates):")
        for t, n in BLOCKED.most_common():
            print(f"    {n:3d}  {t}")
        for path, why in sorted(KNOWN_DIVERGENCES.items()):
            print(f"  known divergence: {path}: {why}")
    assert set(KNOWN_DIVERGENCES) <= set(RUNNABLE)
    assert not rescued, f"run these with their environment's mapping: {rescued}"
    assert len(RUN) >= 90


def _agents_done() -> None:
    """Wait until the sandbox agent has sent every signal of every server's script."""
    from app.sandbox import agent
    deadline = time.monotonic() + SIGNAL_WAIT
    while agent.pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not agent.pending(), "the sandbox agent never finished"


def _update_unchanged(st: Any, path: str, ids: dict[str, str]) -> tuple[str, list[Any], list[Any]]:
    """Update the stack with the very same template and parameters (Heat: nothing to do):
    ``(stack_status, resource events written, resources whose physical id changed)``. A
    nested stack's own UPDATE events are expected (Heat's StackResource always updates)."""
    from app.models import Event, Resource, read_session
    from app.services import updates

    def physical() -> dict[str, str | None]:
        with read_session() as s:
            return {r.name: r.physical_resource_id for r in s.execute(
                sa.select(Resource).where(Resource.stack_id == st.id)).scalars()}

    _agents_done()  # a script's signals after its wait condition completed (a duplicate id)
    before = physical()
    with read_session() as s:  # Heat always updates a nested stack (its members decide)
        nested = {r.name for r in s.execute(sa.select(Resource).where(
            Resource.stack_id == st.id)).scalars() if (r.rsrc_data or {}).get("nested")}
    with read_session() as s:
        last = s.execute(sa.select(sa.func.max(Event.id)).where(
            Event.stack_id == st.id)).scalar()
    updates.update_stack(CTX, st.name, st.id, template=(CORPUS / path).read_text(),
                         parameters=parameters(path, ids), files=files_of(path))
    after = _settled_stack(st.id)
    with read_session() as s:
        events = [(e.resource_name, e.action, e.status) for e in s.execute(
            sa.select(Event).where(Event.stack_id == st.id, Event.id > last)).scalars()
            if e.resource_name != st.name
            and not (e.resource_name in nested and e.action == "UPDATE"
                     and e.status != "FAILED")]
    moved = sorted(n for n, pid in physical().items() if before.get(n) != pid)
    return after.stack_status, events, moved


@pytest.mark.parametrize("path", RUN)
def test_create_and_delete_on_sandbox(path: str,
                                      on_sandbox: tuple[SandboxHandle, dict[str, str]]) -> None:
    from app.services import stacks
    handle, ids = on_sandbox
    before = handle.created()
    name = "c" + re.sub(r"[^A-Za-z0-9]", "", Path(path).stem)[:40]
    st = stacks.create_stack(CTX, stack_name=name, template=(CORPUS / path).read_text(),
                             parameters=parameters(path, ids), files=files_of(path))
    st = _settled_stack(st.id)
    status, reason = st.stack_status, st.status_reason
    bad = {o["output_key"]: o.get("output_error") for o in stacks.stack_outputs(st)
           if o.get("output_error")}
    if status == "CREATE_COMPLETE":
        assert {k: bad.pop(k, None) for k in TEMPLATE_OUTPUT_ERRORS.get(path, {})} \
            == TEMPLATE_OUTPUT_ERRORS.get(path, {})
        try:
            same = _update_unchanged(st, path, ids)
        finally:
            stacks.delete_stack(CTX, st.name, st.id)
    else:
        stacks.delete_stack(CTX, st.name, st.id)
    deleted = stacks.get_by_id(CTX, st.id)
    leaked = _settled(handle, before)
    kept = _snapshot_backups(path, leaked)
    assert status == "CREATE_COMPLETE", reason
    assert not bad, f"outputs with errors: {bad}"
    replaced = _always_replaced(path)
    if replaced:  # Heat replaces these on every update (their _needs_update), and what
        # takes their new ids (a server's user_data) follows; the update still completes
        assert same[0] == "UPDATE_COMPLETE" and replaced <= set(same[2]), same
    else:
        assert same == ("UPDATE_COMPLETE", [], []), "an update with nothing changed changed things"
    assert deleted.stack_status == "DELETE_COMPLETE", deleted.status_reason
    assert not leaked, f"objects left behind: {leaked}"
    assert len(kept) == _snapshot_volumes(path), "a Snapshot deletion policy keeps one backup"
