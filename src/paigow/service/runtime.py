"""Everything one server process shares: the database, the configuration, the event bus, the
password hasher and its thread pool, the token signer, the limits (log-ins, registrations,
WebSockets), the caches of rounds (:mod:`paigow.service.game.rounds.cache`), the writer that runs
the steps (:mod:`paigow.service.store.writer`); and transactions that send table notices when
(and only when) they commit."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from paigow.service.accounts.auth_tokens import Passwords, Principal, TokenSigner
from paigow.service.books.gaming_day import GamingDay
from paigow.service.floor import totals as floor_totals
from paigow.service.game.rounds.cache import FreshEvents, RoundCache
from paigow.service.store.bus import ALL, EventBus, Notice
from paigow.service.store.db import Database, User
from paigow.service.store.faults import StoragePause
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Refused, Tx

if TYPE_CHECKING:
    from paigow.service.accounts.sessions import SessionState
    from paigow.service.config import ServiceConfig

PRINCIPAL_TTL_S = 30.0

_PRINCIPAL = Sql(sa.select(User.id, User.username, User.role).where(User.id == sa.bindparam("uid")))
"""A user's id, name and role (a request's read of the token's user, compiled once)."""

T = TypeVar("T")
_log = logging.getLogger(__name__)


class Runtime:
    """Shared state of one process."""

    def __init__(self, config: ServiceConfig, db: Database | None = None) -> None:
        self.config = config
        self.db = db or Database.of(config)
        self.bus = EventBus(self.db)
        self.bus.on_events = self.keep_notice_events
        self.passwords = Passwords(
            config.argon2_time_cost, config.argon2_memory_kib, config.argon2_parallelism
        )
        from paigow.service.accounts.throttles import (
            ConnectionCaps,
            HashPool,
            LoginLimiter,
            RateLimiter,
        )

        self.limiter = LoginLimiter(
            config.login_limit_user, config.login_limit_addr, config.login_window_s
        )
        self.registrations = RateLimiter(
            config.register_limit_addr, config.register_window_s, "registrations"
        )
        self.hash_pool = HashPool(
            config.hash_threads or (os.cpu_count() or 2), config.hash_queue, config.hash_nice
        )
        self.ws_caps = ConnectionCaps(
            config.ws_per_user, config.ws_per_addr, config.ws_spectators_per_addr
        )
        from paigow.service.accounts.sessions import SessionCache
        from paigow.service.accounts.totp import second_factor_mode

        self.second_factor = second_factor_mode(config.operator_second_factor)
        """The operators' second factor: ``off``, ``enrolled`` or ``required``."""

        self.sessions = SessionCache(config.session_cache_s, read=self.read_session)
        self.bus.subscribe(ALL, self.sessions.on_notice)  # revocations: Channel.sessions
        self._signer: TokenSigner | None = None
        self._signer_lock = threading.Lock()
        self.rounds = RoundCache()
        self.fresh = FreshEvents()
        self._principals: dict[int, tuple[float, Principal]] = {}
        from paigow.service.store.writer import PostgresWriter, SqliteWriter, Writer

        self.storage = StoragePause()
        """Whether the database refused writes lately (see :class:`StoragePause`)."""
        self.writer: Writer = (
            SqliteWriter(
                self.db,
                self.bus,
                rounds=self.rounds,
                fresh=self.fresh,
                seal=self.bus.seal,
                clear_kept=self.rounds.clear,
                config=config,
                project=floor_totals.project,
            )
            if self.db.is_sqlite
            else PostgresWriter(
                self.db,
                self.bus,
                rounds=self.rounds,
                fresh=self.fresh,
                seal=self.bus.seal,
                clear_kept=self.rounds.clear,
                config=config,
                project=floor_totals.project,
            )
        )

    def __repr__(self) -> str:
        return f"Runtime({self.db.display_url()})"

    # ----------------------------------------------------------------------------- tokens
    @property
    def signer(self) -> TokenSigner:
        with self._signer_lock:
            if self._signer is None:
                self._signer = TokenSigner(
                    self._load_secret().encode(), max_ttl_s=self.config.token_ttl_s
                )
            return self._signer

    @property
    def gaming_day(self) -> GamingDay:
        """The gaming day of this process's settings."""
        return GamingDay.of(self.config)

    def use_settings(self, **changes: Any) -> None:
        """Change settings of this running process (tests): its requests' and its steps'
        from now on (those that open databases or pools: no change)."""
        self.config = self.config.with_(**changes)
        self.writer.config = self.config

    def _load_secret(self) -> str:
        """The ``secret`` setting (``PAIGOW_SECRET``), else the secret file (see
        :mod:`paigow.service.accounts.secret`); never the database."""
        from paigow.service.accounts.secret import load_or_create, secret_path

        secret = self.config.secret
        if secret:
            return secret
        return load_or_create(secret_path(self.db, self.config.data_dir))

    def read_session(self, sid: str) -> SessionState | None:
        """A session's user, whether it is revoked and when it was last used, read from the
        database and cached (:mod:`paigow.service.accounts.sessions`); None when there is no
        such session. A live session last used over a minute ago is noted as used now (a write
        that may fail, e.g. on a full database, without failing the request)."""
        from paigow.service.accounts.sessions import read_state, touch

        with self.db.read() as s:
            state = read_state(s, sid)
        if state is None:
            return None
        now = time.time()
        if self._due_touch(state, now):
            try:
                with self.write() as tx:
                    touch(tx.session, sid, now)
                state = state._replace(last_seen=now)
            except sa.exc.SQLAlchemyError as exc:  # the request goes on; noted next time
                _log.warning("could not note session use: %s", type(exc).__name__)
        self.sessions.remember(sid, state)
        return state

    async def session_state(self, sid: str) -> SessionState | None:
        """:meth:`read_session` for a request: the read by :meth:`request_read` (every player's
        session is read again each ``session_cache_s``), the rare note of its use as a step."""
        from paigow.service.accounts.sessions import state_of, touch

        state = await self.request_read(lambda tx: state_of(tx, sid))
        if state is None:
            return None
        now = time.time()
        if self._due_touch(state, now):
            try:
                await self.step(lambda tx: touch(tx.session, sid, now))
                state = state._replace(last_seen=now)
            except sa.exc.SQLAlchemyError as exc:  # the request goes on; noted next time
                _log.warning("could not note session use: %s", type(exc).__name__)
        self.sessions.remember(sid, state)
        return state

    def _due_touch(self, state: SessionState, now: float) -> bool:
        """Whether a live session's use is to be noted (last noted over a minute ago)."""
        from paigow.service.accounts.sessions import TOUCH_S

        idle_s = self.config.session_idle_s
        return (
            not state.revoked
            and (idle_s <= 0 or now - state.last_seen <= idle_s)
            and now - state.last_seen > (min(TOUCH_S, idle_s / 4) if idle_s > 0 else TOUCH_S)
        )

    async def user_principal(self, user_id: int) -> Principal | None:
        """:meth:`principal` for a request (its read by :meth:`request_read`)."""
        cached = self.cached_principal(user_id)
        if cached is not None:
            return cached
        t = time.monotonic()
        row = await self.request_read(lambda tx: tx.first(_PRINCIPAL, {"uid": user_id}))
        return None if row is None else self._keep(user_id, t, row)

    def _keep(self, user_id: int, t: float, row: Any) -> Principal:
        p = Principal(int(row[0]), str(row[1]), str(row[2]))
        if len(self._principals) > 100_000:
            self._principals.clear()
        self._principals[user_id] = (t + PRINCIPAL_TTL_S, p)
        return p

    def cached_principal(self, user_id: int) -> Principal | None:
        """The user (id, name, role) when cached and fresh, else None (no database read)."""
        hit = self._principals.get(user_id)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        return None

    def keep_principal(self, user: Principal) -> None:
        """Cache ``user`` (id, name, role) as :meth:`principal` would after reading it (a log-in
        knows its user: the session's first requests then need no read)."""
        p = Principal(user.id, user.username, user.role)
        self._principals[user.id] = (time.monotonic() + PRINCIPAL_TTL_S, p)

    def principal(self, user_id: int) -> Principal | None:
        """The user (id, name, role), cached for a few seconds."""
        cached = self.cached_principal(user_id)
        if cached is not None:
            return cached
        t = time.monotonic()
        with self.db.read() as s:
            row = s.execute(_PRINCIPAL.stmt, {"uid": user_id}).first()
        return None if row is None else self._keep(user_id, t, row)

    # ----------------------------------------------------------------------------- transactions
    async def step(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` as a step on the writer (see :mod:`paigow.service.store.writer`)."""
        return await self.writer.run(fn)

    async def reading(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` in a read-only transaction, for the event loop: on SQLite right here on a
        connection of its own (a read of a few rows takes microseconds, and WAL readers never
        wait for the writer), on PostgreSQL with its statements awaited."""
        return await self.writer.read(fn)

    async def request_read(self, fn: Callable[[Tx], T]) -> T:
        """A request's frequent read (a session, a user, a hand, a WebSocket's hello): on SQLite
        for the event loop (:meth:`reading`: no worker thread, no fresh session); on PostgreSQL
        on a worker thread from the request engine's pool, which leaves the steps' asyncio pool
        to the steps (at a room's opening hundreds of these reads there starved them)."""
        if not self.db.is_postgres:
            return await self.reading(fn)

        def read() -> T:
            with self.read() as tx:
                return fn(tx)

        return await asyncio.to_thread(read)

    def keep_notice_events(self, notice: Notice) -> None:
        """Keep the events another process's notice carries (see :class:`FreshEvents`), and
        bring this process's cached copy of the round up to them (:meth:`RoundCache.follow`),
        so that its next step at the table need not replay the round's log."""
        e, table_id = notice.events, notice.table_id
        if e is not None and table_id is not None:
            self.fresh.put(table_id, e.round_id, e.number, e.start, list(e.events), e.at, e.owners)
            self.rounds.follow(e.round_id, e.start, e.events)

    @contextmanager
    def write(self) -> Iterator[Tx]:
        """A write transaction of its own (cold paths and tests; the hot paths run as steps on
        the writer: :meth:`step`). Notices are sent at its commit as a step's are; a kept refusal
        (:class:`~paigow.service.store.unit.Refused`) is committed, then its error raised."""
        refused: Refused | None = None
        with self.db.write() as s:
            tx = Tx(
                s.connection(),
                s,
                rounds=self.rounds,
                fresh=self.fresh,
                trace=self.db.trace,
                config=self.config,
                project=floor_totals.project,
            )
            try:
                yield tx
            except Refused as r:  # kept: the step's record of its refusal, raised once committed
                refused = r
            tx.finish()
            notices = self.bus.seal(tx)
        try:
            tx.keep()
            tx.committed()
        finally:
            if notices:  # this process hears its own notices at once, never by LISTEN
                self.bus.publish_local(notices)
        if refused is not None:
            raise refused.error

    @contextmanager
    def read(self) -> Iterator[Tx]:
        """A read-only transaction (a consistent snapshot on SQLite's WAL) as a :class:`Tx`."""
        with self.db.read() as s:
            yield Tx(s.connection(), s, trace=self.db.trace, config=self.config)


def settle_memory() -> None:
    """Collect, then freeze what a started process holds (modules, routes, schemas, the ORM's
    mappings: never garbage), and collect the young generation every 20,000 allocations
    instead of 700: a full collection then scans only what requests and rounds left alive
    (before: pauses of up to 150 ms under load, each a stall of every table)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
