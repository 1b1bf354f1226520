"""This process's caches of rounds: the rounds rebuilt from their logs (:class:`RoundCache`, so
that the next step at a table need not replay the log again) and the events just committed,
kept per table for the live feeds (:class:`FreshEvents`). A step finds the round cache in its
context (:attr:`paigow.service.store.step.StepContext.rounds`); the fresh events are kept by
the runtime once a step has committed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paigow.errors import PaigowError
from paigow.round import Round


def ends_play(events: Sequence[dict[str, Any]]) -> bool:
    """Whether a step's events leave no step but the dealer's own in their round: the round
    settled or void, or the bank's hand set once the players have set theirs (at a face-up
    table the deal sets it too, before anyone plays).

    >>> ends_play([{"type": "dealer-set"}]), ends_play([{"type": "voided"}])
    (True, True)
    >>> ends_play([{"type": "dealt"}, {"type": "dealer-set"}]), ends_play([{"type": "hand-set"}])
    (False, False)
    """
    types = {e.get("type") for e in events}
    if "round-settled" in types or "voided" in types:
        return True
    return "dealer-set" in types and "dealt" not in types


class RoundCache:
    """Rounds rebuilt from their logs, kept between transactions of this process so that the
    next step need not replay the log again. An entry is used only when the database's event
    count still matches, or after the events it lacks have been read and followed (another
    process may have moved the round on), and is taken out while a transaction uses it. A step
    puts its round back once its work is kept: on SQLite when its savepoint is released, on
    PostgreSQL just before its commit is sent, so that the next step at the table, woken by
    that commit, finds it; the writer clears the cache when a commit fails."""

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

    def take_at_most(self, round_id: str, event_count: int) -> Round | None:
        """Take out the copy of a round at ``event_count`` events or behind it (the caller
        brings it up to the log: :func:`paigow.service.game.rounds.log.load_round`). A copy
        further on is left where it is: a step of this process put it there before its commit
        (the next step at the table, once that commit has landed, takes it).

        >>> cache = RoundCache()
        >>> r = Round(round_id="r")
        >>> cache.put(Round.replay(r.events))
        >>> cache.take_at_most("r", 0) is None  # the log is behind the copy: left
        True
        >>> len(cache.take_at_most("r", 3).events)  # behind the log: the caller catches up
        1
        >>> cache.take_at_most("r", 1) is None  # taken out
        True
        """
        with self._lock:
            item = self._items.get(round_id)
            if item is None or item[0] > event_count:
                return None
            del self._items[round_id]
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

        Events from the bank's hand on (:func:`ends_play`) leave nothing for this process to
        do in the round (the settlement is a step of the dealer's, who set the bank's hand): the
        copy is dropped instead of followed, and a step that needs the round after all replays
        its log.

        >>> cache.put(Round.replay(r.events))
        >>> cache.follow("r", 2, [{"type": "dealer-set"}]), cache.take_at_most("r", 9)
        (False, None)

        A round another process opened (its events from the start) is rebuilt from them, so
        that this process's first step in it need not replay its log.

        >>> cache.follow("r", 0, [e.to_dict() for e in r.events])
        True
        >>> cache.take("r", 2).wagers
        {2: 500}
        """
        ending = ends_play(events)
        with self._lock:
            item = self._items.get(round_id)
            if item is not None and (item[0] == start or ending):
                del self._items[round_id]
        if item is None:
            # not here; a round another process opened is rebuilt from its first events
            return start == 0 and not ending and self._first(events)
        if ending or item[0] != start:
            # ending: nothing for this process to do in it, dropped (above) rather than
            # followed; otherwise another copy (in use, or already further on): left
            return False
        rnd = item[1]
        try:
            rnd.follow(events)
        except PaigowError:
            return False  # no copy rather than a wrong one
        if rnd.is_over:
            return False
        self.put(rnd)
        return True

    def _first(self, events: Sequence[dict[str, Any]]) -> bool:
        """A round another process opened (``events`` from its start): its copy, rebuilt from
        them, unless a step of this process has put one meanwhile."""
        try:
            rnd = Round.replay(events)
        except PaigowError:
            return False
        if rnd.is_over:
            return False
        with self._lock:
            if rnd.round_id in self._items:
                return False
            self._insert(rnd)
        return True

    def put(self, rnd: Round) -> None:
        with self._lock:
            self._insert(rnd)

    def _insert(self, rnd: Round) -> None:
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
