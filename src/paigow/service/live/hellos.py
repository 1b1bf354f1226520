"""One read for the WebSocket hellos that arrive at a table together.

A hello is the table's public state and its latest round's log, read after the viewer's queue
subscribed to the table's feed, so that every event committed after the read comes through the
queue. At a room's opening six players of a table say hello within moments of each other; each
read its own copy (a fresh session on a worker thread, the table, its meters, its round's log,
its wagers and names: a quarter of the opening's CPU at 100 tables). :class:`SharedReads` reads
a table once for every hello waiting when its read begins, and never hands a hello a read that
began before it asked (so before its subscription: an event committed between would be lost):
while one read of a table is under way, the hellos that arrive wait for the next, which begins
when it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class SharedReads(Generic[K, T]):
    """At most one read of a key under way; the callers that arrive meanwhile share the next.

    >>> import asyncio
    >>> reads: SharedReads[int, int] = SharedReads()
    >>> calls = []
    >>> def read(key: int) -> int:
    ...     calls.append(key)
    ...     return key * 10
    >>> async def main() -> list[int]:
    ...     return list(await asyncio.gather(*(reads.get(7, read) for _ in range(5))))
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> # five callers, all before the read began: one read
    >>> with ThreadPoolExecutor(1) as loop_thread:  # a thread and an event loop of its own
    ...     loop_thread.submit(asyncio.run, main()).result(), calls
    ([70, 70, 70, 70, 70], [7])
    """

    def __init__(self) -> None:
        self._waiting: dict[K, asyncio.Future[T]] = {}
        """Per key, the read the next callers share (not begun)."""
        self._running: dict[K, asyncio.Task[None]] = {}
        """Per key, the read under way."""

    async def get(self, key: K, read: Callable[[K], T]) -> T:
        """``read(key)`` on a worker thread, begun after this call: shared with every other
        caller for ``key`` waiting when it begins (the callers of a key pass the same ``read``:
        a read is begun with the one at hand)."""
        fut = self._waiting.get(key)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self._waiting[key] = fut
            if key not in self._running:
                self._start(key, read)
        return await asyncio.shield(fut)

    def _start(self, key: K, read: Callable[[K], T]) -> None:
        self._running[key] = asyncio.create_task(self._run(key, read), name="hello-read")

    async def _run(self, key: K, read: Callable[[K], T]) -> None:
        fut = self._waiting.pop(key)  # the read begins: from here on, newcomers wait for the next
        again = True
        try:
            fut.set_result(await asyncio.to_thread(read, key))
        except Exception as exc:  # each caller that shared it gets the error
            fut.set_exception(exc)
        except asyncio.CancelledError:  # the server stops: so do the callers' waits
            again = False
            fut.cancel()
            waiting = self._waiting.pop(key, None)
            if waiting is not None:
                waiting.cancel()
            raise
        finally:
            del self._running[key]
            if again and key in self._waiting:  # callers came while it ran: theirs begins now
                self._start(key, read)
