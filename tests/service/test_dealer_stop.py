"""A dealer's and the supervisor's waits always let a cancellation through: a server stops even
when a notice wakes a dealer at the moment it is told to stop (Python 3.11's
``asyncio.wait_for`` returns the event's result instead of raising, and the loop goes on)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from paigow.service.process.dealer import woken

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a loop of its own thread (a browser test's loop may be running on this
    one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _old_wait(event: asyncio.Event, timeout: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        return False
    return True


async def _stops(wait: Callable[[asyncio.Event, float], Awaitable[bool]]) -> bool:
    """A loop like the supervisor's, cancelled as its event is set: True if it stopped."""
    event = asyncio.Event()
    rounds = 0

    async def loop() -> None:
        nonlocal rounds
        while True:
            await wait(event, 10)
            event.clear()
            rounds += 1

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.01)  # the loop is waiting on the event
    event.set()
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=1)
    if not done:
        task.cancel()  # a second cancellation ends it either way
        with pytest.raises(asyncio.CancelledError):
            await task
        return False
    assert task.cancelled() and rounds == 0
    return True


def test_a_cancellation_as_the_event_is_set_stops_the_wait() -> None:
    assert run(_stops(woken))


def test_the_old_wait_swallowed_it() -> None:
    # the race this guards against is real on this Python: the old wait did not stop
    import sys

    if sys.version_info >= (3, 12):  # wait_for is built on asyncio.timeout from 3.12 on
        assert run(_stops(_old_wait))
    else:
        assert not run(_stops(_old_wait))


def test_woken_says_whether_the_event_came() -> None:
    async def go() -> tuple[bool, bool]:
        event = asyncio.Event()
        asyncio.get_running_loop().call_later(0.01, event.set)
        return await woken(event, 5), await woken(asyncio.Event(), 0.01)

    assert run(go()) == (True, False)
