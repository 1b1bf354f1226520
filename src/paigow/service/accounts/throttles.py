"""Limits that keep one client from hurting others: log-in attempts, registrations, WebSocket
connections, and the bounded pool that hashes passwords off the event loop.

Log-in failures count per (username, client address) and per client address, never per username
alone: someone guessing from other addresses cannot lock a user out. The client address is the
peer of the TCP connection unless ``paigow serve --forwarded-allow-ips`` names the proxies whose
``X-Forwarded-For`` is believed. Every limit is per process.

>>> lim = LoginLimiter(per_user_addr=2, per_addr=10, window_s=60)
>>> lim.failed("house", "10.0.0.1", at=0.0); lim.failed("house", "10.0.0.1", at=1.0)
>>> lim.check("house", "10.0.0.2", at=2.0)  # another address: not locked out
>>> lim.check("house", "10.0.0.1", at=2.0)
Traceback (most recent call last):
...
paigow.service.http_errors.TooManyRequests: too many failed log-ins; try again in 59 s
>>> caps = ConnectionCaps(per_user=1, per_addr=5)
>>> caps.acquire(7, "10.0.0.1"), caps.acquire(7, "10.0.0.1"), caps.acquire(None, "10.0.0.1")
(True, False, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from paigow.service.accounts.credentials import username_key
from paigow.service.http_errors import ServiceError, TooManyRequests

T = TypeVar("T")
MAX_KEYS = 100_000
"""Counters kept at most (memory stays bounded against spraying; the oldest go first)."""


class _Window:
    """Sliding-window counters by key."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def _trimmed(self, key: str, t: float) -> deque[float]:
        q = self._hits[key]
        while q and q[0] <= t - self.window_s:
            q.popleft()
        if not q:
            del self._hits[key]
            q = self._hits[key]
        return q

    def wait_s(self, key: str, t: float) -> int | None:
        """Seconds until ``key`` may try again, None when it may now."""
        q = self._trimmed(key, t)
        if len(q) < self.limit:
            return None
        return max(1, int(q[0] + self.window_s - t) + 1)

    def hit(self, key: str, t: float) -> None:
        self._trimmed(key, t).append(t)
        if len(self._hits) > MAX_KEYS:
            for old in list(self._hits)[: MAX_KEYS // 10]:
                del self._hits[old]

    def clear(self, key: str) -> None:
        self._hits.pop(key, None)


class LoginLimiter:
    """Failed log-ins allowed per (username, address) and per address in a sliding window."""

    def __init__(self, per_user_addr: int, per_addr: int, window_s: float) -> None:
        self._pair = _Window(per_user_addr, window_s)
        self._addr = _Window(per_addr, window_s)
        self._lock = threading.Lock()

    def check(self, username: str, addr: str, at: float | None = None) -> None:
        """Raise :class:`TooManyRequests` (429, with Retry-After) when over a limit."""
        t = time.monotonic() if at is None else at
        pair = f"{username_key(username)}\x00{addr}"
        with self._lock:
            wait = self._pair.wait_s(pair, t) or self._addr.wait_s(addr, t)
        if wait is not None:
            raise TooManyRequests(
                f"too many failed log-ins; try again in {wait} s",
                code="too-many-logins",
                headers={"Retry-After": str(wait)},
            )

    def failed(self, username: str, addr: str, at: float | None = None) -> None:
        t = time.monotonic() if at is None else at
        with self._lock:
            self._pair.hit(f"{username_key(username)}\x00{addr}", t)
            self._addr.hit(addr, t)

    def succeeded(self, username: str, addr: str) -> None:
        with self._lock:
            self._pair.clear(f"{username_key(username)}\x00{addr}")


class RateLimiter:
    """At most ``limit`` actions per key in a sliding window (registrations per address).

    >>> r = RateLimiter(1, 60, "registrations")
    >>> r.hit("a", at=0.0)
    >>> r.hit("a", at=1.0)
    Traceback (most recent call last):
    ...
    paigow.service.http_errors.TooManyRequests: too many registrations from this address; try again in 60 s
    """

    def __init__(self, limit: int, window_s: float, what: str) -> None:
        self._window = _Window(limit, window_s)
        self._lock = threading.Lock()
        self.what = what

    def hit(self, key: str, at: float | None = None) -> None:
        t = time.monotonic() if at is None else at
        with self._lock:
            wait = self._window.wait_s(key, t)
            if wait is None:
                self._window.hit(key, t)
        if wait is not None:
            raise TooManyRequests(
                f"too many {self.what} from this address; try again in {wait} s",
                code="rate-limited",
                headers={"Retry-After": str(wait)},
            )


class ConnectionCaps:
    """Open WebSocket connections per user, per address (everyone's) and per address without a
    token (spectators: no account needed, so capped lower).

    >>> caps = ConnectionCaps(per_user=2, per_addr=3, per_spectator_addr=1)
    >>> caps.acquire(None, "a"), caps.acquire(None, "a"), caps.acquire(1, "a")
    (True, False, True)
    >>> caps.acquire(2, "a"), caps.acquire(2, "b")
    (True, True)
    >>> caps.acquire(3, "a")
    False
    """

    def __init__(self, per_user: int, per_addr: int, per_spectator_addr: int | None = None) -> None:
        self.per_user, self.per_addr = per_user, per_addr
        self.per_spectator_addr = per_addr if per_spectator_addr is None else per_spectator_addr
        self.users: dict[int, int] = defaultdict(int)
        self.addrs: dict[str, int] = defaultdict(int)
        self.spectators: dict[str, int] = defaultdict(int)

    def acquire(self, user_id: int | None, addr: str) -> bool:
        """Count a connection; False (nothing counted) when over a cap."""
        if self.addrs.get(addr, 0) >= self.per_addr:
            return False
        if user_id is None:
            if self.spectators.get(addr, 0) >= self.per_spectator_addr:
                return False
            self.spectators[addr] += 1
        elif self.users.get(user_id, 0) >= self.per_user:
            return False
        else:
            self.users[user_id] += 1
        self.addrs[addr] += 1
        return True

    def release(self, user_id: int | None, addr: str) -> None:
        self.addrs[addr] -= 1
        if self.addrs[addr] <= 0:
            del self.addrs[addr]
        if user_id is None:
            self.spectators[addr] -= 1
            if self.spectators[addr] <= 0:
                del self.spectators[addr]
        else:
            self.users[user_id] -= 1
            if self.users[user_id] <= 0:
                del self.users[user_id]


class Overloaded(ServiceError):
    status = 503
    default_code = "overloaded"


class HashPool:
    """Password hashing on threads of its own (argon2 releases the GIL), never on the event loop
    nor on the threads that serve requests and dealers, at a lower scheduling priority
    (``nice``: when the cores are busy the game goes first). At most ``queue`` hashes wait;
    beyond that a log-in is refused at once with 503 and Retry-After."""

    def __init__(self, threads: int, queue: int, nice: int = 0) -> None:
        self.threads, self.queue, self.nice = max(1, threads), max(1, queue), nice
        self._pool = ThreadPoolExecutor(
            self.threads, thread_name_prefix="paigow-hash", initializer=self._lower_priority
        )
        self._pending = 0
        self._lock = threading.Lock()

    async def run(self, fn: Callable[[], T]) -> T:
        with self._lock:
            if self._pending >= self.threads + self.queue:
                raise Overloaded(
                    "too many log-ins at once; retry in a moment",
                    headers={"Retry-After": "1"},
                )
            self._pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn)
        finally:
            with self._lock:
                self._pending -= 1

    def _lower_priority(self) -> None:
        """Give this hashing thread a lower priority (Linux applies ``setpriority`` of a
        thread id to that thread alone; elsewhere nothing changes)."""
        if self.nice <= 0 or not sys.platform.startswith("linux"):
            return
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + self.nice)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
