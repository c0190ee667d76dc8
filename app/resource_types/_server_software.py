"""The software-config side of OS::Nova::Server and OS::Heat::DeployedServer (Heat's
``server_base.py`` ``_populate_deployments_metadata`` / ``_create_transport_credentials`` and
``server.py``'s ``get_software_config``).

More in docs/code/resource_types.md (app.resource_types._server_software).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app import errors
from app.resource_types import _stack_user, _wait, _zaqar_signal
from app.resource_types._signal_urls import cfn_url
from app.resource_types.heat_software import is_uuid_like

#: the collectors whose settings a new transport clears (Heat's ``occ_keys``)
OCC_KEYS = ("heat", "zaqar", "cfn", "request")


def software_config_text(server: Any, user_data: str) -> str:
    """``user_data`` itself, or the config of the software config whose id it is (RAW and
    SOFTWARE_CONFIG; an unknown id is kept as text, as Heat's ``get_software_config``)."""
    store = getattr(server, "software", None)
    if store is None or not is_uuid_like(user_data):
        return user_data
    try:
        found = store.show_config(user_data).get("config")
    except errors.NotFound:
        return user_data
    return found if isinstance(found, str) else user_data


def deployments_metadata(res: Any, transport: str | None = None) -> dict[str, Any]:
    """Heat's ``_create_transport_credentials`` then ``_populate_deployments_metadata`` for
    ``transport`` (default: the ``software_config_transport`` property): the resource's
    metadata with ``deployments`` and ``os-collect-config``, stored in ``res.data["_metadata"]``
    (the stack user and its credentials are made once: a redelivered create keeps them).

    :raises app.errors.CloudError: Keystone refuses the stack user or its credential."""
    if transport is None:
        transport = str(res.get_property("software_config_transport"))
    if _wait.METADATA in res.data:
        meta = dict(res.data[_wait.METADATA] or {})
    else:  # the first live metadata is the template's (Heat's metadata_get of a new resource)
        lookup = getattr(res, "template_metadata", None)
        meta = dict(lookup() or {}) if callable(lookup) else {}
    meta.setdefault("deployments", [])
    occ = dict(meta.get("os-collect-config") or {})
    for key in OCC_KEYS:  # existing values set to None to override any boot-time config
        if key in occ:
            occ[key] = {k: None for k in occ[key]}
    collectors: list[str] = []
    st = res.stack
    if transport == "POLL_SERVER_HEAT":
        creds = _stack_user.signal_credentials(res)
        occ["heat"] = {"user_id": creds["user_id"], "password": creds["password"],
                       "auth_url": creds["auth_url"], "project_id": creds["project_id"],
                       "stack_id": f"{st.stack_name}/{st.stack_id}" if st else None,
                       "resource_name": res.name, "region_name": creds["region_name"]}
        collectors.append("heat")
    elif transport == "ZAQAR_MESSAGE":
        creds = _stack_user.signal_credentials(res)
        queue = _zaqar_signal.queue_id(res, _zaqar_signal.METADATA_QUEUE_KEY)
        occ["zaqar"] = {"user_id": creds["user_id"], "password": creds["password"],
                        "auth_url": creds["auth_url"], "project_id": creds["project_id"],
                        "queue_id": queue, "region_name": creds["region_name"]}
        collectors.append("zaqar")
    elif transport == "POLL_SERVER_CFN":
        access, secret = _stack_user.create_keypair(res)
        occ["cfn"] = {"metadata_url": f"{cfn_url()}/", "access_key_id": access,
                      "secret_access_key": secret,
                      "stack_name": st.stack_name if st else None,
                      "path": f"{res.name}.Metadata"}
        collectors.append("cfn")
    collectors.append("local")
    occ["collectors"] = collectors
    meta["os-collect-config"] = occ
    res.data[_wait.METADATA] = meta
    if res.data.get(_zaqar_signal.METADATA_QUEUE_KEY):   # push-based: the queue gets it too
        _zaqar_signal.post(res, meta)
    return meta


def check_template_metadata(name: str, rdef: Any,
                            lookup: Callable[[str], tuple[str, dict[str, Any]] | None]) -> None:
    """Heat's ``Server.validate``: a SOFTWARE_CONFIG server's template ``metadata`` may not
    have a ``deployments`` key (the deployments service owns it).

    :raises errors.ValidationError: Heat's "deployments key not allowed in resource metadata
        with user_data_format of SOFTWARE_CONFIG"."""
    metadata = getattr(rdef, "metadata", None)
    if not isinstance(metadata, Mapping) or "deployments" not in metadata:
        return
    found = lookup(name)
    if found is not None and found[1].get("user_data_format") == "SOFTWARE_CONFIG":
        raise errors.ValidationError("deployments key not allowed in resource metadata with "
                                     "user_data_format of SOFTWARE_CONFIG")
