"""Query parameters of the AWS API: required values, member lists and their checks
(``heat/api/aws/utils.py``: ``extract_param_list``, ``extract_param_pairs``, ``get_param_value``).

A list travels as ``Prefix.member.N.Field=value`` (N from 1). Heat drops members it cannot read;
here a malformed list is refused before anything happens, so a typo never creates a stack with
a default value in place of the intended one.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.cfn import faults

TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def required(params: Mapping[str, str], key: str) -> str:
    """``params[key]``; :raises faults.MissingParameter: absent or empty (detail: the key)."""
    value = params.get(key)
    if value is None or value == "":
        raise faults.MissingParameter(key)
    return value


def member_list(params: Mapping[str, str], prefix: str) -> list[dict[str, str]]:
    """The members of ``Prefix.member.N.Field`` (or ``Prefix.member.N`` for a list of
    scalars, then ``{"": value}``), in the order of N.

    :raises faults.InvalidQueryParameter: a key under ``Prefix.`` that is not of that form, or
        an index that is not a positive number.
    """
    pattern = re.compile(rf"{re.escape(prefix)}\.member\.([0-9]+)(?:\.(.+))?")
    members: dict[int, dict[str, str]] = {}
    for key, value in params.items():
        if not key.startswith(prefix + "."):
            continue
        match = pattern.fullmatch(key)
        if not match or int(match.group(1)) < 1:
            raise faults.InvalidQueryParameter(
                f"{key} is not of the form {prefix}.member.N.<field> (N from 1)")
        members.setdefault(int(match.group(1)), {})[match.group(2) or ""] = value
    return [members[i] for i in sorted(members)]


def parameter_pairs(params: Mapping[str, str], previous: Mapping[str, Any] | None = None,
                    prefix: str = "Parameters") -> dict[str, Any]:
    """``{ParameterKey: ParameterValue}`` of ``Parameters.member.N.*`` (Heat's
    ``_extract_user_params``). ``UsePreviousValue=true`` takes the value from ``previous`` (an
    update's current parameters), as AWS does.

    :raises faults.MissingParameter: a member without ``ParameterKey``, or without
        ``ParameterValue`` and not ``UsePreviousValue=true``.
    :raises faults.InvalidParameterCombination: ``ParameterValue`` with ``UsePreviousValue``.
    :raises faults.ValidationError: a key given twice, or ``UsePreviousValue`` for a parameter
        the stack has no value of (or on a create).
    :raises faults.InvalidQueryParameter: as :func:`member_list`.
    """
    out: dict[str, Any] = {}
    for n, member in enumerate(member_list(params, prefix), start=1):
        key = member.get("ParameterKey")
        if not key:
            raise faults.MissingParameter(f"{prefix}.member.{n}.ParameterKey")
        if key in out:
            raise faults.ValidationError(f"Parameter {key} is given more than once")
        use_previous = flag(member, "UsePreviousValue", f"{prefix}.member.{n}.UsePreviousValue")
        if use_previous:
            if "ParameterValue" in member:
                raise faults.InvalidParameterCombination(
                    f"{prefix}.member.{n}: ParameterValue and UsePreviousValue may not be "
                    "used together")
            if previous is None or key not in previous:
                raise faults.ValidationError(
                    f"UsePreviousValue is set for parameter {key}, which has no previous value")
            out[key] = previous[key]
        elif "ParameterValue" in member:
            out[key] = member["ParameterValue"]
        else:
            raise faults.MissingParameter(f"{prefix}.member.{n}.ParameterValue")
    return out


def flag(params: Mapping[str, str], key: str, name: str | None = None) -> bool | None:
    """A boolean parameter (``true``/``false``, any case; Heat's ``extract_bool``), None when
    absent. :raises faults.ValidationError: any other text."""
    if key not in params:
        return None
    text = str(params[key]).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise faults.ValidationError(f'Unrecognized value "{params[key]}" for "{name or key}", '
                                 'acceptable values are: true, false.')


def page(items: list[Any], params: Mapping[str, str], size: int = 100,
         most: int | None = None) -> tuple[list[Any], str | None]:
    """One page of ``items`` and the ``NextToken`` of the next (None: the last page).
    ``NextToken`` is the offset as text; ``MaxResults`` (when ``most`` is given: an integer
    from 1 to ``most``, AWS's ``BoxedMaxResults``) sets the page's size, else ``size``.

    :raises faults.ValidationError: a token not of this listing, or a ``MaxResults`` out of
        range (AWS's "1 validation error detected: Value 'x' at 'maxResults' failed to
        satisfy constraint: ..." form)."""
    if most is not None and "MaxResults" in params:
        size = _bounded(params["MaxResults"], "maxResults", 1, most)
    token = params.get("NextToken")
    start = 0
    if token is not None:
        if not token.isdigit() or int(token) > len(items):
            raise faults.ValidationError(f"Invalid NextToken: {token}")
        start = int(token)
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _bounded(text: str, member: str, low: int, high: int) -> int:
    """``text`` as an integer from ``low`` to ``high``, as AWS checks a member's range."""
    try:
        value = int(text)
    except ValueError:
        raise faults.ValidationError(
            f"1 validation error detected: Value '{text}' at '{member}' failed to satisfy "
            "constraint: Member must be an integer") from None
    if value < low or value > high:
        bound = (f"greater than or equal to {low}" if value < low
                 else f"less than or equal to {high}")
        raise faults.ValidationError(
            f"1 validation error detected: Value '{text}' at '{member}' failed to satisfy "
            f"constraint: Member must have value {bound}")
    return value


def integer(params: Mapping[str, str], key: str) -> int | None:
    """A non-negative integer parameter, None when absent (Heat's ``extract_int``).
    :raises faults.ValidationError: not a non-negative integer."""
    if key not in params:
        return None
    try:
        value = int(params[key])
    except ValueError:
        raise faults.ValidationError(f"Only integer is acceptable by '{key}'.") from None
    if value < 0:
        raise faults.ValidationError(f"Only non-negative integer is acceptable by '{key}'.")
    return value
