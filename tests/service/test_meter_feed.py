"""A table's feed never loses a meter that moved by a delta (issue 45): the notice is the only
word that it moved, so a failed read of the meter is tried again, not dropped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from paigow.service.live import feeds, retries
from paigow.service.live.feeds import MeterItem, TableFeed
from tests.helpers.service import run_on_own_loop


def _feed(reads: list[Any]) -> TableFeed:
    async def reading(fn: Any) -> tuple[int, int]:
        got = reads.pop(0)
        if isinstance(got, Exception):
            raise got
        return got  # type: ignore[no-any-return]

    hub = SimpleNamespace(rt=SimpleNamespace(reading=reading))
    return TableFeed(hub, 7)  # type: ignore[arg-type]


async def _no_sleep(_s: float) -> None:
    return None


def _pushed(feed: TableFeed, bank: str) -> list[Any]:
    async def run() -> list[Any]:
        q = feed.subscribe()
        feed._meters_to_read.add(bank)
        await feed._read_meters()
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
