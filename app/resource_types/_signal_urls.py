"""The signal URLs of a resource's stack user (Heat's ``SignalResponder``): the pre-signed
EC2 URL of the CFN API (:func:`sign`) and the Orchestration API's signal URL in the stack-user
project (:func:`heat_signal_url`), kept in the resource's data once made.
"""
from __future__ import annotations

import datetime as dt
from urllib.parse import quote

from app import config
from app.resource_types import _ec2sign, _stack_user
from app.resource_types.base import Resource


def heat_url(project_id: str) -> str:
    """The Orchestration API endpoint of ``project_id`` (Heat's ``get_heat_url``):
    ``http://<api_host>:<api_port>/v1/<project>``."""
    settings = config.get()
    host = "127.0.0.1" if settings.api_host in ("0.0.0.0", "", "::") else settings.api_host
    return f"http://{host}:{settings.api_port}/v1/{project_id}"


def cfn_url() -> str:
    """The CFN API's ``http://<api_host>:<cfn_port>/v1`` (Heat's ``heat_waitcondition_server_url``
    without its ``/waitcondition``)."""
    settings = config.get()
    host = "127.0.0.1" if settings.api_host in ("0.0.0.0", "", "::") else settings.api_host
    return f"http://{host}:{settings.cfn_port}/v1"


def sign(resource: Resource, kind: str, never_expire: bool = False) -> None:
    """Give ``resource`` a stack user's EC2 keypair (``data["access_key"]``,
    ``data["secret_key"]``: a Keystone ``ec2`` credential in keystone mode, which heat-api-cfn
    checks signatures through; local in noauth, checked by the CFN API itself; see
    :mod:`app.resource_types._stack_user`) and its pre-signed URL of the CFN API's ``kind``
    endpoint (``_ec2sign.WAITCONDITION`` or ``SIGNAL``) in ``data["ec2_signed_url"]``, once:
    a redelivered create keeps them (Heat's ``SignalResponder._get_ec2_signed_url``;
    ``never_expire``: no ``Timestamp``, as a scaling policy's)."""
    _stack_user.create_keypair(resource)
    if "ec2_signed_url" not in resource.data and resource.stack is not None:
        arn = _ec2sign.resource_arn(resource.stack.project_id, resource.stack.stack_name,
                                    resource.stack.stack_id, resource.name)
        stamp = None if never_expire else dt.datetime.fromtimestamp(
            resource.clock(), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        resource.data["ec2_signed_url"] = _ec2sign.presigned_url(
            cfn_url(), arn, resource.data["access_key"], resource.data["secret_key"], stamp,
            kind)


def heat_signal_url(resource: Resource) -> str:
    """Heat's ``_get_heat_signal_url(project_id=stack_user_project_id)``, once:
    ``http://<api>/v1/<stack-user project>/stacks/<stack>/<id>/resources/<name>/signal`` (not
    pre-signed: the stack user's credentials go with it)."""
    if "heat_signal_url" not in resource.data and resource.stack is not None:
        st = resource.stack
        resource.data["heat_signal_url"] = (
            f"{heat_url(_stack_user.project_of(resource))}/stacks/{quote(st.stack_name, '')}/"
            f"{quote(st.stack_id, '')}/resources/{quote(resource.name, '')}/signal")
    return str(resource.data.get("heat_signal_url", ""))


def delete_signals(resource: Resource) -> None:
    """Heat's ``SignalResponder.handle_delete``: the signal URLs are forgotten, then the stack
    user and its keypair are deleted (:func:`app.resource_types._stack_user.delete_user`)."""
    for key in ("ec2_signed_url", "heat_signal_url"):
        resource.data.pop(key, None)
    _stack_user.delete_user(resource)
