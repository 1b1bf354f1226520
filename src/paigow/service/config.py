"""The service's settings: given by the caller (tests, ``paigow serve``) or read from the environment.

Secrets are never part of ``repr()`` (so they never reach a log).

>>> c = ServiceConfig("sqlite:///x.db", secret="s3cret")
>>> "s3cret" in repr(c)
False
>>> c.token_ttl_s
3600
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

ENV_PREFIX = "PAIGOW_"
"""Every setting can be given as ``PAIGOW_<NAME>`` (upper case), e.g. ``PAIGOW_TOKEN_TTL_S``."""


@dataclass(frozen=True)
class ServiceConfig:
    """Settings of one server process."""

    database_url: str
    secret: str | None = field(default=None, repr=False)
    """The token-signing secret (``PAIGOW_SECRET``). Never kept in the database: without it, the
    first server creates a secret file (mode 0600) in the data folder (see ``data_dir``) and every
    process of the deployment reads that file. A new secret ends every token."""
    data_dir: str | None = None
    """Where the secret file lives: default beside the SQLite file, or for PostgreSQL
    ``$XDG_DATA_HOME/paigow`` (``~/.local/share/paigow``). Processes on several machines sharing a
    PostgreSQL database need the same ``PAIGOW_SECRET`` (or a shared folder)."""
    token_ttl_s: int = 3600
    """How long a login token is valid (seconds); a token claiming a longer life is refused."""
    login_limit_user: int = 10
    """Failed log-ins allowed per (username, client address) per window: a user is never locked
    out by failures from other addresses."""
    login_limit_addr: int = 30
    """Failed log-ins allowed per client address per window, whatever the username."""
    login_window_s: float = 60.0
    register_limit_addr: int = 30
    """Registrations allowed per client address per ``register_window_s`` (an operator's token
    on the request lifts the limit: ``paigow bots`` enrols its players so)."""
    register_window_s: float = 60.0
    hash_threads: int = 0
    """Threads that hash passwords (0: one per CPU core), apart from those of requests and
    dealers."""
    hash_queue: int = 64
    hash_nice: int = 5
    """How much lower the hashing threads' scheduling priority is than the rest of the server
    (Linux ``nice``, per thread): when the cores are busy, requests and dealers run first and
    log-ins wait; with cores to spare hashing runs at full speed. 0: the same priority."""
    """Log-ins that may wait for a hashing thread; more are refused at once with 503."""
    max_seats_per_user: int = 6
    """Seats one player may hold over all tables (one per table)."""
    idle_rounds: int = 3
    """A seat whose player wagered in none of the table's last N rounds is freed (0: never)."""
    seat_away_s: float = 60.0
    """A seat whose player's every WebSocket to the table has been gone this long is freed
    (0: never). Players that never opened a WebSocket are left to ``idle_rounds``."""
    ws_per_user: int = 8
    """Open WebSockets allowed per user (per process)."""
    ws_per_addr: int = 256
    """Open WebSockets allowed per client address (per process), spectators included."""
    ws_ping_s: float = 20.0
    """The server pings every WebSocket this often; one that does not answer within
    ``ws_ping_timeout_s`` is dropped (applied by ``paigow serve``)."""
    ws_ping_timeout_s: float = 20.0
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
    freeze_gc: bool = False
    """Once started, move everything the process holds into the garbage collector's permanent
    generation and collect the young generation less often (``paigow serve`` sets it): full
    collections no longer scan the app's own objects (pauses of 150 ms under load before)."""
    run_dealers: bool = True
    """False: serve the API only and deal no table (e.g. a read-only replica process)."""
    argon2_time_cost: int = 2
    argon2_memory_kib: int = 19_456
    argon2_parallelism: int = 1

    @classmethod
    def from_env(cls, database_url: str, **overrides: Any) -> ServiceConfig:
        """Defaults, then ``PAIGOW_*`` environment variables, then ``overrides``."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name == "database_url":
                continue
            raw = os.environ.get(ENV_PREFIX + f.name.upper())
            if raw is None:
                continue
            values[f.name] = _convert(f.name, f.type, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(database_url, **values)

    def with_(self, **changes: Any) -> ServiceConfig:
        return replace(self, **changes)


def _convert(name: str, kind: object, raw: str) -> Any:
    text = str(kind)
    if "bool" in text:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if text.startswith("int"):
        return int(raw)
    if text.startswith("float"):
        return float(raw)
    return raw or None
