"""The database's refusals that are not the step's fault: a full disk, a read-only database.

Each is answered 503 with a stable code (the step was not applied; retry once the operator has
made room or made the database writable again):

>>> import sqlite3
>>> from sqlalchemy.exc import OperationalError
>>> full = OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))
>>> fault = classify(full)
>>> fault.status, fault.code
(503, 'database-full')
>>> classify(OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked")))
"""

from __future__ import annotations

from typing import ClassVar

from paigow.service.errors import ServiceError

DISK_FULL = frozenset({"53100"})
"""PostgreSQL's ``disk_full`` (its data, a tablespace or its WAL out of space)."""
READ_ONLY = frozenset({"25006"})
"""PostgreSQL's ``read_only_sql_transaction`` (``default_transaction_read_only``, a standby)."""
SQLITE_FULL = 13
SQLITE_READONLY = 8


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
            code="database-full",
        )
    if sqlstate in READ_ONLY or primary == SQLITE_READONLY or "readonly database" in text:
        return DatabaseUnavailable(
            "the database is read-only: nothing was applied; retry once it takes writes again",
            code="database-read-only",
        )
    return None
