"""The banner ``stoker up`` prints once its API listens: the endpoints, and a command to try
that works in the auth mode it runs in."""
from __future__ import annotations

from app import config


def lines(settings: config.Settings, *, sandbox: bool) -> list[str]:
    """What ``stoker up`` prints once the API listens: its endpoints and a command to try."""
    endpoint = settings.api_endpoint
    if settings.auth_strategy == "keystone":   # the token's project, not STOKER_TENANT
        endpoint = endpoint.rsplit("/", 1)[0] + "/<project id>"
    out = [f"Stoker is up — Orchestration API  {endpoint}",
           f"  workers: {settings.workers} × {settings.worker_concurrency} "
           f"{'greenlets' if settings.worker_pool == 'gevent' else 'threads'}   "
           f"broker: {settings.broker_url}",
           f"  database: {settings.database_url}"]
    out.append(f"  CloudFormation API: http://127.0.0.1:{settings.cfn_port}/v1")
    if sandbox:
        out.append(f"  sandbox cloud: http://127.0.0.1:{settings.sandbox_port}")
    if settings.auth_strategy == "keystone":
        out += keystone_try(settings, sandbox=sandbox)
    else:
        out.append(f"  try: stoker stack create -t examples/demo.yaml demo --wait "
                   f"--url {settings.api_endpoint}")
    out.append("  Ctrl-C stops everything.")
    return out


def keystone_try(settings: config.Settings, *, sandbox: bool) -> list[str]:
    """The banner's example in keystone mode: the ``openstack`` CLI logging in to
    ``keystone_url`` (it takes the token's project id and Stoker's endpoint from the catalog;
    ``/v1/<tenant>`` with no token is a 401). With the sandbox's Keystone, its admin's
    credentials (``cloud_username`` / ``cloud_password``, project ``cloud_project``); with
    another Keystone, placeholders."""
    url = settings.keystone_url
    if sandbox and url == settings.cloud_auth_url:
        user, password, project = (settings.cloud_username, settings.cloud_password,
                                   settings.cloud_project)
        who = f"the sandbox's Keystone: {user} / {password}, project {project}"
    else:
        user, password, project = "<user>", "<password>", "<project>"
        who = "Keystone"
    return [f"  keystone mode: every request needs a token from {who} ({url})",
            f"  try: openstack --os-auth-url {url} --os-username {user} --os-password {password} "
            f"--os-project-name {project} --os-user-domain-name {settings.cloud_user_domain} "
            f"--os-project-domain-name {settings.cloud_project_domain} "
            "stack create -t examples/demo.yaml demo --wait"]
