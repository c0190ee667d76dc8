"""Failure reasons and error paths in Heat's wording: what the engine records when a resource's
step fails (Heat's ``ResourceFailure`` / ``HeatExceptionWithPath``, heat/common/exception.py), e.g.
``"ValueError: resources.r: Test Resource failed r"``, and the create-time forms of
``Resource.create`` (heat/engine/resource.py). Pure: no I/O."""
from __future__ import annotations

import re
from collections.abc import Sequence

from app import errors

format_path = errors.format_path


_SECTION = re.compile(r"^(?:([^:]+): )?((?:resources|outputs|parameters|conditions|Resources|"
                      r"Outputs|Parameters|Conditions)(?:[.\[<][^\s:]*)?): (.*)$", re.DOTALL)


def created_validation_message(exc: errors.StokerError, name: str) -> str:
    """The message of a ``StackValidationFailed`` met while resource ``name`` was created
    (its child stack's validation, say), as Heat's ``Resource.create`` re-raises it: the
    resource's name put in front of the error's path, ``"Property error:
    resources.0.properties.n: 7 is out of range ..."`` of ``g`` ->
    ``"Property error: g.resources[0].properties.n: 7 is out of range ..."`` (the path as
    :func:`format_path` prints it); a message without a path reads ``"<name>: <message>"``."""
    message, path = exc.message, [str(p) for p in exc.path]
    dotted = format_path(path)
    if path and message.startswith(f"{dotted}: "):
        label, rest = "", message[len(dotted) + 2:]
    elif path and f": {dotted}: " in message:
        label, _, rest = message.partition(f": {dotted}: ")
    else:
        found = _SECTION.match(message)
        if found is None:
            return f"{name}: {message}"
        label, path, rest = found.group(1) or "", found.group(2).split("."), found.group(3)
    return (f"{label}: " if label else "") + f"{format_path([name, *path])}: {rest}"


def resource_path(name: str, parent: Sequence[str | int] = ()) -> tuple[str | int, ...]:
    """The path of resource ``name`` in a (possibly nested) stack: ``(*parent, "resources",
    name)``; ``parent`` is the path of the nested-stack resource that owns the stack."""
    return (*parent, "resources", name)


def failure_parts(exc: BaseException, path: Sequence[str | int] | str
                  ) -> tuple[str, tuple[str | int, ...], str]:
    """``(error, path, message)`` as Heat's ``ResourceFailure`` splits a failure.

    ``error`` is the exception's class name (a :class:`errors.StokerError` gives its
    ``heat_type``, e.g. ``ResourceInError``); a :class:`errors.ResourceFailure` made by
    :func:`resource_failure` keeps its own parts, as Heat keeps a wrapped failure's.
    ``path`` may be a resource name (-> ``("resources", name)``).
    """
    if isinstance(path, str):
        path = resource_path(path)
    if isinstance(exc, errors.ResourceFailure) and "error" in exc.data:
        return str(exc.data["error"]), tuple(exc.data.get("failure_path", ())), \
            str(exc.data.get("detail", ""))
    if isinstance(exc, errors.StokerError):
        return exc.heat_type, tuple(path), exc.message
    return type(exc).__name__, tuple(path), str(exc)


def failure_reason(exc: BaseException, path: Sequence[str | int] | str) -> str:
    """A resource's failure reason in Heat's words: ``"<Error>: <path>: <message>"``, e.g.
    ``failure_reason(ValueError("Test Resource failed r"), "r")`` ->
    ``"ValueError: resources.r: Test Resource failed r"``. Empty parts are left out, as Heat's
    ``HeatExceptionWithPath`` does. Pure."""
    error, fpath, message = failure_parts(exc, path)
    text_path = format_path(fpath)
    return (f"{error}: " if error else "") + (f"{text_path}: " if text_path else "") + message


class NestedFailed(errors.ResourceFailure):
    """A child stack failed; ``reason`` is the parent resource's reason, Heat's wording."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def reason_of(name: str, exc: BaseException) -> str:
    """Heat's failure reason of resource ``name``: ``"<ExcType>: resources.<name>: <message>"``
    (:func:`failure_reason`; a failed nested stack's reason is built from its child's, as
    Heat's: :class:`NestedFailed`)."""
    if isinstance(exc, NestedFailed):
        return exc.reason
    return failure_reason(exc, name)


def resource_failure(exc: BaseException, path: Sequence[str | int] | str,
                     action: str | None = None) -> errors.ResourceFailure:
    """``exc`` as an :class:`errors.ResourceFailure` whose message is :func:`failure_reason`
    and whose data keeps the parts (``error``, ``failure_path``, ``detail``, ``action``)."""
    error, fpath, message = failure_parts(exc, path)
    return errors.ResourceFailure(failure_reason(exc, path), error=error, failure_path=list(fpath),
                                  detail=message, action=action)


def create_check_reasons(exc: errors.StokerError, name: str, section: str = "resources"
                         ) -> tuple[str, str] | None:
    """A property check failed while resource ``name`` was created or updated (a value only
    known then, from ``tproperties.validate``): ``(resource's reason, create's reason)`` as
    Heat's ``Resource.create`` runs ``Properties.validate`` inside ``_action_recorder``: the
    path starts at the raw section name ``Properties`` (the properties' ``error_prefix``),
    ``"StackValidationFailed: resources.r: Property error: Properties.length: 0 is out of
    range (min: 1, max: 512)"``; ``create`` re-raises it with the name in front
    (``r.Properties.length``), which the stack's reason carries. None: not such an error.
    ``section``: the path's first item; Heat's ``ResourceFailure`` asks the template for the
    section name of the literal ``'resources'``, which a CFN template also gives back as
    ``resources``, so every template kind leaves the default (checked against Heat 27.0.1:
    vector ``create-check-cfn-range``)."""
    raw = exc.data.get("raw")
    if not isinstance(exc, errors.ValidationError) or not isinstance(raw, str) \
            or len(exc.path) < 3:
        return None
    rest = ["Properties", *[str(p) for p in exc.path[3:]]]
    head = f"StackValidationFailed: {format_path([section, name])}: Property error: "
    return (f"{head}{format_path(rest)}: {raw}",
            f"{head}{format_path([name, *rest])}: {raw}")


def action_failed_reason(action: str, reason: str) -> str:
    """A stack's status reason after a resource failed: ``"Resource CREATE failed: <reason>"``."""
    return f"Resource {action.upper()} failed: {reason}"


def nested_failure_reason(status_reason: str, action: str, path: Sequence[str | int] | str) -> str:
    """The failure reason of a nested-stack resource at ``path`` whose child stack ended with
    ``status_reason``, as Heat's ``ResourceFailure`` built from a string: a child reason
    ``"Resource CREATE failed: ValueError: resources[0]: Test Resource failed 0"`` under
    ``("resources", "g")`` gives ``"ValueError: resources.g.resources[0]: Test Resource failed 0"``.
    Any other text is kept as the message, under ``path``."""
    if isinstance(path, str):
        path = resource_path(path)
    error = ""
    new_path: list[str | int] = []
    message = status_reason
    if f"Resource {action.upper()} failed: " in status_reason:
        parsed = [p.strip() for p in status_reason.split(":")]
        if len(parsed) >= 4:
            error, message = parsed[1], ": ".join(parsed[3:])
            new_path = list(parsed[2].split("."))
    text_path = format_path([*path, *new_path])
    return (f"{error}: " if error else "") + (f"{text_path}: " if text_path else "") + message
