"""The function tree: parsing snippets into :class:`Function` nodes and resolving them.

More in docs/code/templates.md (app.templates.functions.base).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from app import errors

Path = tuple[Any, ...]


class _Sentinel:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        return False

    def __copy__(self) -> _Sentinel:  # one of each, compared by identity
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Sentinel:
        return self


UNKNOWN: Any = _Sentinel("UNKNOWN")
ABSENT: Any = _Sentinel("ABSENT")


class FunctionError(errors.ValidationError):
    """A function's arguments or result are invalid. ``raw`` is Heat's message without the path;
    ``message`` is ``"<path>: <raw>"`` as Heat prints it for outputs and conditions."""

    def __init__(self, raw: str, path: Path, *, heat_type: str | None = None, **data: Any) -> None:
        dotted = errors.format_path(path)
        super().__init__(f"{dotted}: {raw}" if dotted else raw, path=path, heat_type=heat_type,
                         **data)
        self.raw = raw

    def with_heat_type(self, heat_type: str) -> FunctionError:
        """Return self with ``heat_type`` replaced (Heat reports some causes as
        StackValidationFailed in one place and by their own name in another)."""
        self.heat_type = heat_type
        return self


class Resolver(Protocol):
    """What functions resolve against (see :mod:`app.templates.scope`)."""

    static: bool  # True at validation time: references/attributes are UNKNOWN

    def param(self, name: str, path: Path) -> Any:
        """A parameter's (or pseudo-parameter's) value. :raises FunctionError: undeclared."""
    def ref(self, name: str, path: Path) -> Any:
        """A resource's reference id (None if never created). :raises FunctionError:"""
    def attr(self, name: str, attr: str | None, rest: tuple[Any, ...], path: Path) -> Any:
        """A resource attribute (``attr`` None: all of them) followed along ``rest``."""
    def file(self, key: str, path: Path) -> str:
        """Content of ``key`` in the files map. :raises FunctionError: not there."""
    def condition(self, name: Any, path: Path) -> bool:
        """Truth of a condition (bool, name or evaluated expression). :raises FunctionError:"""
    def has_param(self, name: str) -> bool:
        """Whether ``name`` is a declared or pseudo parameter."""
    def facade(self, key: str, path: Path) -> Any:
        """The parent resource's metadata/deletion_policy/update_policy (nested stacks)."""
    def import_value(self, name: str, path: Path) -> Any:
        """The value another stack exports as ``name``. :raises FunctionError: none."""


FunctionTable = Mapping[str, "type[Function]"]


class Function:
    """A parsed function call ``{fn_name: args}``.

    Subclasses override :meth:`check` (syntax of the parsed args, raised at parse time),
    :meth:`result` (value from resolved args) and, if they reference resources, :meth:`refs`.
    ``lazy = True`` subclasses get unresolved args in :meth:`result` (``if``, ``repeat``).
    """

    lazy = False
    condition_function = False

    def __init__(self, fn_name: str, args: Any, path: Path, table: FunctionTable) -> None:
        self.fn_name = fn_name
        self.args = args
        self.path = path
        self.table = table
        try:
            self.check()
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise self.error(str(exc)) from None

    @classmethod
    def parse_args(cls, value: Any, table: FunctionTable, path: Path) -> Any:
        """Parse this function's raw arguments (default: with the same table)."""
        return parse(value, table, path)

    def error(self, raw: str, **kw: Any) -> FunctionError:
        return FunctionError(raw, self.path, **kw)

    def check(self) -> None:
        """Validate the argument shape at parse time. :raises FunctionError:"""

    def evaluate(self, r: Resolver) -> Any:
        """Resolve args, then :meth:`result`; UNKNOWN args give UNKNOWN (statically, and at
        run time where a context answers UNKNOWN: an update's preview, for a resource the
        update has not made yet). A Python error in a function (arguments of an unexpected
        shape) becomes a :class:`FunctionError` with the Python message, as Heat reports such
        failures."""
        try:
            if self.lazy:
                return self.result(self.args, r)
            args = resolve(self.args, r)
            if contains_unknown(args):
                return UNKNOWN
            return self.result(args, r)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise self.error(str(exc)) from None

    def result(self, args: Any, r: Resolver) -> Any:
        raise NotImplementedError

    def refs(self) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
        """Resource references made by this node itself: (name, attribute path or None, path)."""
        return iter(())

    def __repr__(self) -> str:
        return f"{{{self.fn_name!r}: {self.args!r}}}"


class Removed(Function):
    """A function a version removed: Heat's "not supported in this version of HOT"."""

    def check(self) -> None:
        raise self.error(
            f"The template version is invalid: The function {self.fn_name} is not supported in "
            f"this version of HOT.")


def parse(snippet: Any, table: FunctionTable, path: Path = ()) -> Any:
    """Turn ``snippet`` into a tree (see module doc). :raises FunctionError: bad arguments."""
    if isinstance(snippet, dict):
        if len(snippet) == 1:
            (key, value), = snippet.items()
            if isinstance(key, str) and key in table:
                cls = table[key]
                fpath = path + (key,)
                return cls(key, cls.parse_args(value, table, fpath), fpath, table)
        return {k: parse(v, table, path + (k,)) if isinstance(v, _TREES) else v
                for k, v in snippet.items()}
    if isinstance(snippet, list):
        return [parse(v, table, path + (i,)) if isinstance(v, _TREES) else v
                for i, v in enumerate(snippet)]
    return snippet


_TREES = (dict, list)  # what parse looks into; any other value is its own tree


def resolve(tree: Any, r: Resolver) -> Any:
    """Resolve every function in ``tree``; ABSENT entries are dropped from maps and lists."""
    if isinstance(tree, Function):
        return tree.evaluate(r)
    if isinstance(tree, dict):
        out = {}
        for k, v in tree.items():
            val = resolve(v, r)
            if val is not ABSENT:
                out[k] = val
        return out
    if isinstance(tree, list):
        return [x for x in (resolve(v, r) for v in tree) if x is not ABSENT]
    return tree


def contains_unknown(value: Any) -> bool:
    """True if ``value`` is or contains UNKNOWN."""
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return False


_BRANCHES = (dict, list, Function)


def walk(tree: Any) -> list[Function]:
    """Every Function node in ``tree``, outermost first (pre-order, in the tree's order).
    O(size of the tree), one explicit stack (no generator per level)."""
    if tree is None or tree == {}:  # most resources' metadata, many's properties
        return []
    out: list[Function] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Function):
            out.append(node)
            stack.append(node.args)
        elif isinstance(node, dict):
            stack.extend([v for v in reversed(node.values()) if isinstance(v, _BRANCHES)])
        elif isinstance(node, list):
            stack.extend([v for v in reversed(node) if isinstance(v, _BRANCHES)])
    return out


class Macro(Function):
    """A function resolved as soon as conditions are known (``if``): :meth:`expand` returns the
    replacement tree."""

    def expand(self, r: Resolver) -> Any:
        raise NotImplementedError

    def evaluate(self, r: Resolver) -> Any:
        return resolve(self.expand(r), r)


def expand_macros(tree: Any, r: Resolver) -> Any:
    """``tree`` with every :class:`Macro` replaced by its expansion (recursively); a node
    holding no macro is returned as it is (function nodes are never changed once parsed), the
    others are copies."""
    if isinstance(tree, Macro):
        return expand_macros(tree.expand(r), r)
    if isinstance(tree, Function):
        args = expand_macros(tree.args, r) if isinstance(tree.args, _BRANCHES) else tree.args
        if args is tree.args:
            return tree
        new = object.__new__(type(tree))
        new.__dict__.update(tree.__dict__)
        new.args = args
        return new
    if isinstance(tree, dict):
        out = {}
        changed = False
        for k, v in tree.items():
            val = expand_macros(v, r) if isinstance(v, _BRANCHES) else v
            if val is ABSENT:
                changed = True
            else:
                out[k] = val
                changed = changed or val is not v
        return out if changed else tree
    if isinstance(tree, list):
        items = [expand_macros(v, r) if isinstance(v, _BRANCHES) else v for v in tree]
        if all(a is b and a is not ABSENT for a, b in zip(items, tree, strict=True)):
            return tree
        return [x for x in items if x is not ABSENT]
    return tree


Factory = Callable[[str, Any, Path, FunctionTable], Function]
