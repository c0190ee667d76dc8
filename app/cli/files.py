"""Request building for ``stoker stack create`` / ``stoker validate``: template, files map,
environment files and parameters, exactly as python-heatclient builds them.

More in docs/code/cli.md (app.cli.files).
"""
from __future__ import annotations

import base64
import json
import os
from collections import abc
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib import error as urlerror
from urllib import parse, request

import yaml

from app import errors

ENV_SECTIONS = ("parameters", "parameter_defaults", "resource_registry", "encrypted_param_names",
                "event_sinks", "parameter_merge_strategies")
VERSION_KEYS = ("HeatTemplateFormatVersion", "heat_template_version", "AWSTemplateFormatVersion")


class RequestError(errors.BadRequest):
    """A template, environment or parameter that cannot be turned into a request."""


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc,valid-type]
    """heatclient's ``template_format.yaml_loader``: strings stay ``str`` and unquoted dates
    (``2018-08-31``) stay strings."""


def _as_str(loader: Any, node: Any) -> Any:
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:str", _as_str)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_str)


def _yaml(text: str) -> Any:
    """YAML as the API's template parser loads it: what libyaml refuses is refused (the
    pure-Python loader only words the error when it refuses too, as Heat's ``simple_parse``).
    :raises ValueError: the error, on one line."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        error: yaml.YAMLError = exc
    if _Base is not yaml.SafeLoader:
        try:
            yaml.load(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as pure:
            error = pure
        except RecursionError:
            pass
    raise ValueError(" ".join(str(error).split()))


def parse_template(text: str) -> Any:
    """Parse a template's text as heatclient's ``template_format.parse`` (JSON when it starts with
    ``{``, else YAML; a format version key is required). :raises ValueError: not a template."""
    text = text.strip()
    if text.startswith("{"):
        tpl = json.loads(text)
    else:
        tpl = _yaml(text)
        if tpl is None:
            tpl = {}
    if not any(key in tpl for key in VERSION_KEYS):
        raise ValueError("Template format version not found.")
    return tpl


def parse_environment(text: str) -> dict[str, Any]:
    """Parse an environment as heatclient's ``environment_format.parse``.
    :raises ValueError: bad YAML, not a mapping, or an unknown section."""
    env = _yaml(text)
    if env is None:
        env = {}
    elif not isinstance(env, dict):
        raise ValueError("The environment is not a valid YAML mapping data type.")
    for section in env:
        if section not in ENV_SECTIONS:
            raise ValueError(f'environment has wrong section "{section}"')
    return env


def to_url(path: str) -> str:
    """A path (relative or absolute) → absolute ``file://`` URL; a URL is returned unchanged."""
    if parse.urlparse(path).scheme:
        return path
    return Path(path).resolve().as_uri()


def base_url(url: str) -> str:
    parsed = parse.urlparse(url)
    return parse.urljoin(url, os.path.dirname(parsed.path))


def _read(url: str) -> bytes:
    try:
        with request.urlopen(url) as resp:  # file:// and the user's own URLs
            data: bytes = resp.read()
            return data
    except (urlerror.URLError, OSError, ValueError) as exc:
        reason: Any = getattr(exc, "reason", None) or exc
        if isinstance(reason, OSError) and reason.strerror:
            reason = reason.strerror
        raise RequestError(f"cannot read {_show(url)}: {reason}") from None


def _show(url: str) -> str:
    return parse.unquote(url[len("file://"):]) if url.startswith("file://") else url


def _text(data: bytes) -> str:
    """File content as heatclient sends it: the text, or base64 when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.encodebytes(data).decode("ascii")


def _is_template(text: str) -> bool:
    try:
        parse_template(text)
    except (ValueError, TypeError):
        return False
    return True


def load_template(path: str, files: dict[str, str] | None = None) -> tuple[dict[str, str], Any]:
    """Read the template at ``path`` (file or URL) and resolve its references.

    :returns: ``(files, template)``: the files map and the template with ``get_file`` / ``type``
        references replaced by absolute URLs (heatclient's ``get_template_contents``).
    :raises RequestError: unreadable, empty, or not a template.
    """
    url = to_url(path)
    data = _read(url)
    if not data:
        raise RequestError(f"Could not fetch template from {_show(url)}")
    try:
        template = parse_template(data.decode("utf-8"))
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise RequestError(f"Error parsing template {_show(url)}: {exc}") from None
    files = {} if files is None else files
    _resolve(template, files, base_url(url), _template_ignores, _nested)
    return files, template


def _template_ignores(key: str, value: Any) -> bool:
    if key not in ("get_file", "type") or not isinstance(value, str):
        return True
    return key == "type" and not value.endswith((".yaml", ".template"))


def _nested(value: Any) -> bool:
    return isinstance(value, (dict, list))


def _resolve(data: Any, files: dict[str, str], base: str | None,
             ignore: Callable[[str, Any], bool], recurse: Callable[[Any], bool] | None) -> None:
    """heatclient's ``get_file_contents``: children first, then this mapping's own references."""
    if recurse and recurse(data):
        for value in (data.values() if isinstance(data, dict) else data):
            _resolve(value, files, base, ignore, recurse)
    if not isinstance(data, dict):
        return
    for key, value in list(data.items()):
        if ignore(key, value):
            continue
        if base and not base.endswith("/"):
            base = base + "/"
        url = parse.urljoin(base or "", value)
        if url not in files:
            content = _text(_read(url))
            if _is_template(content):
                content = json.dumps(load_template(url, files)[1])
            files[url] = content
        data[key] = url


def deep_update(old: Any, new: dict[str, Any]) -> dict[str, Any]:
    """heatclient's ``deep_update``: merge mappings; a ``None`` never replaces a mapping."""
    if old is None:
        old = {}
    for key, value in new.items():
        if isinstance(value, abc.Mapping):
            old[key] = deep_update(old.get(key, {}), dict(value))
        elif value is None and isinstance(old.get(key), abc.Mapping):
            pass
        else:
            old[key] = value
    return old


def _registry_ignores(key: str, value: Any) -> bool:
    if key in ("base_url", "hooks", "restricted_actions") or isinstance(value, dict):
        return True
    return not isinstance(value, str) or "::" in value


def load_environments(paths: list[str]) -> tuple[dict[str, str], dict[str, Any], list[str]]:
    """Read environment files in order (heatclient's ``process_multiple_environments_and_files``
    with an ``env_list_tracker``).

    :returns: ``(files, environment, environment_files)``.
    :raises RequestError: unreadable file, bad YAML or an unknown section.
    """
    files: dict[str, str] = {}
    merged: dict[str, Any] = {}
    urls: list[str] = []
    for path in paths:
        url = to_url(path)
        try:
            env = parse_environment(_text(_read(url)))
        except ValueError as exc:
            raise RequestError(f"Error parsing environment {_show(url)}: {exc}") from None
        registry = env.get("resource_registry")
        if registry is not None:
            if not isinstance(registry, dict):
                raise RequestError(f"Error parsing environment {_show(url)}: "
                                   "resource_registry is not a mapping")
            base = registry.get("base_url", base_url(url))
            _resolve(registry, files, base, _registry_ignores, None)
            for entry in (registry.get("resources") or {}).values():
                if isinstance(entry, dict):
                    _resolve(entry, files, entry.get("base_url", base), _registry_ignores, None)
        files[url] = json.dumps(env)
        merged = deep_update(merged, env)
        urls.append(url)
    return files, merged, urls


def format_parameters(params: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``key=value`` strings → the API's ``parameters`` (heatclient's ``format_parameters``: a
    single argument may hold ``;``-separated pairs; a repeated key becomes a list).
    :raises RequestError: an item without ``=``."""
    items = list(params)
    if not items:
        return {}
    if len(items) == 1:
        items = items[0].split(";")
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise RequestError(f"Malformed parameter({item}). Use the key=value format.")
        key, value = item.split("=", 1)
        if key not in out:
            out[key] = value
        elif isinstance(out[key], list):
            out[key].append(value)
        else:
            out[key] = [out[key], value]
    return out


def parameter_files(items: tuple[str, ...] | list[str], template_path: str) -> dict[str, str]:
    """``key=file`` → ``{key: file content}``, files relative to the template's directory
    (heatclient's ``format_parameter_file``)."""
    out: dict[str, str] = {}
    base = base_url(to_url(template_path)) + "/"
    for item in items:
        if "=" not in item:
            raise RequestError(f"Malformed parameter({item}). Use the key=value format.")
        key, value = item.split("=", 1)
        out[key] = _text(_read(parse.urljoin(base, value)))
    return out


def stack_body(name: str, template_path: str, env_paths: list[str] | tuple[str, ...] = (),
               parameters: tuple[str, ...] | list[str] = (),
               parameter_file: tuple[str, ...] | list[str] = (), timeout: int | None = None,
               enable_rollback: bool = False, tags: str | None = None) -> dict[str, Any]:
    """The ``POST /stacks`` body heatclient's ``stack create`` sends for the same arguments."""
    tpl_files, template = load_template(template_path)
    env_files, env, env_urls = load_environments(list(env_paths))
    params = format_parameters(parameters)
    params.update(parameter_files(parameter_file, template_path))
    body: dict[str, Any] = {
        "stack_name": name,
        "disable_rollback": not enable_rollback,
        "parameters": params,
        "template": template,
        "files": {**tpl_files, **env_files},
        "environment": env,
    }
    return _with_options(body, env_urls, tags, timeout)


def _with_options(body: dict[str, Any], env_urls: list[str], tags: str | None,
                  timeout: int | None) -> dict[str, Any]:
    """``body`` plus the keys heatclient sends only when given."""
    if env_urls:
        body["environment_files"] = env_urls
    if tags:
        body["tags"] = tags
    if timeout:
        body["timeout_mins"] = timeout
    return body


def update_body(template_path: str | None, env_paths: list[str] | tuple[str, ...] = (),
                parameters: tuple[str, ...] | list[str] = (),
                parameter_file: tuple[str, ...] | list[str] = (), timeout: int | None = None,
                rollback: str = "keep", tags: str | None = None,
                clear_parameters: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """The ``PUT|PATCH /stacks/{name}/{id}`` body heatclient's ``stack update`` sends for the
    same arguments: ``template`` is null when none is given (``--existing`` keeps the
    stack's); ``rollback`` ``enabled``/``disabled`` sets ``disable_rollback``, ``keep`` leaves
    it out. Parameter files are read relative to the template (else the current directory)."""
    tpl_files, template = load_template(template_path) if template_path else ({}, None)
    env_files, env, env_urls = load_environments(list(env_paths))
    params = format_parameters(parameters)
    params.update(parameter_files(parameter_file, template_path or str(Path.cwd() / "-")))
    body = _with_options({"parameters": params, "template": template,
                          "files": {**tpl_files, **env_files}, "environment": env},
                         env_urls, tags, timeout)
    if clear_parameters:
        body["clear_parameters"] = list(clear_parameters)
    if rollback != "keep":
        body["disable_rollback"] = rollback == "disabled"
    return body


def validate_body(template_path: str, env_paths: list[str] | tuple[str, ...] = (),
                  parameters: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """The ``POST /validate`` body (``openstack orchestration template validate``)."""
    tpl_files, template = load_template(template_path)
    env_files, env, env_urls = load_environments(list(env_paths))
    body: dict[str, Any] = {"template": template, "parameters": format_parameters(parameters),
                            "files": {**tpl_files, **env_files}, "environment": env}
    if env_urls:
        body["environment_files"] = env_urls
    return body
