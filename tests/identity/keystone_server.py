"""A real Keystone for the identity tests: the ``keystone`` package from PyPI in its own
virtualenv (``scripts/keystone-venv.sh``), SQLite, fernet tokens, ``keystone-manage bootstrap``,
served by gunicorn on a free loopback port. About 10 s from nothing once the venv exists.

Bootstrap: user ``admin`` / ``sandbox`` (role admin on project admin, which implies member and
reader, as Keystone's bootstrap does). :func:`populate` then adds the same service user the
sandbox seeds (``stoker`` / ``sandbox``, admin and service on project ``service``) and Heat's
stack user domain ``heat`` with its admin ``heat_domain_admin`` (admin on the domain).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("STOKER_KEYSTONE_VENV") or REPO / ".keystone-venv")
PASSWORD = "sandbox"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class KeystoneServer:
    """A running Keystone: ``auth_url`` (``http://127.0.0.1:<port>/v3``)."""
    auth_url: str
    proc: subprocess.Popen[bytes]
    workdir: Path

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def ensure_venv() -> Path:
    """Install the pinned Keystone into its own virtualenv if it is not there yet."""
    subprocess.run(["bash", str(REPO / "scripts" / "keystone-venv.sh"), str(VENV)], check=True)
    return VENV


def _conf(workdir: Path) -> Path:
    conf = workdir / "keystone.conf"
    conf.write_text(textwrap.dedent(f"""\
        [DEFAULT]
        debug = false
        use_stderr = true
        [database]
        connection = sqlite:///{workdir / 'keystone.db'}
        [token]
        provider = fernet
        expiration = 3600
        [fernet_tokens]
        key_repository = {workdir / 'fernet-keys'}
        [fernet_receipts]
        key_repository = {workdir / 'fernet-keys'}
        [credential]
        key_repository = {workdir / 'credential-keys'}
        # the in-process cache hands out the cached dict, which get_credential decrypts in
        # place (KeyError 'encrypted_blob' at the next /v3/ec2tokens); memcached copies it
        caching = false
        [identity]
        password_hash_algorithm = bcrypt
        password_hash_rounds = 4
        [cache]
        # one gunicorn worker: an in-process cache stays coherent (revocations invalidate it)
        # and makes a token validation ~50 times cheaper on a loaded machine
        enabled = true
        backend = dogpile.cache.memory
        """))
    return conf


def start(workdir: Path, port: int | None = None) -> KeystoneServer:
    """Bootstrap a fresh Keystone in ``workdir`` and serve it (on ``port``, default a free
    one); returns once it answers."""
    venv = ensure_venv()
    workdir.mkdir(parents=True, exist_ok=True)
    conf = _conf(workdir)
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/v3"
    manage = [str(venv / "bin" / "keystone-manage"), "--config-file", str(conf)]
    log = open(workdir / "keystone-manage.log", "ab")  # noqa: SIM115 - closed with the process
    for args in (["db_sync"],
                 ["fernet_setup", "--keystone-user", "root", "--keystone-group", "root"],
                 ["credential_setup", "--keystone-user", "root", "--keystone-group", "root"],
                 ["bootstrap", "--bootstrap-password", PASSWORD, "--bootstrap-username", "admin",
                  "--bootstrap-project-name", "admin", "--bootstrap-role-name", "admin",
                  "--bootstrap-service-name", "keystone", "--bootstrap-region-id", "RegionOne",
                  "--bootstrap-public-url", url, "--bootstrap-internal-url", url]):
        subprocess.run(manage + args, check=True, stdout=log, stderr=log)
    # keystone parses sys.argv with oslo.config: give it none of gunicorn's
    (workdir / "keystone_app.py").write_text(
        "import sys\nsys.argv = sys.argv[:1]\nfrom keystone.wsgi.api import application  # noqa\n")
    env = dict(os.environ, OS_KEYSTONE_CONFIG_FILES=str(conf))
    proc = subprocess.Popen(
        [str(venv / "bin" / "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", "1",
         "--threads", "4", "--timeout", "120", "--chdir", str(workdir),
         "--control-socket", str(workdir / "gunicorn.ctl"), "keystone_app:application"],
        env=env, stdout=log, stderr=log, cwd=workdir)
    server = KeystoneServer(auth_url=url, proc=proc, workdir=workdir)
    deadline = time.monotonic() + 120
    try:
        while True:
            try:
                if requests.get(url, timeout=30).status_code == 200:
                    return server
            except (requests.ConnectionError, requests.Timeout):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Keystone did not start; see {workdir / 'keystone-manage.log'}")
            time.sleep(0.2)
    except BaseException:
        server.stop()
        raise


def admin_client(auth_url: str) -> Any:
    """python-keystoneclient as the bootstrap admin (project admin)."""
    from keystoneauth1 import session
    from keystoneauth1.identity import v3
    from keystoneclient.v3 import client
    auth = v3.Password(auth_url=auth_url, username="admin", password=PASSWORD,
                       user_domain_id="default", project_name="admin",
                       project_domain_id="default")
    return client.Client(session=session.Session(auth=auth))


def populate(auth_url: str) -> None:
    """What the sandbox seeds and the real Keystone's bootstrap lacks: project ``service`` with
    Stoker's service user ``stoker`` (admin, service), roles ``service`` and ``heat_stack_user``,
    the stack user domain ``heat`` and its admin ``heat_domain_admin``."""
    kc = admin_client(auth_url)
    roles = {r.name: r for r in kc.roles.list()}
    for name in ("service", "heat_stack_user"):
        if name not in roles:
            roles[name] = kc.roles.create(name)
    service = kc.projects.create("service", domain="default")
    stoker = kc.users.create("stoker", domain="default", password=PASSWORD,
                             default_project=service)
    for name in ("admin", "service"):
        kc.roles.grant(roles[name], user=stoker, project=service)
    # Heat's stack user domain and its admin, as devstack makes them (Stoker's defaults)
    heat = kc.domains.create("heat", description="Contains users and projects created by heat")
    domain_admin = kc.users.create("heat_domain_admin", domain=heat, password=PASSWORD)
    kc.roles.grant(roles["admin"], user=domain_admin, domain=heat)


def clean(workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
