"""The load client's HTTP side: one aiohttp session for every player of the process, answers read
whole, and an :class:`Api` that times each request by kind and fails over to the next server when
one does not answer (the request sent again as it was, its idempotency key included).

>>> split_urls("http://a:1/, http://b:2")
['http://a:1', 'http://b:2']
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

import aiohttp
import orjson


class Stats:
    """What a run met: latencies by kind, expected and unexpected answers, and every step the
    server acknowledged (:meth:`ack`; also a JSON line each to ``ack_file`` as it comes)."""

    def __init__(self, ack_file: IO[str] | None = None) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.requests = 0
        self.expected: dict[str, int] = defaultdict(int)
        self.unexpected: dict[str, int] = defaultdict(int)
        self.notes: list[str] = []
        self.acks: list[dict[str, Any]] = []
        self.ack_file = ack_file

    def ack(self, kind: str, rid: str, table: int, user: str, spot: int, **more: Any) -> None:
        """Record an acknowledged step (``wager``, ``set``: a 2xx answer; ``round-settled``,
        ``voided``: the round's end seen) with when (``at``, epoch seconds), flushed at once so
        that a run cut short keeps it."""
        row = {"kind": kind, "round": rid, "table": table, "user": user, "spot": spot, **more}
        row["at"] = round(time.time(), 3)
        self.acks.append(row)
        if self.ack_file is not None:
            self.ack_file.write(orjson.dumps(row).decode() + "\n")
            self.ack_file.flush()

    def bad(self, kind: str, note: str) -> None:
        self.unexpected[kind] += 1
        if len(self.notes) < 50:
            self.notes.append(f"{kind}: {note}")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return round(s[k], 2)


def split_urls(url: str) -> list[str]:
    """The servers named in ``url`` (comma-separated).

    >>> split_urls("http://a:1/, http://b:2")
    ['http://a:1', 'http://b:2']
    """
    urls = [u.strip().rstrip("/") for u in url.split(",") if u.strip()]
    if not urls:
        raise ValueError("give at least one server URL")
    return urls


@dataclass(frozen=True)
class Response:
    """An answer: its status, headers and body (read whole)."""

    status_code: int
    headers: Mapping[str, str]
    body: bytes
    method: str
    path: str

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return orjson.loads(self.body)

    def code(self) -> str | None:
        """The error code of a refusal (its JSON body's ``code``), if it has one."""
        if not self.headers.get("content-type", "").startswith("application/json"):
            return None
        try:
            data = self.json()
        except orjson.JSONDecodeError:
            return None
        return data.get("code") if isinstance(data, dict) else None


TRANSPORT_ERRORS = (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError)
"""What a request that got no answer raises (a lost server, a closed keep-alive connection)."""


def client_session(timeout_s: float = 60.0) -> aiohttp.ClientSession:
    """An HTTP client for many players at once (aiohttp: its parser and keep-alive pool are
    fast, so one client serves every player of the process)."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=None),
        timeout=aiohttp.ClientTimeout(total=timeout_s),
        json_serialize=lambda v: orjson.dumps(v).decode(),
        skip_auto_headers=("User-Agent",),
    )


class Api:
    """A thin client that times every request by kind and fails over to the next server when
    one does not answer (the request sent again as it was, idempotency key included)."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        stats: Stats,
        urls: list[str],
        start: int = 0,
        failover_s: float = 60.0,
    ) -> None:
        self.http, self.stats = http, stats
        self.urls = urls
        self.index = start % len(self.urls)
        self.failover_s = failover_s

    @property
    def base(self) -> str:
        return self.urls[self.index]

    def at(self, start: int) -> Api:
        """The same client starting at another of the servers (one per player)."""
        return Api(self.http, self.stats, self.urls, start, self.failover_s)

    def failover(self, failed: str) -> None:
        """Move on from the server ``failed`` (once, whoever noticed first)."""
        if self.base == failed and len(self.urls) > 1:
            self.index = (self.index + 1) % len(self.urls)
            self.stats.expected["failover"] += 1

    async def call(
        self,
        kind: str,
        method: str,
        path: str,
        token: str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        h = dict(headers or {})
        if token:
            h["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = orjson.dumps(body)
            h["Content-Type"] = "application/json"
        t0 = time.perf_counter()
        deadline = time.monotonic() + self.failover_s
        attempt = 0
        while True:
            attempt += 1
            base = self.base
            try:
                async with self.http.request(method, base + path, data=data, headers=h) as r:
                    got = Response(r.status, r.headers, await r.read(), method, path)
            except TRANSPORT_ERRORS as exc:
                if time.monotonic() > deadline:
                    raise
                self.stats.expected["transport-retry"] += 1
                refused = isinstance(
                    exc, aiohttp.ClientConnectorError | aiohttp.ServerDisconnectedError
                )
                if refused or attempt > 2:
                    self.failover(base)
                await asyncio.sleep(min(0.05 * attempt, 0.5))
                continue
            if got.status_code in (502, 503, 504) and time.monotonic() < deadline:
                self.stats.expected[f"refused-{got.status_code}-{got.code() or 'uncoded'}"] += 1
                await asyncio.sleep(min(0.05 * attempt, 0.5))  # asked to retry
                continue
            break
        self.stats.latency[kind].append((time.perf_counter() - t0) * 1000)
        self.stats.requests += 1
        return got
