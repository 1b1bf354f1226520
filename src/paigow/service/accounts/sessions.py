"""Server-side sessions: a log-in opens one (a random ``sid`` the token carries, a row in
``sessions``); log-out or an operator revokes it, and its tokens are refused from then on (401,
``token-revoked``).

The check stays cheap: each process keeps what it read of a session for ``session_cache_s``
(a dict look-up a request; one primary-key read a session per period otherwise). A revocation
sends a notice on the bus (kind ``sessions`` on the user's channel ``Channel.sessions(user id)``, with the
step's commit): every process then forgets what it cached of that user's sessions and re-reads
those of its open WebSockets, closing the revoked ones (the ``watch`` callbacks); the process
that revoked does so at once.

A session also ends when unused for ``session_idle_s`` (401 ``session-idle``): what it was last
used for is kept to the minute (``last_seen_at``, written at most once a minute a session) and
read with it. It ends at the latest ``token_ttl_s`` after it was opened, as its token does.

>>> cache = SessionCache(5.0)
>>> cache.remember("abc", SessionState(7, False, 90.0), at=100.0)
>>> cache.cached("abc", at=104.0)
SessionState(user_id=7, revoked=False, last_seen=90.0)
>>> cache.cached("abc", at=106.0) is None
True
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.http_errors import Unauthorized
from paigow.service.store.bus import Kind, notify_sessions
from paigow.service.store.session_models import AuthSession
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

MAX_CACHED = 100_000
TOUCH_S: Final = 60.0
"""A session's ``last_seen_at`` is written again once it is this old (or a quarter of
``session_idle_s``, if less): the idle expiry is kept to the minute, at one small write a
minute an active session."""


def new_sid() -> str:
    """A random session id (128 bits, hex)."""
    return secrets.token_hex(16)


def open_session(session: Session, user_id: int, ttl_s: int, at: float) -> str:
    """Open a session for ``user_id`` in the caller's transaction (the user's expired sessions
    are removed on the way); its id."""
    session.execute(
        sa.delete(AuthSession).where(AuthSession.user_id == user_id, AuthSession.expires_at < at)
    )
    sid = new_sid()
    session.add(AuthSession(id=sid, user_id=user_id, created_at=at, expires_at=at + ttl_s))
    return sid


def revoke(tx: Tx, sid: str, user_id: int, at: float) -> bool:
    """Revoke one session (and tell every process); whether it was live."""
    notify_sessions(tx, user_id)
    done = tx.session.execute(
        sa.update(AuthSession)
        .where(AuthSession.id == sid, AuthSession.revoked_at.is_(None))
        .values(revoked_at=at)
    )
    return bool(getattr(done, "rowcount", 0))


def revoke_user(tx: Tx, user_id: int, at: float) -> list[str]:
    """Revoke every live session of ``user_id`` (and tell every process); their ids."""
    notify_sessions(tx, user_id)
    rows = tx.session.execute(
        sa.update(AuthSession)
        .where(
            AuthSession.user_id == user_id,
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > at,
        )
        .values(revoked_at=at)
        .returning(AuthSession.id)
    )
    return [str(sid) for sid in rows.scalars()]


class SessionState(NamedTuple):
    """What a request needs of a session: its user, whether it was revoked, when last used."""

    user_id: int
    revoked: bool
    last_seen: float


_STATE: Final = Sql(
    sa.select(
        AuthSession.user_id,
        AuthSession.revoked_at,
        sa.func.coalesce(AuthSession.last_seen_at, AuthSession.created_at),
    ).where(AuthSession.id == sa.bindparam("sid"))
)


def read_state(session: Session | sa.Connection, sid: str) -> SessionState | None:
    """A session's user, whether it is revoked and when it was last used; None when there is
    no such session (on an ORM session or a bare connection; a request reads it by
    :func:`state_of`)."""
    return _state(session.execute(_STATE.stmt, {"sid": sid}).one_or_none())


def _state(row: Any) -> SessionState | None:
    return None if row is None else SessionState(int(row[0]), row[1] is not None, float(row[2]))


def state_of(tx: Tx, sid: str) -> SessionState | None:
    """:func:`read_state` on a step's or a read's connection, by a statement compiled once
    (each player's session is read again every ``session_cache_s``, on the event loop on
    SQLite)."""
    return _state(tx.first(_STATE, {"sid": sid}))


def touch(session: Session, sid: str, at: float) -> None:
    """Note that ``sid`` was used at ``at`` (in the caller's transaction)."""
    session.execute(
        sa.update(AuthSession)
        .where(AuthSession.id == sid, AuthSession.revoked_at.is_(None))
        .values(last_seen_at=at)
    )


def revoke_others(tx: Tx, user_id: int, keep: str, at: float) -> list[str]:
    """Revoke every live session of ``user_id`` but ``keep`` (a password changed); their ids."""
    notify_sessions(tx, user_id)
    rows = tx.session.execute(
        sa.update(AuthSession)
        .where(
            AuthSession.user_id == user_id,
            AuthSession.id != keep,
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > at,
        )
        .values(revoked_at=at)
        .returning(AuthSession.id)
    )
    return [str(sid) for sid in rows.scalars()]


class SessionCache:
    """What this process last read of each session, for ``ttl_s`` seconds, and the callbacks
    of its open WebSockets to run when one is revoked here."""

    def __init__(
        self, ttl_s: float, read: Callable[[str], SessionState | None] | None = None
    ) -> None:
        self.ttl_s = ttl_s
        self.read = read
        """Reads a session from the database (on a worker thread), for the WebSockets' re-check."""
        self._lock = threading.Lock()
        self._states: dict[str, tuple[float, SessionState]] = {}
        self._watchers: dict[str, set[Callable[[], None]]] = {}
        self._owners: dict[str, int] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def cached(self, sid: str, at: float | None = None) -> SessionState | None:
        """What was read of ``sid``, or None when not cached or stale."""
        hit = self._states.get(sid)
        if hit is None or hit[0] <= (at if at is not None else time.monotonic()):
            return None
        return hit[1]

    def remember(self, sid: str, state: SessionState, at: float | None = None) -> None:
        t = at if at is not None else time.monotonic()
        with self._lock:
            if len(self._states) > MAX_CACHED:
                self._states.clear()
            self._states[sid] = (t + self.ttl_s, state)

    def revoked(self, sids: list[str], user_id: int) -> None:
        """Sessions known revoked: remember it and close their WebSockets."""
        for sid in sids:
            state = SessionState(user_id, True, time.time())
            self._states[sid] = (time.monotonic() + self.ttl_s, state)
            self._owners.pop(sid, None)
            for close in list(self._watchers.pop(sid, ())):
                close()

    def watch(self, sid: str, user_id: int, close: Callable[[], None]) -> Callable[[], None]:
        """Run ``close`` when ``sid`` is revoked (on the event loop); the function to stop."""
        self._watchers.setdefault(sid, set()).add(close)
        self._owners[sid] = user_id

        def stop() -> None:
            watchers = self._watchers.get(sid)
            if watchers is not None:
                watchers.discard(close)
                if not watchers:
                    self._watchers.pop(sid, None)
                    self._owners.pop(sid, None)

        return stop

    def on_notice(self, notice: Any) -> None:
        """A bus notice (subscribed to every channel): on ``sessions`` for user N, forget N's
        cached sessions and re-read those N's open WebSockets hold."""
        if notice.kind is not Kind.SESSIONS:
            return
        user_id = notice.channel.id
        with self._lock:
            for sid in [s for s, v in self._states.items() if v[1].user_id == user_id]:
                self._states.pop(sid, None)
        watched = [s for s, uid in self._owners.items() if uid == user_id]
        if watched and self.read is not None:
            task = asyncio.get_running_loop().create_task(self._recheck(watched, user_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _recheck(self, sids: list[str], user_id: int) -> None:
        assert self.read is not None
        read = self.read
        gone = []
        for sid in sids:
            state = await asyncio.to_thread(read, sid)
            if state is None or state.revoked:
                gone.append(sid)
        self.revoked(gone, user_id)


def check(state: SessionState | None, user_id: int, idle_s: float, at: float) -> None:
    """Refuse a token whose session is unknown, someone else's, revoked, or unused for longer
    than ``idle_s`` (0: no idle expiry).

    >>> check(SessionState(7, False, 100.0), 7, 1800, 1000.0)
    >>> check(SessionState(7, False, 100.0), 7, 600, 1000.0)
    Traceback (most recent call last):
    ...
    paigow.service.http_errors.Unauthorized: the session was unused for over 10 minutes; log in again
    """
    if state is None or state.user_id != user_id:
        raise Unauthorized("the token's session is not known; log in again", code="invalid-token")
    if state.revoked:
        raise Unauthorized("the session was ended; log in again", code="token-revoked")
    if idle_s > 0 and at - state.last_seen > idle_s:
        minutes = f"{idle_s / 60:g} minutes" if idle_s >= 60 else f"{idle_s:g} seconds"
        raise Unauthorized(
            f"the session was unused for over {minutes}; log in again", code="session-idle"
        )
