"""Everything one server process shares: the database, the configuration, the event bus, the
password hasher and its thread pool, the token signer, the limits (log-ins, registrations,
WebSockets), the writer that runs the steps (:mod:`paigow.service.store.writer`); and transactions
that send table notices when (and only when) they commit."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from paigow.errors import PaigowError
from paigow.round import Round
from paigow.service.accounts.auth import Passwords, Principal, TokenSigner
from paigow.service.store.bus import EventBus, Notice, RoundEvents, encode_notices
from paigow.service.store.db import Database, User
from paigow.service.store.sql import Tx

if TYPE_CHECKING:
    from paigow.service.config import ServiceConfig

PRINCIPAL_TTL_S = 30.0
T = TypeVar("T")


class RoundCache:
    """Rounds rebuilt from their logs, kept between transactions of this process so that the
    next step need not replay the log again. An entry is used only when the database's event
    count still matches (another process may have moved the round on), is taken out while a
    transaction uses it, and is put back only after that transaction commits."""

    def __init__(self, size: int = 512) -> None:
        self._items: OrderedDict[str, tuple[int, Round]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, round_id: str, event_count: int) -> Round | None:
        with self._lock:
            item = self._items.pop(round_id, None)
        if item is None or item[0] != event_count:
            return None
        return item[1]

    def follow(self, round_id: str, start: int, events: Sequence[dict[str, Any]]) -> bool:
        """Bring the cached copy of a round up to ``events``, committed by another process
        from sequence number ``start`` on (what its notice carried), when the copy is exactly
        at ``start`` (a copy at another step is left as it is; one the events do not agree
        with is dropped, and a step replays the log). True: the copy is kept, up to date.

        >>> import random
        >>> cache = RoundCache()
        >>> r = Round(round_id="r")
        >>> cache.put(Round.replay(r.events))
        >>> new = r.wager(2, 500)
        >>> cache.follow("r", 1, [e.to_dict() for e in new])
        True
        >>> cache.take("r", 2).wagers
        {2: 500}
        """
        with self._lock:
            item = self._items.get(round_id)
            if item is None or item[0] != start:
                return False  # not here, or another copy (in use, or already further on)
            del self._items[round_id]
        rnd = item[1]
        try:
            rnd.follow(events)
        except PaigowError:
            return False  # no copy rather than a wrong one
        if rnd.is_over:
            return False
        self.put(rnd)
        return True

    def put(self, rnd: Round) -> None:
        with self._lock:
            self._items[rnd.round_id] = (len(rnd.events), rnd)
            self._items.move_to_end(rnd.round_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


@dataclass
class FreshRound:
    """What this process committed of one table's latest round: events by sequence number
    (each with the time its transaction committed) and the wagers' owners (spot -> user id)."""

    round_id: str
    number: int
    events: dict[int, tuple[dict[str, Any], float]] = field(default_factory=dict)
    owners: dict[int, int] = field(default_factory=dict)


class FreshEvents:
    """The events just committed, kept per table for the live feeds, so that a feed hands them
    on without reading them back from the database: this process's (filled after each commit,
    never before, never on a rollback) and other processes' (from their notices, which carry
    their step's events). A feed takes from it only a run of events that follows on what it has
    shown, and reads the database otherwise (a notice came without its events, or a gap).

    >>> fresh = FreshEvents()
    >>> fresh.put(1, "r1", 1, 0, [{"type": "round-started"}], 10.0, {})
    >>> fresh.put(1, "r1", 1, 2, [{"type": "wager-placed"}], 12.0, {2: 7})
    >>> [seq for seq, _, _ in fresh.run(1, "r1", 0)[1]]  # seq 1 is not here (yet)
    [0]
    >>> fresh.run(1, "r1", 1)[1], fresh.run(1, "r1", 2)[2]
    ([], {2: 7})
    """

    def __init__(self) -> None:
        self._tables: dict[int, FreshRound] = {}
        self._lock = threading.Lock()

    def put(
        self,
        table_id: int,
        round_id: str,
        number: int,
        start: int,
        events: list[dict[str, Any]],
        at: float,
        owners: dict[int, int],
    ) -> None:
        with self._lock:
            fresh = self._tables.get(table_id)
            if fresh is None or fresh.round_id != round_id:
                if fresh is not None and fresh.number > number:
                    return  # an older round's late callback
                fresh = self._tables[table_id] = FreshRound(round_id, number)
            for i, e in enumerate(events):
                fresh.events[start + i] = (e, at)
            fresh.owners.update(owners)

    def latest(self, table_id: int) -> tuple[str, int] | None:
        """The round id and number of the table's latest round committed here."""
        with self._lock:
            fresh = self._tables.get(table_id)
            return None if fresh is None else (fresh.round_id, fresh.number)

    def run(
        self, table_id: int, round_id: str, start: int
    ) -> tuple[int, list[tuple[int, dict[str, Any], float]], dict[int, int]]:
        """The round's number, its events from ``start`` on as far as they run without a gap,
        and its owners (the events of one commit and their owners arrive together)."""
        with self._lock:
            fresh = self._tables.get(table_id)
            if fresh is None or fresh.round_id != round_id:
                return 0, [], {}
            out = []
            seq = start
            while seq in fresh.events:
                e, at = fresh.events[seq]
                out.append((seq, e, at))
                seq += 1
            return fresh.number, out, dict(fresh.owners)

    def drop(self, table_id: int) -> None:
        with self._lock:
            self._tables.pop(table_id, None)


class Runtime:
    """Shared state of one process."""

    def __init__(self, config: ServiceConfig, db: Database | None = None) -> None:
        self.config = config
        self.db = db or Database(
            config.database_url,
            pool_size=config.pg_connections,
            step_pool_size=config.pg_step_connections,
        )
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
        self.ws_caps = ConnectionCaps(config.ws_per_user, config.ws_per_addr)
        from paigow.service.api import idempotency

        idempotency.TTL_S = float(config.idempotency_ttl_s)
        self._signer: TokenSigner | None = None
        self._signer_lock = threading.Lock()
        self.rounds = RoundCache()
        self.fresh = FreshEvents()
        self.caches: dict[str, Any] = {"rounds": self.rounds, "fresh": self.fresh}
        """What a step's :class:`Tx` finds in its ``info``: the caches steps keep."""
        self._principals: dict[int, tuple[float, Principal]] = {}
        from paigow.service.store.writer import PostgresWriter, SqliteWriter, Writer

        self.writer: Writer = SqliteWriter(self) if self.db.is_sqlite else PostgresWriter(self)

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

    def _load_secret(self) -> str:
        """``PAIGOW_SECRET`` (or the ``secret`` setting), else the secret file (see
        :mod:`paigow.service.accounts.secret`); never the database."""
        from paigow.service.accounts.secret import load_or_create, secret_path

        secret = self.config.secret or os.environ.get("PAIGOW_SECRET")
        if secret:
            return secret
        return load_or_create(secret_path(self.db, self.config.data_dir))

    def cached_principal(self, user_id: int) -> Principal | None:
        """The user (id, name, role) when cached and fresh, else None (no database read)."""
        hit = self._principals.get(user_id)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        return None

    def principal(self, user_id: int) -> Principal | None:
        """The user (id, name, role), cached for a few seconds."""
        cached = self.cached_principal(user_id)
        if cached is not None:
            return cached
        t = time.monotonic()
        with self.db.read() as s:
            row = s.execute(
                sa.select(User.id, User.username, User.role).where(User.id == user_id)
            ).first()
        if row is None:
            return None
        p = Principal(int(row[0]), str(row[1]), str(row[2]))
        if len(self._principals) > 100_000:
            self._principals.clear()
        self._principals[user_id] = (t + PRINCIPAL_TTL_S, p)
        return p

    # ----------------------------------------------------------------------------- transactions
    async def step(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` as a step on the writer (see :mod:`paigow.service.store.writer`)."""
        return await self.writer.run(fn)

    async def reading(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn`` in a read-only transaction, for the event loop: on SQLite right here on a
        connection of its own (a read of a few rows takes microseconds, and WAL readers never
        wait for the writer), on PostgreSQL with its statements awaited."""
        return await self.writer.read(fn)

    def seal(self, tx: Tx) -> list[Notice]:
        """The notices of a finished step (this process's origin stamped on them, a table's
        first notice carrying the events the step appended to its round); with PostgreSQL they
        are sent with ``pg_notify`` in its transaction, in one statement. Once the step has
        committed, its events go to this process's :class:`FreshEvents` (for its feeds)."""
        origin = self.bus.origin
        at = time.time()
        batches = {t: RoundEvents(r, n, s0, tuple(e), w, at) for t, r, n, s0, e, w in tx.batches}
        notices = []
        for n in dict.fromkeys(tx.notices):
            notices.append(replace(n, origin=origin, events=batches.pop(n.table_id, None)))
        notices += [
            Notice(-user_id, WALLET, origin, balance, version)
            for user_id, (version, balance) in tx.wallets.items()
        ]
        if notices and tx.is_postgres:
            payload = encode_notices(notices)
            tx.text("SELECT pg_notify(%s, %s)", (self.db.channel(), payload), later=True)
        if tx.batches:
            kept = list(tx.batches)
            tx.after.append(lambda: self._keep_fresh(kept))
        return notices

    def _keep_fresh(
        self, batches: list[tuple[int, str, int, int, list[dict[str, Any]], dict[int, int]]]
    ) -> None:
        at = time.time()
        for table_id, rid, number, start, events, owners in batches:
            self.fresh.put(table_id, rid, number, start, events, at, owners)

    def keep_notice_events(self, notice: Notice) -> None:
        """Keep the events another process's notice carries (see :class:`FreshEvents`), and
        bring this process's cached copy of the round up to them (:meth:`RoundCache.follow`),
        so that its next step at the table need not replay the round's log."""
        e = notice.events
        if e is not None:
            self.fresh.put(
                notice.table_id, e.round_id, e.number, e.start, list(e.events), e.at, e.owners
            )
            self.rounds.follow(e.round_id, e.start, e.events)

    @contextmanager
    def write(self) -> Iterator[Tx]:
        """A write transaction of its own (cold paths and tests; the hot paths run as steps on
        the writer: :meth:`step`). Notices are sent at its commit as a step's are."""
        tx: Tx | None = None
        try:
            with self.db.write() as s:
                tx = Tx(s.connection(), s, caches=self.caches, trace=self.db.trace)
                yield tx
                tx.finish()
                notices = self.seal(tx)
        except BaseException:
            if tx is not None:
                for undo in tx.undone:
                    undo()
            raise
        try:
            for fn in (*tx.kept, *tx.after):
                fn()
        finally:
            if notices:  # this process hears its own notices at once, never by LISTEN
                self.bus.publish_local(notices)

    @contextmanager
    def read(self) -> Iterator[Tx]:
        """A read-only transaction (a consistent snapshot on SQLite's WAL) as a :class:`Tx`."""
        with self.db.read() as s:
            yield Tx(s.connection(), s, trace=self.db.trace)


def settle_memory() -> None:
    """Collect, then freeze what a started process holds (modules, routes, schemas, the ORM's
    mappings: never garbage), and collect the young generation every 20,000 allocations
    instead of 700: a full collection then scans only what requests and rounds left alive
    (before: pauses of up to 150 ms under load, each a stall of every table)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def after_commit(tx: Tx, fn: Callable[[], None]) -> None:
    """Run ``fn`` once ``tx``'s transaction has committed (never if it rolls back)."""
    tx.after.append(fn)


def notify(tx: Tx, table_id: int, kind: str = "round") -> None:
    """Announce, when ``tx`` commits, that table ``table_id`` changed."""
    tx.notices.append(Notice(table_id, kind))


WALLET = "wallet"
"""The kind of notice that says "user N's wallet changed" (sent on channel ``-N``)."""


def notify_wallet(tx: Tx, user_id: int, balance: int, version: int) -> None:
    """Announce, when ``tx`` commits, ``user_id``'s wallet balance after a change, at the
    wallet's ``version`` (watchers subscribe to ``-user_id`` on the bus, apart from every
    table's number). The transaction's last change of a wallet is the one announced."""
    tx.wallets[user_id] = (version, balance)
