"""The CLI's HTTP client for the Orchestration API v1 (``requests``), and the CLI's error.

Every foreign failure is translated here, once, into :class:`CliError` with a one-line message:
an unreachable API, a timeout, a Heat fault body (``{"error": {"type", "message"}}``), a body that
is not JSON. Stacks are addressed by name or id; :meth:`Client.stack` resolves either into the
canonical ``stacks/<name>/<id>`` path (heat-api answers a name-only lookup with a 302).
"""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import click
import requests

from app import config, errors


class CliError(errors.StokerError, click.ClickException):
    """A user-facing failure: one line on stderr (a line per listed template error), exit
    status 2 (bad input, API unreachable, API fault)."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        first, *listed = str(message).split("\n  ")
        super().__init__("\n  ".join([" ".join(first.split()),
                                       *(" ".join(line.split()) for line in listed)]))

    def show(self, file: Any = None) -> None:
        click.echo(f"stoker: error: {self.format_message()}", file=file, err=True)


def load_settings(install: bool = True, **overrides: Any) -> config.Settings:
    """Settings from ``STOKER_*`` plus the non-None ``overrides``, installed process-wide unless
    ``install`` is false. :raises CliError: a variable cannot be read as its field's type."""
    try:
        settings = config.load(**{k: v for k, v in overrides.items() if v is not None})
    except (TypeError, ValueError) as exc:
        raise CliError(f"bad STOKER_* setting: {exc}") from None
    if install:
        config.set_current(settings)
    return settings


def fault_message(resp: requests.Response) -> str:
    """One line describing an error response: Heat's fault body (``error.type: error.message``),
    else the body's text, else the HTTP reason."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and (err.get("message") or err.get("type")):
            kind = err.get("type") or body.get("title") or ""
            msg = err.get("message") or body.get("explanation") or ""
            if isinstance(err.get("errors"), list):   # ?show_all_errors=true: one a line
                return f"{len(err['errors'])} error(s):\n" + "\n".join(
                    _error_line(e) for e in err["errors"] if isinstance(e, dict))
            return f"{kind}: {msg}" if kind and msg else str(kind or msg)
        for key in ("message", "explanation", "title"):
            if isinstance(body.get(key), str) and body[key]:
                return str(body[key])
    text = (resp.text or "").strip()
    return text[:300] if text else (resp.reason or "")


def _error_line(entry: dict[str, Any]) -> str:
    """``  <path> (line N): <message>`` for one entry of a fault's ``error.errors``."""
    where = entry.get("path") or "template"
    if entry.get("line"):
        where += f" (line {entry['line']})"
    return f"  {where}: {entry.get('message')}"


def segment(value: str) -> str:
    """``value`` percent-encoded as one URL path segment (UTF-8, as heatclient quotes it).
    :raises CliError: ``value`` is not valid text (a command-line argument that was not
        UTF-8, held as lone surrogates), shown with its unencodable characters escaped."""
    try:
        return quote(value, safe="")
    except UnicodeEncodeError:
        raise CliError(f"{printable(value)} is not valid UTF-8 text") from None


def printable(value: Any) -> str:
    """``str(value)`` with what UTF-8 cannot encode (a lone surrogate: a command-line argument
    that was not UTF-8, or a JSON value) as a backslash escape, as ``-f json`` writes it."""
    return str(value).encode("utf-8", "backslashreplace").decode("utf-8")


def project_of(endpoint: str) -> str | None:
    """The ``<tenant>`` of an ``http://host:port/v1/<tenant>`` endpoint (None: the URL names
    none), percent-decoded."""
    parts = urlsplit(endpoint).path.rstrip("/").split("/")
    at = parts.index("v1") if "v1" in parts else len(parts)
    return unquote(parts[at + 1]) if at + 1 < len(parts) and parts[at + 1] else None


class Client:
    """A thin client of ``<endpoint>`` = ``http://host:port/v1/<tenant>``, acting in project
    ``<tenant>``: sent as ``X-Auth-Project`` too, the header Heat's noauth middleware takes the
    project from (without it every request acts in the server's ``STOKER_TENANT``, whatever
    the URL says); under Keystone the token's project rules and the header is ignored.

    :param endpoint: the tenant-scoped API root.
    :param token: sent as ``X-Auth-Token`` when given (keystone mode).
    :param timeout: seconds per request.
    """

    def __init__(self, endpoint: str, token: str | None = None, timeout: float = 30.0,
                 session: requests.Session | None = None) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update({"Accept": "application/json", "User-Agent": "stoker-cli"})
        try:
            self.project = project_of(self.endpoint)
        except ValueError as exc:  # urlsplit: a bracketed host that is not an IP address
            raise CliError(f"invalid API URL {endpoint}: {exc}") from None
        if self.project:
            self.session.headers["X-Auth-Project"] = self.project
        if token:
            self.session.headers["X-Auth-Token"] = token

    def request(self, method: str, path: str, *, body: Any = None,
                params: dict[str, Any] | None = None, ok404: bool = False) -> Any:
        """Send one request; return the decoded JSON body (``None`` for an empty one).

        :param ok404: return ``None`` on 404 instead of raising.
        :raises CliError: connection failure, timeout, an HTTP error status or a non-JSON body.
        """
        url = f"{self.endpoint}/{path.lstrip('/')}"
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            resp = self.session.request(method, url, data=data, params=params, headers=headers,
                                        timeout=self.timeout)
        except requests.ConnectionError:
            raise CliError(f"cannot reach the Orchestration API at {self.endpoint} "
                           "(is `stoker up` running? set --url or STOKER_API_URL)") from None
        except requests.Timeout:
            raise CliError(f"the Orchestration API at {self.endpoint} did not answer "
                           f"within {self.timeout:g}s") from None
        except requests.RequestException as exc:
            raise CliError(f"request to {url} failed: {exc}") from None
        except UnicodeEncodeError:  # a URL, query or header value that is not valid text
            raise CliError(f"cannot send a request to {printable(url)}: a value in it is not "
                           "valid UTF-8 text") from None
        if resp.status_code == 404 and ok404:
            return None
        if resp.status_code >= 400:
            raise CliError(f"HTTP {resp.status_code} {fault_message(resp)}")
        if not resp.content:
            return None
        try:
            return resp.json()
        except ValueError:
            raise CliError(f"{method} {url} answered HTTP {resp.status_code} with a body that is "
                           "not JSON") from None

    def _get(self, method: str, path: str, key: str, **kwargs: Any) -> Any:
        """``request(...)[key]``. :raises CliError: the body lacks ``key`` (not a Heat API?)."""
        body = self.request(method, path, **kwargs)
        if body is None and kwargs.get("ok404"):
            return None
        if not isinstance(body, dict) or key not in body:
            raise CliError(f"{method} {self.endpoint}/{path} answered without {key!r}: "
                           "is this an Orchestration API v1 endpoint?")
        return body[key]

    # -- stacks ---------------------------------------------------------------------------
    def stack(self, name_or_id: str, ok404: bool = False) -> dict[str, Any] | None:
        """``GET /stacks/<name or id>`` (following heat-api's redirect): the stack body."""
        body = self._get("GET", f"stacks/{segment(name_or_id)}", "stack", ok404=ok404)
        return None if body is None else dict(body)

    @staticmethod
    def stack_path(stack: dict[str, Any]) -> str:
        return f"stacks/{segment(stack['stack_name'])}/{stack['id']}"

    def create_stack(self, body: dict[str, Any]) -> dict[str, Any]:
        created = dict(self._get("POST", "stacks", "stack", body=body))
        if "id" not in created:
            raise CliError("the API created the stack but did not return its id")
        return created

    def update_stack(self, stack: dict[str, Any], body: dict[str, Any],
                     existing: bool = False) -> None:
        """``PUT`` (or ``PATCH`` for ``existing``) ``stacks/<name>/<id>``: 202, body ignored."""
        self.request("PATCH" if existing else "PUT", self.stack_path(stack), body=body)

    def preview_update(self, stack: dict[str, Any], body: dict[str, Any],
                       existing: bool = False) -> dict[str, list[dict[str, Any]]]:
        """``PUT|PATCH stacks/<name>/<id>/preview``: the ``resource_changes`` lists."""
        return dict(self._get("PATCH" if existing else "PUT", f"{self.stack_path(stack)}/preview",
                              "resource_changes", body=body))

    def list_stacks(self) -> list[dict[str, Any]]:
        """The project's stacks (Heat's ``tenant`` filter): those ``stack show NAME`` finds,
        where an admin's plain list would hold every project's."""
        params = {"tenant": self.project} if self.project else None
        return list(self._get("GET", "stacks", "stacks", params=params))

    def list_all_stacks(self) -> list[dict[str, Any]]:
        """Every project's stacks (Heat's ``global_tenant``: admins)."""
        return list(self._get("GET", "stacks", "stacks", params={"global_tenant": "true"}))

    def delete_stack(self, stack: dict[str, Any]) -> None:
        self.request("DELETE", self.stack_path(stack))

    def show(self, stack: dict[str, Any], ok404: bool = False) -> dict[str, Any] | None:
        body = self._get("GET", self.stack_path(stack), "stack", ok404=ok404)
        return None if body is None else dict(body)

    def resources(self, stack: dict[str, Any], ok404: bool = False) -> list[dict[str, Any]]:
        body = self._get("GET", f"{self.stack_path(stack)}/resources", "resources", ok404=ok404)
        return [] if body is None else list(body)

    def events(self, stack: dict[str, Any], marker: str | None = None,
               ok404: bool = False) -> list[dict[str, Any]]:
        """The stack's events, oldest first; only those after event id ``marker`` when given."""
        params = {"sort_dir": "asc"}
        if marker:
            params["marker"] = marker
        body = self._get("GET", f"{self.stack_path(stack)}/events", "events", params=params,
                         ok404=ok404)
        return [] if body is None else list(body)

    def output(self, stack: dict[str, Any], key: str) -> dict[str, Any]:
        path = f"{self.stack_path(stack)}/outputs/{segment(key)}"
        return dict(self._get("GET", path, "output"))

    def template(self, stack: dict[str, Any]) -> Any:
        return self.request("GET", f"{self.stack_path(stack)}/template")

    def validate(self, body: dict[str, Any], all_errors: bool = False) -> Any:
        params = {"show_all_errors": "true"} if all_errors else None
        return self.request("POST", "validate", body=body, params=params)
