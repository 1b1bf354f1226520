"""A step's notice carries the events it appended (when they fit in a ``NOTIFY`` payload), so
the live feeds of every process hand them on without reading the database; a notice without
them (too large, or from an older process) makes a feed read the database as before."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from paigow.service.config import ServiceConfig
from paigow.service.live.feeds import EventItem, FeedHub, TableFeed
from paigow.service.runtime import Runtime
from paigow.service.store.bus import (
    PAYLOAD_LIMIT,
    Channel,
    Kind,
    Notice,
    RoundEvents,
    decode_notices,
    encode_notices,
)
from tests.helpers.service import run_on_own_loop

T7 = Channel.table(7)


def _events(n: int, start: int = 0, size: int = 10) -> RoundEvents:
    evs = tuple(
        {"type": "wager-placed", "spot": 1 + i % 6, "amount": 500, "pad": "x" * size}
        for i in range(n)
    )
    return RoundEvents("r1", 4, start, evs, {1: 11, 2: 12}, 1234.5)


def test_events_travel_in_the_notice_and_back() -> None:
    n = Notice(T7, Kind.DUE, 99, events=_events(3))
    (back,) = decode_notices(encode_notices([n]))
    assert back == n and back.events == n.events  # events do not take part in equality
    assert back.events is not None and back.events.owners == {1: 11, 2: 12}


def test_events_too_large_for_a_payload_are_left_out() -> None:
    big = Notice(T7, Kind.ROUND, 99, events=_events(40, size=400))
    wallet = Notice(Channel.wallet(3), Kind.WALLET, 99, balance=500, version=4)
    text = encode_notices([big, wallet])
    assert len(text.encode()) < PAYLOAD_LIMIT
    back = decode_notices(text)
    assert back == [big, wallet] and back[0].events is None and back[1].balance == 500


def test_a_feed_hands_on_another_process_events_without_reading(tmp_path: Path) -> None:
    rt = Runtime(ServiceConfig(f"sqlite:///{tmp_path / 'f.sqlite3'}"))

    async def main() -> list[Any]:
        rt.bus.loop = asyncio.get_running_loop()
        feed = TableFeed(FeedHub(rt), 7)
        feed._started = True  # a feed that has seen the table's last round end
        feed.round_id, feed.number = "r0", 3
        feed.log = [{"type": "round-settled"}]

        def no_reads(*_: Any) -> Any:
            raise AssertionError("the feed read the database")

        feed._load_new = no_reads  # type: ignore[method-assign]
        q = feed.subscribe()
        other = rt.bus.origin + 2  # another process
        first = Notice(T7, Kind.DUE, other, events=_events(2))
        rt.keep_notice_events(first)  # what the bus does before it dispatches such a notice
        feed.on_notice(first)
        second = Notice(T7, Kind.ROUND, other, events=_events(1, start=2))
        rt.keep_notice_events(second)
        feed.on_notice(second)
        got = []
        for _ in range(3):
            got.append(await asyncio.wait_for(q.get(), 5))
        return got

    got = run_on_own_loop(main())
    assert [(i.round_id, i.number, i.seq) for i in got if isinstance(i, EventItem)] == [
        ("r1", 4, 0),
        ("r1", 4, 1),
        ("r1", 4, 2),
    ]
    rt.db.dispose()


def test_a_notice_without_its_events_makes_the_feed_read(tmp_path: Path) -> None:
    rt = Runtime(ServiceConfig(f"sqlite:///{tmp_path / 'f.sqlite3'}"))
    reads: list[int] = []

    async def main() -> None:
        rt.bus.loop = asyncio.get_running_loop()
        feed = TableFeed(FeedHub(rt), 7)
        feed._started = True

        def counted(*_: Any) -> list[Any]:
            reads.append(1)
            return []

        feed._load_new = counted  # type: ignore[method-assign]
        feed.subscribe()
        feed.on_notice(Notice(T7, Kind.ROUND, rt.bus.origin + 2))  # no events: read them
        for _ in range(100):
            if reads:
                return
            await asyncio.sleep(0.01)

    run_on_own_loop(main())
    assert reads == [1]
    rt.db.dispose()


def test_another_process_events_bring_the_cached_round_up_to_date(tmp_path: Path) -> None:
    """The round a process has cached follows the events another process's notice carries,
    so its next step at the table takes the cached copy instead of replaying the log; a copy
    at another step is left alone, and one the events do not agree with is dropped."""
    from paigow.round import Round

    rt = Runtime(ServiceConfig(f"sqlite:///{tmp_path / 'f.sqlite3'}"))
    try:
        played = Round(round_id="r1")
        rt.rounds.put(Round.replay(played.events))  # this process's copy, at one event
        new = played.wager(1, 500) + played.wager(2, 700)  # another process's step
        other = rt.bus.origin + 2

        def notice(start: int, events: list[dict[str, Any]]) -> Notice:
            return Notice(
                T7, Kind.ROUND, other, events=RoundEvents("r1", 1, start, tuple(events), {}, 1.0)
            )

        rt.keep_notice_events(notice(1, [e.to_dict() for e in new]))
        copy = rt.rounds.take("r1", 3)
        assert copy is not None and copy.events == played.events and copy.wagers == {1: 500, 2: 700}
        rt.rounds.put(copy)
        again = {"type": "wager-placed", "spot": 3, "amount": 100}
        rt.keep_notice_events(notice(5, [again]))  # does not follow on from the copy: left
        assert rt.rounds.take("r1", 3) is copy
        rt.rounds.put(copy)
        twice = {"type": "wager-placed", "spot": 2, "amount": 100}  # spot 2 has a wager
        rt.keep_notice_events(notice(3, [twice]))  # the rules refuse it: the copy is dropped
        assert rt.rounds.take("r1", 3) is None and rt.rounds.take("r1", 4) is None
    finally:
        rt.db.dispose()


def test_a_round_another_process_opened_is_rebuilt_and_one_it_ended_is_dropped(
    tmp_path: Path,
) -> None:
    """A notice with a round's events from its start (another process opened it) gives this
    process a copy, so its first step in the round need not replay the log; one a step of this
    process has put meanwhile is left as it is. A notice with the bank's hand (or the end of
    the round) drops the copy rather than follow it: nothing is left for this process to do
    in the round but to hear of its settlement."""
    import random

    from paigow.round import Round

    rt = Runtime(ServiceConfig(f"sqlite:///{tmp_path / 'f.sqlite3'}"))
    try:
        other = rt.bus.origin + 2

        def notice(rid: str, start: int, events: list[dict[str, Any]]) -> Notice:
            return Notice(
                T7, Kind.ROUND, other, events=RoundEvents(rid, 1, start, tuple(events), {}, 1.0)
            )

        played = Round(round_id="r1")
        played.wager(1, 500)
        rt.keep_notice_events(notice("r1", 0, played.log()))
        copy = rt.rounds.take("r1", 2)
        assert copy is not None and copy.wagers == {1: 500}

        mine = Round.replay(played.events)
        mine.wager(2, 600)
        rt.rounds.put(mine)  # this process's own step, further on
        rt.keep_notice_events(notice("r1", 0, played.log()))
        assert rt.rounds.take("r1", 3) is mine  # not replaced by the older copy

        dealt = played.deal(random.Random(5))  # another process deals: the copy follows
        rt.rounds.put(Round.replay(played.events[:2]))
        rt.keep_notice_events(notice("r1", 2, [e.to_dict() for e in dealt]))
        copy = rt.rounds.take("r1", len(played.events))
        assert copy is not None and copy.hands == played.hands
        for spot in played.spots_to_set():
            played.set_house_way(spot)
        rt.rounds.put(Round.replay(played.events))
        start = len(played.events)
        bank = played.set_dealer()  # another process sets the bank's hand: the copy is dropped
        rt.keep_notice_events(notice("r1", start, [e.to_dict() for e in bank]))
        assert rt.rounds.take_at_most("r1", 10_000) is None
    finally:
        rt.db.dispose()
