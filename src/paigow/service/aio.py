"""Waits and stops of asyncio tasks that always let a cancellation through.

Python 3.11's ``asyncio.wait_for`` swallows a cancellation that comes as the awaited thing
finishes: it returns the result instead, and a loop that waits in it (the dealers, the dealer
supervisor) then goes on after it was told to stop, and a server never stops. The service waits
with :func:`woken` (``asyncio.timeout``, which never swallows one; ruff bans ``wait_for`` in
``src/``) and stops its background tasks with :func:`stop_tasks`, which cancels again whatever a
cancellation did not end (a wait deep in a driver may swallow one too).

(tests/service/test_aio.py races cancellations against these waits.)

>>> import asyncio, threading
>>> async def demo() -> tuple[bool, bool]:
...     event = asyncio.Event()
...     asyncio.get_running_loop().call_later(0.01, event.set)
...     return await woken(event, 5), await woken(asyncio.Event(), 0.01)
>>> got = []  # (on a thread of its own: the caller's thread may be running a loop already)
>>> t = threading.Thread(target=lambda: got.append(asyncio.run(demo()))); t.start(); t.join()
>>> got
[(True, False)]
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

__all__ = ["stop_tasks", "woken"]

log = logging.getLogger("paigow.service.aio")

RECANCEL_S = 1.0
"""How long :func:`stop_tasks` waits for a cancelled task before it cancels it again."""


async def woken(event: asyncio.Event, timeout: float) -> bool:
    """Wait for ``event`` at most ``timeout`` seconds: True if it was set. A cancellation of
    the waiting task always goes through."""
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return False
    return True


async def stop_tasks(tasks: Iterable[asyncio.Task[Any]], recancel_s: float = RECANCEL_S) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again each that is still
    running after ``recancel_s`` seconds (one that swallowed its cancellation: logged). What
    the tasks raise as they end is logged, never raised here; a cancellation of the task that
    calls this goes through at once (the tasks are then left cancelled, not awaited)."""
    tasks = list(tasks)
    pending = {t for t in tasks if not t.done()}
    for t in pending:
        t.cancel()
    while pending:
        _, pending = await asyncio.wait(pending, timeout=recancel_s)
        for t in pending:
            log.warning("task %s did not end when cancelled; cancelling it again", t.get_name())
            t.cancel()
    for t in tasks:
        if t.done() and not t.cancelled() and t.exception() is not None:
            log.warning("task %s ended with %r", t.get_name(), t.exception())
