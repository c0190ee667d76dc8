"""URL rules whose builders are compiled on first use.

werkzeug compiles two URL builders (``url_for``'s code, generated and passed to ``compile``) for
every rule as the rule is added: most of the time building this API's application takes (its 59
rules). The API builds few URLs, so :class:`LazyBuildRule` compiles a builder when it is first
called; matching is unchanged (werkzeug's state machine matcher does not use the builders).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule


class LazyBuildRule(Rule):
    """A :class:`werkzeug.routing.Rule` that compiles each URL builder on its first call."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compiled: Callable[..., tuple[str, str]] | None = None

        def build(rule: Rule, *args: Any, **kwargs: Any) -> tuple[str, str]:
            nonlocal compiled
            if compiled is None:
                compiled = Rule._compile_builder(rule, append_unknown).__get__(rule, None)
            return compiled(*args, **kwargs)

        return build
