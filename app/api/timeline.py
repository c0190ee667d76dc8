"""A stack operation's timeline (not in Heat): ``GET /v1/{tenant}/stacks/{name}/{id}/timeline``.

Answers ``{"timeline": {...}}``: the ``operation`` (action, status, start and end), every
``operations`` start, each ``resources`` span of the operation (``id`` and ``path`` through the
nested stacks, ``started_at``/``ended_at``, ``waits`` for a resource, the stack's start or a
signal, ``outcome``, ``critical``, ``root_cause``, ``cascade``), the ``root_cause`` with the
cloud's message and the ``critical_path``. ``?operation=UPDATE`` picks the latest operation of
that action (default: the latest). 400 unknown action; 404 unknown stack.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.views_common import ctx, services
from app.services import timeline

blp = Blueprint("timeline", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="The timeline and root cause of a stack operation.")


@blp.route("/timeline")
class Timeline(MethodView):
    @blp.response(200, description="The operation's timeline.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The timeline of the stack's latest (or ``?operation=``) operation."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return {"timeline": timeline.get(ctx(), stack, request.args.get("operation"))}
