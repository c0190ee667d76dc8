"""How a refusal is compared with Heat's (the oracle vectors, ../shared/oracle/README.md).

A refused create must have Heat's HTTP status and error type, and its message must carry the
*key facts* of Heat's message: what names the user's mistake, as opposed to the wording
around it. :func:`key_facts` extracts them from any Heat message:

* the dotted path the message starts with, after a heading such as ``Property error:``
  (``resources.a.properties``, ``outputs.o.value.get_attr``, ``Resources.V.Properties.value``);
* every double- or single-quoted token (``"ghost"``, ``'Name'``, ``'<stream end>'``);
* every parenthesised group (``(V bogus)``, ``(min: 1, max: 5)``, ``(nothere)``);
* every number standing alone (``70000``, ``9``, ``4 is not a multiple of 2``);
* the message's final clause (after the last ``": "``): a parameter's own description
  (``Must not be negative.``), the rule a message names nothing but (``Each resource must
  contain a type key.``) — but not a Python repr Heat prints (a clause with a ``{``, such as
  its dependency graph in ``Circular Dependency Found: {NoneResource "a": ...}``: there the
  names quoted in it are the facts).

Where Heat answers 500 (an exception it did not translate: a Heat bug) Stoker must answer a
clear 400 with a message instead; there no fact is compared, the status and a message are.
The same holds where Heat's 400 carries nothing but Python's text of such an exception
(:data:`PYTHON_TEXT`): Stoker answers a clear template error, whose type and words are its own.
"""
from __future__ import annotations

import re
from typing import Any

#: Python's own text of an exception Heat did not translate, where Stoker words the error itself
PYTHON_TEXT = ("object has no attribute 'items'", "replace() argument 2 must be str, not ")
_HEADINGS = ("Property error: ", "Output validation error: ", "Parameter Groups error: ",
             "Condition validation error: ", "Template not in valid format: ")
_PATH = re.compile(r"^([\w:$-]+(?:\.[\w:$<>\[\]-]+)+): ")
_DQ = re.compile(r'"([^"\n]{1,80})"')
_SQ = re.compile(r"(?<![\w])'([^'\n]{1,80})'")
_PAREN = re.compile(r"\(([^()\n]{1,80})\)")
_NUMBER = re.compile(r"(?<![\w.'\"-])(-?\d+(?:\.\d+)?)(?![\w.'\"])")


def key_facts(message: str) -> list[str]:
    """The key facts of Heat's ``message`` (see the module doc), in order, without repeats.

    >>> key_facts('outputs.o.value.get_attr: The Referenced Attribute (v nosuch) is incorrect.')
    ['outputs.o.value.get_attr', 'v nosuch', 'The Referenced Attribute (v nosuch) is incorrect.']
    """
    facts: list[str] = []
    rest = message
    for head in _HEADINGS:
        rest = rest.removeprefix(head)
    m = _PATH.match(rest)
    if m:
        facts.append(m.group(1))
        rest = rest[m.end():]
    facts.extend(x for rx in (_DQ, _SQ, _PAREN, _NUMBER) for x in rx.findall(rest))
    masked = rest
    for rx in (_DQ, _SQ, _PAREN):  # a ": " inside quotes or parentheses does not end a clause
        masked = rx.sub(lambda m: "_" * len(m.group(0)), masked)
    tail = rest[masked.rfind(": ") + 2:].strip() if ": " in masked else rest.strip()
    if tail and "{" not in tail:
        facts.append(tail)
    return list(dict.fromkeys(facts))


def refusal_problem(expect: dict[str, Any], unstable: list[str] | None, status: int,
                    error_type: str | None, message: str | None) -> str | None:
    """None when a refusal (HTTP ``status``, fault ``error_type`` and ``message``) matches
    Heat's ``expect`` (an oracle vector's ``expect`` of outcome ``invalid``), else why not.

    A message marked unstable in the vector (Heat prints a Python repr that changes from run
    to run) is only required to be there."""
    if not message:
        return f"{status} {error_type} without a message"
    if expect.get("http_status", 400) >= 500:
        if status != 400:
            return f"Heat's 500 must be a clear 400 here, got {status} {error_type}: {message}"
        return None
    if any(text in expect.get("message", "") for text in PYTHON_TEXT):
        if status != 400 or any(text in message for text in PYTHON_TEXT):
            return f"Heat's Python text must be a clear 400 here, got {status}: {message}"
        return None
    got = (status, error_type)
    want = (expect["http_status"], expect["error_type"])
    if got != want:
        return f"got {got} {message!r}; Heat {want} {expect.get('message')!r}"
    if "message" in (unstable or []):
        return None
    missing = [f for f in key_facts(expect["message"]) if f not in message]
    if missing:
        return f"facts {missing} of Heat's {expect['message']!r} not in {message!r}"
    return None
