"""IP address management for the sandbox's Neutron: CIDR validation, gateway and allocation
pools, and address allocation. Pure (standard library ``ipaddress`` only).

Behaviour follows Neutron's IPAM: the default gateway is the first host address; the default
allocation pool is every host address except the gateway (IPv4 also excludes network and
broadcast addresses); allocation takes the lowest free address from the pools.
"""
from __future__ import annotations

import ipaddress
import itertools
from collections.abc import Iterable
from typing import Any

from app.sandbox.http import SandboxError

Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_cidr(cidr: str, ip_version: int | None = None) -> Net:
    """The network of ``cidr`` (host bits must be zero, as Neutron requires).

    :raises SandboxError: 400 ``InvalidInput`` for a malformed CIDR or a version mismatch.
    """
    try:
        net = ipaddress.ip_network(str(cidr), strict=True)
    except ValueError:
        raise SandboxError(400, f"Invalid input for cidr. Reason: '{cidr}' is not a valid IP "
                           "subnet.", "InvalidInput") from None
    if ip_version and net.version != int(ip_version):
        raise SandboxError(400, "Invalid input for operation: cidr and ip_version are incompatible.",
                           "InvalidInput")
    if net.num_addresses < (4 if net.version == 4 else 2):
        raise SandboxError(400, f"Invalid input for operation: The subnet {cidr} is too small.",
                           "InvalidInput")
    return net


def default_gateway(net: Net) -> str:
    return str(net.network_address + 1)


def default_pools(net: Net, gateway: str | None) -> list[dict[str, str]]:
    """Neutron's default allocation pools: the host range minus the gateway."""
    first = net.network_address + 1
    last = net.broadcast_address - 1 if net.version == 4 else net.broadcast_address
    pools: list[dict[str, str]] = []
    gw = ipaddress.ip_address(gateway) if gateway else None
    if gw is not None and first <= gw <= last:
        if first < gw:
            pools.append({"start": str(first), "end": str(gw - 1)})
        if gw < last:
            pools.append({"start": str(gw + 1), "end": str(last)})
    else:
        pools.append({"start": str(first), "end": str(last)})
    return pools


def check_pools(net: Net, pools: list[dict[str, Any]], gateway: str | None) -> list[dict[str, str]]:
    """Validate user-given allocation pools: inside the CIDR, start <= end, no overlap, not
    containing the gateway.

    :raises SandboxError: 400 ``InvalidAllocationPool`` / ``OverlappingAllocationPools`` /
        ``GatewayConflictWithAllocationPools``.
    """
    ranges = []
    for p in pools:
        try:
            start, end = ipaddress.ip_address(p["start"]), ipaddress.ip_address(p["end"])
        except (KeyError, ValueError):
            raise SandboxError(400, f"The allocation pool {p} is not valid.",
                               "InvalidAllocationPool") from None
        if start not in net or end not in net or start > end:
            raise SandboxError(400, f"The allocation pool {p['start']}-{p['end']} spans beyond the "
                               f"subnet cidr {net}.", "OutOfBoundsAllocationPool")
        ranges.append((start, end))
    ranges.sort()
    for (s1, e1), (s2, e2) in itertools.pairwise(ranges):
        if s2 <= e1:
            raise SandboxError(400, f"Found overlapping allocation pools: {s1}-{e1} and {s2}-{e2}",
                               "OverlappingAllocationPools")
    if gateway:
        gw = ipaddress.ip_address(gateway)
        for s, e in ranges:
            if s <= gw <= e:
                raise SandboxError(409, f"Gateway ip {gateway} conflicts with allocation pool {s}-{e}",
                                   "GatewayConflictWithAllocationPools")
    return [{"start": str(s), "end": str(e)} for s, e in ranges]


def overlaps(a: str, b: str) -> bool:
    return ipaddress.ip_network(a).overlaps(ipaddress.ip_network(b))  # type: ignore[arg-type]


def in_subnet(ip: str, cidr: str) -> bool:
    try:
        return ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)
    except ValueError:
        return False


def valid_ip(ip: str) -> bool:
    try:
        ipaddress.ip_address(ip)
        return True
    except ValueError:
        return False


def allocate(pools: list[dict[str, str]], used: Iterable[str]) -> str | None:
    """The lowest address in ``pools`` not in ``used``; None when the pools are exhausted.
    Cost: O(used + scanned addresses)."""
    taken = {ipaddress.ip_address(u) for u in used}
    for p in pools:
        ip, end = ipaddress.ip_address(p["start"]), ipaddress.ip_address(p["end"])
        while ip <= end:
            if ip not in taken:
                return str(ip)
            ip += 1
    return None


def mac_address(n: int) -> str:
    """A locally administered MAC, ``fa:16:3e:xx:xx:xx`` as Neutron's default base MAC."""
    return f"fa:16:3e:{(n >> 16) & 0xFF:02x}:{(n >> 8) & 0xFF:02x}:{n & 0xFF:02x}"


def allocate_prefix(pool: dict[str, Any], taken: Iterable[str], cidr: str | None,
                    prefixlen: int | None) -> str:
    """A subnet CIDR from subnet pool ``pool`` (its ``prefixes`` and prefix-length bounds), not
    overlapping the pool's ``taken`` subnets, as Neutron's subnet allocator: a requested
    ``cidr`` must lie inside the pool and be free; otherwise the lowest free block of
    ``prefixlen`` (default: the pool's ``default_prefixlen``).

    :raises SandboxError: 400 for a prefix length outside the pool's bounds, 409
        ``SubnetAllocationError`` when the space is used up or ``cidr`` is not available.
    """
    used = [ipaddress.ip_network(t) for t in taken]
    prefixes = [ipaddress.ip_network(p) for p in pool["prefixes"]]
    want = ipaddress.ip_network(cidr) if cidr else None
    length = want.prefixlen if want is not None else int(prefixlen or pool["default_prefixlen"])
    if length > int(pool["max_prefixlen"]):
        raise SandboxError(400, f"Unable to allocate subnet with prefix length {length}, maximum allowed "
                           f"prefix is {pool['max_prefixlen']}.", "MaxPrefixSubnetAllocationError")
    if length < int(pool["min_prefixlen"]):
        raise SandboxError(400, f"Unable to allocate subnet with prefix length {length}, minimum allowed "
                           f"prefix is {pool['min_prefixlen']}.", "MinPrefixSubnetAllocationError")

    def free(candidate: Net) -> bool:
        return not any(candidate.overlaps(u) for u in used)  # type: ignore[arg-type]

    if want is not None:
        if any(want.version == p.version and want.subnet_of(p) for p in prefixes) and free(want):  # type: ignore[arg-type]
            return str(want)
        raise SandboxError(409, "Failed to allocate subnet: Cannot allocate requested subnet from the available "
                           "set of prefixes.", "SubnetAllocationError")
    for prefix in sorted(prefixes, key=lambda p: (p.version, p.network_address)):
        if prefix.prefixlen > length:
            continue
        for candidate in prefix.subnets(new_prefix=length):
            if free(candidate):
                return str(candidate)
    raise SandboxError(409, f"Failed to allocate subnet: Insufficient prefix space to allocate subnet size "
                       f"/{length}.", "SubnetAllocationError")
