"""Subnet allocation from a subnet pool for the sandbox Neutron (``subnet_allocation``
extension): a subnet request naming ``subnetpool_id`` gets its CIDR from the pool (the
requested ``cidr`` checked against it, or the lowest free block of ``prefixlen``, default the
pool's ``default_prefixlen``), never overlapping the pool's other subnets, as Neutron's
subnet allocator does; the subnet records ``subnetpool_id``."""
from __future__ import annotations

from app.sandbox import auth, ipam, network_rbac
from app.sandbox.http import SandboxError
from app.sandbox.runtime import store
from app.sandbox.store import Obj


def requested_cidr(data: Obj) -> tuple[Obj | None, str]:
    """``(pool, cidr)`` for subnet request ``data``: the pool it names (None when none) and the
    CIDR to use (allocated from the pool when it names one).

    :raises SandboxError: 400 ``a subnetpool must be specified in the absence of a cidr``,
        404 ``SubnetPoolNotFound``, and :func:`ipam.allocate_prefix`'s errors.
    """
    pool = _pool(data.get("subnetpool_id"))
    if pool is None:
        if not data.get("cidr"):
            raise SandboxError(400, "Bad subnets request: a subnetpool must be specified in the absence of "
                               "a cidr.", "BadRequest")
        return None, str(data["cidr"])
    if data.get("cidr"):
        ipam.parse_cidr(data["cidr"], data.get("ip_version") or pool["ip_version"])
    taken = [s["cidr"] for s in store().find("subnets", subnetpool_id=pool["id"])]
    return pool, ipam.allocate_prefix(pool, taken, data.get("cidr"), data.get("prefixlen"))


def _pool(pool_id: object) -> Obj | None:
    if not pool_id:
        return None
    pool = store().get("subnetpools", str(pool_id))
    if pool is None or not (pool.get("shared") or auth.can_see(pool) or network_rbac.granted(pool)):
        raise SandboxError(404, f"Subnet pool {pool_id} could not be found.", "SubnetPoolNotFound")
    return pool
