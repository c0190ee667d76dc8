"""The ``resources`` section: per-version keys, structure checks, parsed snippets.

As Heat's HOT resource definitions: keys ``type``, ``properties``, ``metadata``,
``depends_on``, ``update_policy``, ``deletion_policy``, ``description`` (all versions),
``condition`` and ``external_id`` (newton+, Heat's HOTemplate20161014); unknown keys are '"x" is not a valid keyword
inside a resource definition'; ``deletion_policy`` is ``Delete``/``Retain``/``Snapshot`` (newton
adds lower-case aliases; Stoker's own version ``stoker-2026-12-01`` adds
``RetainExceptOnCreate`` and the key ``update_replace_policy``) and may be a ``get_param``;
``depends_on`` is a name or a list of names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import loader
from app.templates.functions.base import parse, walk
from app.templates.versions import REPLACE_POLICIES, HotVersion, condition_table


@dataclass(frozen=True)
class ResourceDefinition:
    """One resource of an instantiated stack (contract shape, see docs/contracts.md).

    ``properties`` and ``metadata`` are the template snippets (functions unresolved; the
    stack's ``resolve_properties`` resolves them). ``deletion_policy`` is normalised to
    ``Delete``/``Retain``/``Snapshot`` (``RetainExceptOnCreate`` too from Stoker's version and
    CFN); ``update_replace_policy`` is what a replacement does with the replaced resource
    (``Delete``/``Retain``/``Snapshot``; None: as ``deletion_policy``, Heat's behaviour).
    ``condition`` is the template's raw condition or None.
    ``type`` is the type as written; ``effective_type`` the built-in type the environment's
    registry resolved it to (None: same as ``type``); ``template`` the files-map key of the
    provider template when the resource is a template resource (a nested stack), else None.
    """

    name: str
    type: str
    properties: dict[str, Any] = field(default_factory=dict)
    metadata: Any = None
    depends_on: list[str] = field(default_factory=list)
    deletion_policy: str = "Delete"
    update_policy: Any = None
    description: str = ""
    external_id: Any = None
    condition: Any = None
    template: str | None = None
    effective_type: str | None = None
    update_replace_policy: str | None = None

    @property
    def implementation(self) -> str:
        """The built-in type to instantiate (``effective_type``, else ``type``)."""
        return self.effective_type or self.type

    def renamed(self, name: str) -> ResourceDefinition:
        """The same definition for resource ``name`` (its own ``properties`` map and
        ``depends_on`` list): a plain resource's (:attr:`RawResource.plain`)."""
        return ResourceDefinition(name, self.type, dict(self.properties), self.metadata,
                                  list(self.depends_on), self.deletion_policy,
                                  self.update_policy, self.description, self.external_id,
                                  self.condition, self.template, self.effective_type,
                                  self.update_replace_policy)


@dataclass
class RawResource:
    """A resource as parsed from the template (before conditions and parameters)."""

    name: str
    snippet: dict[str, Any]
    type: str
    properties: Any
    metadata: Any
    depends_on: list[str]
    deletion_policy: Any
    update_policy: Any
    description: Any
    external_id: Any
    condition: Any
    has_condition: bool
    update_replace_policy: Any = None
    #: no function anywhere and no ``depends_on``: what instantiating it gives does not depend
    #: on its name, so resources with the same snippet share it (a group's members)
    plain: bool = False

    def renamed(self, name: str) -> RawResource:
        """The same parsed resource under ``name`` (only for a :attr:`plain` one: a function
        carries its resource's path)."""
        return RawResource(name, self.snippet, self.type, self.properties, self.metadata,
                           self.depends_on, self.deletion_policy, self.update_policy,
                           self.description, self.external_id, self.condition,
                           self.has_condition, self.update_replace_policy, True)


def _shape_error(name: str, key: str, typename: str) -> errors.ValidationError:
    return errors.ValidationError(f"Resource {name} {key} type must be {typename}",
                                  path=("resources", name, key))


def depends_on_names(depends: Any, path: tuple[str, str, str], typename: str) -> list[str]:
    """A resource's ``depends_on`` (HOT) or ``DependsOn`` (CFN): absent, a name, or a list of
    names -> a list of names. ``path`` is ``(section, resource name, key)``.

    :raises errors.ValidationError: Heat's ``"Resource <name> <key> type must be <typename>"``.
    """
    if depends is None:
        return []
    if isinstance(depends, str):
        return [depends]
    if isinstance(depends, list) and all(isinstance(d, str) for d in depends):
        return list(depends)
    raise errors.ValidationError(f"Resource {path[1]} {path[2]} type must be {typename}",
                                 path=path)


#: the longest resource name a stack can hold (Heat's ``resource.name`` column, String(255))
RESOURCE_NAME_MAX = 255


def check_resource_name(name: str) -> None:
    """As Heat's ``Resource.__init__``: a resource name may not contain ``/`` (it would break
    the ``stacks/{name}/{id}/resources/{resource}`` URLs). Nor a NUL character, nor more than
    :data:`RESOURCE_NAME_MAX` characters: no database Heat runs on can store such a name
    (PostgreSQL's text holds no NUL; the column holds 255), so the template is refused on
    every database alike, before anything is written.

    :raises errors.ValidationError: ``StackValidationFailed``, Heat's message style, no path.
    """
    if "/" in name:
        raise errors.ValidationError('Resource name may not contain "/"')
    if "\x00" in name:
        raise errors.ValidationError("Resource name may not contain a NUL character (\\x00)")
    if len(name) > RESOURCE_NAME_MAX:
        raise errors.ValidationError(f"Resource name {name} must be {RESOURCE_NAME_MAX} "
                                     f"characters or less")


def parse_resources(section: Any, version: HotVersion) -> dict[str, RawResource]:
    """Parse and structurally validate the ``resources`` section.

    :raises errors.ValidationError: Heat's structure messages (see module doc); a section that
        is not a map is a clear 400 where Heat leaks ``'list' object has no attribute 'items'``.
    :raises FunctionError: a bad function call inside a resource.
    """
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise errors.ValidationError(f'The "resources" section must be a map of resource '
                                     f"names to resource definitions, not {loader.kind(section)}",
                                     path=("resources",))
    out: dict[str, RawResource] = {}
    #: a plain snippet's text -> its parsed resource, for the next resource with the same
    #: one (a group's child template: 100,000 members parsed once); a small template skips it
    seen: dict[str, RawResource] | None = {} if len(section) >= SHARE_FROM else None
    for name, snippet in section.items():
        if not isinstance(name, str):
            raise errors.ValidationError(f"Resource name {name!r} must be a string",
                                         path=("resources", str(name)))
        if not isinstance(snippet, dict):
            raise errors.ValidationError(
                f'"resources" must contain a map of resource maps. Found a '
                f"[<class '{type(snippet).__name__}'>] instead", path=("resources", name))
        check_resource_name(name)
        if seen is None:
            out[name] = _parse_one(name, snippet, version)
            continue
        text = repr(snippet)   # types told apart (a date is not its string)
        hit = seen.get(text)
        if hit is None:
            hit = out[name] = _parse_one(name, snippet, version)
            if _is_plain(hit):
                hit.plain = True
                seen[text] = hit
        else:
            out[name] = hit.renamed(name)
    return out


#: resources in a ``resources`` section from which identical plain snippets are parsed once
SHARE_FROM = 64


def _is_plain(raw: RawResource) -> bool:
    """Whether ``raw`` has no function anywhere, no condition to evaluate and no
    ``depends_on`` (its parse and instantiation do not depend on its name)."""
    if raw.depends_on or not isinstance(raw.condition, (bool, str, type(None))):
        return False
    return not any(walk(tree) for tree in (raw.properties, raw.metadata, raw.deletion_policy,
                                           raw.update_policy, raw.external_id,
                                           raw.update_replace_policy))


def _parse_one(name: str, snippet: dict[str, Any], version: HotVersion) -> RawResource:
    base = ("resources", name)
    for key in snippet:
        if key not in version.resource_keys:
            raise errors.ValidationError(f'"{key}" is not a valid keyword inside a resource '
                                         f'definition', path=base + (key,))
    if "type" not in snippet:
        raise errors.ValidationError("Each resource must contain a type key.", path=base)
    rtype = snippet["type"]
    if not isinstance(rtype, str):
        raise _shape_error(name, "type", "string")
    props = snippet.get("properties")
    if props is not None and not isinstance(props, dict) and not _is_fn(props, version):
        raise _shape_error(name, "properties", "object")
    metadata = snippet.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise _shape_error(name, "metadata", "object")
    depends_on = depends_on_names(snippet.get("depends_on"), (*base, "depends_on"),
                                  "list of strings")
    update_policy = snippet.get("update_policy")
    if update_policy is not None and not isinstance(update_policy, dict) \
            and not _is_fn(update_policy, version):
        raise _shape_error(name, "update_policy", "object")
    policy = snippet.get("deletion_policy")
    if isinstance(policy, str) and policy not in version.deletion_policies:
        raise errors.ValidationError(f'Invalid deletion policy "{policy}"',
                                     path=base + ("deletion_policy",))
    replace = snippet.get("update_replace_policy")
    if isinstance(replace, str) and replace not in REPLACE_POLICIES:
        raise errors.ValidationError(f'Invalid update replace policy "{replace}"',
                                     path=base + ("update_replace_policy",))
    table = version.functions
    cond = snippet.get("condition")
    if "condition" in snippet and not isinstance(cond, (bool, str)):
        cond = parse(cond, condition_table(version), base + ("condition",))
    external_id = snippet.get("external_id")
    # most of these keys are absent (None): nothing to parse
    return RawResource(
        name=name, snippet=snippet, type=rtype,
        properties=parse(props, table, base + ("properties",)) if props else {},
        metadata=None if metadata is None else parse(metadata, table, base + ("metadata",)),
        depends_on=depends_on,
        deletion_policy=None if policy is None else parse(policy, table,
                                                          base + ("deletion_policy",)),
        update_policy=None if update_policy is None else parse(update_policy, table,
                                                               base + ("update_policy",)),
        description=snippet.get("description", ""),
        external_id=None if external_id is None else parse(external_id, table,
                                                           base + ("external_id",)),
        condition=cond, has_condition="condition" in snippet,
        update_replace_policy=None if replace is None else parse(
            replace, table, base + ("update_replace_policy",)))


def _is_fn(value: Any, version: HotVersion) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in version.functions


def normalise_policy(value: Any, version: HotVersion, name: str) -> str:
    """Map a resolved deletion_policy to Delete/Retain/Snapshot.

    :raises errors.ValidationError: 'Invalid deletion policy "x"'.
    """
    if value is None:
        return "Delete"
    if not isinstance(value, str) or value not in version.deletion_policies:
        raise errors.ValidationError(f'Invalid deletion policy "{value}"',
                                     path=("resources", name, "deletion_policy"))
    return version.deletion_policies[value]


def normalise_replace_policy(value: Any, name: str, key: str = "update_replace_policy"
                             ) -> str | None:
    """Map a resolved update replace policy to Delete/Retain/Snapshot; None when not given.

    :raises errors.ValidationError: 'Invalid update replace policy "x"'.
    """
    if value is None:
        return None
    if not isinstance(value, str) or value not in REPLACE_POLICIES:
        raise errors.ValidationError(f'Invalid update replace policy "{value}"',
                                     path=("resources", name, key))
    return REPLACE_POLICIES[value]
