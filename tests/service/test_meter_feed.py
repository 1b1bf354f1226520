"""A table's feed never loses a meter that moved by a delta (issue 45): the notice is the only
word that it moved, so a failed read of the meter is tried again, not dropped."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from paigow.service.live import feeds
from paigow.service.live.feeds import MeterItem, TableFeed


def _feed(reads: list[Any]) -> TableFeed:
    async def reading(fn: Any) -> tuple[int, int]:
        got = reads.pop(0)
        if isinstance(got, Exception):
            raise got
        return got  # type: ignore[no-any-return]

    hub = SimpleNamespace(rt=SimpleNamespace(reading=reading))
    return TableFeed(hub, 7)  # type: ignore[arg-type]


def test_a_failed_meter_read_is_tried_again(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    reads: list[Any] = [OSError("pool timed out"), RuntimeError("lost"), (10_100, 5)]
    feed = _feed(reads)

    async def run() -> list[Any]:
        q = feed.subscribe()
        feed._meters_to_read.add("api-bank")
        await feed._read_meters()
        return [q.get_nowait() for _ in range(q.qsize())]

    assert asyncio.run(run()) == [MeterItem("api-bank", 10_100)]
    assert reads == []


def test_a_read_that_keeps_failing_gives_up(monkeypatch: Any) -> None:
    monkeypatch.setattr(feeds, "COALESCE_S", 0)
    monkeypatch.setattr(feeds.asyncio, "sleep", _no_sleep)
    reads: list[Any] = [OSError("down")] * feeds.METER_READ_TRIES + [(1, 1)]
    feed = _feed(reads)

    async def run() -> int:
        q = feed.subscribe()
        feed._meters_to_read.add("b")
        await feed._read_meters()
        return q.qsize()

    assert asyncio.run(run()) == 0
    assert reads == [(1, 1)]  # METER_READ_TRIES reads, then the next change reads it again


async def _no_sleep(_s: float) -> None:
    return None
