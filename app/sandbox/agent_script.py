"""What the sandbox server agent reads out of a server's user data: its shell scripts (cloud-init's
rule for MIME parts), and the HTTP requests of their signalling commands (``curl``,
``cfn-signal``), following the script's control flow (functions, groups, ``for`` loops) as if
every command succeeded. Pure: nothing here sends a request.

More in docs/code/sandbox.md (app.sandbox.agent).
"""
from __future__ import annotations

import base64
import binascii
import email
import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: the characters of the shell tokens that end one command (``;``, ``&&``, ``||``, ``|``...)
PUNCTUATION = set(";&|(){}")
#: curl options taking one argument that the agent ignores
CURL_ARG_OPTIONS = {"--retry", "--retry-delay", "--retry-max-time", "-o", "--output", "-w",
                    "--write-out", "-m", "--max-time", "--connect-timeout", "-A", "--user-agent",
                    "-e", "--referer", "--cacert", "--cert", "--key", "-b", "--cookie", "-c",
                    "--cookie-jar", "--resolve", "-x", "--proxy", "-T", "--upload-file"}
DATA_OPTIONS = {"-d", "--data", "--data-binary", "--data-raw", "--data-ascii"}
#: the shell's exit status of the command before (``cfn-signal -e $?``)
LAST_STATUS = ("$?", "${?}")


@dataclass
class Request:
    """One HTTP request a signalling command makes."""
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    data: str | None = None


def scripts(user_data_b64: str | None) -> list[str]:
    """The shell scripts of a server's user data: the whole text when it is not a MIME
    multipart message, else its ``text/x-shellscript`` parts (cloud-init's rule) and its
    ``cfn-userdata`` part when that is a script (``HEAT_CFNTOOLS``: Heat's loguserdata.py runs
    it). Empty when there is no user data or it is not text."""
    if not user_data_b64:
        return []
    try:
        text = base64.b64decode(user_data_b64, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return []
    if not text.lstrip().lower().startswith(("content-type:", "mime-version:")):
        return [text]
    message = email.message_from_string(text)
    out = []
    for part in message.walk():
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        text = payload.decode("utf-8", "replace")
        if part.get_content_type() == "text/x-shellscript" or (
                part.get_content_type() == "text/x-cfninitdata"
                and part.get_filename() == "cfn-userdata" and text.startswith("#!")):
            out.append(text)
    return out


#: the shell's operators, longest first
OPERATORS = ("&&", "||", ";;", ";", "&", "|", "(", ")", "{", "}")
#: how deep function calls are followed
MAX_CALL_DEPTH = 8
Segment = tuple[str, str, list[str]]  # (connector, operator or "", words)


def _split_operators(token: str) -> list[str]:
    out, i = [], 0
    while i < len(token):
        op = next(o for o in OPERATORS if token.startswith(o, i))
        out.append(";" if op == ";;" else op)
        i += len(op)
    return out


def _tokens(script: str) -> list[str]:
    """The words and operators of a shell script, ``;`` at each line end (quotes removed, line
    continuations joined, comments and here-document bodies dropped). A line with an
    unbalanced quote is skipped."""
    out: list[str] = []
    heredoc: str | None = None
    for line in script.replace("\\\n", " ").splitlines():
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|(){}")
        lexer.commenters = "#"
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            continue
        for i, token in enumerate(tokens):
            if set(token) <= PUNCTUATION:
                out.extend(_split_operators(token))
                continue
            out.append(token)
            if token.startswith("<<") and not token.startswith("<<<"):
                heredoc = token[2:].lstrip("-") or (tokens[i + 1] if i + 1 < len(tokens)
                                                    else None)
        out.append(";")
    return out


def _segments(script: str) -> list[Segment]:
    """Simple commands ``(connector, "", words)`` and grouping operators ``(connector, op,
    [])``, the connector being the operator before them (``;``, ``&&``, ``||``, ``|``)."""
    out: list[Segment] = []
    words: list[str] = []
    connector = ";"
    for token in _tokens(script):
        if token not in OPERATORS:
            words.append(token)
            continue
        if words:
            out.append((connector, "", words))
            words, connector = [], ";"
        if token in ("(", ")", "{", "}"):
            out.append((connector, token, []))
            connector = ";"
        elif token in ("&&", "||", "|"):
            connector = token
    if words:
        out.append((connector, "", words))
    return out


def _group_end(segments: list[Segment], start: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start`` (len(segments) if none)."""
    depth = 0
    for i in range(start, len(segments)):
        op = segments[i][1]
        depth += 1 if op == "{" else -1 if op == "}" else 0
        if depth == 0:
            return i
    return len(segments)


#: the most iterations a ``for`` loop is followed for
MAX_FOR_ITEMS = 100


def _iterations(words: list[str]) -> int:
    """How many items ``for NAME in ITEMS`` iterates over: the words, or what ``seq`` in
    backquotes or ``$(...)`` prints; 1 when unknown (the body runs once)."""
    if "in" not in words:
        return 1
    items = words[words.index("in") + 1:]
    text = " ".join(items)
    m = re.fullmatch(r"(?:`|\$\()seq\s+(-?\d+)(?:\s+(-?\d+))?\s*(?:`|\))", text.strip())
    if m:
        first, last = (1, int(m.group(1))) if m.group(2) is None \
            else (int(m.group(1)), int(m.group(2)))
        return max(0, min(MAX_FOR_ITEMS, last - first + 1))
    if any(c in text for c in "`$*?"):
        return 1
    return max(0, min(MAX_FOR_ITEMS, len(items)))


def _loop_end(segments: list[Segment], start: int) -> int:
    """The index of the segment holding the ``done`` that closes the loop whose ``for`` is in
    segment ``start - 1`` (len(segments) if none)."""
    depth = 1
    for j in range(start, len(segments)):
        for word in segments[j][2]:
            if word in ("for", "while", "until"):
                depth += 1
            elif word == "done":
                depth -= 1
                if depth == 0:
                    return j
    return len(segments)


def _loop_body(segments: list[Segment], start: int, end: int) -> list[Segment]:
    """The segments between ``do`` and the closing ``done`` (the words around them dropped)."""
    body = list(segments[start:end + 1])
    if body and body[0][2][:1] == ["do"]:
        body[0] = (body[0][0], body[0][1], body[0][2][1:])
    last = body[-1]
    cut = last[2].index("done") if "done" in last[2] else len(last[2])
    body[-1] = (last[0], last[1], last[2][:cut])
    return [seg for seg in body if seg[1] or seg[2]]


class _Break(Exception):
    """``break`` in the body of a ``for`` loop being replayed."""


class _Exit(Exception):
    """The script's ``exit``."""


def _function_def(segments: list[Segment], i: int) -> tuple[str, int] | None:
    """``(name, index of its "{")`` when a function definition starts at ``i``:
    ``function NAME [()] {`` or ``NAME() {``."""
    _, op, words = segments[i]
    if op:
        return None
    j = i + 1
    if len(words) == 2 and words[0] == "function":
        name = words[1]
    elif len(words) == 1 and [s[1] for s in segments[j:j + 2]] == ["(", ")"]:
        name = words[0]
    else:
        return None
    if [s[1] for s in segments[j:j + 2]] == ["(", ")"]:
        j += 2
    return (name, j) if j < len(segments) and segments[j][1] == "{" else None


def _follow(segments: list[Segment], functions: dict[str, list[Segment]],
         depth: int) -> Iterator[list[str]]:
    """The commands a script runs when every command succeeds: ``A || B`` skips B, an
    ``if`` takes its ``then`` branch, a ``while``/``for`` body runs once (``break`` ends it),
    an ``until`` body never, a function's body runs where the function is called, ``exit``
    ends the script. :raises _Exit: at ``exit``."""
    frames: list[dict[str, Any]] = []  # {"kind", "active"}: if, while, until, for, group

    def running() -> bool:
        return all(f["active"] for f in frames)

    i = 0
    while i < len(segments):
        connector, op, words = segments[i]
        found = _function_def(segments, i)
        if found is not None:
            end = _group_end(segments, found[1])
            functions[found[0]] = segments[found[1] + 1:end]
            i = end + 1
            continue
        i += 1
        if op in ("{", "("):
            frames.append({"kind": "group", "active": connector != "||"})
            continue
        if op in ("}", ")"):
            if frames and frames[-1]["kind"] == "group":
                frames.pop()
            continue
        words = list(words)
        while words and words[0] in ("if", "then", "elif", "else", "fi", "while", "until",
                                     "for", "do", "done"):
            word = words.pop(0)
            top = frames[-1] if frames else {"kind": None, "active": True}
            if word in ("if", "while", "until"):
                frames.append({"kind": word, "active": True, "taken": False})
            elif word == "for":
                end = _loop_end(segments, i)
                if running() and connector != "||" and end < len(segments):
                    body = _loop_body(segments, i, end)
                    try:
                        for _ in range(_iterations(words)):   # each item: the body again
                            yield from _follow(body, functions, depth + 1)
                    except _Break:
                        pass
                    i = end + 1
                    words = []
                    break
                frames.append({"kind": "for", "active": True})
                words = []
            elif word == "then" and top["kind"] == "if":
                top["active"], top["taken"] = not top["taken"], True
            elif word in ("elif", "else") and top["kind"] == "if":
                top["active"] = False
            elif word == "do" and top["kind"] in ("while", "until", "for"):
                top["active"] = top["kind"] != "until"
            elif word in ("fi", "done") and frames:
                frames.pop()
        if not words or connector == "||" or not running():
            continue
        if words[0] in ("break", "continue"):
            loop = next((f for f in reversed(frames) if f["kind"] in ("while", "until", "for")),
                        None)
            if loop is not None:
                loop["active"] = False
            elif depth > 0 and words[0] == "break":   # ends the ``for`` being replayed
                raise _Break()
        elif words[0] == "exit":
            raise _Exit()
        elif words[0] == "return" and depth > 0:
            return
        elif words[0] in functions and depth < MAX_CALL_DEPTH:
            try:
                yield from _follow(functions[words[0]], functions, depth + 1)
            except _Break:
                pass
        else:
            yield words


def _commands(script: str) -> Iterator[list[str]]:
    """The simple commands (word lists) the script runs, in order, when every command of it
    succeeds (:func:`_follow`): a real image's script reaches its success signal, and its
    failure handlers (``|| error_exit``, an ``else`` branch) do not run."""
    try:
        yield from _follow(_segments(script), {}, 0)
    except _Exit:
        return


def _curl(words: list[str]) -> Request | None:
    method, headers, data, url = None, {}, [], None
    it = iter(words[1:])
    for word in it:
        if word in ("-X", "--request"):
            method = next(it, None)
        elif word in ("-H", "--header"):
            name, _, value = (next(it, "") or "").partition(":")
            if name.strip():
                headers[name.strip()] = value.strip()
        elif word in DATA_OPTIONS:
            data.append(next(it, "") or "")
        elif word in CURL_ARG_OPTIONS:
            next(it, None)
        elif word.startswith(("http://", "https://")) and url is None:
            url = word
    if url is None:
        return None
    body = "&".join(data) if data else None
    return Request(method or ("POST" if body is not None else "GET"), url, headers, body)


def _cfn_signal(words: list[str], server_id: str) -> Request | None:
    """heat-cfntools' ``bin/cfn-signal``: an exit code (``-e``/``--exit-code``/``--exit``) takes
    precedence over ``-s`` (``-e $?`` is 0: every command before succeeded); the id defaults to the instance id (the server's); the body is sent
    by ``curl -X PUT -H 'Content-Type:'`` (no content type)."""
    opts = {"success": "true", "reason": "Configuration Complete",
            "data": "Application has completed configuration.", "id": None, "exit": None}
    names = {"-s": "success", "--success": "success", "-r": "reason", "--reason": "reason",
             "-d": "data", "--data": "data", "-i": "id", "--id": "id", "-e": "exit",
             "--exit-code": "exit", "--exit": "exit"}
    url = None
    it = iter(words[1:])
    for word in it:
        if word in names:
            opts[names[word]] = next(it, "")
        elif word.startswith(("http://", "https://")) and url is None:
            url = word
    if url is None:
        return None
    if opts["exit"] in LAST_STATUS:  # the script is followed as if every command succeeded,
        opts["exit"] = "0"           # so the status of the command before is 0
    ok = opts["exit"] == "0" if opts["exit"] else opts["success"] == "true"
    body = {"Status": "SUCCESS" if ok else "FAILURE", "Reason": opts["reason"],
            "UniqueId": opts["id"] if opts["id"] is not None else server_id, "Data": opts["data"]}
    return Request("PUT", url, {}, json.dumps(body))


def requests_of(script: str, server_id: str) -> list[Request]:
    """The HTTP requests of the signalling commands of ``script``, in order."""
    out = []
    for words in _commands(script):
        name = words[0].rsplit("/", 1)[-1]
        request = _curl(words) if name == "curl" else \
            _cfn_signal(words, server_id) if name == "cfn-signal" else None
        if request is not None:
            out.append(request)
    return out
