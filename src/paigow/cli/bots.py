"""``paigow bots``: a load client that plays real rounds against a running server through the
public API and WebSockets, then checks what the server did.

With the operator credentials it is given it creates the tables and registers and funds its players;
each player logs in, watches its table over a WebSocket, sits, and plays its rounds: wagers (with
idempotency keys, some sent twice), sets its hand by the house way (a few fouls, confirmed), and
now and then sends a request that must be refused (a wager above the limit or without a key, a
foul without confirmation, cards it was not dealt, an operator route). At the end it replays every
round's complete log with the rules engine, compares the results with what the players saw and
with their wallets (every player's balance must equal what it was credited plus what its rounds
returned less what it wagered), and asks the server to check its ledger.

Several servers (``--url`` more than once) serve one database: the players are spread over them,
and when one is lost each of its players goes on with another: a request that got no answer is
sent again with the same idempotency key (never moving money twice), the WebSocket reconnects,
and what the player missed is read back from the round's log. Fail-overs are counted in the
report (``failovers``, ``ws_reconnects``); anything else unexpected is an anomaly.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import aiohttp
import orjson

from paigow.cards import parse_cards
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.service.runtime import settle_memory
from paigow.setting import all_settings


@dataclass(frozen=True)
class BotConfig:
    url: str
    tables: int = 2
    players: int = 6
    rounds: int = 5
    operator: str = "operator"
    operator_password: str = field(default="", repr=False)
    betting_ms: int = 2000
    setting_ms: int = 5000
    min_wager: int = 500
    max_wager: int = 5000
    foul_rate: float = 0.05
    bad_rate: float = 0.08
    retry_rate: float = 0.1
    seed: int | None = None
    step_timeout_s: float = 60.0
    failover_s: float = 60.0
    """How long a request is retried (over every server given) before it is given up."""
    freeze_gc: bool = False
    """Freeze the garbage collector's view of this process once set up (``paigow bots`` does:
    a full collection's pause would show as the server's latency)."""


class Stats:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.requests = 0
        self.expected: dict[str, int] = defaultdict(int)
        self.unexpected: dict[str, int] = defaultdict(int)
        self.notes: list[str] = []

    def bad(self, kind: str, note: str) -> None:
        self.unexpected[kind] += 1
        if len(self.notes) < 50:
            self.notes.append(f"{kind}: {note}")


def _pct(values: list[float], q: float) -> float:
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
KEEP_MESSAGES = 500
"""A player keeps the messages of its last rounds, not of all it has played: each round looks
only at what came after it began (a look over every message of the run grew with each round)."""
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
                await asyncio.sleep(min(0.05 * attempt, 0.5))  # asked to retry
                continue
            break
        self.stats.latency[kind].append((time.perf_counter() - t0) * 1000)
        self.stats.requests += 1
        return got


@dataclass
class PlayerLog:
    """What one player saw: per round, its spot, wager and what the settlement returned."""

    name: str
    credited: int
    rounds: dict[str, dict[str, Any]] = field(default_factory=dict)


class Player:
    def __init__(
        self,
        cfg: BotConfig,
        api: Api,
        table: dict[str, Any],
        spot: int,
        name: str,
        password: str,
        credit: int,
        rng: random.Random,
    ) -> None:
        self.cfg, self.api, self.table, self.spot = cfg, api, table, spot
        self.name, self.password = name, password
        self.rng = rng
        self.token = ""
        self.log = PlayerLog(name, credit)
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.way = HouseWay.preset(str(table["house_way"]))
        self.start = 0  # the index of this player's first server
        self.current_rid: str | None = None
        self.connected = asyncio.Event()
        self.leaving = False
        self.sat_at: float | None = None
        self.finished_at: float | None = None
        self.settled: dict[str, float] = {}
        """When this player saw each of its rounds end (perf_counter)."""
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def tid(self) -> int:
        return int(self.table["id"])

    def expect(self, kind: str, r: Response, *codes: int) -> bool:
        if r.status_code in codes:
            return True
        self.api.stats.bad(kind, f"{self.name}: HTTP {r.status_code} {r.text[:200]}")
        return False

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.changed.set()

    async def _watch(self) -> None:
        """Keep a WebSocket open to the table, reconnecting (to another server if this one is
        gone) and reading back what was missed."""
        stats = self.api.stats
        first = True
        while not self.leaving:
            base = self.api.base
            url = f"{base}/ws/tables/{self.tid}?{urlencode({'token': self.token})}"
            try:
                async with self.api.http.ws_connect(
                    url, max_msg_size=2**20, timeout=aiohttp.ClientWSTimeout(ws_receive=None)
                ) as ws:
                    if not first:
                        stats.expected["ws-reconnect"] += 1
                    async for msg in ws:
                        if msg.type is not aiohttp.WSMsgType.TEXT:
                            continue
                        message = orjson.loads(msg.data)
                        if message.get("type") == "hello" and not first:
                            self._absorb(message)
                            if self.current_rid is not None:
                                self._tasks.add(asyncio.create_task(self._recall(self.current_rid)))
                        self._add(message)
                        self.connected.set()
            except asyncio.CancelledError:
                raise
            except Exception:  # refused, reset, closed: try again
                self.api.failover(base)
            first = False
            self.changed.set()
            await asyncio.sleep(0.1)

    def _absorb(self, hello: dict[str, Any]) -> None:
        """The events of the round in a hello (after a reconnection) as if they had come one by
        one (a player skips what it has already seen)."""
        rnd = hello.get("round")
        if not isinstance(rnd, dict):
            return
        for event in rnd.get("log", []):
            self._add({"round_id": rnd["id"], "round_number": rnd["number"], **event})

    async def _recall(self, rid: str) -> None:
        r = await self.api.call("recall", "GET", f"/api/rounds/{rid}", self.token)
        if r.status_code == 200:
            for event in r.json()["events"]:
                self._add({"round_id": rid, **event})

    async def _wait(self, predicate: Any, timeout: float, since: int = 0) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        start = since
        while True:
            for i in range(start, len(self.messages)):
                if predicate(self.messages[i]):
                    return self.messages[i]
            start = len(self.messages)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))

    async def play(self) -> None:
        """Play, starting at this player's server."""
        shared = self.api
        self.api = shared.at(self.start)
        try:
            await self._play()
        finally:
            self.api = shared

    async def _play(self) -> None:
        r = await self.api.call(
            "login",
            "POST",
            "/api/auth/login",
            body={"username": self.name, "password": self.password},
        )
        if not self.expect("login", r, 200):
            return
        self.token = r.json()["token"]
        watcher = asyncio.create_task(self._watch())
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.connected.wait(), 30)
            r = await self.api.call(
                "sit", "POST", f"/api/tables/{self.tid}/sit", self.token, {"spot": self.spot}
            )
            if not self.expect("sit", r, 200):
                return
            self.sat_at = time.perf_counter()
            for _ in range(self.cfg.rounds):
                if not await self._round():
                    break
            r = await self.api.call("leave", "POST", f"/api/tables/{self.tid}/leave", self.token)
            if r.status_code == 409 and r.code() == "not-seated":
                self.api.stats.expected["left-already"] += 1  # the answer to a retried leave
            else:
                self.expect("leave", r, 200)
        finally:
            self.finished_at = time.perf_counter()
            self.leaving = True
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher

    async def _bad_requests(self, phase: str, cards: list[str] | None = None) -> None:
        """Requests that must be refused, each with the status it must get."""
        stats = self.api.stats
        if phase == "betting":
            choice = self.rng.randrange(4)
            if choice == 0:
                r = await self.api.call(
                    "bad",
                    "POST",
                    f"/api/tables/{self.tid}/wager",
                    self.token,
                    {
                        "amount": int(self.table["max_wager"]) + 1,
                        "idempotency_key": secrets.token_hex(8),
                    },
                )
                want = (422,)
            elif choice == 1:
                r = await self.api.call(
                    "bad",
                    "POST",
                    f"/api/tables/{self.tid}/wager",
                    self.token,
                    {"amount": self.cfg.min_wager},
                )
                want = (400,)
            elif choice == 2:
                r = await self.api.call("bad", "GET", "/api/admin/ledger", self.token)
                want = (403,)
            else:
                r = await self.api.call(
                    "bad",
                    "POST",
                    f"/api/tables/{self.tid}/wager",
                    self.token,
                    {"amount": 10.5, "idempotency_key": "x"},
                )
                want = (422,)
        else:
            assert cards is not None
            fouls = [s for s in all_settings(parse_cards(cards)) if s.is_foul]
            if fouls and self.rng.random() < 0.5:
                low = [c.code for c in self.rng.choice(fouls).low]
                r = await self.api.call(
                    "bad", "POST", f"/api/tables/{self.tid}/set", self.token, {"low": low}
                )
                want = (409,)
            else:
                others = [c for c in ("As", "Kd", "Qh", "2c", "3d", "Jk") if c not in cards]
                r = await self.api.call(
                    "bad",
                    "POST",
                    f"/api/tables/{self.tid}/set",
                    self.token,
                    {"low": [others[0], cards[0]]},
                )
                want = (422,)
        if r.status_code in want:
            stats.expected[f"HTTP {r.status_code}"] += 1
        else:
            stats.bad(
                "bad-request-accepted",
                f"{r.method} {r.path} -> {r.status_code} {r.text[:200]}",
            )

    async def _round(self) -> bool:
        cfg, stats = self.cfg, self.api.stats
        amount = self.rng.randrange(cfg.min_wager, cfg.max_wager + 1, 100)
        key = secrets.token_hex(12)
        body = {"amount": amount, "idempotency_key": key}
        deadline = time.monotonic() + cfg.step_timeout_s
        if self.rng.random() < cfg.bad_rate:
            await self._bad_requests("betting")
        if len(self.messages) > 2 * KEEP_MESSAGES:  # what came before the last rounds
            del self.messages[:-KEEP_MESSAGES]
        mark = len(self.messages)  # this round's messages come after it
        placed: dict[str, Any] | None = None
        while placed is None:
            r = await self.api.call(
                "wager", "POST", f"/api/tables/{self.tid}/wager", self.token, body
            )
            if r.status_code == 200:
                placed = r.json()
                break
            code = r.code()
            if r.status_code == 409 and code == "round-in-play" and time.monotonic() < deadline:
                stats.expected["round-in-play"] += 1
                await self._wait(lambda m: m.get("type") in ("round-settled", "voided"), 5.0, mark)
                mark = len(self.messages)
                await asyncio.sleep(self.rng.random() * 0.05)
                continue
            stats.bad("wager", f"{self.name}: HTTP {r.status_code} {r.text[:200]}")
            return False
        rid = placed["round_id"]
        self.current_rid = rid
        if self.rng.random() < cfg.retry_rate:  # the same request again: must not move money twice
            again = await self.api.call(
                "wager-retry", "POST", f"/api/tables/{self.tid}/wager", self.token, body
            )
            if again.status_code != 200 or again.json() != placed:
                stats.bad(
                    "idempotency", f"{self.name}: retry gave {again.status_code} {again.text[:200]}"
                )
            else:
                stats.expected["idempotent-replay"] += 1
        entry = {"spot": placed["spot"], "wager": amount, "returned": None, "foul": False}
        self.log.rounds[rid] = entry
        dealt = await self._wait(
            lambda m: m.get("round_id") == rid and m.get("type") in ("dealt", "voided"),
            cfg.step_timeout_s,
            mark,
        )
        cards: list[str] | None = None
        if dealt is not None and dealt.get("type") == "dealt":
            cards = dealt.get("your_cards", {}).get(str(placed["spot"]))
        if dealt is None:  # the feed did not say: ask
            h = await self.api.call("hand", "GET", f"/api/tables/{self.tid}/hand", self.token)
            if h.status_code == 200 and h.json()["round_id"] == rid:
                cards = h.json()["cards"]
        if dealt is not None and dealt.get("type") == "voided":
            entry["returned"] = amount
            return True
        if cards is None:
            stats.bad("deal", f"{self.name}: no cards for round {rid}")
            return False
        if self.rng.random() < cfg.bad_rate:
            await self._bad_requests("setting", cards)
        seven = parse_cards(cards)
        foul = self.rng.random() < cfg.foul_rate
        fouls = [s for s in all_settings(seven) if s.is_foul] if foul else []
        if fouls:
            low = [c.code for c in self.rng.choice(fouls).low]
            body2: dict[str, Any] = {"low": low, "confirm_foul": True}
            entry["foul"] = True
        else:
            low = [c.code for c in self.way.set_hand(seven).setting.low]
            body2 = {"low": low}
        body2["idempotency_key"] = secrets.token_hex(12)
        body2["round_id"] = rid
        r = await self.api.call("set", "POST", f"/api/tables/{self.tid}/set", self.token, body2)
        if r.status_code == 409 and r.code() in (
            "not-setting",
            "already-set",
            "not-current-round",
        ):
            stats.expected["set-too-late"] += 1  # the time limit passed: the house way set it
            entry["foul"] = False
        elif not self.expect("set", r, 200):
            return False
        done = await self._wait(
            lambda m: m.get("round_id") == rid and m.get("type") in ("round-settled", "voided"),
            cfg.step_timeout_s,
            mark,
        )
        if done is None:
            await self._recall(rid)  # the feed did not say: read the round back
            done = await self._wait(
                lambda m: m.get("round_id") == rid and m.get("type") in ("round-settled", "voided"),
                0.1,
                mark,
            )
        if done is None:
            stats.bad("settle", f"{self.name}: round {rid} did not settle in time")
            return False
        mine = [
            m
            for m in self.messages[mark:]
            if m.get("round_id") == rid
            and m.get("type") == "spot-settled"
            and m.get("spot") == placed["spot"]
        ]
        self.settled[rid] = time.perf_counter()
        entry["returned"] = (
            amount if done["type"] == "voided" else (mine[0]["returned"] if mine else None)
        )
        return True


async def _run(cfg: BotConfig) -> dict[str, Any]:
    rng = random.Random(cfg.seed)
    stats = Stats()
    urls = split_urls(cfg.url)
    async with client_session() as http:
        api = Api(http, stats, urls, 0, cfg.failover_s)
        r = await api.call(
            "login",
            "POST",
            "/api/auth/login",
            body={"username": cfg.operator, "password": cfg.operator_password},
        )
        if r.status_code != 200:
            raise RuntimeError(f"operator login failed: HTTP {r.status_code} {r.text[:200]}")
        op = r.json()["token"]
        run_id = secrets.token_hex(3)
        tables = []
        for i in range(cfg.tables):
            r = await api.call(
                "create-table",
                "POST",
                "/api/admin/tables",
                op,
                {
                    "name": f"bots {run_id} #{i + 1}",
                    "mode": "practice" if i % 2 else "casino",
                    "start": "rng" if i % 3 == 2 else "dice",
                    "min_wager": cfg.min_wager,
                    "max_wager": cfg.max_wager,
                    "betting_time_ms": cfg.betting_ms,
                    "setting_time_ms": cfg.setting_ms,
                },
            )
            if r.status_code != 201:
                raise RuntimeError(f"cannot create a table: HTTP {r.status_code} {r.text[:200]}")
            tables.append(r.json())
        credit = cfg.rounds * cfg.max_wager * 2 + 10_000
        players: list[Player] = []

        async def enrol(table: dict[str, Any], spot: int) -> Player:
            name = f"b{run_id}t{table['id']}s{spot}"
            password = secrets.token_urlsafe(12)
            r = await api.call(
                "register",
                "POST",
                "/api/auth/register",
                op,  # an operator's registrations are not limited per address
                body={"username": name, "password": password},
            )
            if r.status_code == 409 and r.code() == "username-taken":
                stats.expected["registered-already"] += 1  # the answer to a retried request
            elif r.status_code != 201:
                raise RuntimeError(f"cannot register {name}: HTTP {r.status_code} {r.text[:200]}")
            r = await api.call(
                "credit",
                "POST",
                f"/api/admin/wallets/{name}/credit",
                op,
                {"amount": credit},
                {"Idempotency-Key": f"fund-{name}"},
            )
            if r.status_code != 200:
                raise RuntimeError(f"cannot fund {name}: HTTP {r.status_code} {r.text[:200]}")
            player = Player(
                cfg, api, table, spot, name, password, credit, random.Random(rng.random())
            )
            # players are spread over the servers given (several processes serve one database)
            player.start = (int(table["id"]) + spot) % len(urls)
            return player

        sem = asyncio.Semaphore(16)

        async def enrol_limited(table: dict[str, Any], spot: int) -> Player:
            async with sem:
                return await enrol(table, spot)

        players = list(
            await asyncio.gather(
                *(enrol_limited(t, s) for t in tables for s in range(1, cfg.players + 1))
            )
        )
        if cfg.freeze_gc:
            settle_memory()  # no collector's pauses in what the players measure
        t0 = time.perf_counter()
        await asyncio.gather(*(p.play() for p in players))
        elapsed = time.perf_counter() - t0
        report = await _verify(api, op, tables, players, cfg)
        for t in tables:  # done: close the tables (their dealers stop)
            await api.call("close-table", "POST", f"/api/admin/tables/{t['id']}/close", op)
        report["elapsed_s"] = round(elapsed, 2)
        report["rounds_per_s"] = round(report["rounds"] / elapsed, 2) if elapsed > 0 else 0.0
        report.update(steady_rate(players))
    report["requests"] = stats.requests
    report["failovers"] = stats.expected.get("failover", 0)
    report["ws_reconnects"] = stats.expected.get("ws-reconnect", 0)
    report["errors"] = {"expected": dict(stats.expected), "unexpected": dict(stats.unexpected)}
    report["error_notes"] = stats.notes
    report["latency_ms"] = {
        kind: {"p50": _pct(v, 0.5), "p99": _pct(v, 0.99), "n": len(v)}
        for kind, v in sorted(stats.latency.items())
    }
    return report


def steady_rate(players: list[Player]) -> dict[str, Any]:
    """Rounds per second while every player plays: from when the last player sat down to when
    the first one finished its rounds (the log-ins and sitting down of a start, and the tail of
    a few tables still playing, are left out), counting the rounds that ended in between."""
    sat = [p.sat_at for p in players if p.sat_at is not None]
    ended = [p.finished_at for p in players if p.finished_at is not None]
    if not players or len(sat) < len(players) or not ended:
        return {"steady_rounds_per_s": None, "steady_window_s": 0.0, "steady_rounds": 0}
    start, end = max(sat), min(ended)
    times: dict[str, float] = {}
    for p in players:
        for rid, at in p.settled.items():
            times[rid] = min(at, times.get(rid, at))
    inside = sum(1 for at in times.values() if start < at <= end)
    window = end - start
    return {
        "steady_rounds_per_s": round(inside / window, 2) if window > 0 else None,
        "steady_window_s": round(max(window, 0.0), 2),
        "steady_rounds": inside,
        "steady_span": [start, end],
    }


async def _verify(
    api: Api, op: str, tables: list[dict[str, Any]], players: list[Player], cfg: BotConfig
) -> dict[str, Any]:
    stats = api.stats
    # every table's rounds are over (the bots have left; the dealer finishes what is in play)
    for t in tables:
        for _ in range(int(cfg.step_timeout_s * 10)):
            r = await api.call("table", "GET", f"/api/tables/{t['id']}")
            rnd = r.json().get("round") if r.status_code == 200 else None
            if rnd is None or rnd["phase"] in ("settled", "voided"):
                break
            await asyncio.sleep(0.1)
    round_ids = sorted({rid for p in players for rid in p.log.rounds})
    mismatches: list[dict[str, str]] = []
    replayed: dict[str, Round] = {}
    sem = asyncio.Semaphore(16)

    async def fetch(rid: str) -> None:
        async with sem:
            r = await api.call("recall", "GET", f"/api/rounds/{rid}", op)
        if r.status_code != 200:
            mismatches.append({"round_id": rid, "problem": f"recall HTTP {r.status_code}"})
            return
        data = r.json()
        if not data["complete_log"]:
            mismatches.append({"round_id": rid, "problem": f"round not over ({data['phase']})"})
            return
        try:
            rnd = Round.replay([{k: v for k, v in e.items() if k != "seq"} for e in data["events"]])
        except PaigowError as exc:
            mismatches.append({"round_id": rid, "problem": f"replay: {exc}"})
            return
        replayed[rid] = rnd
        if rnd.phase.value != data["phase"]:
            mismatches.append(
                {"round_id": rid, "problem": f"phase {data['phase']} vs replay {rnd.phase.value}"}
            )

    await asyncio.gather(*(fetch(rid) for rid in round_ids))
    # what the players saw and hold against the replays
    balances_ok = True
    fouls = 0
    for p in players:
        expected_balance = p.log.credited
        for rid, entry in p.log.rounds.items():
            rnd = replayed.get(rid)
            if rnd is None:
                continue
            got = rnd.returned().get(entry["spot"], 0)
            if entry["returned"] is not None and entry["returned"] != got:
                mismatches.append(
                    {
                        "round_id": rid,
                        "problem": f"{p.name} saw {entry['returned']}, replay gives {got}",
                    }
                )
            if rnd.wagers.get(entry["spot"]) != entry["wager"]:
                mismatches.append(
                    {
                        "round_id": rid,
                        "problem": f"{p.name} wagered {entry['wager']}, log says {rnd.wagers.get(entry['spot'])}",
                    }
                )
            fouls += int(entry["foul"])
            expected_balance += got - entry["wager"]
        r = await api.call("me", "GET", "/api/me", await _login(api, p))
        if r.status_code == 200 and r.json()["balance"] != expected_balance:
            balances_ok = False
            stats.bad(
                "balance", f"{p.name}: balance {r.json()['balance']}, expected {expected_balance}"
            )
    r = await api.call("ledger", "GET", "/api/admin/ledger", op)
    ledger = r.json() if r.status_code == 200 else {"balanced": False}
    settled = sum(1 for rnd in replayed.values() if rnd.phase.value == "settled")
    voided = sum(1 for rnd in replayed.values() if rnd.phase.value == "voided")
    timeouts = sum(
        1
        for rnd in replayed.values()
        for e in rnd.events
        if e.type == "hand-set" and getattr(e, "reason", None) == "timeout"
    )
    return {
        "tables": len(tables),
        "players": len(players),
        "rounds": settled,
        "voided": voided,
        "fouls": fouls,
        "timeouts": timeouts,
        "ledger_balanced": bool(ledger.get("balanced")) and balances_ok,
        "ledger": ledger,
        "replay_mismatches": len(mismatches),
        "mismatch_details": mismatches[:20],
    }


async def _login(api: Api, p: Player) -> str:
    if p.token:
        return p.token
    r = await api.call(
        "login", "POST", "/api/auth/login", body={"username": p.name, "password": p.password}
    )
    p.token = r.json().get("token", "") if r.status_code == 200 else ""
    return p.token


def run_bots(cfg: BotConfig) -> dict[str, Any]:
    return asyncio.run(_run(cfg))


def print_report(console: Any, report: dict[str, Any]) -> None:
    from rich.table import Table

    console.print(
        f"{report['rounds']} rounds settled ({report['voided']} voided) at {report['tables']} tables by "
        f"{report['players']} players in {report['elapsed_s']} s: {report['rounds_per_s']} rounds/s; "
        f"{report['requests']} requests; {report['fouls']} fouls, {report['timeouts']} time-outs"
    )
    if report.get("steady_rounds_per_s") is not None:
        console.print(
            f"while every player played ({report['steady_window_s']} s): "
            f"{report['steady_rounds']} rounds, {report['steady_rounds_per_s']} rounds/s"
        )
    console.print(
        f"ledger balanced: {report['ledger_balanced']}; replay mismatches: {report['replay_mismatches']}"
    )
    console.print(f"errors expected: {report['errors']['expected']}")
    console.print(f"errors unexpected: {report['errors']['unexpected']}")
    for note in report.get("error_notes", [])[:10]:
        console.print(f"  {note}")
    table = Table(title="latency (ms)", title_justify="left")
    for col in ("request", "n", "p50", "p99"):
        table.add_column(col)
    for kind, v in report["latency_ms"].items():
        table.add_row(kind, str(v["n"]), str(v["p50"]), str(v["p99"]))
    console.print(table)
