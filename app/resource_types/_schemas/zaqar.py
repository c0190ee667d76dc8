"""Heat 27's schemas of the Zaqar resource types (OS::Zaqar::Queue, Subscription,
SignedQueueURL, MistralTrigger), as ``resource_types.json`` records them, with our own
descriptions. Data only; the plugins are in ``app.resource_types.zaqar``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

#: Heat's subscription ttl default: seconds until the year 9000 (never expires)
NEVER = 220367260800

QUEUE_SUPPORT = s.support_status("2014.2")
QUEUE_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Queue name; a unique one is made when it is not given.",
                   constraints=[s.length(max=64)]),
    "metadata": s.prop("map", "Free key/value metadata of the queue.", update_allowed=True),
}
QUEUE_ATTRIBUTES: dict[str, Any] = {"href": s.attr("URL of the queue.")}

V8 = s.support_status("8.0.0")
_QUEUE_NAME = s.prop("string", "Queue to subscribe to.", required=True,
                     constraints=[s.custom_constraint("zaqar.queue")])
_TTL = s.prop("integer", "Lifetime of the subscription, in seconds.", default=NEVER,
              update_allowed=True, constraints=[s.value_range(min=60)])
SUBSCRIPTION_PROPERTIES: dict[str, Any] = {
    "queue_name": _QUEUE_NAME,
    "subscriber": s.prop("string", "URI notified of the queue's messages, <TYPE>:<VALUE> "
                         "(http, https, mailto, trust+http, trust+https).", required=True,
                         update_allowed=True),
    "ttl": _TTL,
    "options": s.prop("map", "Options of the subscription.", update_allowed=True),
}
SUBSCRIPTION_ATTRIBUTES: dict[str, Any] = {}

SIGNED_URL_PROPERTIES: dict[str, Any] = {
    "queue": s.prop("string", "Queue the URL gives access to.", required=True),
    "paths": s.prop("list", "Paths the URL may reach (messages, subscriptions, claims); "
                    "messages by default."),
    "ttl": s.prop("integer", "Seconds the URL stays valid; one day by default."),
    "methods": s.prop("list", "HTTP methods the URL allows; GET by default.",
                      schema=s.list_of(s.prop("string", constraints=[s.allowed_values(
                          ["GET", "DELETE", "PATCH", "POST", "PUT"])]))),
}
SIGNED_URL_ATTRIBUTES: dict[str, Any] = {
    "signature": s.attr("The URL's signature, as Zaqar made it."),
    "expires": s.attr("When the URL stops being valid."),
    "paths": s.attr("The paths the URL may reach."),
    "methods": s.attr("The methods the URL allows."),
    "project": s.attr("Project (id) that owns the queue."),
    "query_str": s.attr("The URL's query string (e.g. for an alarm's zaqar:// action)."),
}

TRIGGER_PROPERTIES: dict[str, Any] = {
    "queue_name": _QUEUE_NAME,
    "ttl": _TTL,
    "workflow_id": s.prop("string", "Mistral workflow started for each message.",
                          required=True, update_allowed=True,
                          constraints=[s.custom_constraint("mistral.workflow")]),
    "params": s.prop("map", "Parameters of the workflow execution.", default={},
                     update_allowed=True),
    "input": s.prop("map", "Input of the workflow.", default={}, update_allowed=True),
}
TRIGGER_ATTRIBUTES: dict[str, Any] = {}
