"""Table notices from whichever process changed a table to everyone who watches it.

A notice goes on a named :class:`Channel` (a table's, a user's wallet's, a user's sessions') and
says what changed there (its :class:`Kind`); watchers read what changed from the database, which
stays the only source of truth, unless the notice brings it: a round's notice carries the events
its step appended (:class:`RoundEvents`, when they fit in the payload), a wallet's notice the
committed balance and the wallet's version, which the database returned with the change, and a
meter's notice (on each table of its bank) the meter and its version.
Within a process notices fan out to callbacks on the event loop. With PostgreSQL every notice is
sent with ``pg_notify`` inside the transaction that made the change (so it is delivered exactly
when that transaction commits, and never if it rolls back) and every process, this one included,
receives it by ``LISTEN``; a lost connection is re-opened and every watcher is told to re-read.

A step announces what it changed with :func:`notify` and :func:`notify_wallet` (and the events
it appended, with :func:`appended`): they go in the step's outbox (:class:`Outbox`, the
``outbox`` of its ``Tx``'s step context), which :meth:`EventBus.seal` turns into the step's notices when it is done.

>>> Notice.decode(Notice(Channel.table(3), Kind.ROUND, origin=77).encode())
Notice(channel=Channel(scope=<Scope.TABLE: 't'>, id=3), kind=<Kind.ROUND: 'round'>, origin=77, balance=None, version=None, bank=None)
>>> wallet = Notice(Channel.wallet(7), Kind.WALLET, 0, 500, 2)
>>> decode_notices(encode_notices([wallet])) == [wallet]
True
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Protocol

import orjson

from paigow.service.aio import stop_tasks, woken
from paigow.service.ops import telemetry

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paigow.service.store.db import Database

log = logging.getLogger("paigow.service.bus")


class Scope(StrEnum):
    """What a :class:`Channel` is about."""

    TABLE = "t"
    """A table (its id): its seats, status, round, and the meters of its banks."""
    WALLET = "w"
    """A user's wallet (the user's id)."""
    SESSIONS = "s"
    """A user's sessions (the user's id)."""
    ALL = "*"
    """Every channel (subscribe only: :data:`ALL`)."""


@dataclass(frozen=True, order=True)
class Channel:
    """Where a notice goes, by name: ``Channel.table(3)``, ``Channel.wallet(7)``."""

    scope: Scope
    id: int

    @classmethod
    def table(cls, table_id: int) -> Channel:
        return cls(Scope.TABLE, table_id)

    @classmethod
    def wallet(cls, user_id: int) -> Channel:
        return cls(Scope.WALLET, user_id)

    @classmethod
    def sessions(cls, user_id: int) -> Channel:
        return cls(Scope.SESSIONS, user_id)


ALL: Final = Channel(Scope.ALL, 0)
"""Subscribe to it to hear every channel's notices."""


class Kind(StrEnum):
    """What a notice says changed."""

    ROUND = "round"
    """Events appended to a table's round: nothing for its dealer to do."""
    DUE = "due"
    """A dealer step may be due (see ``rounds.wake.notice_kind``)."""
    TABLE = "table"
    """A table's seats or status."""
    METER = "meter"
    """A progressive's meter moved (``bank``; ``balance`` and ``version``: the meter's)."""
    RESYNC = "resync"
    """Notices may have been lost (on :data:`ALL`): re-read everything."""
    WALLET = "wallet"
    """A user's wallet (``balance`` and ``version``: the wallet's)."""
    SESSIONS = "sessions"
    """A user's sessions were revoked."""


@dataclass(frozen=True)
class RoundEvents:
    """The events one step appended to a table's round: ``events`` from sequence number
    ``start`` on, the owners of the spots it wagered on (spot -> user id), and when the step
    was committed (epoch seconds)."""

    round_id: str
    number: int
    start: int
    events: tuple[dict[str, Any], ...]
    owners: dict[int, int]
    at: float

    def _data(self) -> dict[str, Any]:
        return {
            "r": self.round_id,
            "n": self.number,
            "s": self.start,
            "x": list(self.events),
            "w": {str(k): v for k, v in self.owners.items()},
            "a": self.at,
        }

    @classmethod
    def _of(cls, data: dict[str, Any]) -> RoundEvents:
        return cls(
            str(data["r"]),
            int(data["n"]),
            int(data["s"]),
            tuple(dict(e) for e in data["x"]),
            {int(k): int(v) for k, v in data["w"].items()},
            float(data["a"]),
        )


@dataclass(frozen=True)
class Notice:
    """What changed on a channel (the changes of one step, each announced once)."""

    channel: Channel
    kind: Kind
    origin: int = 0
    """The event bus (one per process) whose process committed the change; 0: unknown."""
    balance: int | None = None
    """A wallet notice's committed balance (cents), with the wallet's ``version`` (which grows
    by one with every change, so that a watcher keeps the latest whatever the order notices
    arrive in); None in other notices and where a reader must read it."""
    version: int | None = None
    bank: str | None = None
    """A meter notice's bank."""
    events: RoundEvents | None = field(default=None, compare=False, repr=False)
    """The events the step appended to the table's round, when the notice carries them."""

    @property
    def table_id(self) -> int | None:
        """The table of a table's notice (None: another channel's)."""
        return self.channel.id if self.channel.scope is Scope.TABLE else None

    def encode(self) -> str:
        return orjson.dumps(self._data(), option=orjson.OPT_NON_STR_KEYS).decode()

    def _data(self, events: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {"t": self.channel.id, "k": self.kind.value, "o": self.origin}
        if self.channel.scope is not Scope.TABLE:
            data["c"] = self.channel.scope.value
        if self.bank is not None:
            data["m"] = self.bank
        if self.balance is not None and self.version is not None:
            data["b"], data["v"] = self.balance, self.version
        if events and self.events is not None:
            data["e"] = self.events._data()
        return data

    @classmethod
    def decode(cls, text: str) -> Notice:
        return cls._of(orjson.loads(text))

    @classmethod
    def _of(cls, data: dict[str, Any]) -> Notice:
        balance, version = data.get("b"), data.get("v")
        events, bank = data.get("e"), data.get("m")
        return cls(
            Channel(Scope(data.get("c", Scope.TABLE.value)), int(data["t"])),
            Kind(data["k"]),
            int(data.get("o", 0)),
            None if balance is None or version is None else int(balance),
            None if balance is None or version is None else int(version),
            None if bank is None else str(bank),
            None if events is None else RoundEvents._of(events),
        )


PAYLOAD_LIMIT = 7900
"""PostgreSQL refuses a ``NOTIFY`` payload of 8000 bytes or more."""


def encode_notices(notices: list[Notice]) -> str:
    """Several notices in one ``pg_notify`` payload (a JSON list: one statement per step);
    without their events when those would not fit (the listeners then read the database)."""
    opts = orjson.OPT_NON_STR_KEYS
    text = orjson.dumps([n._data() for n in notices], option=opts).decode()
    if len(text.encode()) < PAYLOAD_LIMIT:
        return text
    return orjson.dumps([n._data(events=False) for n in notices], option=opts).decode()


def decode_notices(text: str, *, besides: int | None = None) -> list[Notice]:
    """The notices of a payload: a list (:func:`encode_notices`) or one notice; ``besides``:
    leave out those of that origin (a process's own, delivered to it at their commit) before
    their events are read.

    >>> own = Notice(Channel.table(3), Kind.ROUND, origin=5)
    >>> other = Notice(Channel.table(4), Kind.ROUND, origin=6)
    >>> decode_notices(encode_notices([own, other]), besides=5) == [other]
    True
    """
    data = orjson.loads(text)
    items = data if isinstance(data, list) else [data]
    return [Notice._of(d) for d in items if besides is None or d.get("o", 0) != besides]


Batch = tuple[int, str, int, int, list[dict[str, Any]], dict[int, int]]
"""Events a step appended to a round's log: (table id, round id, round number, first sequence
number, events, owners of the spots wagered on)."""


@dataclass
class Outbox:
    """What a step leaves for its commit to announce."""

    notices: list[Notice] = field(default_factory=list)
    wallets: dict[int, tuple[int, int]] = field(default_factory=dict)
    """user id -> (wallet version, balance) of the wallets the step changed."""
    batches: list[Batch] = field(default_factory=list)
    """What the step appended to rounds' logs."""


class _Step(Protocol):
    """What the bus needs of a step's context (its outbox)."""

    @property
    def outbox(self) -> Outbox: ...


class Tx(Protocol):
    """What the bus needs of a step (a :class:`paigow.service.store.unit.Tx`)."""

    is_postgres: bool

    @property
    def step(self) -> _Step: ...

    def text(
        self,
        statement: str,
        params: Sequence[Any] | Mapping[str, Any] = (),
        *,
        later: bool = False,
    ) -> Any: ...


def outbox(tx: Tx) -> Outbox:
    """The step's outbox.

    >>> from types import SimpleNamespace
    >>> step = SimpleNamespace(step=SimpleNamespace(outbox=Outbox()))  # a Tx, for its outbox
    >>> notify(step, 3)
    >>> notify_wallet(step, 7, 500, 2)
    >>> notify_wallet(step, 7, 450, 3)
    >>> [(n.table_id, n.kind.value) for n in outbox(step).notices], outbox(step).wallets
    ([(3, 'round')], {7: (3, 450)})
    """
    return tx.step.outbox


def notify(tx: Tx, table_id: int, kind: Kind = Kind.ROUND) -> None:
    """Announce, when ``tx`` commits, that table ``table_id`` changed."""
    outbox(tx).notices.append(Notice(Channel.table(table_id), kind))


def notify_sessions(tx: Tx, user_id: int) -> None:
    """Announce, when ``tx`` commits, that sessions of ``user_id`` were revoked."""
    outbox(tx).notices.append(Notice(Channel.sessions(user_id), Kind.SESSIONS))


def notify_meter(tx: Tx, table_ids: list[int], bank: str, meter: int | None, v: int | None) -> None:
    """Announce, when ``tx`` commits, the bank's meter (cents, at its version ``v``; both None:
    the meter moved, its watchers read it) to each of ``table_ids`` (the bank's tables)."""
    box = outbox(tx)
    for table_id in table_ids:
        box.notices.append(Notice(Channel.table(table_id), Kind.METER, 0, meter, v, bank))


def notify_wallet(tx: Tx, user_id: int, balance: int, version: int) -> None:
    """Announce, when ``tx`` commits, ``user_id``'s wallet balance after a change, at the
    wallet's ``version`` (on :meth:`Channel.wallet`). The transaction's last change of a
    wallet is the one announced."""
    outbox(tx).wallets[user_id] = (version, balance)


def appended(
    tx: Tx,
    table_id: int,
    round_id: str,
    number: int,
    start: int,
    events: list[dict[str, Any]],
    owners: dict[int, int],
) -> None:
    """The step appended ``events`` to a round's log (from sequence number ``start``): the
    table's notice carries them; a later append of the same round that follows on joins the
    same batch."""
    batches = outbox(tx).batches
    if batches:
        t, r, n, s0, evs, own = batches[-1]
        if (t, r) == (table_id, round_id) and s0 + len(evs) == start:
            batches[-1] = (t, r, n, s0, evs + events, {**own, **owners})
            return
    batches.append((table_id, round_id, number, start, list(events), dict(owners)))


def appended_batches(tx: Tx) -> list[Batch]:
    """What the step appended to rounds' logs (:func:`appended`), in order."""
    return tx.step.outbox.batches


Callback = Callable[[Notice], None]


class EventBus:
    """Fan-out of :class:`Notice` s; callbacks run on the event loop's thread."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subs: dict[Channel, set[Callback]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None
        self.on_events: Callback | None = None
        """Called first with every notice from another process that carries events (the
        process keeps them for its feeds)."""
        self.listening = asyncio.Event()
        self.delivered = 0
        self.origin = secrets.randbits(48) | 1
        """Stamped on the notices of this process's commits, which it delivers to itself at
        once (and so skips when LISTEN brings them back)."""

    @property
    def uses_notify(self) -> bool:
        return self.db.is_postgres

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        if self.uses_notify:
            self._task = asyncio.create_task(self._listen(), name="paigow-listen")
            await woken(self.listening, 10)

    async def stop(self) -> None:
        if self._task is not None:
            await stop_tasks([self._task])
            self._task = None

    # ----------------------------------------------------------------------------- subscribing
    def subscribe(self, channel: Channel, callback: Callback) -> None:
        self._subs[channel].add(callback)

    def unsubscribe(self, channel: Channel, callback: Callback) -> None:
        subs = self._subs.get(channel)
        if subs is not None:
            subs.discard(callback)
            if not subs:
                self._subs.pop(channel, None)

    def _dispatch(self, notice: Notice) -> None:
        self.delivered += 1
        targets = list(self._subs.get(ALL, ()))
        if notice.channel != ALL:
            targets = list(self._subs.get(notice.channel, ())) + targets
        for cb in targets:
            try:
                cb(notice)
            except Exception:  # a watcher's fault must not stop the others
                log.exception("a notice callback failed")

    # ----------------------------------------------------------------------------- publishing
    def seal(self, tx: Tx) -> list[Notice]:
        """The notices of a finished step (this process's origin stamped on them, a table's
        first notice carrying the events the step appended to its round); with PostgreSQL they
        are sent with ``pg_notify`` in its transaction, in one statement."""
        box = tx.step.outbox
        if not box.notices and not box.wallets:
            return []
        origin = self.origin
        at = time.time()
        batches = {t: RoundEvents(r, n, s0, tuple(e), w, at) for t, r, n, s0, e, w in box.batches}
        notices = []
        for n in dict.fromkeys(box.notices):
            events = None if n.table_id is None else batches.pop(n.table_id, None)
            notices.append(replace(n, origin=origin, events=events))
        notices += [
            Notice(Channel.wallet(user_id), Kind.WALLET, origin, balance, version)
            for user_id, (version, balance) in box.wallets.items()
        ]
        if notices and tx.is_postgres:
            payload = encode_notices(notices)
            tx.text("SELECT pg_notify(%s, %s)", (self.db.channel(), payload), later=True)
        return notices

    def publish_local(self, notices: list[Notice]) -> None:
        """Deliver ``notices`` to this process's watchers (thread-safe; after commit)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        for n in dict.fromkeys(notices):
            try:
                loop.call_soon_threadsafe(self._dispatch, n)
            except RuntimeError:  # the loop closed meanwhile
                return

    def dispatch_all(self, notices: list[Notice]) -> None:
        """Deliver ``notices`` now (on the event loop's thread), each once."""
        for n in dict.fromkeys(notices):
            self._dispatch(n)

    def resync_all(self) -> None:
        self._dispatch(Notice(ALL, Kind.RESYNC))

    # ----------------------------------------------------------------------------- LISTEN
    async def _listen(self) -> None:
        import psycopg

        channel = self.db.channel()
        delay = 0.2
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.db.psycopg_conninfo("listen"), autocommit=True
                )
                async with conn:
                    await conn.execute(f"LISTEN {channel}")
                    if self.listening.is_set():  # a reconnection: we may have missed notices
                        self.resync_all()
                    self.listening.set()
                    delay = 0.2
                    async for n in conn.notifies():
                        try:  # ours were delivered at their commit
                            notices = decode_notices(n.payload, besides=self.origin)
                        except (ValueError, KeyError, TypeError, AttributeError):
                            continue
                        for notice in notices:
                            if notice.events is not None:  # sealed at events.at, elsewhere
                                telemetry.notice_heard(notice.events.at)
                            if notice.events is not None and self.on_events is not None:
                                try:
                                    self.on_events(notice)
                                except Exception:
                                    log.exception("keeping a notice's events failed")
                            self._dispatch(notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN connection lost (%s); reconnecting", type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
