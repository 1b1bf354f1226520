"""Live table feeds for WebSocket clients: one feed per watched table per process.

A feed listens for the table's notices (:mod:`paigow.service.store.bus`), takes what is new
from the events the notices brought (this process's commits, and other processes' notices that
carry their step's events), or else reads it from the database, once for all its watchers, and
hands each watcher the new events, which the watcher shows as its viewer may see them
(:mod:`paigow.service.game.visibility`). Whatever the order or number of
notices, every watcher gets each event once and in order: items carry the round's number and the
event's sequence number, and a watcher skips what it has already shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import orjson
import sqlalchemy as sa

from paigow.service.game.side_offers import read_meter
from paigow.service.game.table_rows import read_state
from paigow.service.game.visibility import private_spots, view_event
from paigow.service.live.hellos import SharedReads
from paigow.service.live.retries import read_again
from paigow.service.runtime import Runtime
from paigow.service.store.bus import ALL, Channel, Kind, Notice
from paigow.service.store.db import RoundEvent, RoundRow, RoundWager
from paigow.service.store.unit import Tx

log = logging.getLogger("paigow.service.live.feeds")
QUEUE_LIMIT = 2000
COALESCE_S = 0.005
METER_EVERY_S = 1.0
"""A process reads a bank's moving meter, and pushes it to the bank's tables, at most once in
this many seconds, always its latest (as a casino's meter sign climbs): a settlement at any of
the bank's tables moves it, so unpaced, every table's viewers would be sent every table's."""
PHASE_EVENTS = frozenset({"round-started", "dealt", "dealer-set", "round-settled", "voided"})
ROUND_OVER = frozenset({"round-settled", "voided"})


@dataclass(frozen=True)
class EventItem:
    """Event ``seq`` of round ``round_id``; ``log`` is that round's log so far (at least up to
    ``seq``) and ``owners`` maps spots to the users who wagered on them; ``at``: when the event
    was committed (epoch seconds; from the database: when it was written, just before)."""

    round_id: str
    number: int
    seq: int
    log: list[dict[str, Any]]
    owners: dict[int, int]
    at: float | None = None
    rendered: dict[frozenset[int], str | None] = field(default_factory=dict, compare=False)

    def text(self, viewer_id: int | None) -> str | None:
        """The event as JSON text for one viewer (None: nothing to show it). Rendered once per
        set of spots a viewer holds (most viewers hold none at a given table and share one)."""
        spots = frozenset(
            s for s, uid in self.owners.items() if viewer_id is not None and uid == viewer_id
        )
        if spots:  # only a viewer's cards and own settings are shown apart
            spots &= private_spots(self.log[self.seq])
        if spots in self.rendered:
            return self.rendered[spots]
        shown = view_event(self.log, self.seq, spots)
        text = None
        if shown is not None:
            message = {
                "round_id": self.round_id,
                "round_number": self.number,
                "seq": self.seq,
                **shown,
                "committed_at": self.at,
            }
            text = orjson.dumps(message).decode()
        self.rendered[spots] = text
        return text


@dataclass(frozen=True)
class TableItem:
    state: dict[str, Any]


@dataclass(frozen=True)
class WalletItem:
    """The watching user's wallet balance (cents) after a change."""

    balance: int

    def message(self) -> dict[str, Any]:
        return {"type": "wallet", "balance": self.balance}


@dataclass(frozen=True)
class MeterItem:
    """A progressive bank's meter (cents) after a change: pushed to every table of the bank."""

    bank: str
    meter: int

    def message(self) -> dict[str, Any]:
        return {"type": "meter", "bank": self.bank, "meter": self.meter}


Item = EventItem | TableItem | WalletItem | MeterItem


@dataclass
class _RoundData:
    round_id: str
    number: int
    events: list[tuple[int, dict[str, Any], float | None]]
    owners: dict[int, int] | None  # None: unchanged


class TableFeed:
    def __init__(self, hub: FeedHub, table_id: int) -> None:
        self.hub = hub
        self.table_id = table_id
        self.subscribers: set[asyncio.Queue[Item | None]] = set()
        self.round_id: str | None = None
        self.number = 0
        self.log: list[dict[str, Any]] = []
        self.owners: dict[int, int] = {}
        self._round_dirty = False
        self._table_dirty = False
        self._foreign = False  # a notice of another process's commit (or a resync) came
        self._task: asyncio.Task[None] | None = None
        self._started = False
        self._meters: dict[str, int] = {}
        """The version of each bank's meter last pushed (a meter's versions only grow)."""

    # ----------------------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        self.hub.rt.bus.subscribe(Channel.table(self.table_id), self.on_notice)
        self.hub.rt.bus.subscribe(ALL, self._on_any)
        latest = await asyncio.to_thread(self._latest)
        if latest is not None:
            self.round_id, self.number, self.log, self.owners = latest

    def stop(self) -> None:
        self.hub.rt.bus.unsubscribe(Channel.table(self.table_id), self.on_notice)
        self.hub.rt.bus.unsubscribe(ALL, self._on_any)
        if self._task is not None:
            self._task.cancel()
        for q in self.subscribers:
            with contextlib.suppress(asyncio.QueueFull):
                q.put_nowait(None)

    def _latest(self) -> tuple[str, int, list[dict[str, Any]], dict[int, int]] | None:
        with self.hub.rt.db.read() as s:
            row = s.execute(
                sa.select(RoundRow)
                .where(RoundRow.table_id == self.table_id)
                .order_by(RoundRow.number.desc())
                .limit(1)
            ).scalar_one_or_none()
            if row is None:
                return None
            events = [
                dict(d)
                for d in s.execute(
                    sa.select(RoundEvent.data)
                    .where(RoundEvent.round_id == row.id)
                    .order_by(RoundEvent.seq)
                ).scalars()
            ]
            owners = {
                spot: uid
                for spot, uid in s.execute(
                    sa.select(RoundWager.spot, RoundWager.user_id).where(
                        RoundWager.round_id == row.id
                    )
                ).all()
            }
            return row.id, row.number, events, owners

    def subscribe(self) -> asyncio.Queue[Item | None]:
        q: asyncio.Queue[Item | None] = asyncio.Queue(QUEUE_LIMIT)
        self.subscribers.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[Item | None]) -> None:
        self.subscribers.discard(q)
        if not self.subscribers:
            self.hub.drop(self)

    # ----------------------------------------------------------------------------- notices
    def _on_any(self, notice: Notice) -> None:
        if notice.kind is Kind.RESYNC:
            self.on_notice(notice)

    def on_notice(self, notice: Notice) -> None:
        if notice.kind is Kind.METER and notice.bank is not None:
            bank = notice.bank
            if notice.balance is not None and notice.version is not None:
                self.offer_meter(bank, notice.balance, notice.version)
            else:  # the meter moved by a delta: the process reads it once for all its tables
                self.hub.read_meter(bank, self)
            return
        if notice.kind in (Kind.ROUND, Kind.DUE, Kind.RESYNC):
            self._round_dirty = True
            if notice.origin != self.hub.rt.bus.origin and notice.events is None:
                self._foreign = True  # another process wrote what this one has not heard
        if notice.kind in (Kind.TABLE, Kind.RESYNC):
            self._table_dirty = True
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._refresh(), name=f"feed-{self.table_id}")

    async def _refresh(self) -> None:
        await asyncio.sleep(COALESCE_S)  # let a burst of notices become one read
        while self._round_dirty or self._table_dirty:
            round_dirty, table_dirty = self._round_dirty, self._table_dirty
            foreign = self._foreign
            self._round_dirty = self._table_dirty = self._foreign = False
            try:
                if round_dirty:
                    fresh = None if foreign else self._fresh()
                    if fresh is not None:
                        self._apply(fresh)
                    else:
                        for data in await asyncio.to_thread(
                            self._load_new, self.round_id, self.number, len(self.log)
                        ):
                            self._apply(data)
                if table_dirty:
                    state = await self.hub.rt.reading(self._state)
                    if state is not None:
                        self._broadcast(TableItem(state))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("feed of table %s: %s: %s", self.table_id, type(exc).__name__, exc)
                await asyncio.sleep(0.2)

    def _fresh(self) -> _RoundData | None:
        """What is new, from the events just committed (this process's own, and those other
        processes' notices brought), when they follow on from what the feed has (called only
        when no notice since the last look lacked its events); None: read the database."""
        fresh = self.hub.rt.fresh
        latest = fresh.latest(self.table_id)
        if latest is None:
            return None
        round_id, number = latest
        if round_id == self.round_id:
            start = len(self.log)
        elif number == self.number + 1 and (
            self.round_id is None or (self.log and self.log[-1].get("type") in ROUND_OVER)
        ):
            start = 0  # the next round, and the feed has seen all of the last one
        else:
            return None
        number, events, owners = fresh.run(self.table_id, round_id, start)
        if not events:
            return None  # nothing here follows on: another writer, or a late callback
        if round_id == self.round_id:  # the owners of wagers another process took stay known
            owners = {**self.owners, **owners}
        return _RoundData(round_id, number, [(q, e, at) for q, e, at in events], owners)

    def _state(self, tx: Tx) -> dict[str, Any] | None:
        return read_state(tx, self.table_id)

    def offer_meter(self, bank: str, meter: int, version: int) -> None:
        """Push a bank's meter unless a later one was pushed (a meter's versions only grow)."""
        if version > self._meters.get(bank, -1):
            self._meters[bank] = version
            self._broadcast(MeterItem(bank, meter))

    def _load_new(self, round_id: str | None, number: int, next_seq: int) -> list[_RoundData]:
        out = []
        with self.hub.rt.db.read() as s:
            rows = s.execute(
                sa.select(RoundRow.id, RoundRow.number)
                .where(RoundRow.table_id == self.table_id, RoundRow.number >= number)
                .order_by(RoundRow.number)
            ).all()
            for rid, num in rows:
                start = next_seq if rid == round_id else 0
                if num == number and rid != round_id:
                    start = 0
                events = [
                    (seq, dict(d), at)
                    for seq, d, at in s.execute(
                        sa.select(RoundEvent.seq, RoundEvent.data, RoundEvent.created_at)
                        .where(RoundEvent.round_id == rid, RoundEvent.seq >= start)
                        .order_by(RoundEvent.seq)
                    ).all()
                ]
                owners: dict[int, int] | None = None
                if rid != round_id or any(e.get("type") == "wager-placed" for _, e, _ in events):
                    owners = {
                        spot: uid
                        for spot, uid in s.execute(
                            sa.select(RoundWager.spot, RoundWager.user_id).where(
                                RoundWager.round_id == rid
                            )
                        ).all()
                    }
                out.append(_RoundData(rid, num, events, owners))
        return out

    def _apply(self, data: _RoundData) -> bool:
        """Hand the new events to the watchers; True when the round's phase changed."""
        if data.round_id != self.round_id:
            if data.number < self.number:
                return False
            self.round_id, self.number, self.log = data.round_id, data.number, []
            self.owners = {}
        if data.owners is not None:
            self.owners = data.owners
        owners = self.owners
        phase_changed = False
        for seq, event, at in data.events:
            if seq != len(self.log):
                continue  # already seen (or a gap that the next refresh fills)
            self.log.append(event)
            self._broadcast(EventItem(data.round_id, data.number, seq, self.log, owners, at))
            phase_changed |= event.get("type") in PHASE_EVENTS
        return phase_changed

    def _broadcast(self, item: Item) -> None:
        for q in list(self.subscribers):
            try:
                q.put_nowait(item)
            except asyncio.QueueFull:  # a client that does not read: cut it off
                self.subscribers.discard(q)
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
                with contextlib.suppress(asyncio.QueueFull):
                    q.put_nowait(None)


class FeedHub:
    """The feeds of one process."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.feeds: dict[int, TableFeed] = {}
        self.hellos: SharedReads[int, Any] = SharedReads()
        """The WebSocket hellos' reads of a table, shared by those that arrive together."""
        self._meter_watchers: dict[str, set[TableFeed]] = {}
        """The banks whose meter moved by a delta, each with the feeds told so (to read)."""
        self._meter_task: asyncio.Task[None] | None = None
        self._meter_read_at: dict[str, float] = {}
        """When each bank's meter was last read (the loop's clock: :data:`METER_EVERY_S`)."""

    def read_meter(self, bank: str, feed: TableFeed) -> None:
        """Read ``bank``'s meter for ``feed`` (a settlement told every table of the bank that
        it moved): one read for every feed told in a burst of notices, not one a table, and at
        most one in :data:`METER_EVERY_S` (the notices meanwhile wait for it)."""
        self._meter_watchers.setdefault(bank, set()).add(feed)
        if self._meter_task is None or self._meter_task.done():
            self._meter_task = asyncio.create_task(self._read_meters(), name="feed-meters")

    async def _read_meters(self) -> None:
        await asyncio.sleep(COALESCE_S)  # let a burst of notices (a table each) become one read
        # a failed read is tried again: nothing else says it moved; a notice that comes during
        # a read (or while a bank waits for its turn) puts its bank back, read after it
        loop = asyncio.get_running_loop()
        while self._meter_watchers:
            bank = min(self._meter_watchers, key=lambda b: self._meter_read_at.get(b, 0.0))
            wait = self._meter_read_at.get(bank, 0.0) + METER_EVERY_S - loop.time()
            if wait > 0:  # read at most once in METER_EVERY_S: the notices meanwhile join it
                await asyncio.sleep(wait)
            feeds = self._meter_watchers.pop(bank)
            self._meter_read_at[bank] = loop.time()
            read = partial(self.rt.reading, partial(read_meter, bank=bank))
            if (got := await read_again(read, f"meter {bank}")) is not None:
                for feed in feeds:
                    feed.offer_meter(bank, *got)

    async def feed(self, table_id: int) -> TableFeed:
        feed = self.feeds.get(table_id)
        if feed is None:
            feed = TableFeed(self, table_id)
            self.feeds[table_id] = feed
        await feed.start()
        return feed

    def drop(self, feed: TableFeed) -> None:
        if self.feeds.get(feed.table_id) is feed:
            del self.feeds[feed.table_id]
            feed.stop()

    def stop(self) -> None:
        for feed in list(self.feeds.values()):
            feed.stop()
        self.feeds.clear()
        if self._meter_task is not None:
            self._meter_task.cancel()
        self._meter_watchers.clear()


async def pump(
    websocket: Any,
    queue: asyncio.Queue[Item | None],
    receiver: asyncio.Task[None],
    expires: float | None,
    viewer_id: int | None,
    seen: tuple[int, int],
) -> None:
    """Send a WebSocket client its feed's items (as its viewer may see them) until the client
    goes (``receiver`` ends), its token expires (error ``token-expired``, close 4401) or its
    feed cuts it off (close 1013). ``seen``: the round number and log length the client has.

    One ``await queue.get()`` per item, and none while items wait: the client's going and the
    token's expiry put a wake-up (None) in the queue, and are told apart from a cut by flags."""
    loop = asyncio.get_running_loop()
    gone = {"receiver": False, "expired": False}

    def wake(reason: str) -> None:
        gone[reason] = True
        with contextlib.suppress(asyncio.QueueFull):  # full: the loop is busy and sees the flag
            queue.put_nowait(None)

    receiver.add_done_callback(lambda _: wake("receiver"))
    timer = (
        None
        if expires is None
        else loop.call_later(max(0.0, expires - time.time()), wake, "expired")
    )
    seen_number, seen_seq = seen
    try:
        while True:
            item = await queue.get()
            if gone["receiver"]:
                return
            if gone["expired"]:
                expired = "the token has expired; log in again"
                await websocket.send_json(
                    {"type": "error", "detail": expired, "code": "token-expired"}
                )
                await websocket.close(code=4401, reason=expired)
                return
            if item is None:
                await websocket.close(code=1013)
                return
            if isinstance(item, WalletItem | MeterItem):
                await websocket.send_json(item.message())
                continue
            if isinstance(item, TableItem):
                await websocket.send_json({"type": "table", "table": item.state})
                continue
            if item.number < seen_number or (item.number == seen_number and item.seq < seen_seq):
                continue
            seen_number, seen_seq = item.number, item.seq + 1
            text = item.text(viewer_id)  # rendered once per kind of viewer
            if text is not None:
                await websocket.send_text(text)
    finally:
        if timer is not None:
            timer.cancel()
