"""Heat's ``ZAQAR_SIGNAL`` transport (``SignalResponder``, heat/engine/resources/
signal_responder.py): a resource's signals are messages posted to a Zaqar queue of its own, in
the stack-user project, that the engine pops and delivers as signals.

More in docs/code/resource_types.md (app.resource_types._zaqar_signal).
"""
from __future__ import annotations

import uuid
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types import _stack_user
from app.resource_types.base import Resource
from app.resource_types.names import reduce_physical_resource_name

QUEUE_KEY = "zaqar_signal_queue_id"
#: a server's metadata queue (ZAQAR_MESSAGE)
METADATA_QUEUE_KEY = "metadata_queue_id"
#: Heat's zaqar client plugin ``DEFAULT_TTL`` (seconds)
DEFAULT_TTL = 3600
#: Zaqar's longest queue name
NAME_LIMIT = 64
#: Zaqar's largest ``pop``
POP_LIMIT = 20


def _call(res: Resource, method: str, path: str, **kwargs: Any) -> Any:
    """A Zaqar v2 call as the resource's stack user. :raises errors.CloudError:"""
    if res.clients is None:
        raise errors.CloudError(f"{res.type_name} needs a cloud for ZAQAR_SIGNAL", transient=False)
    headers = {"Client-ID": str(uuid.uuid5(uuid.NAMESPACE_URL, f"stoker:{res.uuid or res.name}"))}
    if getattr(_stack_user.client_of(res), "keystone", False):   # as the stack user
        headers.update({"X-Auth-Token": _stack_user.user_token(res),
                        "X-Project-Id": _stack_user.project_of(res)})
        kwargs["authenticated"] = False
    return res.clients.cloud().request("message", method, path, headers=headers, **kwargs)


def queue_id(res: Resource, key: str = QUEUE_KEY) -> str:
    """The resource's signal queue (``key``: a server's metadata queue), made on first use.
    :raises errors.CloudError:"""
    found = res.data.get(key)
    if found:
        return str(found)
    if not res.data.get("password"):
        res.data["password"] = _stack_user.new_password()
    _stack_user.create_user(res, res.data["password"])
    name = reduce_physical_resource_name(res.physical_resource_name(), NAME_LIMIT)
    _call(res, "PUT", f"/queues/{name}", json={})
    res.data[key] = name
    return name


def post(res: Resource, body: Any, key: str = METADATA_QUEUE_KEY) -> None:
    """Post ``body`` to the resource's queue (Heat's ``queue.post({'body', 'ttl'})``).
    :raises errors.CloudError:"""
    _call(res, "POST", f"/queues/{queue_id(res, key)}/messages",
          json={"messages": [{"body": body, "ttl": DEFAULT_TTL}]})


def pop(res: Resource) -> list[Any]:
    """The bodies of the messages waiting in the queue, oldest first, now removed from it.
    :raises errors.CloudError: other than the queue not found."""
    name = res.data.get(QUEUE_KEY)
    if not name:
        return []
    try:
        got = _call(res, "DELETE", f"/queues/{name}/messages", params={"pop": POP_LIMIT})
    except errors.CloudError as exc:
        if is_not_found(exc):
            return []
        raise
    return [m.get("body") for m in (got or {}).get("messages") or [] if isinstance(m, dict)]


def delete_queue(res: Resource, key: str = QUEUE_KEY) -> None:
    """The queue and its messages (gone already: nothing to do)."""
    name = res.data.pop(key, None)
    if not name or not res.data.get("user_id"):
        return
    try:
        _call(res, "DELETE", f"/queues/{name}")
    except errors.CloudError as exc:
        if not is_not_found(exc):
            raise
