"""Reads a feed must not lose: tried again, backing off, before it gives up (issue 45)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

log = logging.getLogger("paigow.service.live.feeds")
T = TypeVar("T")
READ_TRIES: Final = 6
"""How many times a feed reads what a notice says moved before it gives up (till the next)."""


async def read_again(read: Callable[[], Awaitable[T]], what: str) -> T | None:
    """``read()``'s result, tried up to :data:`READ_TRIES` times while it fails (backing off,
    each failure logged with ``what``); None when every try failed. A notice without its value
    is the only word that the value moved: a read given up on at its first failure would leave
    the watchers on the old value until the next change (a round settled, no meter pushed).

    >>> async def flaky(fails: list[int]) -> int:
    ...     if fails:
    ...         raise OSError(fails.pop())
    ...     return 7
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(1) as pool:  # a loop of its own (a test's may run on this thread)
    ...     pool.submit(asyncio.run, read_again(lambda f=[1]: flaky(f), "a meter")).result()
    7
    """
    for attempt in range(1, READ_TRIES + 1):
        try:
            return await read()
        except Exception as exc:  # a CancelledError is no Exception: it goes through
            log.warning(
                "%s: %s: %s (try %d of %d)", what, type(exc).__name__, exc, attempt, READ_TRIES
            )
            if attempt < READ_TRIES:
                await asyncio.sleep(0.05 * 2**attempt)
    return None
