"""A table's feed never loses a meter that moved by a delta (issue 45): the notice is the only
word that it moved, so a failed read of the meter is tried again, not dropped. And a process
reads a bank's meter once for all its tables told in a burst, not once a table (issue 46)."""

from __future__ import annotations

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
