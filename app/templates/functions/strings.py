"""String functions: str_replace (+ strict, vstrict), list_join, str_split, digest, make_url.

More in docs/code/templates.md (app.templates.functions.strings).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib import parse as urlparse

from app.templates.functions.base import Function, Resolver
from app.templates.functions.limits import MAX_RESULT_SIZE, Budget, check_size, measure, split_size, too_large


def dumps(value: Any) -> str:
    """JSON text as Heat's jsonutils.dumps(sort_keys=True)."""
    return json.dumps(value, sort_keys=True)


class Replace(Function):
    """``str_replace`` (2013-05-23 .. 2015-04-30): values must be strings or numbers."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map')
        if "params" not in self.args or "template" not in self.args:
            raise self.error(repr(  # Heat raises a KeyError: its text is the message's repr
                f'"{self.fn_name}" syntax should be {self.fn_name}:\n'
                "              template: This is var1 template var2\n"
                "              params:\n                var1: a\n                var2: string"))
        params = self.args["params"]
        if not isinstance(params, (dict, Function)):
            raise self.error(f'"{self.fn_name}" parameters must be a mapping')

    def replacement(self, key: str, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, (str, int, float, bool)):
            raise self.error(f'"{self.fn_name}" params must be strings or numbers, param '
                             f'{key} is not valid')
        return str(value)

    def validate_params(self, template: str, params: dict[str, Any]) -> None:
        """Hook for the strict variants."""

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map')
        template, params = args.get("template"), args.get("params")
        if not isinstance(template, str):
            raise self.error(f'"{self.fn_name}" template must be a string')
        if not isinstance(params, dict):
            raise self.error(f'"{self.fn_name}" parameters must be a mapping')
        for key in params:
            if not isinstance(key, str):
                raise self.error(f'"{self.fn_name}" param placeholders must be strings')
        self.validate_params(template, params)
        values = {k: self.replacement(k, v) for k, v in params.items()}
        keys = sorted(sorted(values), key=len, reverse=True)
        check_size(self, replaced_length(template, keys, values))

        def replace(text: str, remaining: list[str]) -> str:
            if not remaining:
                return text
            head, rest = remaining[0], remaining[1:]
            return values[head].join(replace(part, rest) for part in text.split(head))

        return replace(template, keys)


def replaced_length(text: str, keys: list[str], values: dict[str, str]) -> int:
    """Length of :class:`Replace`'s result for ``text`` without building it: the same splits
    (placeholders in ``keys`` order, each within the pieces the previous ones left), counting
    the pieces instead of joining them. O(len(text) * len(keys)).
    :raises ValueError: an empty placeholder (as ``str.split``)."""
    if not text:
        return 0
    for i, head in enumerate(keys):
        if head in text:
            break
    else:
        return len(text)
    parts = text.split(head)
    rest = keys[i + 1:]
    return (len(parts) - 1) * len(values[head]) + sum(
        replaced_length(part, rest, values) for part in parts)


class ReplaceJson(Replace):
    """2015-10-15+ ``str_replace``: maps and lists are JSON-encoded."""

    def replacement(self, key: str, value: Any) -> str:
        if isinstance(value, (dict, list)):
            if measure(value) > MAX_RESULT_SIZE:
                raise too_large(self)
            return dumps(value)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise self.error(f'"{self.fn_name}" params must be strings, numbers, list or map.')
        return super().replacement(key, value)


class ReplaceJsonStrict(ReplaceJson):
    """``str_replace_strict``: every param must occur in the template."""

    def validate_params(self, template: str, params: dict[str, Any]) -> None:
        missing = [k for k in params if k not in template]
        if missing:
            raise self.error("The following params were not found in the template: "
                             + ",".join(missing))


class ReplaceJsonVeryStrict(ReplaceJsonStrict):
    """``str_replace_vstrict``: as strict, and values may not be null or empty."""

    def validate_params(self, template: str, params: dict[str, Any]) -> None:
        for key, value in params.items():
            if value is None or value == "" or value == [] or value == {}:
                raise self.error(f"{self.fn_name} has an undefined or empty value for param "
                                 f"{key}, must be a defined non-empty value")
        super().validate_params(template, params)


class Join(Function):
    """``list_join: [delim, list]`` (2013-05-23 .. 2015-04-30): items must be strings."""

    example = '"{0}" : [ " ", [ "str1", "str2"]]'

    def _usage(self) -> str:
        return f'Incorrect arguments to "{self.fn_name}" should be: ' + \
            self.example.format(self.fn_name)

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(self._usage())

    def item(self, value: Any, budget: Budget | None = None) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.error(f"Items to join must be strings not {repr(value)[:200]}")
        return value

    def lists(self, args: list[Any]) -> list[Any]:
        return [args[1]]

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) < 2:
            raise self.error(self._usage())
        lists: list[list[Any]] = []
        for lst in self.lists(args):
            if lst is None:
                continue
            if not isinstance(lst, list):
                raise self.error(f'"{self.fn_name}" must operate on a list')
            lists.append(lst)
        delim = args[0]
        if not isinstance(delim, str):
            raise self.error(f'"{self.fn_name}" delimiter must be a string')
        budget = Budget(self)
        budget.charge(max(sum(len(lst) for lst in lists) - 1, 0) * len(delim))
        pieces: list[str] = []
        for lst in lists:
            for v in lst:
                piece = self.item(v, budget)
                budget.charge(len(piece))
                pieces.append(piece)
        return delim.join(pieces)


class JoinMultiple(Join):
    """2015-10-15+ ``list_join: [delim, list1, list2, ...]``; maps/lists JSON-encoded."""

    example = '"{0}" : [ " ", [ "str1", "str2"] ...]'

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) < 2:
            raise self.error(self._usage())

    def lists(self, args: list[Any]) -> list[Any]:
        return [a for a in args[1:] if a]

    def item(self, value: Any, budget: Budget | None = None) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, (dict, list)):
            if budget is not None and not budget.allows(measure(value, budget.left)):
                raise too_large(self)
            return dumps(value)
        raise self.error(f"Items to join must be string, map or list not {repr(value)[:200]}")


class StrSplit(Function):
    """``str_split: [delim, string(, index)]``, as Heat's ``StrSplit``: only a string or a map
    as arguments is refused when parsed; the rest fails when resolved (a null string gives
    null; a string that is not one, or a delimiter that is not one, fails with Python's own
    words, as in Heat)."""

    def _usage(self) -> str:
        return (f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ ",", "apples,pears", <index>]')

    def check(self) -> None:
        if isinstance(self.args, (str, dict)):
            raise self.error(self._usage())

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) < 2:
            raise self.error(self._usage())
        delim, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str):
            raise self.error(f"'{type(text).__name__}' object has no attribute 'split'")
        if len(args) == 2 and isinstance(delim, str) and delim:
            check_size(self, split_size(text, delim))
        try:
            parts = text.split(delim)
        except (TypeError, ValueError) as exc:
            raise self.error(str(exc)) from None
        if len(args) > 2:
            try:
                index = int(args[2])
            except ValueError:
                raise self.error(f'Incorrect index to "{self.fn_name}" should be: '
                                 f'"{self.fn_name}" : [ ",", "apples,pears", <index>]') from None
            except TypeError as exc:
                raise self.error(str(exc)) from None
            try:
                return parts[index]
            except IndexError:
                raise self.error(f'Incorrect index to "{self.fn_name}" should be between 0 and '
                                 f'{len(parts) - 1}') from None
        return parts


class Digest(Function):
    """``digest: [algorithm, value]`` -> hex digest of value's latin-1 bytes (as Heat).

    Heat accepts any of ``hashlib.algorithms_available`` and lists them as a Python set (in an
    order that changes from run to run; a ``shake_*`` name then fails inside hashlib). Stoker
    accepts Python's guaranteed algorithms with a fixed-length digest (sha3 and blake2 too),
    the same on every machine, and lists them sorted."""

    ALGORITHMS = tuple(sorted(a for a in hashlib.algorithms_guaranteed
                              if not a.startswith("shake_")))

    def result(self, args: Any, r: Resolver) -> Any:
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise self.error(f'Argument to function "{self.fn_name}" must be a list of strings')
        if len(args) != 2:
            raise self.error(f'Function "{self.fn_name}" usage: ["<algorithm>", "<value>"]')
        algorithm, value = args[0].lower(), args[1]
        if algorithm not in self.ALGORITHMS:
            raise self.error(f"Algorithm must be one of {', '.join(self.ALGORITHMS)}")
        try:
            data = value.encode("latin-1")
        except UnicodeEncodeError:
            data = value.encode("utf-8")
        return hashlib.new(algorithm, data).hexdigest()


class MakeURL(Function):
    """``make_url``: a correctly escaped URL from its parts, as Heat's ``MakeURL``.

    Arguments are checked when parsed and again when resolved (Heat's ``_check_args``, in
    key order; a ``query`` map ends the checks, as in Heat): ``query`` must be a map, ``port``
    an integer or integer text in 1-65535 (``Invalid URL port "x" for make_url called with
    {...}``), every other part a string. An IPv6 host gets brackets once (a bracketed host is
    kept), and is quoted except for ``:`` (a zone's ``%`` is ``%25``); the port is printed as
    given; ``/`` stays unescaped in the query.
    """

    KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, dict):
            raise self.error(f'The arguments to "{self.fn_name}" must be a map')
        extra = [k for k in self.args if k not in self.KEYS]
        if extra:
            raise self.error(f'Invalid arguments to "{self.fn_name}": {", ".join(map(str, extra))}')
        self._check_args(self.args)

    def _check_args(self, args: dict[str, Any]) -> None:
        for key in self.KEYS:
            if key not in args:
                continue
            value = args[key]
            if isinstance(value, Function):
                continue
            if key == "query":
                if not isinstance(value, dict):
                    raise self.error(f'The "query" argument to "{self.fn_name}" must be a map')
                return
            if key == "port":
                port = value
                if not isinstance(port, int):
                    try:
                        port = int(port)
                    except (TypeError, ValueError):
                        raise self.error(f'Invalid URL port "{value}" for {self.fn_name} '
                                         f'called with {self._shown(args)}') from None
                if not 0 < port <= 65535:
                    raise self.error(f"Invalid URL port {int(port)}, must be in range 1-65535")
            elif not isinstance(value, str):
                raise self.error(f'The "{key}" argument to "{self.fn_name}" must be a string')

    @staticmethod
    def _shown(args: dict[str, Any]) -> str:
        return repr({k: v for k, v in args.items()})

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, dict):
            raise self.error(f'The arguments to "{self.fn_name}" must be a map')
        self._check_args(args)
        scheme = args.get("scheme", "")
        if ":" in scheme:
            raise self.error('URL "scheme" should not contain \':\'')
        netloc = ""
        user = urlparse.quote(args.get("username", ""), safe="")
        password = urlparse.quote(args.get("password", ""), safe="")
        if user or password:
            netloc = user + (":" + password if password else "") + "@"
        host = args.get("host", "")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = urlparse.quote(host, safe=":")
        netloc += f"[{host}]" if ":" in host else host
        port = args.get("port", "")
        if port:
            netloc += f":{port}"
        path = urlparse.quote(args.get("path", ""))
        query = urlparse.urlencode(args.get("query", {})).replace("%2F", "/")
        fragment = urlparse.quote(args.get("fragment", ""))
        url = urlparse.urlunsplit((scheme, netloc, path, query, fragment))
        check_size(self, len(url))
        return url
