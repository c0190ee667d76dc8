"""An oracle vector's create run on the product's own code, in memory (no database, no Celery):

* the request is checked as the API's use cases check it: ``app.services.definitions.
  parse_and_instantiate`` (parse, instantiate with the registry's schemas, each plugin's own
  static checks);
* the traversal is the engine's: ``app.engine.plan.forward`` over the runtime's graph
  (``app.convergence.store.definitions.Loaded``), walked by ``tests.unit.engine.walk.Walk`` (a failure
  skips its descendants);
* each node is the runtime's create step, ``app.convergence.steps.create.forward`` (property
  resolution from the predecessors' passed-on data, validation, adoption of an
  ``external_id``, ``handle_create`` / ``check_create_complete`` of the registry plugin);
* what a finished resource passes on is ``app.convergence.store.attrdata.attr_data``, read back
  through ``app.convergence.store.attrdata.DataContext``, and the outputs are resolved from it as
  ``app.convergence.stack_outputs.resolve_outputs`` does.

Only what the runtime keeps in database rows is kept here in dicts: the rows' status (Done:
CREATE_COMPLETE, or CHECK_COMPLETE for an adoption; Failed before the action started:
INIT_COMPLETE; Failed: CREATE_FAILED; skipped: INIT_COMPLETE) and the passed-on data. A nested
stack (a template resource, a group) needs the runtime's child stacks in the database: such
vectors run in tests/corpus/test_oracle_engine.py.
"""
from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any

from app.convergence.nested.groups import kind as nested_kind
from app.convergence.outcome import Done, Failed, Node, Poll, Record
from app.convergence.steps import create
from app.convergence.store import attrdata
from app.convergence.store.definitions import Loaded, identity
from app.convergence.store.rows import ResourceRow, StepStack
from app.engine import plan as eplan
from app.engine.states import Action, Status
from app.resource_types import failures
from app.services.definitions import parse_and_instantiate
from tests.unit.engine.walk import Walk

STACK = ("vstack", "8c1a-stack-id", "project-id")
MAX_POLLS = 50


@dataclass
class Created:
    """A create's end: resource statuses, the stack's status, its definition and outputs."""

    definition: Any
    states: dict[str, str] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    status: str = "CREATE_COMPLETE"
    reasons: list[str] = field(default_factory=list)

    def outputs(self) -> list[dict[str, Any]]:
        return list(self.definition.resolve_outputs(attrdata.DataContext(self.data)))


def instantiate(v: dict[str, Any]) -> Any:
    """The vector's StackDefinition, checked as a create request (raises what the API
    would answer with)."""
    return parse_and_instantiate(v["template"], v.get("files") or {}, None,
                                 v.get("parameters") or {}, identity(*STACK))[1]


def is_nested(definition: Any) -> bool:
    """Whether any resource is a nested stack (needs the database-backed runtime)."""
    return any(nested_kind(r) for r in definition.resources.values())


def _row(name: str, rdef: Any, loaded: Loaded) -> ResourceRow:
    impl = getattr(rdef, "implementation", rdef.type)
    return ResourceRow(
        id=0, uuid=str(uuid.uuid4()), stack_id=STACK[1], name=name, type=rdef.type,
        action=Action.INIT, status=Status.COMPLETE, status_reason="",
        physical_resource_id=None, requires=sorted(loaded.requires.get(name, ())),
        deletion_policy="Delete", properties_data=None,
        rsrc_data={"_impl": impl} if impl != rdef.type else {}, handle=None, attr_data=None,
        poll_attempt=0, engine_id=None, atomic_key=0, created_at=dt.datetime(2026, 1, 1),
        updated_at=None)


def _step(node: Node) -> Any:
    """The create step, polled until it ends (a plugin that polls is asked again)."""
    outcome = create.forward(node)
    polls = 0
    while isinstance(outcome, Poll) and polls < MAX_POLLS:
        polls += 1
        try:
            done = outcome.plugin.check_create_complete(outcome.handle)
        except Exception as exc:
            return Failed(failures.reason_of(node.resource.name, exc), plugin=outcome.plugin)
        if done:
            return Done(outcome.plugin)
    return outcome


def run(definition: Any) -> Created:
    """Create every resource of ``definition`` as the runtime's CREATE traversal does."""
    loaded = Loaded.of(definition)
    out = Created(definition)
    stack = StepStack(id=STACK[1], name=STACK[0], tenant=STACK[2], raw_template_id=0,
                      current_traversal="t", action=Action.CREATE, nested_depth=0,
                      failed=False, disable_rollback=True)
    walk = Walk(eplan.forward(loaded.requires))
    for name in definition.resources:
        out.states[name] = "INIT_COMPLETE"
    while walk.is_active():
        ready = walk.ready()
        if not ready:
            break
        for key in ready:
            name = key[0]
            inputs = {p: out.data[p] for p in loaded.requires.get(name, ()) if p in out.data}
            node = Node(stack, _row(name, definition.resources[name], loaded), "t", True,
                        loaded, inputs)
            outcome = _step(node)
            if isinstance(outcome, Done):
                out.data[name] = attrdata.attr_data(
                    outcome.plugin, definition.referenced_attributes(name))
                out.states[name] = "CHECK_COMPLETE" if outcome.action == Action.CHECK \
                    else "CREATE_COMPLETE"
                walk.report(key, True)
            else:
                assert isinstance(outcome, Failed), outcome
                out.status = "CREATE_FAILED"
                out.reasons.append(outcome.reason if isinstance(outcome.reason, str)
                                   else failures.reason_of(name, outcome.reason))
                if outcome.record != Record.UNTOUCHED:
                    out.states[name] = "CREATE_FAILED"
                walk.report(key, False)
    return out
