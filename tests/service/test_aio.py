"""The service's waits and stops always let a cancellation through (``paigow.service.aio``): a
server stops even when a notice wakes a dealer at the moment it is told to stop (Python 3.11's
``asyncio.wait_for`` returns the event's result instead of raising, and the loop goes on), and
even when a task swallows its cancellation somewhere deeper."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from paigow.service.aio import stop_tasks, woken

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


async def _stubborn(swallow: int, ended: list[str]) -> None:
    """Swallows its first ``swallow`` cancellations (as a wait deep in a driver might), then
    ends when cancelled again."""
    swallowed = 0
    try:
        while True:
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                if swallowed == swallow:
                    raise
                swallowed += 1
    finally:
        ended.append("stubborn")


def test_stop_tasks_cancels_again_what_a_cancellation_did_not_end() -> None:
    async def go() -> tuple[list[str], bool, bool]:
        ended: list[str] = []
        stubborn = asyncio.create_task(_stubborn(2, ended), name="stubborn")
        plain = asyncio.create_task(asyncio.sleep(10), name="plain")

        async def fails() -> None:
            raise ValueError("boom")

        failing = asyncio.create_task(fails(), name="failing")
        await asyncio.sleep(0.01)
        await asyncio.wait_for(stop_tasks([stubborn, plain, failing], recancel_s=0.05), 5)
        return ended, stubborn.cancelled(), plain.cancelled()

    assert run(go()) == (["stubborn"], True, True)


def test_a_plain_cancel_and_wait_would_hang_on_it() -> None:
    async def go() -> bool:
        task = asyncio.create_task(_stubborn(1, []))
        await asyncio.sleep(0.01)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=0.2)
        task.cancel()
        await asyncio.wait({task}, timeout=1)
        return bool(done)

    assert run(go()) is False


def test_stop_tasks_lets_its_own_cancellation_through() -> None:
    async def go() -> bool:
        hold = True

        async def holding() -> None:  # swallows every cancellation while held
            while True:
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    if not hold:
                        raise

        inner = asyncio.create_task(holding())
        stopper = asyncio.create_task(stop_tasks([inner], recancel_s=0.01))
        await asyncio.sleep(0.05)
        stopper.cancel()
        done, _ = await asyncio.wait({stopper}, timeout=1)
        hold = False
        inner.cancel()
        await asyncio.wait({inner}, timeout=1)
        return stopper in done and stopper.cancelled() and inner.cancelled()

    assert run(go())
