"""Cloud-backed custom constraints (``nova.flavor``, ``neutron.network``...) resolved against the
cloud, with the messages Heat's constraint plugins give.

    resolve(cloud, "nova.flavor", "m1.tiny")     # -> "1" (the id)
    check(cloud, "glance.image", "nope")         # -> "The Image (nope) could not be found."

:func:`check` returns ``None`` when the value is fine or the constraint is not cloud-backed (the
pure ones, ``ip_addr`` and the like, are ``app.templates.constraints``' business), else the
message that follows Heat's ``"Error validating value '<v>': "``. Lookups go by id, then by name
(the SDK's ``find_*``); a name matching several objects is an error, as in Heat.
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from app import errors
from app.clients import dns, keymanager, keystone, service_lookups, status
from app.clients.errors import cloud_error
from app.clients.retry import Cloud

# constraint name -> (service, find method, message for a missing value)
_NEUTRON = "Unable to find {kind} with name or id '{value}'"
def _keystone_missing(kind: str) -> Callable[[str], str]:
    """Heat's "not found" message for a Keystone ``kind`` (``project``, ``role``...)."""
    return lambda value: str(keystone.not_found(kind, value))


LOOKUPS: dict[str, tuple[str, str, Callable[[str], str]]] = {
    "nova.flavor": ("compute", "find_flavor",
                    lambda v: f"No Flavor matching {{'name': '{v}'}}. (HTTP 404)"),
    "nova.keypair": ("compute", "find_keypair", lambda v: f"The Key ({v}) could not be found."),
    "nova.server": ("compute", "find_server", lambda v: f"The Server ({v}) could not be found."),
    "glance.image": ("image", "find_image", lambda v: f"The Image ({v}) could not be found."),
    "cinder.volume": ("block_storage", "find_volume",
                      lambda v: f"The Volume ({v}) could not be found."),
    "cinder.vtype": ("block_storage", "find_type",
                     lambda v: f"The VolumeType ({v}) could not be found."),
    "cinder.snapshot": ("block_storage", "find_snapshot",
                        lambda v: f"The VolumeSnapshot ({v}) could not be found."),
    "cinder.backup": ("block_storage", "find_backup",
                      lambda v: f"The Volume backup ({v}) could not be found."),
    "neutron.network": ("network", "find_network", lambda v: _NEUTRON.format(kind="network", value=v)),
    "neutron.subnet": ("network", "find_subnet", lambda v: _NEUTRON.format(kind="subnet", value=v)),
    "neutron.port": ("network", "find_port", lambda v: _NEUTRON.format(kind="port", value=v)),
    "neutron.router": ("network", "find_router", lambda v: _NEUTRON.format(kind="router", value=v)),
    "neutron.security_group": ("network", "find_security_group",
                               lambda v: _NEUTRON.format(kind="security_group", value=v)),
    "neutron.subnetpool": ("network", "find_subnet_pool",
                           lambda v: _NEUTRON.format(kind="subnetpool", value=v)),
    "neutron.qos_policy": ("network", "find_qos_policy",
                           lambda v: _NEUTRON.format(kind="policy", value=v)),
    "neutron.segment": ("network", "find_segment",
                        lambda v: _NEUTRON.format(kind="segment", value=v)),
    "neutron.address_scope": ("network", "find_address_scope",
                              lambda v: _NEUTRON.format(kind="address_scope", value=v)),
    "neutron.port_pair": ("network", "find_sfc_port_pair", lambda v: _NEUTRON.format(kind="port_pair", value=v)),
    "neutron.port_pair_group": ("network", "find_sfc_port_pair_group",
                                lambda v: _NEUTRON.format(kind="port_pair_group", value=v)),
    "neutron.flow_classifier": ("network", "find_sfc_flow_classifier",
                                lambda v: _NEUTRON.format(kind="flow_classifier", value=v)),
    "neutron.taas.tap_service": ("network", "find_tap_service",
                                 lambda v: _NEUTRON.format(kind="tap_service", value=v)),
    "octavia.loadbalancer": ("load_balancer", "find_load_balancer",
                             lambda v: f"The LoadBalancer ({v}) could not be found."),
    "octavia.listener": ("load_balancer", "find_listener",
                         lambda v: f"The Listener ({v}) could not be found."),
    "octavia.pool": ("load_balancer", "find_pool", lambda v: f"The Pool ({v}) could not be found."),
    "octavia.flavor": ("load_balancer", "find_flavor",
                       lambda v: f"The Flavor ({v}) could not be found."),
    "mistral.workflow": ("workflow", "find_workflow",
                         lambda v: f"The Workflow ({v}) could not be found."),
    "ironic.node": ("baremetal", "find_node", lambda v: f"The Node ({v}) could not be found."),
    "ironic.portgroup": ("baremetal", "find_port_group",
                         lambda v: f"The PortGroup ({v}) could not be found."),
    "octavia.flavorprofile": ("load_balancer", "find_flavor_profile",
                              lambda v: f"The FlavorProfile ({v}) could not be found."),
    "octavia.l7policy": ("load_balancer", "find_l7_policy",
                         lambda v: f"The L7Policy ({v}) could not be found."),
    "octavia.availabilityzone": ("load_balancer", "find_availability_zone",
                                 lambda v: f"The AvailabilityZone ({v}) could not be found."),
    "octavia.availabilityzoneprofile": (
        "load_balancer", "find_availability_zone_profile",
        lambda v: f"The AvailabilityZoneProfile ({v}) could not be found."),
    "cinder.qos_specs": ("block_storage", "find_qos_spec",
                         lambda v: f"The QoSSpecs ({v}) could not be found."),
    "nova.host": ("compute", "find_hypervisor", lambda v: f"The Host ({v}) could not be found."),
    # Keystone: resolved as Heat's KeystoneClientPlugin does (app.clients.keystone)
    **{f"keystone.{kind}": ("keystone", kind, _keystone_missing(kind)) for kind in keystone.KINDS},
}

#: Constraints looked up by a function of their own (services whose SDK ``find_*`` does not fit:
#: Barbican's references are hrefs): name -> ``finder(cloud, value) -> id``, raising a 404
#: ``CloudError`` with Heat's message when there is none.
FINDERS: dict[str, Callable[[Cloud, Any], str]] = {
    "barbican.secret": keymanager.find_secret,
    "barbican.container": keymanager.find_container,
    "designate.zone": dns.find_zone,
}


#: Constraints on a cloud's catalogue (flavors, images, key pairs, volume types), whose
#: name -> id answers are kept per connection for :data:`CATALOGUE_TTL` seconds, as Heat keeps
#: its custom-constraint validations when its cache is on (``[constraint_validation_cache]
#: expiration_time = 60``):
#: 200 servers of one flavor and one image asked the cloud 800 times (a flavor lookup by name
#: lists every flavor), about a quarter of a worker's CPU per server. Of the objects a stack
#: makes and deletes (servers, volumes, ports...) only the ids the cloud showed are kept (an
#: update of 200 servers read their 200 ports again to validate them), never a name.
CATALOGUE = frozenset({"nova.flavor", "glance.image", "nova.keypair", "cinder.vtype",
                       "octavia.flavor"})
CATALOGUE_TTL = 60.0
CATALOGUE_MAX = 1024
_found: dict[tuple[int, str, str], tuple[float, str, Any]] = {}
_found_lock = threading.Lock()
#: the catalogue lookups in flight, by key: an Event set when the lookup ends
_looking: dict[tuple[int, str, str], threading.Event] = {}
#: seconds a read waits for another's lookup of the same name before asking on its own
CATALOGUE_WAIT = 30.0


def is_cloud_backed(name: str) -> bool:
    """True when :func:`check` asks the cloud about constraint ``name``."""
    return name in LOOKUPS or name in FINDERS or name in service_lookups.NAMES


def find(cloud: Cloud, name: str, value: Any) -> Any:
    """The cloud object constraint ``name`` designates by ``value`` (an id or a name).

    :raises errors.CloudError: 404 with Heat's "not found" message when there is none; the
        translated cloud error when the lookup itself fails (a name matching several objects is
        permanent, status ``None``).
    :raises KeyError: ``name`` is not a cloud-backed constraint.
    """
    if name in FINDERS:
        return SimpleNamespace(id=FINDERS[name](cloud, value))
    if name in service_lookups.NAMES:
        return service_lookups.find(cloud, name, value)
    service, method, missing = LOOKUPS[name]
    if service == "keystone":
        return SimpleNamespace(**keystone.find(cloud, method, str(value)))
    found = getattr(getattr(cloud, service), method)(str(value), ignore_missing=True)
    if found is None:
        raise cloud_error(missing(str(value)), 404)
    return found


#: Constraints whose id-shaped values are read as the API's JSON (a batched
#: :mod:`app.clients.status` read), not as an SDK object: a stack's references between its
#: own resources (a port for a server, a server and a volume for an attachment) are ids.
BY_ID = {"nova.server": status.SERVER, "cinder.volume": status.VOLUME,
         "neutron.network": status.NETWORK, "neutron.subnet": status.SUBNET,
         "neutron.port": status.PORT}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                   r"[0-9a-fA-F]{12}$")


def _by_id(cloud: Cloud, name: str, value: str) -> str | None:
    """The id of ``value`` when it is the id of a :data:`BY_ID` object, else ``None`` (then
    :func:`find` looks it up by name, as the SDK's ``find_*`` does after its GET by id:
    that GET's 400, 403 and 404 mean "not an id")."""
    kind = BY_ID.get(name)
    if kind is None or not _UUID.match(value):
        return None
    try:
        return str(status.read(cloud, kind, value)["id"])
    except errors.CloudError as exc:
        if exc.status in (400, 403, 404):
            return None
        raise


def resolve(cloud: Cloud, name: str, value: Any) -> str:
    """The id of what ``value`` designates (:func:`find`; a :data:`CATALOGUE` answer is kept
    for :data:`CATALOGUE_TTL` s per connection; an id of a :data:`BY_ID` kind is read as
    JSON, and kept as long once the cloud showed it: ids are never reused, and Heat, its cache
    on (``[cache] enabled``, as deployments run it), keeps every custom constraint's successful
    validation as long, whatever its kind (``[constraint_validation_cache]``, 60 s); a name of
    a stack's own kind of object is always looked up, since the object it names may be
    replaced); raises as :func:`find`.

    One lookup of a catalogue name is in flight at a time per connection: reads that come
    while it is (a stack's 200 servers resolving one new flavor at once) wait for its answer
    instead of each asking the cloud; if it fails, each asks on its own."""
    key = (id(cloud.raw), name, str(value))
    if name not in CATALOGUE:
        hit = _kept(key, cloud)
        if hit is not None:
            return hit
        by_id = _by_id(cloud, name, str(value))
        if by_id is None:  # a name is never kept
            return str(find(cloud, name, value).id)
        return _keep(key, by_id, cloud)
    while True:
        hit = _kept(key, cloud)
        if hit is not None:
            return hit
        with _found_lock:
            running = _looking.get(key)
            if running is None:
                running = _looking[key] = threading.Event()
                break
        running.wait(CATALOGUE_WAIT)
        if _kept(key, cloud) is None:  # the lookup failed (or is slow): ask on our own
            return str(find(cloud, name, value).id)
    try:
        return _keep(key, str(find(cloud, name, value).id), cloud)
    finally:
        with _found_lock:
            _looking.pop(key, None)
        running.set()


def _kept(key: tuple[int, str, str], cloud: Cloud) -> str | None:
    """The id kept for ``key`` on ``cloud``'s connection, younger than :data:`CATALOGUE_TTL`."""
    hit = _found.get(key)
    if hit is not None and hit[2] is cloud.raw and time.monotonic() - hit[0] < CATALOGUE_TTL:
        return str(hit[1])
    return None


def _keep(key: tuple[int, str, str], found: str, cloud: Cloud) -> str:
    """Keep ``found`` for ``key`` (at most :data:`CATALOGUE_MAX` answers); :returns: it."""
    with _found_lock:
        if len(_found) >= CATALOGUE_MAX:
            _found.clear()
        _found[key] = (time.monotonic(), found, cloud.raw)
    return found


def forget_catalogue() -> None:
    """Drop the kept catalogue answers (tests; a catalogue known to have changed)."""
    with _found_lock:
        _found.clear()


def check(cloud: Cloud, name: str, value: Any) -> str | None:
    """``None`` if ``value`` satisfies constraint ``name`` (or ``name`` is not cloud-backed, or
    ``value`` is empty), else the reason (Heat's wording; the cloud's message for other errors).
    Transient cloud errors are raised, not reported as a bad value."""
    if not is_cloud_backed(name) or value in (None, ""):
        return None
    try:
        resolve(cloud, name, value)
    except errors.CloudError as exc:
        if exc.transient:
            raise
        return exc.message
    return None


def error_message(path: str, value: Any, reason: str) -> str:
    """Heat's wording for a value its custom constraint rejects::

        Property error: resources.srv.properties.flavor: Error validating value 'x': <reason>
    """
    return f"Property error: {path}: Error validating value '{value}': {reason}"
