"""Worker "hosts" for storms: Linux network namespaces, each joined to this host by a veth pair
(``10.231.<n>.2`` inside, ``10.231.<n>.1`` here), in which a ``stoker worker`` reaches
PostgreSQL, Redis and the sandbox cloud through the veth, as a worker on another machine would.
:meth:`Hosts.cut` takes a host's link down (its packets and the replies to it are dropped
silently, its TCP connections hang, nothing is refused); :meth:`Hosts.restore` brings it back.

Needs root (``ip netns``). Everything made (namespaces, veths, the services' extra listening
addresses) is removed by :meth:`Hosts.close`, whatever happened.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, timeout=30, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def available() -> str | None:
    """Why namespaces cannot be made here (not root, no ``ip``), or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode:
        return "no 'ip netns'"
    return None


@dataclass
class Host:
    """One namespace ``ns``; ``gateway``: this host's address on its veth (where the
    services are reached from inside); ``link``: the veth's end on this host."""
    ns: str
    gateway: str
    link: str

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
        tag = uuid.uuid4().hex[:4]
        for i in range(1, self.count + 1):
            host = Host(f"stk{tag}n{i}", f"10.231.{i}.1", f"stk{tag}h{i}")
            self.hosts.append(host)
            inner = f"stk{tag}i{i}"
            _ip("netns", "add", host.ns)
            _ip("link", "add", host.link, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", host.ns)
            _ip("addr", "add", f"{host.gateway}/30", "dev", host.link)
            _ip("link", "set", host.link, "up")
            _ip("-n", host.ns, "addr", "add", f"10.231.{i}.2/30", "dev", inner)
            _ip("-n", host.ns, "link", "set", inner, "up")
            _ip("-n", host.ns, "link", "set", "lo", "up")
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
        """Remove every veth and namespace made (the processes in them stopped first)."""
        for host in self.hosts:
            with contextlib.suppress(subprocess.SubprocessError):
                _ip("link", "del", host.link)
            with contextlib.suppress(subprocess.SubprocessError):
                _ip("netns", "del", host.ns)
        self.hosts = []


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
