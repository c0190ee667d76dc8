"""``stoker up --auth keystone`` end to end against the sandbox's Keystone, with real workers and
python-heatclient holding a real token: the whole flow, step by step.

A member creates a stack (a network, a subnet, a slow volume) and revokes the token at once; the
stack still completes, in the member's project, through the trust; another project's member gets
404, the member's token on another project's URL 403, a reader lists but may not create; delete
completes and the trust is gone; a trust deleted behind Stoker's back makes the stack's next
operation fail with a reason that names the trust, never hang. Keystone's own resource types
are refused to a member (Heat's ``resource_types:OS::Keystone::*`` policy) and run for an admin
through the admin's trust.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.identity.keystone_server import free_port

pytestmark = pytest.mark.integration

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.10.0.0/24}
  disk:
    type: OS::Cinder::Volume
    properties: {size: 1}
outputs:
  net_id: {value: {get_resource: net}}
  volume_id: {value: {get_resource: disk}}
"""


def _stoker() -> list[str]:
    import sys
    script = Path(sys.executable).parent / "stoker"
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


class Up:
    """A running ``stoker up --auth keystone``: API ``port``, sandbox ``auth_url``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port, self.sandbox_port, self.cfn_port = free_port(), free_port(), free_port()
        self.auth_url = f"http://127.0.0.1:{self.sandbox_port}/identity/v3"
        env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
        env.update(HOME=str(home), STOKER_API_PORT=str(self.port),
                   STOKER_SANDBOX_PORT=str(self.sandbox_port), STOKER_TOKEN_CACHE_TIME="-1",
                   STOKER_CFN_PORT=str(self.cfn_port),
                   STOKER_SANDBOX_DELAYS="volume_create=3")
        self.log = home / "up.log"
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen([*_stoker(), "up", "--auth", "keystone", "--workers", "1"],
                                         cwd=home, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + 120
        while True:
            try:
                requests.get(f"http://127.0.0.1:{self.port}/", timeout=2)
                requests.get(self.auth_url, timeout=2).raise_for_status()
                break
            except requests.RequestException:
                pass
            assert self.proc.poll() is None, self.tail()
            assert time.monotonic() < deadline, self.tail()
            time.sleep(0.3)

    def tail(self) -> str:
        return self.log.read_text()[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def session(self, user: str, project: str) -> Any:
        from keystoneauth1 import session
        from keystoneauth1.identity import v3
        return session.Session(auth=v3.Password(
            auth_url=self.auth_url, username=user, password="sandbox", user_domain_id="default",
            project_name=project, project_domain_id="default"))

    def heat(self, token: str, project_id: str) -> Any:
        from heatclient import client
        return client.Client("1", endpoint=f"http://127.0.0.1:{self.port}/v1/{project_id}",
                             token=token)


@pytest.fixture(scope="module")
def up() -> Iterator[Up]:
    home = Path(tempfile.mkdtemp(prefix="stk-ks-"))
    running = Up(home)
    yield running
    running.stop()
    shutil.rmtree(home, ignore_errors=True)


def wait_status(heat: Any, stack_id: str, final: tuple[str, ...], timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        stack = heat.stacks.get(stack_id)
        if stack.stack_status in final:
            return stack
        assert time.monotonic() < deadline, f"{stack.stack_status}: {stack.stack_status_reason}"
        time.sleep(0.5)


def revoke(auth_url: str, token: str) -> None:
    resp = requests.delete(f"{auth_url}/auth/tokens", timeout=30,
                           headers={"X-Auth-Token": token, "X-Subject-Token": token})
    assert resp.status_code == 204


def trusts_of(admin: Any, user_id: str) -> list[Any]:
    from keystoneclient.v3 import client
    return list(client.Client(session=admin).trusts.list(trustor_user=user_id))


def test_done_when(up: Up) -> None:
    from heatclient import exc
    from keystoneclient.v3 import client
    admin = up.session("admin", "admin")
    kc = client.Client(session=admin)
    roles = {r.name: r for r in kc.roles.list()}
    demo_project = next(p for p in kc.projects.list() if p.name == "demo")
    demo_user = next(u for u in kc.users.list() if u.name == "demo")
    beta = kc.projects.create("beta", domain="default")
    bob = kc.users.create("bob", domain="default", password="sandbox", default_project=beta)
    rita = kc.users.create("rita", domain="default", password="sandbox",
                           default_project=demo_project)
    for role in ("member", "reader"):
        kc.roles.grant(roles[role], user=bob, project=beta)
    kc.roles.grant(roles["reader"], user=rita, project=demo_project)

    # no token and a bad token: 401
    url = f"http://127.0.0.1:{up.port}/v1/{demo_project.id}/stacks"
    assert requests.get(url, timeout=30).status_code == 401
    assert requests.get(url, headers={"X-Auth-Token": "bad"}, timeout=30).status_code == 401

    # a member creates a stack and revokes the token at once
    token = up.session("demo", "demo").get_token()
    heat = up.heat(token, demo_project.id)
    created = heat.stacks.create(stack_name="owned", template=TEMPLATE)
    stack_id = created["stack"]["id"]
    revoke(up.auth_url, token)
    with pytest.raises(exc.HTTPUnauthorized):
        list(heat.stacks.list())
    fresh = up.heat(up.session("demo", "demo").get_token(), demo_project.id)
    assert fresh.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"  # the volume is slow
    stack = wait_status(fresh, stack_id, ("CREATE_COMPLETE", "CREATE_FAILED"))
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason

    # its cloud resources are in the member's project
    outputs = {o["output_key"]: o["output_value"] for o in stack.outputs}
    import openstack
    cloud = openstack.connection.Connection(session=admin, region_name="RegionOne")
    assert cloud.network.get_network(outputs["net_id"]).project_id == demo_project.id
    volume = cloud.block_storage.get_volume(outputs["volume_id"])
    assert volume.project_id == demo_project.id

    # a trust from the member to the service user exists
    trusts = trusts_of(admin, demo_user.id)
    stoker = next(u for u in kc.users.list() if u.name == "stoker")
    assert [t.trustee_user_id for t in trusts] == [stoker.id]

    # another project's member: 404; the member's token on another project's URL: 403
    bob_heat = up.heat(up.session("bob", "beta").get_token(), beta.id)
    with pytest.raises(exc.HTTPNotFound):
        bob_heat.stacks.get(stack_id)
    admin_project = next(p for p in kc.projects.list() if p.name == "admin")
    wrong = up.heat(up.session("demo", "demo").get_token(), admin_project.id)
    with pytest.raises(exc.HTTPForbidden):
        list(wrong.stacks.list())
    # admins see every project's stacks (Heat's context_is_admin)
    admin_heat = up.heat(admin.get_token(), admin_project.id)
    assert admin_heat.stacks.get(stack_id).id == stack_id

    # a reader may list but not create
    reader = up.heat(up.session("rita", "demo").get_token(), demo_project.id)
    assert [s.id for s in reader.stacks.list()] == [stack_id]
    with pytest.raises(exc.HTTPForbidden):
        reader.stacks.create(stack_name="nope", template=TEMPLATE)

    # delete completes and the trust is gone
    fresh.stacks.delete(stack_id)
    wait_status(fresh, stack_id, ("DELETE_COMPLETE",))
    assert trusts_of(admin, demo_user.id) == []
    with pytest.raises(Exception):  # noqa: B017 - the sandbox has forgotten the volume
        cloud.block_storage.get_volume(outputs["volume_id"])


def test_a_trust_deleted_behind_stokers_back_fails_the_next_operation_clearly(up: Up) -> None:
    from keystoneclient.v3 import client
    demo = up.session("demo", "demo")
    heat = up.heat(demo.get_token(), demo.get_project_id())
    stack_id = heat.stacks.create(stack_name="orphaned", template=TEMPLATE)["stack"]["id"]
    wait_status(heat, stack_id, ("CREATE_COMPLETE",))
    kc = client.Client(session=demo)
    (trust,) = list(kc.trusts.list(trustor_user=demo.get_user_id()))
    kc.trusts.delete(trust.id)
    heat.stacks.delete(stack_id)
    stack = wait_status(heat, stack_id, ("DELETE_FAILED", "DELETE_COMPLETE"))
    assert stack.stack_status == "DELETE_FAILED"
    assert f"trust {trust.id} is not valid" in stack.stack_status_reason, stack.stack_status_reason


SIGNALS = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.20.0.0/24}
  handle: {type: OS::Heat::WaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, timeout: 120}
  aws_handle: {type: AWS::CloudFormation::WaitConditionHandle}
  aws_wait:
    type: AWS::CloudFormation::WaitCondition
    properties: {Handle: {get_resource: aws_handle}, Timeout: 120}
  server:
    type: OS::Nova::Server
    depends_on: subnet
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{network: {get_resource: net}}]
      user_data_format: RAW
      user_data:
        str_replace:
          template: |
            #!/bin/sh
            wc_notify --data-binary '{"status": "SUCCESS", "data": "hello"}'
            cfn-signal -e 0 -r done -d world -i 1 'AWS_URL'
          params:
            wc_notify: {get_attr: [handle, curl_cli]}
            AWS_URL: {get_resource: aws_handle}
outputs:
  data: {value: {get_attr: [wait, data]}}
  aws_data: {value: {get_attr: [aws_wait, Data]}}
  token: {value: {get_attr: [handle, token]}}
"""


def test_a_servers_signals_authenticate_as_the_stacks_users(up: Up) -> None:
    """The sandbox server's curl_cli posts with the native handle's stack-user token, its
    cfn-signal PUTs the AWS handle's URL signed with that handle's stack user's EC2 keypair
    (verified through Keystone's ec2tokens); both stack users, their credentials and the
    stack's stack-user project are gone after the delete."""
    import json

    from keystoneclient.v3 import client
    demo = up.session("demo", "demo")
    heat = up.heat(demo.get_token(), demo.get_project_id())
    created = heat.stacks.create(stack_name="ks-signals", template=SIGNALS)
    stack = wait_status(heat, created["stack"]["id"], ("CREATE_COMPLETE", "CREATE_FAILED"))
    assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason, up.tail())
    outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
    assert json.loads(outs["data"]) == {"1": "hello"}
    assert json.loads(outs["aws_data"]) == {"1": "world"}

    kc = client.Client(session=up.session("admin", "admin"))
    heat_domain = kc.domains.list(name="heat")[0]
    info = kc.tokens.validate(outs["token"])
    assert info.project_id != demo.get_project_id()
    assert info.role_names == ["heat_stack_user"]
    assert info.user_domain_id == heat_domain.id
    project_name = f"{demo.get_project_id()}-{stack.id}"[:64]
    (project,) = kc.projects.list(domain=heat_domain.id, name=project_name)
    users = [a.user["id"] for a in kc.role_assignments.list(project=project.id)]
    assert len(users) == 2 and info.user_id in users

    heat.stacks.delete(stack.id)
    wait_status(heat, stack.id, ("DELETE_COMPLETE",))
    assert kc.projects.list(domain=heat_domain.id, name=project_name) == []
    from keystoneauth1 import exceptions
    for user_id in users:
        assert kc.credentials.list(user_id=user_id) == []
        with pytest.raises(exceptions.NotFound):
            kc.users.get(user_id)


SOFTWARE = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.30.0.0/24}
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}]
      outputs: [{name: greeting}]
      config: |
        #!/bin/sh
        printf 'hello %s' "$who" > $heat_outputs_path.greeting
  heat_server:
    type: OS::Nova::Server
    depends_on: subnet
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{network: {get_resource: net}}]
      user_data_format: SOFTWARE_CONFIG
      software_config_transport: POLL_SERVER_HEAT
  cfn_server:
    type: OS::Nova::Server
    depends_on: subnet
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{network: {get_resource: net}}]
      user_data_format: SOFTWARE_CONFIG
      software_config_transport: POLL_SERVER_CFN
  heat_deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: heat_server}
      input_values: {who: heat}
      signal_transport: HEAT_SIGNAL
  cfn_deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: cfn_server}
      input_values: {who: cfn}
      signal_transport: CFN_SIGNAL
outputs:
  heat: {value: {get_attr: [heat_deployment, greeting]}}
  cfn: {value: {get_attr: [cfn_deployment, greeting]}}
"""


def test_software_deployments_poll_and_signal_as_the_stacks_users(up: Up) -> None:
    """Software deployments in keystone mode (Heat's
    ``Server._create_transport_credentials`` / ``SoftwareDeployment._get_heat_signal_
    credentials``): the POLL_SERVER_HEAT server's agent logs in as the server's stack user in
    the stack-user project to read its metadata, the POLL_SERVER_CFN server's signs
    DescribeStackResource with its stack user's EC2 keypair; the HEAT_SIGNAL deployment signals
    as its own stack user, the CFN_SIGNAL one through its pre-signed URL. Each is a user of the
    heat domain with only ``heat_stack_user`` on the stack's project there; after the delete
    none of them, their credentials nor the project is left."""
    import json

    from keystoneauth1 import exceptions
    from keystoneclient.v3 import client
    demo = up.session("demo", "demo")
    heat = up.heat(demo.get_token(), demo.get_project_id())
    created = heat.stacks.create(stack_name="ks-software", template=SOFTWARE)
    stack = wait_status(heat, created["stack"]["id"], ("CREATE_COMPLETE", "CREATE_FAILED"),
                        timeout=180)
    assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason, up.tail())
    outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
    assert outs == {"heat": "hello heat", "cfn": "hello cfn"}

    kc = client.Client(session=up.session("admin", "admin"))
    heat_domain = kc.domains.list(name="heat")[0]
    project_name = f"{demo.get_project_id()}-{stack.id}"[:64]
    (project,) = kc.projects.list(domain=heat_domain.id, name=project_name)
    assignments = kc.role_assignments.list(project=project.id)
    users = {a.user["id"] for a in assignments}
    stack_user_role = next(r.id for r in kc.roles.list() if r.name == "heat_stack_user")
    assert {a.role["id"] for a in assignments} == {stack_user_role}

    polled = heat.resources.metadata(stack.id, "heat_server")["os-collect-config"]
    assert polled["collectors"] == ["heat", "local"]
    assert polled["heat"]["project_id"] == project.id
    assert polled["heat"]["auth_url"] == up.auth_url
    signed = heat.resources.metadata(stack.id, "cfn_server")["os-collect-config"]
    assert signed["collectors"] == ["cfn", "local"]
    access_keys = {json.loads(c.blob)["access"] for u in users
                   for c in kc.credentials.list(user_id=u)}
    assert signed["cfn"]["access_key_id"] in access_keys
    (deployed,) = heat.resources.metadata(stack.id, "heat_server")["deployments"]
    inputs = {i["name"]: i["value"] for i in deployed["inputs"]}
    assert inputs["deploy_project_id"] == project.id
    # the server, each deployment: a stack user each
    assert polled["heat"]["user_id"] in users and inputs["deploy_user_id"] in users
    assert inputs["deploy_user_id"] != polled["heat"]["user_id"]
    assert len(users) == 4

    # a deployment removed by an update takes its stack user with it (Heat's _delete_user)
    smaller = SOFTWARE.split("  heat_deployment:")[0] + "  cfn_deployment:" + \
        SOFTWARE.split("  cfn_deployment:")[1].replace(
            "  heat: {value: {get_attr: [heat_deployment, greeting]}}\n", "")
    heat.stacks.update(stack.id, template=smaller)
    updated = wait_status(heat, stack.id, ("UPDATE_COMPLETE", "UPDATE_FAILED"))
    assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
    with pytest.raises(exceptions.NotFound):
        kc.users.get(inputs["deploy_user_id"])
    assert kc.users.get(polled["heat"]["user_id"]).id == polled["heat"]["user_id"]

    heat.stacks.delete(stack.id)
    wait_status(heat, stack.id, ("DELETE_COMPLETE",))
    assert kc.projects.list(domain=heat_domain.id, name=project_name) == []
    for user_id in users:
        assert kc.credentials.list(user_id=user_id) == []
        with pytest.raises(exceptions.NotFound):
            kc.users.get(user_id)


def test_the_banners_command_works(up: Up) -> None:
    """The command ``stoker up --auth keystone`` suggests logs in to the sandbox's Keystone and
    creates the demo stack (``/v1/admin`` without a token, the noauth suggestion, is a 401)."""
    import shlex
    import sys
    repo = Path(__file__).resolve().parents[2]
    deadline = time.monotonic() + 30
    while not (tried := [ln.split("try: ", 1)[1] for ln in up.log.read_text().splitlines()
                         if "try: " in ln]):
        assert time.monotonic() < deadline, up.tail()
        time.sleep(0.2)
    argv = shlex.split(tried[0])
    assert argv[0] == "openstack" and argv[argv.index("--os-auth-url") + 1] == up.auth_url
    assert requests.get(f"http://127.0.0.1:{up.port}/v1/admin/stacks", timeout=10).status_code == 401
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "STOKER_"))}
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CREATE_COMPLETE" in done.stdout
    gone = subprocess.run([*argv[:argv.index("stack")], "stack", "delete", "--wait", "-y", "demo"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    assert gone.returncode == 0, gone.stdout + gone.stderr


KEYSTONE_TYPES = """
heat_template_version: 2018-08-31
resources:
  project: {type: OS::Keystone::Project, properties: {name: ks-mode-project}}
  user:
    type: OS::Keystone::User
    properties: {name: ks-mode-user, password: p, default_project: {get_resource: project},
                 roles: [{role: member, project: {get_resource: project}}]}
"""


def test_keystone_types_need_the_admin_role_and_run_through_the_admins_trust(up: Up) -> None:
    from heatclient import exc
    from keystoneclient.v3 import client
    admin = up.session("admin", "admin")
    kc = client.Client(session=admin)
    demo_project = next(p for p in kc.projects.list() if p.name == "demo")
    member = up.heat(up.session("demo", "demo").get_token(), demo_project.id)
    with pytest.raises(exc.HTTPForbidden, match="You are not authorized to use OS::Keystone::"):
        member.stacks.create(stack_name="ks-types", template=KEYSTONE_TYPES)
    admin_project = next(p for p in kc.projects.list() if p.name == "admin")
    heat = up.heat(admin.get_token(), admin_project.id)
    stack_id = heat.stacks.create(stack_name="ks-types", template=KEYSTONE_TYPES)["stack"]["id"]
    stack = wait_status(heat, stack_id, ("CREATE_COMPLETE", "CREATE_FAILED"))
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    user = next(u for u in kc.users.list() if u.name == "ks-mode-user")
    project = next(p for p in kc.projects.list() if p.name == "ks-mode-project")
    assert user.default_project_id == project.id
    assert [a.role["id"] for a in kc.role_assignments.list(user=user, project=project)] == \
        [next(r for r in kc.roles.list() if r.name == "member").id]
    heat.stacks.delete(stack_id)
    wait_status(heat, stack_id, ("DELETE_COMPLETE", "DELETE_FAILED"))
    assert not [u for u in kc.users.list() if u.name == "ks-mode-user"]
    assert not [p for p in kc.projects.list() if p.name == "ks-mode-project"]
