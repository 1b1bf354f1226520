"""Table notices from whichever process changed a table to everyone who watches it.

A notice only says "table N changed" (``kind``: ``round`` for a round's log, ``table`` for seats
or status); watchers read what changed from the database, which stays the only source of truth.
A wallet's notice (channel minus the user's id) also carries the committed balance and the
wallet's version, which the database returned with the change.
Within a process notices fan out to callbacks on the event loop. With PostgreSQL every notice is
sent with ``pg_notify`` inside the transaction that made the change (so it is delivered exactly
when that transaction commits, and never if it rolls back) and every process, this one included,
receives it by ``LISTEN``; a lost connection is re-opened and every watcher is told to re-read.

>>> Notice.decode(Notice(3, "round", origin=77).encode())
Notice(table_id=3, kind='round', origin=77, balance=None, version=None)
>>> decode_notices(encode_notices([Notice(3, "due"), Notice(-7, "wallet", 0, 500, 2)]))
[Notice(table_id=3, kind='due', origin=0, balance=None, version=None), Notice(table_id=-7, kind='wallet', origin=0, balance=500, version=2)]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paigow.service.db import Database

log = logging.getLogger("paigow.service.bus")

ALL = 0
"""Subscribe to table 0 to hear every table's notices."""


@dataclass(frozen=True)
class Notice:
    table_id: int
    kind: str  # round (events appended) | due (a dealer step may be due) | table | resync
    origin: int = 0
    """The event bus (one per process) whose process committed the change; 0: unknown."""
    balance: int | None = None
    """A wallet notice's committed balance (cents), with the wallet's ``version`` (which grows
    by one with every change, so that a watcher keeps the latest whatever the order notices
    arrive in); None in other notices and where a reader must read it."""
    version: int | None = None

    def encode(self) -> str:
        return json.dumps(self._data(), separators=(",", ":"))

    def _data(self) -> dict[str, int | str]:
        data: dict[str, int | str] = {"t": self.table_id, "k": self.kind, "o": self.origin}
        if self.balance is not None and self.version is not None:
            data["b"], data["v"] = self.balance, self.version
        return data

    @classmethod
    def decode(cls, text: str) -> Notice:
        return cls._of(json.loads(text))

    @classmethod
    def _of(cls, data: dict[str, Any]) -> Notice:
        balance, version = data.get("b"), data.get("v")
        return cls(
            int(data["t"]),
            str(data["k"]),
            int(data.get("o", 0)),
            None if balance is None or version is None else int(balance),
            None if balance is None or version is None else int(version),
        )


def encode_notices(notices: list[Notice]) -> str:
    """Several notices in one ``pg_notify`` payload (a JSON list: one statement per step)."""
    return json.dumps([n._data() for n in notices], separators=(",", ":"))


def decode_notices(text: str) -> list[Notice]:
    """The notices of a payload: a list (:func:`encode_notices`) or one notice."""
    data = json.loads(text)
    if isinstance(data, list):
        return [Notice._of(d) for d in data]
    return [Notice._of(data)]


Callback = Callable[[Notice], None]


class EventBus:
    """Fan-out of :class:`Notice` s; callbacks run on the event loop's thread."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subs: dict[int, set[Callback]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None
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
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.listening.wait(), 10)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    # ----------------------------------------------------------------------------- subscribing
    def subscribe(self, table_id: int, callback: Callback) -> None:
        self._subs[table_id].add(callback)

    def unsubscribe(self, table_id: int, callback: Callback) -> None:
        subs = self._subs.get(table_id)
        if subs is not None:
            subs.discard(callback)
            if not subs:
                self._subs.pop(table_id, None)

    def _dispatch(self, notice: Notice) -> None:
        self.delivered += 1
        targets = list(self._subs.get(notice.table_id, ())) + list(self._subs.get(ALL, ()))
        for cb in targets:
            try:
                cb(notice)
            except Exception:  # a watcher's fault must not stop the others
                log.exception("a notice callback failed")

    # ----------------------------------------------------------------------------- publishing
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
        self._dispatch(Notice(ALL, "resync"))

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
                        try:
                            notices = decode_notices(n.payload)
                        except (ValueError, KeyError, TypeError, AttributeError):
                            continue
                        for notice in notices:
                            if notice.origin != self.origin:  # ours were delivered at commit
                                self._dispatch(notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN connection lost (%s); reconnecting", type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
