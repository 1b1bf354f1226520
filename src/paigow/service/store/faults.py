"""The database's refusals that are not the step's fault: a full disk, a read-only database.

Each is answered 503 with a stable code (the step was not applied; retry once the operator has
made room or made the database writable again):

>>> import sqlite3
>>> from sqlalchemy.exc import OperationalError
>>> full = OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))
>>> fault = classify(full)
>>> fault.status, fault.code
(503, 'storage-full')
>>> classify(OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked")))
"""

from __future__ import annotations

import time
from typing import ClassVar, Final

from paigow.service.http_errors import ServiceError

DISK_FULL = frozenset({"53100"})
"""PostgreSQL's ``disk_full`` (its data, a tablespace or its WAL out of space)."""
READ_ONLY = frozenset({"25006"})
"""PostgreSQL's ``read_only_sql_transaction`` (``default_transaction_read_only``, a standby)."""
SQLITE_FULL = 13
SQLITE_READONLY = 8
HOLD_S: Final = 15.0
"""How long a refusal keeps play shown as paused without another (the dealer holding a round
retries at least every 5 s, so a lasting fault stays shown)."""


class StoragePause:
    """Whether this process has seen the database refuse writes lately (``storage-full``,
    ``storage-read-only``): the pages say play is paused while it has. Cleared by a write that
    succeeds (a dealer's step after its faults, an HTTP write answered 2xx) or ``HOLD_S``
    without another refusal.

    >>> pause = StoragePause()
    >>> pause.refused("storage-full"); pause.code
    'storage-full'
    >>> pause.wrote(); pause.code is None
    True
    """

    def __init__(self) -> None:
        self._code: str | None = None
        self._at = 0.0

    def refused(self, code: str) -> None:
        """A write was refused with ``code`` just now."""
        self._code, self._at = code, time.monotonic()

    def wrote(self) -> None:
        """A write succeeded: writes work again."""
        self._code = None

    @property
    def code(self) -> str | None:
        """The refusal's code while play is paused; None when writes work (as far as seen)."""
        if self._code is not None and time.monotonic() - self._at > HOLD_S:
            self._code = None
        return self._code


class DatabaseUnavailable(ServiceError):
    """The database refused a write for a reason of its own; nothing of the step was applied."""

    status: ClassVar[int] = 503
    default_code: ClassVar[str] = "database-unavailable"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message, code=code, headers={"Retry-After": "5"})


def classify(exc: BaseException) -> DatabaseUnavailable | None:
    """The fault ``exc`` (a SQLAlchemy error or the driver's own) stands for, if it is a full
    disk or a read-only database; None for anything else."""
    orig = getattr(exc, "orig", None) or exc
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    code = getattr(orig, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(orig).lower()
    if (
        sqlstate in DISK_FULL
        or primary == SQLITE_FULL
        or "database or disk is full" in text
        or "no space left on device" in text
    ):
        return DatabaseUnavailable(
            "the database is out of space: nothing was applied; retry once room is made",
            code="storage-full",
        )
    if sqlstate in READ_ONLY or primary == SQLITE_READONLY or "readonly database" in text:
        return DatabaseUnavailable(
            "the database is read-only: nothing was applied; retry once it takes writes again",
            code="storage-read-only",
        )
    return None
