"""Reference functions: get_param, get_resource, get_attr (three forms), get_file, resource_facade.

As Heat's hot_spec:

* ``get_param: name`` or ``[name, key_or_index, ...]``: a missing path component gives ``""``;
  an undeclared parameter is ``UserParameterMissing`` ("The Parameter (x) was not provided.").
* ``get_resource: name``: the resource's reference id.
* ``get_attr: [resource, attribute, path...]`` (2013-05-23, 2014-10-16); from 2015-10-15 also
  ``get_attr: [resource]`` (or a one-character string, as Heat's sequence test allows) returning all
  attributes. A resource that was never created gives ``None``.
* ``get_file: key``: the content of ``key`` in the request's files map.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.templates.functions.base import Function, Path, Resolver


def _is_seq(value: Any) -> bool:
    return isinstance(value, (list, tuple, str))


class GetParam(Function):
    """``get_param``; see module doc."""

    condition_function = True

    def result(self, args: Any, r: Resolver) -> Any:
        if not args:
            raise self.error(f'Function "{self.fn_name}" must have arguments')
        if isinstance(args, str):
            name, path = args, []
        elif isinstance(args, list):
            name, path = args[0], args[1:]
        else:
            raise self.error(f'Argument to "{self.fn_name}" must be string or list')
        if not isinstance(name, str):
            raise self.error(f'Parameter name in "{self.fn_name}" must be string')
        value = r.param(name, self.path)
        try:
            for key in path:
                value = self._step(value, key)
        except (KeyError, IndexError, TypeError):
            return ""
        return value

    def _step(self, collection: Any, key: Any) -> Any:
        if not isinstance(collection, (dict, list, str)):
            raise self.error(f'"{self.fn_name}" can\'t traverse path')
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise self.error(f'Path components in "{self.fn_name}" must be strings')
        if isinstance(collection, (list, str)) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                raise self.error(f'Path components in "{self.fn_name}" must be integers '
                                 f'for a list') from None
        return collection[key]


class GetResource(Function):
    """``get_resource: name`` -> the reference id (Heat's FnGetRefId)."""

    def check(self) -> None:
        if not isinstance(self.args, str) and not isinstance(self.args, Function):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, str):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')
        return r.ref(args, self.path)

    def refs(self) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
        if isinstance(self.args, str):
            yield self.args, None, self.path


class GetAtt(Function):
    """``get_attr: [resource, attribute, path...]`` (2014-10-16 form)."""

    allow_all = False

    def _form_error(self) -> str:
        return (f'Arguments to "{self.fn_name}" must be of the form '
                f'[resource_name, attribute, (path), ...]')

    def check(self) -> None:
        args = self.args
        if isinstance(args, Function):
            return
        if not isinstance(args, list):
            if self.allow_all and isinstance(args, str) and len(args) == 1:
                return
            if self.allow_all and not args:
                raise self.error(
                    f'Arguments to "{self.fn_name}" can be of the next forms: '
                    f'[resource_name] or [resource_name, attribute, (path), ...]')
            raise self.error(f'Argument to "{self.fn_name}" must be a list')
        if len(args) == 0 and self.allow_all:
            raise self.error(
                f'Arguments to "{self.fn_name}" can be of the next forms: '
                f'[resource_name] or [resource_name, attribute, (path), ...]')
        if len(args) < (1 if self.allow_all else 2):
            raise self.error(self._form_error())
        if not isinstance(args[0], (str, Function)):
            raise self.error(f'Resource name in "{self.fn_name}" must be a string')

    def resource_name(self) -> str | None:
        args = self.args
        if isinstance(args, str):
            return args
        if isinstance(args, list) and args and isinstance(args[0], str):
            return args[0]
        return None

    def attribute_path(self) -> tuple[Any, ...] | None:
        """The literal (attribute, *path) if static, () for the all-attributes form, else None."""
        args = self.args
        if isinstance(args, str) or (isinstance(args, list) and len(args) == 1):
            return ()
        if isinstance(args, list) and all(not isinstance(a, Function) for a in args[1:]):
            return tuple(args[1:])
        return None

    def result(self, args: Any, r: Resolver) -> Any:
        if isinstance(args, str):
            args = [args]
        if not isinstance(args, list) or not args:
            raise self.error(self._form_error())
        name = args[0]
        if len(args) == 1:
            return r.attr(name, None, (), self.path)
        attr = args[1]
        if not isinstance(attr, str):
            raise self.error(f'Attribute name in "{self.fn_name}" must be a string')
        return r.attr(name, attr, tuple(args[2:]), self.path)

    def refs(self) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
        name = self.resource_name()
        if name is not None:
            yield name, self.attribute_path() or (), self.path


class GetAttThenSelect(GetAtt):
    """2013-05-23 ``get_attr``: same shape as 2014-10-16."""


class GetAttAllAttributes(GetAtt):
    """2015-10-15+ ``get_attr``: also ``[resource]`` for all attributes."""

    allow_all = True


class GetFile(Function):
    """``get_file: key`` -> content from the files map (the argument is checked when resolved,
    as Heat's ``GetFile.result``)."""

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, str):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')
        return r.file(args, self.path)


class ImportValue(Function):
    """``Fn::ImportValue: name`` (CloudFormation) and ``import_value: name`` (Stoker's HOT
    version ``stoker-2026-12-01``; Heat has neither): the value another stack of the project
    exports under ``name``. The name is a literal string, so the exports a stack uses are
    known before anything resolves (:func:`imported_names`); a missing export is AWS's
    "No export named <name> found."."""

    def check(self) -> None:
        if not isinstance(self.args, str) or not self.args:
            raise self.error(f'Argument to "{self.fn_name}" must be the name of an export '
                             f'(a string)')

    def result(self, args: Any, r: Resolver) -> Any:
        return r.import_value(args, self.path)


class ResourceFacade(Function):
    """``resource_facade: metadata|deletion_policy|update_policy`` of the parent (nested) resource."""

    KEYS = ("metadata", "deletion_policy", "update_policy")

    def check(self) -> None:
        if self.args not in self.KEYS:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be one of: '
                             f'{", ".join(self.KEYS)}')

    def result(self, args: Any, r: Resolver) -> Any:
        return r.facade(args, self.path)
