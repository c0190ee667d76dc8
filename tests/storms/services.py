"""A PostgreSQL cluster and a Redis server of a storm's own, so that a fault may restart, stop or
flush them without touching the machine's shared services.

:class:`PrivatePostgres`: ``initdb`` into a directory, run as the ``postgres`` OS user when this
process is root (PostgreSQL refuses root), trust authentication; ``restart()``, ``stop()``,
``start()`` with ``pg_ctl``. :class:`PrivateRedis`: ``redis-server --save ''``; ``stop()``,
``start()`` on the same port, ``flushall()``. :func:`private_postgres` and
:func:`private_redis` make one on a free port and remove it afterwards, whatever happened.
"""
from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.fixtures.procs import free_port, stop_groups

#: the server binaries of the machine's PostgreSQL (Debian lays each major version out apart)
PG_BIN = Path(os.environ.get("STOKER_TEST_PG_BIN") or max(
    Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name),
    default=Path("/usr/lib/postgresql/15/bin")))


def _as_postgres() -> list[str]:
    """The prefix that runs a command as the ``postgres`` OS user when this process is root."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class PrivatePostgres:
    """A PostgreSQL cluster of its own in ``root`` on ``port`` (trust auth, no fsync)."""

    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.data = root / "data"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}"
        self.addresses: list[str] = []   # listened on besides 127.0.0.1

    def _ctl(self, *args: str, timeout: float = 60) -> None:
        subprocess.run([*_as_postgres(), str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args],
                       check=True, timeout=timeout, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def init(self) -> None:
        subprocess.run([*_as_postgres(), str(PG_BIN / "initdb"), "-D", str(self.data), "-A",
                        "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], check=True,
                       timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def start(self) -> None:
        listen = ",".join(["127.0.0.1", *self.addresses])
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses={listen} -c fsync=off "
                f"-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        self._ctl("-o", opts, "-l", str(self.root / "postgres.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is closed by the server."""
        self._ctl("-m", "fast", "-w", "restart")

    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def listen(self, addresses: list[str]) -> None:
        """Listen on ``addresses`` besides 127.0.0.1, trusting ``10.231.0.0/16`` (worker hosts
        in namespaces, tests/storms/hosts.py): a stop and a start."""
        hba = self.data / "pg_hba.conf"
        line = "host all all 10.231.0.0/16 trust\n"
        text = hba.read_text()
        if line not in text:
            hba.write_text(text + line)
        self.addresses = list(addresses)
        self.stop()          # (``pg_ctl restart`` would keep the options it was started with)
        self.start()


class PrivateRedis:
    """A ``redis-server`` of its own on ``port``, without persistence."""

    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.addresses: list[str] = []   # listened on besides 127.0.0.1

    def start(self) -> None:
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 (the child owns it)
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", *self.addresses,
             "--protected-mode", "no" if self.addresses else "yes", "--save", "", "--appendonly", "no", "--dir", str(self.root)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        import redis
        deadline = time.monotonic() + 20
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return
            except redis.RedisError:
                assert time.monotonic() < deadline, "private redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            stop_groups([self.proc], grace=10)
            self.proc = None

    def flushall(self) -> None:
        import redis
        redis.Redis.from_url(self.url).flushall()

    def listen(self, addresses: list[str]) -> None:
        """Listen on ``addresses`` besides 127.0.0.1 (at once: ``CONFIG SET bind``)."""
        import redis
        self.addresses = list(addresses)
        client = redis.Redis.from_url(self.url)
        client.config_set("bind", " ".join(["127.0.0.1", *addresses]))
        # (the addresses are the veths' to namespaces of this machine, not a network's)
        client.config_set("protected-mode", "no" if addresses else "yes")


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started :class:`PrivatePostgres` in a temporary directory on a free port; stopped
    and removed on the way out."""
    root = Path(tempfile.mkdtemp(prefix="stoker-storm-pg-"))
    if os.geteuid() == 0:
        pg = pwd.getpwnam("postgres")
        os.chown(root, pg.pw_uid, pg.pw_gid)
    server = PrivatePostgres(root, free_port())
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    """A started :class:`PrivateRedis` in a temporary directory on a free port; stopped and
    removed on the way out."""
    root = Path(tempfile.mkdtemp(prefix="stoker-storm-redis-"))
    server = PrivateRedis(root, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
