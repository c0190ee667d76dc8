"""Worker "hosts" for storms: Linux network namespaces, each joined to this host by a veth pair
(a ``/30`` of ``10.231.0.0/16`` each: its first address here, the second inside), in which a
``stoker worker`` reaches PostgreSQL, Redis and the sandbox cloud through the veth, as a worker
on another machine would. :meth:`Hosts.cut` takes a host's link down (its packets and the
replies to it are dropped silently, its TCP connections hang, nothing is refused);
:meth:`Hosts.restore` brings it back.

Names and addresses are this process's own, so that fleets of several processes (xdist
workers, two runs) do not collide: names carry the pid (``stk<pid hex>-<n>n1``), and each
``/30`` is one no interface of this host has, chosen under a file lock from an offset derived
from the pid. Needs root (``ip netns``). Everything made is removed by :meth:`Hosts.close`,
whatever happened (and at the process's exit); what a killed process left is removed by the
next :meth:`Hosts.open` on this machine.
"""
from __future__ import annotations

import atexit
import contextlib
import fcntl
import ipaddress
import itertools
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fixtures.procs import alive

#: the range every host's /30 comes from (the private PostgreSQL trusts it: conftest.py)
RANGE = ipaddress.IPv4Network("10.231.0.0/16")
SLOTS = RANGE.num_addresses // 4
#: held while a process picks its addresses and adds them
LOCK = Path("/tmp/stoker-storm-hosts.lock")
#: ``stk<pid hex>-<n>``: the prefix of every name a process makes (n: its n-th Hosts)
_NAME = re.compile(r"^stk([0-9a-f]+)-")
_opened = itertools.count()


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, timeout=30, capture_output=True,
                          text=True).stdout


def available() -> str | None:
    """Why namespaces cannot be made here (not root, no ``ip``), or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    try:
        if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode:
            return "no 'ip netns'"
    except FileNotFoundError:
        return "no 'ip' command"
    return None


def reclaim() -> int:
    """Remove the namespaces and veths that processes no longer running left (killed before
    they could close them). :returns: how many names were removed."""
    links = [line.split(":")[1].strip().split("@")[0]
             for line in _ip("-o", "link", "show").splitlines() if ":" in line]
    spaces = [line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip()]
    gone = 0
    for kind, names in (("link", links), ("netns", spaces)):
        for name in names:
            m = _NAME.match(name)
            if m and not alive(int(m.group(1), 16)):
                with contextlib.suppress(subprocess.SubprocessError):
                    _ip(kind, "del", name)
                    gone += 1
    return gone


def _used() -> set[int]:
    """The slots (``/30`` of :data:`RANGE`) an interface of this host has an address in."""
    used = set()
    for line in _ip("-4", "-o", "addr", "show").splitlines():
        parts = line.split()
        if "inet" in parts:
            addr = ipaddress.IPv4Interface(parts[parts.index("inet") + 1])
            if addr.ip in RANGE:
                used.add((int(addr.ip) - int(RANGE.network_address)) // 4)
    return used


@dataclass
class Host:
    """One namespace ``ns``; ``gateway``: this host's address on its veth (where the
    services are reached from inside); ``address``: the namespace's; ``link``: the veth's end
    on this host."""
    ns: str
    gateway: str
    link: str
    address: str = ""

    def argv(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["ip", "netns", "exec", self.ns, *argv]

    def env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with every loopback address (the services' URLs) replaced by the gateway."""
        return {k: v.replace("127.0.0.1", self.gateway) if k.startswith("STOKER_") else v
                for k, v in env.items()}


@dataclass
class Hosts:
    """``count`` namespaces, ``hosts[i]`` for the i-th (see the module)."""
    count: int = 2
    hosts: list[Host] = field(default_factory=list)

    def open(self) -> list[Host]:
        """Make the namespaces and their links (each its own /30, see the module).

        :raises subprocess.CalledProcessError: ``ip`` refused (what was made is removed)."""
        atexit.register(self.close)
        tag = f"stk{os.getpid():x}-{next(_opened) % 36:x}"
        try:
            LOCK.touch(exist_ok=True)
            with open(LOCK) as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                reclaim()
                used = _used()
                start = os.getpid() * self.count % SLOTS
                free = (s % SLOTS for s in range(start, start + SLOTS) if s % SLOTS not in used)
                for i, slot in zip(range(1, self.count + 1), free):
                    base = int(RANGE.network_address) + 4 * slot
                    gateway, inner = (str(ipaddress.IPv4Address(base + k)) for k in (1, 2))
                    host = Host(f"{tag}n{i}", gateway, f"{tag}h{i}", inner)
                    self.hosts.append(host)
                    peer = f"{tag}i{i}"
                    _ip("netns", "add", host.ns)
                    _ip("link", "add", host.link, "type", "veth", "peer", "name", peer)
                    _ip("link", "set", peer, "netns", host.ns)
                    _ip("addr", "add", f"{gateway}/30", "dev", host.link)
                    _ip("link", "set", host.link, "up")
                    _ip("-n", host.ns, "addr", "add", f"{inner}/30", "dev", peer)
                    _ip("-n", host.ns, "link", "set", peer, "up")
                    _ip("-n", host.ns, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise
        assert len(self.hosts) == self.count, f"no free /30 left in {RANGE}"
        return self.hosts

    def addresses(self) -> list[str]:
        """This host's addresses on the veths (for the services to listen on)."""
        return [h.gateway for h in self.hosts]

    def cut(self, host: Host) -> None:
        """Cut ``host`` off: its veth's end here goes down (packets dropped both ways)."""
        _ip("link", "set", host.link, "down")

    def restore(self, host: Host) -> None:
        _ip("link", "set", host.link, "up")

    def close(self) -> None:
        """Remove every veth and namespace made (the processes in them stopped first); again:
        nothing."""
        for host in self.hosts:
            with contextlib.suppress(subprocess.SubprocessError):
                _ip("link", "del", host.link)
            with contextlib.suppress(subprocess.SubprocessError):
                _ip("netns", "del", host.ns)
        self.hosts = []
        atexit.unregister(self.close)
@contextlib.contextmanager
def fleet(pg: Any, redis: Any, home: Path, **storm: Any) -> Iterator[tuple[Any, Hosts]]:
    """A started :class:`tests.storms.conftest.Storm` whose two workers run on hosts of their
    own (``worker1`` on the first, ``worker2`` on the second) on the private services ``pg``
    and ``redis``, made to listen on the veths; ``storm``: the Storm's other arguments. All is
    undone on the way out (processes stopped, the services back to loopback alone, links and
    namespaces removed)."""
    from tests.storms.conftest import Storm
    hosts = Hosts()
    s = None
    try:
        made = hosts.open()
        redis.listen(hosts.addresses())
        pg.listen(hosts.addresses())
        s = Storm(pg, redis, home, hosts={"worker1": made[0], "worker2": made[1]}, **storm)
        s.start()
        yield s, hosts
    finally:
        try:
            if s is not None:
                for host in hosts.hosts:     # a cut link comes back: the processes stop
                    with contextlib.suppress(subprocess.SubprocessError):
                        hosts.restore(host)
                s.stop()
        finally:
            hosts.close()
            with contextlib.suppress(Exception):
                redis.listen([])
            with contextlib.suppress(Exception):
                pg.listen([])
