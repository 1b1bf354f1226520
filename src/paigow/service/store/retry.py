"""Which failed steps the writer runs again (:mod:`paigow.service.store.writer`): deadlocks,
serialization failures, unique-key races, a locked SQLite, a connection lost before the step's
commit was sent; and what each retry met, for the retries' counter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.exc import OperationalError

if TYPE_CHECKING:
    from paigow.service.store.unit import Tx


def retryable(exc: BaseException) -> bool:
    """Deadlocks, serialization failures, unique-key races; a locked SQLite. (A prepared
    statement found gone is not retried: nothing in the service deallocates them, and the
    connection prepares anew from its next message: :class:`.pgwire.Wire`.)"""
    orig = getattr(exc, "orig", None)
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in ("40001", "40P01", "23505"):
        return True
    return isinstance(exc, OperationalError) and "locked" in str(orig)


_RETRY_KINDS: dict[str | None, str] = {
    "40001": "serialization",
    "40P01": "deadlock",
    "23505": "unique-race",
}


def retry_kind(exc: BaseException) -> str:
    """What a retried step met, for the retries' counter: ``deadlock``, ``serialization``,
    ``unique-race``, ``locked`` (SQLite) or ``connection-lost``."""
    sqlstate = getattr(getattr(exc, "orig", None), "sqlstate", None)
    if sqlstate in _RETRY_KINDS:
        return _RETRY_KINDS[sqlstate]
    return "locked" if retryable(exc) else "connection-lost"


def lost_before_commit(exc: BaseException, done: list[Tx]) -> bool:
    """The step's connection was lost (a PostgreSQL outage or restart: SQLAlchemy invalidates
    the pool's connections) before its commit was sent: nothing of it landed, so it is run
    again on a new connection."""
    return bool(getattr(exc, "connection_invalidated", False)) and not (
        done and done[0].step.commit_sent
    )
