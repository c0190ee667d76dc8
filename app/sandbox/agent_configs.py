"""The sandbox server agent's software-config half: what os-collect-config, the heat-config
hooks and heat-config-notify do on a real image for a server whose ``user_data_format`` is
``SOFTWARE_CONFIG``.

More in docs/code/sandbox.md (app.sandbox.agent_configs).
"""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import email
import hashlib
import hmac
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import quote, urlparse

from app.sandbox.store import Obj

log = logging.getLogger(__name__)
DEFAULTS = {"run_configs": True, "config_timeout": 300.0, "poll_seconds": 1.0}
TIMEOUT_STATUS = 124
REQUEST_TIMEOUT = 30.0


def init_data(user_data_b64: str | None) -> dict[str, Any] | None:
    """The JSON of the ``cfn-init-data`` part of a server's user data (None without one)."""
    if not user_data_b64:
        return None
    try:
        text = base64.b64decode(user_data_b64, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    message = email.message_from_string(text)
    if not message.is_multipart():
        return None
    for part in message.walk():
        if part.get_filename() == "cfn-init-data":
            payload = part.get_payload(decode=True)
            try:
                found = json.loads(payload.decode("utf-8")) if isinstance(payload, bytes) \
                    else None
            except ValueError:
                return None
            return found if isinstance(found, dict) else None
    return None


def collector_settings(user_data_b64: str | None) -> dict[str, Any] | None:
    """The ``os-collect-config`` settings when they name a ``heat`` or ``cfn`` collector."""
    occ = (init_data(user_data_b64) or {}).get("os-collect-config")
    if not isinstance(occ, dict):
        return None
    collectors = occ.get("collectors") or []
    return occ if any(c in collectors for c in ("heat", "cfn")) else None


def _endpoint(sandbox: Any, service_type: str, project: str | None) -> str | None:
    for entry in sandbox.extra_catalog or []:
        if entry.get("type") == service_type:
            url = str(entry["url"])
            for key in ("%(tenant_id)s", "%(project_id)s", "$(tenant_id)s", "$(project_id)s"):
                url = url.replace(key, project or "")
            return url.rstrip("/")
    return None


def _token(auth_url: str | None, user_id: str | None, password: str | None,
           project_id: str | None) -> str:
    """A Keystone token for the user (os-collect-config's, heat-config-notify's login); a
    placeholder when there is no such user (noauth mode needs none)."""
    import requests
    if auth_url and user_id and password:
        body = {"auth": {"identity": {"methods": ["password"], "password": {
            "user": {"id": user_id, "password": password}}}}}
        if project_id:
            body["auth"]["scope"] = {"project": {"id": project_id}}
        try:
            resp = requests.post(f"{auth_url.rstrip('/')}/auth/tokens", json=body,
                                 timeout=REQUEST_TIMEOUT)
            if resp.status_code == 201:
                return str(resp.headers.get("X-Subject-Token"))
        except requests.RequestException:
            pass
    return "sandbox-agent"


def _heat_headers(creds: dict[str, Any]) -> dict[str, str]:
    token = _token(creds.get("auth_url"), creds.get("user_id"), creds.get("password"),
                   creds.get("project_id"))
    return {"X-Auth-Token": token, "X-Project-Id": str(creds.get("project_id") or ""),
            "Content-Type": "application/json", "Accept": "application/json"}


def sign_v2(secret: str, verb: str, url: str, params: dict[str, str]) -> dict[str, str]:
    """``params`` with an EC2 signature version 2 (HmacSHA256) for ``verb url`` (boto's
    QuerySignatureV2AuthHandler, as heat-cfntools signs)."""
    parts = urlparse(url)
    signed = dict(params, SignatureMethod="HmacSHA256", SignatureVersion="2")
    query = "&".join(f"{quote(k, safe='-_.~')}={quote(str(v), safe='-_.~')}"
                     for k, v in sorted(signed.items()))
    text = "\n".join([verb, parts.netloc, parts.path or "/", query])
    digest = hmac.new(secret.encode(), text.encode(), hashlib.sha256).digest()
    signed["Signature"] = base64.b64encode(digest).decode()
    return signed


def fetch_metadata(sandbox: Any, occ: dict[str, Any]) -> dict[str, Any] | None:
    """The server's metadata through its collector, None when it cannot be read now."""
    import requests
    try:
        if "heat" in (occ.get("collectors") or []) and isinstance(occ.get("heat"), dict):
            heat = occ["heat"]
            base = _endpoint(sandbox, "orchestration", heat.get("project_id"))
            if base is None:
                return None
            resp = requests.get(f"{base}/stacks/{heat['stack_id']}/resources/"
                                f"{heat['resource_name']}/metadata",
                                headers=_heat_headers(heat), timeout=REQUEST_TIMEOUT)
            return resp.json().get("metadata") if resp.status_code == 200 else None
        cfn = occ.get("cfn")
        if isinstance(cfn, dict) and cfn.get("metadata_url"):
            url = str(cfn["metadata_url"])
            params = sign_v2(str(cfn.get("secret_access_key") or ""), "GET", url, {
                "Action": "DescribeStackResource", "Version": "2010-05-15",
                "StackName": str(cfn.get("stack_name")),
                "LogicalResourceId": str(cfn.get("path") or "").split(".")[0],
                "AWSAccessKeyId": str(cfn.get("access_key_id") or ""),
                "Timestamp": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})
            resp = requests.get(url, params=params, timeout=REQUEST_TIMEOUT)
            if resp.status_code != 200:
                return None
            found = ET.fromstring(resp.content).find(".//Metadata")
            text = found.text if found is not None else None
            return json.loads(text) if text else {}
    except (requests.RequestException, ValueError, ET.ParseError, KeyError):
        return None
    return None


def run_script(config: str, inputs: dict[str, Any], outputs: list[str],
               timeout: float) -> dict[str, Any]:
    """Run ``config`` in a throwaway directory (heat-config's script hook): the signal body
    ``{deploy_stdout, deploy_stderr, deploy_status_code, <output>...}``."""
    work = tempfile.mkdtemp(prefix="stoker-config-")
    try:
        path = os.path.join(work, "config")
        with open(path, "w") as f:
            f.write(config)
        os.chmod(path, 0o700)
        outputs_path = os.path.join(work, "outputs")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work,
               "heat_outputs_path": outputs_path}
        env.update({str(k): v if isinstance(v, str) else json.dumps(v)
                    for k, v in inputs.items() if v is not None})
        command = [path] if config.startswith("#!") else ["/bin/sh", path]
        proc = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            stderr += f"\nKilled: the config ran longer than its timeout of {timeout:g} s"
            code = TIMEOUT_STATUS
        body: dict[str, Any] = {"deploy_stdout": stdout, "deploy_stderr": stderr,
                                "deploy_status_code": code}
        for name in outputs:
            out_file = f"{outputs_path}.{name}"
            if os.path.exists(out_file):
                with open(out_file) as f:
                    body[name] = f.read()
        return body
    finally:
        shutil.rmtree(work, ignore_errors=True)


def notify(sandbox: Any, inputs: dict[str, Any], body: dict[str, Any]) -> Obj:
    """Send ``body`` back as heat-config-notify does for the deployment's transport."""
    import requests
    transport = inputs.get("deploy_signal_transport")
    record: Obj = {"transport": transport, "status": None, "error": None}
    data = json.dumps(body)
    try:
        if transport in ("CFN_SIGNAL", "TEMP_URL_SIGNAL"):
            verb = "POST" if transport == "CFN_SIGNAL" else "PUT"
            resp = requests.request(verb, str(inputs.get("deploy_signal_id")), data=data,
                                    headers={"Content-Type": "application/json"},
                                    timeout=REQUEST_TIMEOUT)
        elif transport == "HEAT_SIGNAL":
            creds = {"auth_url": inputs.get("deploy_auth_url"),
                     "user_id": inputs.get("deploy_user_id"),
                     "password": inputs.get("deploy_password"),
                     "project_id": inputs.get("deploy_project_id")}
            base = _endpoint(sandbox, "orchestration", creds["project_id"])
            if base is None:
                record["error"] = "no orchestration endpoint in the catalog"
                return record
            resp = requests.post(f"{base}/stacks/{inputs.get('deploy_stack_id')}/resources/"
                                 f"{inputs.get('deploy_resource_name')}/signal", data=data,
                                 headers=_heat_headers(creds), timeout=REQUEST_TIMEOUT)
        else:
            return record  # NO_SIGNAL (ZAQAR_SIGNAL has no queue here)
        record["status"] = resp.status_code
    except requests.RequestException as exc:
        record["error"] = str(exc)
    return record


def deploy(sandbox: Any, server_id: str, item: dict[str, Any]) -> None:
    """Handle one deployment of the server's metadata and record it on the server."""
    options = sandbox.options.get("agent") or {}
    run = bool(options.get("run_configs", DEFAULTS["run_configs"]))
    inputs = {i.get("name"): i.get("value") for i in item.get("inputs") or []
              if isinstance(i, dict)}
    outputs = [o.get("name") for o in item.get("outputs") or [] if isinstance(o, dict)]
    timeout = float((item.get("options") or {}).get("timeout")
                    or options.get("config_timeout") or DEFAULTS["config_timeout"])
    ran = run and item.get("group") == "script" and isinstance(item.get("config"), str)
    if ran:
        body = run_script(str(item["config"]), inputs, [str(o) for o in outputs], timeout)
    else:
        body = {"deploy_stdout": "", "deploy_stderr": "", "deploy_status_code": 0}
    sent = notify(sandbox, inputs, body)
    log.info("sandbox agent %s: deployment %s (%s) -> %s", server_id, item.get("id"),
             item.get("group"), body.get("deploy_status_code"))
    st = sandbox.store
    with st.lock:
        server = st.get("servers", server_id)
        if server is not None:
            server.setdefault("_agent", []).append({
                "deployment": item.get("id"), "name": item.get("name"),
                "group": item.get("group"), "ran": ran,
                "deploy_status_code": body.get("deploy_status_code"),
                "signal": sent.get("status"), "error": sent.get("error")})
            st.dirty = True


def _active(sandbox: Any, server_id: str) -> bool | None:
    """True when ACTIVE, False while building, None once gone or in ERROR."""
    server = sandbox.store.get("servers", server_id)
    if server is None or server.get("status") in ("ERROR", "DELETED", "SOFT_DELETED"):
        return None
    return server.get("status") == "ACTIVE"


def poll(sandbox: Any, server_id: str, occ: dict[str, Any], delay: float,
         counter: Any) -> None:
    """The server's collector loop, until the server is gone. Deployments already recorded on
    the server (a sandbox restarted from its state file) are not run again, as os-collect-config
    keeps what it has deployed on the image's disk."""
    time.sleep(max(0.0, delay))
    every = float((sandbox.options.get("agent") or {}).get("poll_seconds")
                  or DEFAULTS["poll_seconds"])
    server = sandbox.store.get("servers", server_id) or {}
    done: set[str] = {str(r["deployment"]) for r in server.get("_agent") or []
                      if isinstance(r, dict) and r.get("deployment") is not None}
    while True:
        state = _active(sandbox, server_id)
        if state is None:
            return
        metadata = fetch_metadata(sandbox, occ) if state else None
        for item in (metadata or {}).get("deployments") or []:
            if not isinstance(item, dict) or item.get("id") in done:
                continue
            done.add(str(item.get("id")))
            counter(1)
            try:
                deploy(sandbox, server_id, item)
            finally:
                counter(-1)
        time.sleep(every)


#: Glance image property: ``"none"`` marks an image without os-collect-config and the
#: heat-config hooks (as the cirros of Heat's gate): its servers' deployments are never run
CONFIG_AGENT_PROPERTY = "sandbox_config_agent"


def has_config_agent(sandbox: Any, server: Obj) -> bool:
    """Whether the server's image runs os-collect-config (every image but one whose
    :data:`CONFIG_AGENT_PROPERTY` is ``"none"``)."""
    image = sandbox.store.get("images", server.get("_image_id") or "") if server.get("_image_id") \
        else None
    return not (image and image.get(CONFIG_AGENT_PROPERTY) == "none")


def boot(sandbox: Any, server: Obj, delay: float, counter: Any) -> bool:
    """Start the collector loop of a SOFTWARE_CONFIG server (``delay``: until it is ACTIVE);
    ``counter(n)`` counts deployments being handled. :returns: whether one was started."""
    occ = collector_settings(server.get("OS-EXT-SRV-ATTR:user_data"))
    if occ is None or not has_config_agent(sandbox, server):
        return False
    thread = threading.Thread(target=poll, args=(sandbox, server["id"], occ, delay, counter),
                              daemon=True, name=f"sandbox-agent-{server['id']}")
    thread.start()
    return True


def resume(sandbox: Any, counter: Any) -> int:
    """Start the collector loop of every ACTIVE SOFTWARE_CONFIG server of a sandbox started
    from its state file (its agents stopped with the previous process).
    :returns: how many were started."""
    return sum(boot(sandbox, server, 0.0, counter) for server in sandbox.store.all("servers")
               if server.get("status") == "ACTIVE")
