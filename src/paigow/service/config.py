"""The service's settings, one class: given by the caller (tests, ``paigow serve``) or read from
the environment, every setting as ``PAIGOW_<NAME>`` (upper case), e.g. ``PAIGOW_TOKEN_TTL_S``.

- ``ServiceConfig(url, name=value, ...)`` takes only what it is given (the defaults for the rest),
  whatever the environment says;
- ``ServiceConfig.from_env(url, **overrides)``: the defaults, then the ``PAIGOW_*`` environment
  variables, then the overrides (a None override is no override);

Nothing else reads a setting from the environment: code that needs one is given the config (the
steps find it on their ``Tx``: ``tx.config``); tests/service/test_config.py checks the source.

Text from the environment is converted as the service always read it: a flag is on for ``1``,
``true``, ``yes`` or ``on`` (any case) and off for any other text; numbers as Python's ``int()``
and ``float()`` read them; an empty optional text is None; other text is kept as it is. Secrets
are never part of ``repr()`` (so they never reach a log). docs/settings.md lists every setting
(:func:`settings_doc` writes it: ``python scripts/make_settings_doc.py``).

>>> c = ServiceConfig("sqlite:///x.db", secret="s3cret")
>>> "s3cret" in repr(c)
False
>>> c.token_ttl_s, c.with_(token_ttl_s=60).token_ttl_s
(28800, 60)
>>> env_name("token_ttl_s")
'PAIGOW_TOKEN_TTL_S'
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import Field
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

ENV_PREFIX: Final = "PAIGOW_"
"""Every setting can be given as ``PAIGOW_<NAME>`` (upper case), e.g. ``PAIGOW_TOKEN_TTL_S``."""

_ON: Final = ("1", "true", "yes", "on")


class ServiceConfig(BaseSettings):
    """Settings of one server process."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, frozen=True, extra="forbid", use_attribute_docstrings=True
    )

    database_url: str
    """The database, ``sqlite:///FILE`` or ``postgresql://...``: always given by the caller
    (``paigow serve --database``), never read from the environment."""
    secret: str | None = Field(default=None, repr=False)
    """The token-signing secret (``PAIGOW_SECRET``). Never kept in the database: without it, the
    first server creates a secret file (mode 0600) in the data folder (see ``data_dir``) and every
    process of the deployment reads that file. A new secret ends every token."""
    data_dir: str | None = None
    """Where the secret file lives: default beside the SQLite file, or for PostgreSQL
    ``$XDG_DATA_HOME/paigow`` (``~/.local/share/paigow``). Processes on several machines sharing a
    PostgreSQL database need the same ``PAIGOW_SECRET`` (or a shared folder)."""
    token_ttl_s: int = 28_800
    """A session's absolute expiry (seconds): its token (and the browser's cookie) is valid this
    long after the log-in, however active; a token claiming a longer life is refused."""
    session_idle_s: int = 1800
    """A session unused this long (seconds, kept to the minute) is ended: its next request is
    refused (401 ``session-idle``); 0: no idle expiry."""
    behind_tls: bool = False
    """The service is reached over TLS through a proxy: the session cookie is marked
    ``Secure`` (it is whenever the request itself came over TLS)."""
    operator_second_factor: str = "enrolled"
    """Operators' TOTP second factor: ``enrolled`` (the default) asks the code of an operator
    who has enrolled one (``/api/auth/totp/enrol``, then ``confirm``), ``required`` also refuses
    the admin and floor APIs to an operator without one (403 ``second-factor-required``: their
    token only enrols; an operator created with ``paigow admin create --require-2fa``, or
    whose second factor was reset, is held to enrolling whatever this says, unless ``off``),
    ``off`` asks no code at all. The default keeps ``paigow bots``, the demo
    and a first ``paigow serve`` working with the operator's password alone; a casino sets
    ``required``."""
    session_cache_s: float = 5.0
    """How long a process trusts what it read of a session (seconds): a session revoked in
    another process is refused there within this time (in the same process, at once)."""
    login_limit_user: int = 10
    """Failed log-ins allowed per (username, client address) per window: a user is never locked
    out by failures from other addresses."""
    login_limit_addr: int = 30
    """Failed log-ins allowed per client address per window, whatever the username."""
    login_window_s: float = 60.0
    """The window of the failed log-ins' limits (seconds)."""
    register_limit_addr: int = 30
    """Registrations allowed per client address per ``register_window_s`` (an operator's token
    on the request lifts the limit: ``paigow bots`` enrols its players so)."""
    register_window_s: float = 60.0
    """The window of the registrations' limit (seconds)."""
    hash_threads: int = 0
    """Threads that hash passwords (0: one per CPU core), apart from those of requests and
    dealers."""
    hash_queue: int = 64
    """Log-ins that may wait for a hashing thread; more are refused at once with 503."""
    hash_nice: int = 5
    """How much lower the hashing threads' scheduling priority is than the rest of the server
    (Linux ``nice``, per thread): when the cores are busy, requests and dealers run first and
    log-ins wait; with cores to spare hashing runs at full speed. 0: the same priority."""
    max_seats_per_user: int = 6
    """Seats one player may hold over all tables (one per table)."""
    idle_rounds: int = 3
    """A seat whose player wagered in none of the table's last N rounds is freed (0: never)."""
    seat_away_s: float = 60.0
    """A seat whose player's every WebSocket to the table has been gone this long is freed
    (0: never). Players that never opened a WebSocket are left to ``idle_rounds``."""
    ws_per_user: int = 8
    """Open WebSockets allowed per user (per process)."""
    ws_per_addr: int = 4096
    """Open WebSockets allowed per client address (per process), signed-in and spectators
    together. High: a casino floor behind one NAT address, or a test client, holds a socket per
    player (600 players at 100 tables were refused beyond the former 256); each player is held
    to ``ws_per_user`` and anonymous sockets to ``ws_spectators_per_addr``."""
    ws_spectators_per_addr: int = 256
    """Open WebSockets without a token (spectators) allowed per client address (per process):
    they need no account, so these are the ones one address could open cheaply."""
    ws_ping_s: float = 20.0
    """The server pings every WebSocket this often; one that does not answer within
    ``ws_ping_timeout_s`` is dropped (applied by ``paigow serve``)."""
    ws_ping_timeout_s: float = 20.0
    """How long a WebSocket may take to answer a ping before it is dropped (seconds)."""
    idempotency_ttl_s: int = 86_400
    """Stored idempotency keys expire after this long (purged; an expired key is new again)."""
    max_body_bytes: int = 16_384
    """Larger request bodies are refused with 413."""
    dealer_poll_s: float = 0.5
    """The longest a dealer waits between looks at its table (events wake it sooner)."""
    lock_poll_s: float = 1.0
    """How often a process tries to take the dealer lock of tables no process deals."""
    worker_threads: int = 40
    """Threads that run requests (few: the GIL runs one at a time; more only queue)."""
    pg_connections: int = 8
    """PostgreSQL: the connections a process opens at most for its cold paths (operators,
    reports, log-ins' reads), beside the steps' below and one each for LISTEN and the dealer
    locks."""
    pg_step_connections: int = 16
    """PostgreSQL: the connections a process opens at most for its steps and reads on the event
    loop (26 a process in all by default: three processes fit PostgreSQL's default
    ``max_connections`` of 100; raise that, or lower these, for more)."""
    pg_pool_wait_s: float = 10.0
    """PostgreSQL: the longest a request or a step waits for a connection of its pool; past it
    the request is answered 503 ``busy`` with ``Retry-After`` (the client retries) rather than
    held longer or failed."""
    pg_driver: str = "psycopg"
    """PostgreSQL: the driver of the steps' asyncio engine, ``psycopg`` or ``asyncpg`` (any
    case; empty: ``psycopg``). ``asyncpg`` needs the ``asyncpg`` extra; its statements run the
    ``plain`` way (see ``pg_wire``), each prepared by SQLAlchemy's asyncpg dialect and kept in
    its cache of prepared statements. LISTEN/NOTIFY, the dealer locks, migrations and the cold
    paths stay on psycopg."""
    pg_wire: str = "prepared"
    """PostgreSQL with psycopg: how the steps' statements reach the server. ``prepared`` (the
    default): each step's statements as prepared statements of the connection (``PREPARE`` once,
    ``EXECUTE`` after), those whose results can wait sent together with the next one or the
    commit, in one message of the simple query protocol, the transaction's ``BEGIN`` at the head
    of its first message (the connections are in psycopg's autocommit mode). ``plain``: one
    statement at a time on psycopg's own protocol (its defaults: values bound by the server, its
    own prepared statements after five runs). Any case; empty: ``prepared``."""
    freeze_gc: bool = False
    """Once started, move everything the process holds into the garbage collector's permanent
    generation and collect the young generation less often (``paigow serve`` sets it): full
    collections no longer scan the app's own objects (pauses of 150 ms under load before)."""
    run_dealers: bool = True
    """False: serve the API only and deal no table (e.g. a read-only replica process)."""
    argon2_time_cost: int = 2
    """Argon2id passes over memory when a password is hashed (hashes made with lower parameters
    are upgraded at their next log-in)."""
    argon2_memory_kib: int = 19_456
    """Argon2id memory per password hash (KiB)."""
    argon2_parallelism: int = 1
    """Argon2id lanes per password hash."""
    sqlite_synchronous: str = "FULL"
    """SQLite's ``synchronous``: ``FULL``, ``EXTRA`` or ``NORMAL`` (any case; empty: ``FULL``),
    for every database the process opens."""
    gaming_day_start: str = "06:00"
    """When a gaming day begins (``HH:MM``, local time of ``gaming_day_tz``); it ends at the same
    time the next day (the floor's reports, the players' statements and daily loss limits)."""
    gaming_day_tz: str = "UTC"
    """The time zone of the gaming day (an IANA name; empty: ``UTC``)."""
    limit_cooling_s: float = 86_400.0
    """How long a raised (or removed) daily loss limit waits before it is in force (seconds);
    a lower one is in force at once."""
    floor_flag_min_hands: int = 100
    """Hands a table must have played before the floor can flag its hold as outside the 99.9%
    band."""
    worker_log_level: str = "warning"
    """The log level of each worker process of ``paigow serve --workers N`` (its supervisor
    sets it from ``--log-level``)."""
    log_format: str = "text"
    """How ``paigow serve`` writes its logs: ``text``, or ``json``: one JSON object a line (time,
    level, logger, message, and the request's id, table and round where one applies)."""
    metrics_allow: str = ""
    """Client addresses or networks (comma-separated, e.g. ``10.0.0.5,192.168.1.0/24``) that may
    read ``/metrics`` without a token; anyone else needs an operator's token. Default: none."""
    metrics: bool = True
    """Whether the process keeps Prometheus metrics: off (``PAIGOW_METRICS=off``), the steps
    record nothing and ``/metrics`` answers 404. Measured cost on: about 0.15% of a saturated
    server's CPU a round (docs/benchmarks.md)."""

    def __init__(self, database_url: str, **values: Any) -> None:
        super().__init__(database_url=database_url, **values)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The constructor takes only what it is given: :meth:`from_env` reads the environment."""
        return (init_settings,)

    @classmethod
    def from_env(cls, database_url: str, **overrides: Any) -> ServiceConfig:
        """Defaults, then ``PAIGOW_*`` environment variables, then ``overrides``."""
        found = EnvSettingsSource(cls)()
        values = {
            name: _from_text(name, raw)
            for name, raw in found.items()
            if name != "database_url" and isinstance(raw, str)
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(database_url, **values)

    def with_(self, **changes: Any) -> ServiceConfig:
        """A copy with ``changes`` (validated like the constructor's arguments)."""
        return type(self)(**{**self.model_dump(), **changes})


def env_name(name: str) -> str:
    """The environment variable of the setting ``name``."""
    return ENV_PREFIX + name.upper()


def _from_text(name: str, raw: str) -> Any:
    """The text of an environment variable as the setting ``name`` takes it."""
    kind = ServiceConfig.model_fields[name].annotation
    if kind is bool:
        return raw.strip().lower() in _ON
    if kind is int:
        return int(raw)
    if kind is float:
        return float(raw)
    if kind is str:
        return raw
    return raw or None  # an optional text


# ----------------------------------------------------------------------------- docs/settings.md
def settings_doc() -> str:
    """docs/settings.md: every setting, generated from :class:`ServiceConfig`."""
    lines = [
        "# Settings of the table service",
        "",
        "Generated from `paigow.service.config.ServiceConfig` by `python scripts/make_settings_doc.py`",
        "(a test keeps the two equal). `paigow serve` and every other command read each setting from",
        "its environment variable; code that builds the service itself (`create_app(url, name=value)`)",
        "may give any of them, which wins over the environment. Flags are on for `1`, `true`, `yes` or `on` (any",
        "case) and off for any other text; numbers are read as Python's `int()` and `float()` read",
        "them; an empty optional text is none.",
        "",
        "| Setting | Environment variable | Type | Default | What it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, field in ServiceConfig.model_fields.items():
        required = field.is_required()
        env = "(none)" if name == "database_url" else f"`{env_name(name)}`"
        default = "(required)" if required else _default_text(field.default)
        text = " ".join((field.description or "").split()).replace("``", "`").replace("|", "\\|")
        lines.append(f"| `{name}` | {env} | {_type_text(field.annotation)} | {default} | {text} |")
    return "\n".join(lines) + "\n"


def _type_text(kind: Any) -> str:
    if kind in (bool, int, float, str):
        return str(kind.__name__)
    return "str or none"  # the optional texts


def _default_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f"`{value}`"
    return f"`{value!r}`"
