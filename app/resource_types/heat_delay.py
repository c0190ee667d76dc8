"""OS::Heat::Delay: waits a (randomised) time on create and/or delete, holding no task.

As Heat's ``heat/engine/resources/openstack/heat/delay.py``: the wait is ``min_wait +
max_jitter * jitter_multiplier * random()`` seconds for each action listed in ``actions``
(others: no wait); the handle is ``{"started": epoch seconds, "wait": seconds}``. The engine
parks the node until the wait is over (:meth:`Delay.waits_for`: the ``Wait`` outcome with that
deadline), so no worker sleeps. SUSPEND/RESUME are accepted in ``actions`` (Heat's schema) but
this engine has no suspend.
"""
from __future__ import annotations

import random
import uuid
from typing import Any, ClassVar

from app.resource_types import schema as s
from app.resource_types.base import Resource

ACTIONS = ("CREATE", "DELETE", "SUSPEND", "RESUME")


class Delay(Resource):
    """OS::Heat::Delay."""

    type_name = "OS::Heat::Delay"
    support_status = s.support_status("11.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "min_wait": s.prop("number", "Minimum time in seconds to wait during the specified "
                           "actions.", default=0, update_allowed=True,
                           constraints=[s.value_range(min=0)]),
        "max_jitter": s.prop("number", "Maximum jitter to add to the minimum wait time.",
                             default=0, update_allowed=True,
                             constraints=[s.value_range(min=0)]),
        "jitter_multiplier": s.prop("number", "Number of seconds to multiply the maximum "
                                    "jitter value by.", default=1.0, update_allowed=True,
                                    constraints=[s.value_range(min=0)]),
        "actions": s.prop("list", "Actions during which the delay will occur.",
                          default=["CREATE"], update_allowed=True,
                          constraints=[s.allowed_values(ACTIONS)]),
    }

    #: the random source of the jitter (tests inject one)
    rand: Any = random.random

    def wait_seconds(self, action: str) -> float:
        """The (randomised) wait of ``action``: 0 when it is not in ``actions``."""
        if action not in (self.get_property("actions") or []):
            return 0.0
        jitter = float(self.get_property("max_jitter")) * \
            float(self.get_property("jitter_multiplier"))
        return float(self.get_property("min_wait")) + jitter * float(self.rand())

    def _start(self, action: str) -> dict[str, float]:
        return {"started": self.clock(), "wait": self.wait_seconds(action)}

    def _complete(self, handle: Any) -> bool:
        if not handle or not handle.get("wait"):
            return True
        return self.clock() - float(handle["started"]) >= float(handle["wait"])

    def handle_create(self) -> dict[str, float]:
        """Sets a UUID physical id (kept on a redelivery). :returns: the handle."""
        if self.resource_id is None:
            self.resource_id = str(uuid.uuid4())
        return self._start("CREATE")

    def check_create_complete(self, handle: Any) -> bool:
        return self._complete(handle)

    def handle_delete(self) -> dict[str, float]:
        return self._start("DELETE")

    def check_delete_complete(self, handle: Any) -> bool:
        return self._complete(handle)

    def waits_for(self, handle: Any) -> tuple[str, float]:
        """``("delay", deadline)``: nothing but the deadline ends the wait; a step run at it
        (or a little after) finds the wait over."""
        return "delay", float(handle["started"]) + float(handle["wait"]) + 0.25


def resource_mapping() -> dict[str, type[Resource]]:
    return {"OS::Heat::Delay": Delay}
