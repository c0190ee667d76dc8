"""Heat's native wait conditions: OS::Heat::WaitConditionHandle and WaitCondition (the
UpdateWaitConditionHandle, an AWS-style handle, is in :mod:`app.resource_types.aws_signals`) (``heat/engine/resources/openstack/heat/wait_condition{,_handle}.py``).

A handle receives signals (``POST .../resources/<handle>/signal``) and stores each, keyed by
its id, in its metadata (:mod:`app.resource_types._wait`). A condition waits, holding no task,
until ``count`` SUCCESS signals are in: the engine gives it :attr:`HeatWaitCondition.signals_of`
(the stored signals of the handle a reference names) and wakes it when its handle is
signalled; :meth:`HeatWaitCondition.waits_for` names the event and the deadline.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app.resource_types import _ec2sign, _signal_urls, _stack_user, _wait, _zaqar_signal
from app.resource_types import schema as s
from app.resource_types._signal_urls import heat_url
from app.resource_types.base import Resource

__all__ = ["BaseWaitConditionHandle", "HeatWaitCondition", "HeatWaitConditionHandle",
           "heat_url", "resource_mapping", "signal_event"]

SIGNAL_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL",
                     "ZAQAR_SIGNAL", "TOKEN_SIGNAL")


def signal_event(handle_ref: str) -> str:
    """The event a wait condition waits for: a signal to the handle whose reference is
    ``handle_ref``."""
    return f"signal:{handle_ref}"


class BaseWaitConditionHandle(Resource):
    """What every handle does (Heat's ``BaseWaitConditionHandle``): a physical id of its own
    (Heat's stack user id), signals validated and stored in its metadata by id."""

    is_wait_condition_handle: ClassVar[bool] = True
    #: Heat's ``METADATA_KEYS`` of the type
    signal_keys: ClassVar[_wait.Keys] = _wait.CFN

    def handle_create(self) -> None:
        """The handle's stack user (Heat's ``StackUser._create_user``: a Keystone user in
        keystone mode), whose id is the physical id (kept on a redelivered create)."""
        if self.resource_id is None:
            self.resource_id = _stack_user.create_user(self)

    def normalise(self, details: Any, signals: Mapping[str, Any]) -> dict[str, Any]:
        """The signal body with its defaults; the base keeps it as it is."""
        if not isinstance(details, Mapping):  # Heat's ValueError, whose wording the API shows
            raise ValueError("Metadata format invalid")  # noqa: TRY004
        return dict(details)

    def handle_signal(self, details: Any = None) -> str | None:
        """Validate and store one signal. :returns: Heat's ``"status:<s> reason:<r>"``.

        :raises ValueError: "Metadata format invalid".
        :raises errors.NoActionRequired: the same signal was stored already.
        """
        signals = _wait.metadata_of(self.data)
        new, reason = _wait.merge(self.normalise(details, signals), signals, self.signal_keys)
        self.data[_wait.METADATA] = new
        return reason

    def handle_delete(self) -> None:
        """The signals, and the stack user with its credentials (Heat's
        ``SignalResponder.handle_delete``)."""
        self.data.pop(_wait.METADATA, None)
        _stack_user.delete_user(self)

    def handle_suspend(self) -> None:
        """The stack user is disabled (Heat's ``StackUser.handle_suspend``)."""
        _stack_user.set_enabled(self, False)

    def handle_resume(self) -> None:
        """The stack user is enabled again."""
        _stack_user.set_enabled(self, True)


class HeatWaitConditionHandle(BaseWaitConditionHandle):
    """OS::Heat::WaitConditionHandle: signalled through the API (TOKEN_SIGNAL: ``endpoint`` and
    ``token``, ``curl_cli`` ready to run); signal defaults as Heat's ``normalise_signal_data``."""

    type_name = "OS::Heat::WaitConditionHandle"
    support_status = s.support_status("2014.2")
    signal_keys = _wait.NATIVE
    properties_schema: ClassVar[dict[str, Any]] = {
        "signal_transport": s.prop(
            "string", "How the client will signal the wait condition (TOKEN_SIGNAL: an HTTP "
            "POST to the Heat API's resource signal with the provided token).",
            default="TOKEN_SIGNAL", constraints=[s.allowed_values(SIGNAL_TRANSPORTS)]),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "token": s.attr("Token for signalling the handle (TOKEN_SIGNAL; None otherwise).",
                        "string"),
        "endpoint": s.attr("URL to signal the handle at (TOKEN_SIGNAL; None otherwise).",
                           "string"),
        "curl_cli": s.attr("curl command prefix that signals the handle (TOKEN_SIGNAL; None "
                           "otherwise); add --data-binary '{\"status\": \"SUCCESS\"}'.",
                           "string"),
        "signal": s.attr("JSON map of what a client needs to signal the handle.", "string"),
    }

    def _token_transport(self) -> bool:
        return bool(self.get_property("signal_transport") == "TOKEN_SIGNAL")

    def handle_create(self) -> None:
        """The stack user with a password (its id the physical id), and for TOKEN_SIGNAL a
        token of that user and the signal endpoint in the stack user's project (Heat's
        ``HeatWaitConditionHandle.handle_create`` and ``_get_resource_endpoint``: keystone
        mode gives a real Keystone token that may only signal and read this stack)."""
        if self.resource_id is None:
            self.resource_id = _stack_user.create_user(
                self, self.data.get("password") or _stack_user.new_password())
        if self._token_transport() and self.stack is not None and "endpoint" not in self.data:
            self.data["token"] = _stack_user.user_token(self)
            self.data["endpoint"] = (
                f"{heat_url(_stack_user.project_of(self))}/stacks/{self.stack.stack_name}/"
                f"{self.stack.stack_id}/resources/{self.name}/signal")
        transport = self.get_property("signal_transport")
        if transport == "CFN_SIGNAL":  # Heat makes these when ``signal`` is first read
            _signal_urls.sign(self, _ec2sign.WAITCONDITION)
        elif transport == "HEAT_SIGNAL":
            _signal_urls.heat_signal_url(self)
        elif transport == "ZAQAR_SIGNAL":
            _zaqar_signal.queue_id(self)

    def pull_signals(self) -> list[Any] | None:
        """The signals waiting in the handle's Zaqar queue (ZAQAR_SIGNAL), popped; None for a
        transport that delivers its signals itself (Heat's ``_service_signal``)."""
        if self.get_property("signal_transport") != "ZAQAR_SIGNAL":
            return None
        return _zaqar_signal.pop(self)

    def handle_delete(self) -> None:
        """The signal queue (ZAQAR_SIGNAL), then the signals and the stack user."""
        _zaqar_signal.delete_queue(self)
        super().handle_delete()

    def normalise(self, details: Any, signals: Mapping[str, Any]) -> dict[str, Any]:
        return _wait.normalise_native(details, signals)

    def _signal(self) -> dict[str, Any] | None:
        """Heat's ``SignalResponder._get_signal``: CFN_SIGNAL ``{"alarm_url": <pre-signed
        URL>}``; HEAT_SIGNAL the stack user's credentials and ``alarm_url`` (the API's signal
        URL in the stack-user project); ZAQAR_SIGNAL the credentials and ``queue_id``;
        NO_SIGNAL ``{}``; TOKEN_SIGNAL (no branch in Heat)
        and the transports not built here: None."""
        transport = self.get_property("signal_transport")
        if transport == "CFN_SIGNAL" and self.data.get("ec2_signed_url"):
            return {"alarm_url": self.data["ec2_signed_url"]}
        if transport == "HEAT_SIGNAL" and self.data.get("user_id"):
            creds = _stack_user.signal_credentials(self)
            creds["alarm_url"] = self.data.get("heat_signal_url")
            return creds
        if transport == "ZAQAR_SIGNAL" and self.data.get(_zaqar_signal.QUEUE_KEY):
            creds = _stack_user.signal_credentials(self)
            creds["queue_id"] = self.data[_zaqar_signal.QUEUE_KEY]
            return creds
        if transport == "NO_SIGNAL":
            return {}
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if not self.resource_id:
            return None
        token, endpoint = self.data.get("token"), self.data.get("endpoint")
        if name == "token":
            return token
        if name == "endpoint":
            return endpoint
        if name == "curl_cli":
            if token is None or endpoint is None:
                return None
            return (f"curl -i -X POST -H 'X-Auth-Token: {token}' "
                    "-H 'Content-Type: application/json' -H 'Accept: application/json' "
                    f"{endpoint}")
        if name == "signal":
            return json.dumps(self._signal())
        return None


def wait_condition_schemas(handle: str, timeout: str, count: str, data: str,
                           timeout_type: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(properties_schema, attributes_schema)`` of a wait condition under the given names:
    OS::Heat::WaitCondition's lower-case ones with a number ``timeout``, AWS's capitalised
    ones with an integer ``Timeout`` (Heat's two schemas, the same otherwise)."""
    properties = {
        handle: s.prop("string", "A reference to the wait condition handle used to signal "
                       "this wait condition.", required=True),
        timeout: s.prop(timeout_type, "The number of seconds to wait for the correct number of "
                        "signals to arrive.", required=True,
                        constraints=[s.value_range(1, 43200)]),
        count: s.prop("integer", "The number of success signals that must be received "
                      "before the stack creation process continues.", default=1,
                      update_allowed=True, constraints=[s.value_range(min=1)]),
    }
    attributes = {data: s.attr("JSON string containing data associated with wait condition "
                               "signals sent to the handle.", "string")}
    return properties, attributes


class HeatWaitCondition(Resource):
    """OS::Heat::WaitCondition: completes when its handle has ``count`` SUCCESS signals; fails
    at a FAILURE signal (the reasons) or ``timeout`` seconds after it started
    (``WaitConditionTimeout: resources.<name>: 0 of 1 received``)."""

    type_name = "OS::Heat::WaitCondition"
    support_status = s.support_status("2014.2")
    #: the property naming the handle (the engine wakes the condition when it is signalled)
    handle_property: ClassVar[str] = "handle"
    properties_schema, attributes_schema = wait_condition_schemas(
        "handle", "timeout", "count", "data", "number")

    #: set by the engine: the stored signals of the handle a reference names (None: no handle)
    signals_of: Callable[[str], dict[str, Any] | None] | None = None
    #: set by the engine: deliver the signals waiting in the queue of the handle a reference
    #: names (Heat's ``get_status`` -> ``_service_signal``); False when it has no queue
    pull_signals_of: Callable[[str], bool] | None = None

    def _pull(self) -> bool:
        return bool(self.pull_signals_of(self._ref())) if self.pull_signals_of else False

    def _wait_handle(self) -> dict[str, Any]:
        """``{"started": epoch seconds, "timeout": seconds}``, with ``"pull": True`` when the
        handle's signals wait in a queue."""
        return {"started": self.clock(), "timeout": self._timeout(),
                **({"pull": True} if self._pull() else {})}

    def poll_delay(self, handle: Any, attempt: int) -> float:
        """A condition whose handle's signals wait in a queue looks again every second or
        two (the queue is read at each look)."""
        return float(min(2.0, 0.25 * (2 ** max(attempt, 0))))

    def _ref(self) -> str:
        return str(self.get_property(self.handle_property))

    def _count(self) -> int:
        return int(self.get_property("count"))

    def _timeout(self) -> float:
        return float(self.get_property("timeout"))

    def _signals(self) -> dict[str, Any]:
        found = self.signals_of(self._ref()) if self.signals_of is not None else None
        if found is None:
            raise ValueError(f"{self._ref()} is not a valid wait condition handle.")
        return found

    def handle_create(self) -> dict[str, Any]:
        """:returns: ``{"started": epoch seconds, "timeout": seconds}``.

        :raises ValueError: the handle is not a wait condition handle (Heat's wording)."""
        self._signals()
        return self._wait_handle()

    def check_create_complete(self, handle: Any) -> bool:
        """The handle's queued signals delivered first (a queue transport), then as Heat's.
        :raises _wait.WaitConditionTimeout, _wait.WaitConditionFailure: as Heat's."""
        if handle.get("pull"):
            self._pull()
        return _wait.check(self._signals(), self._count(), float(handle["started"]),
                           float(handle["timeout"]), self.clock())

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]
                      ) -> dict[str, Any]:
        """A new ``count``: wait again, from now (Heat's ``handle_update``)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        return self._wait_handle()

    def check_update_complete(self, handle: Any) -> bool:
        return self.check_create_complete(handle)

    def waits_for(self, handle: Any) -> tuple[str, float] | None:
        """While not complete: ``(event, deadline)``, the deadline in epoch seconds (a little
        after the timeout, so that the step that runs then reports it); None (polled: its
        queue is read at each look) when the handle's signals wait in a queue."""
        if handle.get("pull"):
            return None
        return (signal_event(self._ref()),
                float(handle["started"]) + float(handle["timeout"]) + 0.5)

    def _resolve_attribute(self, name: str) -> Any:
        if name != "data":
            return None
        found = self.signals_of(self._ref()) if self.signals_of is not None else None
        if found is None:
            return ""
        return json.dumps(_wait.data_attribute(found))


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::WaitConditionHandle": HeatWaitConditionHandle,
        "OS::Heat::WaitCondition": HeatWaitCondition,
    }
