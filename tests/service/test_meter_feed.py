"""A table's feed never loses a meter that moved by a delta (issue 45): the notice is the only
word that it moved, so a failed read of the meter is tried again, not dropped. And a process
reads a bank's meter once for all its tables told in a burst, not once a table, and at most once
in ``METER_EVERY_S`` however often it moves (issue 46)."""

from __future__ import annotations

import asyncio
import itertools
from types import SimpleNamespace
from typing import Any

from paigow.service.live import feeds, retries
from paigow.service.live.feeds import FeedHub, MeterItem, TableFeed
from paigow.service.store.bus import Channel, Kind, Notice
from tests.helpers.service import run_on_own_loop


def _hub(reads: list[Any], during: Any = None) -> FeedHub:
    """A process's feeds whose meter reads answer ``reads`` in turn (``during()``: called at
    each read, before it answers): what is left of ``reads`` says how many were made."""

    async def reading(fn: Any) -> tuple[int, int]:
        if during is not None:
            during()
        got = reads.pop(0)
        if isinstance(got, Exception):
            raise got
        return got  # type: ignore[no-any-return]

    return FeedHub(SimpleNamespace(reading=reading))  # type: ignore[arg-type]


def _moved(feed: TableFeed, bank: str) -> None:
    """Tell ``feed`` that ``bank``'s meter moved by a delta (as a settlement's notice does)."""
    feed.on_notice(Notice(Channel.table(feed.table_id), Kind.METER, 0, None, None, bank))


def _feed(reads: list[Any]) -> TableFeed:
    return TableFeed(_hub(reads), 7)


async def _no_sleep(_s: float) -> None:
    return None


def _pushed(feed: TableFeed, bank: str) -> list[Any]:
    async def run() -> list[Any]:
        q = feed.subscribe()
        feed.hub.read_meter(bank, feed)
        await feed.hub._meter_task  # type: ignore[misc]
        return [q.get_nowait() for _ in range(q.qsize())]

    return run_on_own_loop(run())


def test_a_failed_meter_read_is_tried_again(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    monkeypatch.setattr(retries.asyncio, "sleep", _no_sleep)
    reads: list[Any] = [OSError("pool timed out"), RuntimeError("lost"), (10_100, 5)]
    assert _pushed(_feed(reads), "api-bank") == [MeterItem("api-bank", 10_100)]
    assert reads == []


def test_a_read_that_keeps_failing_gives_up(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    monkeypatch.setattr(retries.asyncio, "sleep", _no_sleep)
    reads: list[Any] = [OSError("down")] * retries.READ_TRIES + [(1, 1)]
    assert _pushed(_feed(reads), "b") == []
    assert reads == [(1, 1)]  # READ_TRIES reads, then the next change reads it again


def test_a_burst_of_meter_notices_is_one_read_for_every_table(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    reads: list[Any] = [(5_000, 3), (5_200, 4)]
    hub = _hub(reads)
    tables = [TableFeed(hub, t) for t in range(20)]

    async def run() -> list[list[Any]]:
        queues = [f.subscribe() for f in tables]
        for f in tables:  # a settlement tells each of the bank's twenty tables
            _moved(f, "b")
        await hub._meter_task  # type: ignore[misc]
        return [[q.get_nowait() for _ in range(q.qsize())] for q in queues]

    got = run_on_own_loop(run())
    assert got == [[MeterItem("b", 5_000)]] * 20
    assert reads == [(5_200, 4)]  # one read of two


def test_a_notice_during_a_read_is_read_again(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    monkeypatch.setattr(feeds, "METER_EVERY_S", 0)
    reads: list[Any] = [(5_000, 3), (5_200, 4)]
    tables: list[TableFeed] = []
    told: list[int] = []

    def another_settles() -> None:  # during the first read, table 1's round settles
        if not told:
            told.append(1)
            _moved(tables[1], "b")

    hub = _hub(reads, another_settles)
    tables += [TableFeed(hub, 0), TableFeed(hub, 1)]

    async def run() -> list[list[Any]]:
        queues = [f.subscribe() for f in tables]
        _moved(tables[0], "b")
        await hub._meter_task  # type: ignore[misc]
        return [[q.get_nowait() for _ in range(q.qsize())] for q in queues]

    got = run_on_own_loop(run())
    # table 1's notice came after the first read began: it is read again, after it
    assert got == [[MeterItem("b", 5_000)], [MeterItem("b", 5_200)]]
    assert reads == []  # two reads


def test_a_meter_that_keeps_moving_is_read_at_most_once_an_interval(monkeypatch: Any) -> None:
    """Settlements at the bank's tables every 20 ms for 0.5 s: the process reads the meter at
    once, then once an interval (0.2 s here), and the last push is the meter's latest."""
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    monkeypatch.setattr(feeds, "METER_EVERY_S", 0.2)
    meter = [5_000, 0]  # cents, version
    reads: list[float] = []

    async def reading(fn: Any) -> tuple[int, int]:
        reads.append(asyncio.get_running_loop().time())
        return meter[0], meter[1]

    hub = FeedHub(SimpleNamespace(reading=reading))  # type: ignore[arg-type]
    tables = [TableFeed(hub, t) for t in range(3)]

    async def run() -> list[list[Any]]:
        queues = [f.subscribe() for f in tables]
        for n in range(25):
            meter[0], meter[1] = 5_000 + 100 * (n + 1), n + 1
            for f in tables:
                _moved(f, "b")
            await asyncio.sleep(0.02)
        while hub._meter_task is not None and not hub._meter_task.done():
            await hub._meter_task
        return [[q.get_nowait() for _ in range(q.qsize())] for q in queues]

    got = run_on_own_loop(run())
    gaps = [b - a for a, b in itertools.pairwise(reads)]
    assert 2 <= len(reads) <= 5, reads  # 25 moves in 0.5 s: not 25 reads
    assert all(g >= 0.19 for g in gaps), gaps
    for pushed in got:  # every table ends on the latest meter, its pushes only climbing
        assert pushed[-1] == MeterItem("b", 7_500)
        values = [m.meter for m in pushed]
        assert values == sorted(set(values)) and len(values) == len(reads)
