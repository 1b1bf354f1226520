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
    """The token-signing secret. Default: ``PAIGOW_SECRET``, else one generated once and kept in
    the database (so every process of a deployment shares it)."""
    token_ttl_s: int = 3600
    """How long a login token is valid (seconds)."""
    login_limit_user: int = 10
    """Login attempts allowed per username per window."""
    login_limit_addr: int = 30
    """Failed login attempts allowed per client address per window."""
    login_window_s: float = 60.0
    max_body_bytes: int = 16_384
    """Larger request bodies are refused with 413."""
    dealer_poll_s: float = 0.5
    """The longest a dealer waits between looks at its table (events wake it sooner)."""
    lock_poll_s: float = 1.0
    """How often a process tries to take the dealer lock of tables no process deals."""
    worker_threads: int = 40
    """Threads that run requests (few: the GIL runs one at a time; more only queue)."""
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
