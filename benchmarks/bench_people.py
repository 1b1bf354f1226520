"""Tables held at the pace of people: an independent paced client against ``paigow serve``.

N tables (``--tables``) x 6 players (``--players``), every player from this one address: each
logs in, watches its table over a WebSocket, sits, and plays ``--rounds`` rounds, thinking a
uniform 0.5-3 s before its wager and again before setting its hand (the standard house way).
The operator opens the tables with 4 s betting and 15 s setting (``--betting-ms``,
``--setting-ms``). Printed: wall time of play, hands set late (a set refused because the
round moved on, or a ``hand-set`` event by the house way for ``timeout`` at a player's spot),
rounds whose cards a player never received on its socket (it then asks ``GET .../hand``),
WebSockets refused, the server's CPU seconds a round (``/proc/PID/stat``, children included)
and the client's own, and the load average (the machine may be shared).

    .venv/bin/python benchmarks/bench_people.py --tables 100 --rounds 3
    .venv/bin/python benchmarks/bench_people.py --tables 20 --database postgresql

The server runs on SQLite in a temporary folder (or a fresh schema of the PostgreSQL at
127.0.0.1:5432, ``--database postgresql``). Password hashing is the server's own unless
``--cheap-hash`` (then registration and log-in cost little; play is measured apart anyway).
``--env NAME=VALUE`` passes a setting to the server (e.g. ``PAIGOW_WS_PER_ADDR=256`` to see the
limit that refused sockets before). :func:`play` is shared with ``bench_soak.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from paigow.cards import parse_cards  # noqa: E402
from paigow.house_way import HouseWay  # noqa: E402

PG_ADMIN = "host=127.0.0.1 port=5432 dbname=test user=postgres"
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"
CHEAP_HASH = {"PAIGOW_ARGON2_MEMORY_KIB": "1024", "PAIGOW_ARGON2_TIME_COST": "1"}
OPERATOR = ("bench", "bench-operator-password")
TOO_LATE = ("not-setting", "already-set", "not-current-round")
CLK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLK


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Server:
    proc: subprocess.Popen[str]
    url: str
    lines: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def database(kind: str) -> tuple[str, str | None, str]:
    """A fresh database: its URL, the PostgreSQL schema (None: SQLite) and a temporary folder."""
    tmp = tempfile.mkdtemp(prefix="paigow-people-")
    if kind == "sqlite":
        return f"sqlite:///{tmp}/people.sqlite3", None, tmp
    import psycopg

    schema = "people_" + uuid.uuid4().hex[:8]
    with psycopg.connect(PG_ADMIN, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    return f"{PG_BASE}?options=-csearch_path%3D{schema}", schema, tmp


def drop_schema(schema: str | None) -> None:
    if schema is None:
        return
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as c:
        c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def server_env(extra: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def create_operator(url: str, tmp: str, env: dict[str, str]) -> None:
    pw = Path(tmp) / "operator-password"
    pw.write_text(OPERATOR[1])
    cmd = [sys.executable, "-m", "paigow.cli", "admin", "create", "--database", url]
    cmd += ["--username", OPERATOR[0], "--password-file", str(pw)]
    subprocess.run(cmd, check=True, env=env, capture_output=True)


def start_server(url: str, env: dict[str, str], launcher: Path | None = None) -> Server:
    """``paigow serve`` on a free port (``launcher``: a script run instead of ``-m paigow.cli``
    with the same arguments, e.g. ``_traced.py``)."""
    run = [sys.executable, str(launcher)] if launcher else [sys.executable, "-m", "paigow.cli"]
    cmd = [*run, "serve", "--port", "0", "--database", url]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    server = Server(proc, "")
    deadline = time.time() + 180
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        server.lines.append(line)
        if line.startswith("paigow table server: http"):
            server.url = line.split(": ", 1)[1].strip().rstrip("/")
            break
    if not server.url:
        proc.kill()
        raise RuntimeError("the server did not start:\n" + "".join(server.lines))

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if len(server.lines) < 5000:
                server.lines.append(line)

    threading.Thread(target=drain, daemon=True).start()
    return server


@dataclass
class Tally:
    rounds: int = 0
    late_refused: int = 0
    late_timeout: int = 0
    unseen: int = 0
    ws_refused: int = 0
    ws_dropped: int = 0
    login_busy: int = 0
    busy_retried: int = 0
    """Requests answered 503 ``busy`` and sent again."""
    login_s: float = 0.0
    refused_players: set[str] = field(default_factory=set)
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    notes: list[str] = field(default_factory=list)
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    server: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """The server's own milliseconds per request kind (its ``Server-Timing: app;dur=MS``)."""
    playing: bool = False
    """Set once every player is in (the opening's log-ins, reads, hellos and sits done)."""
    server_play: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """The same, of the requests made after the opening."""

    def bad(self, kind: str, note: str) -> None:
        self.errors[kind] += 1
        if len(self.notes) < 20:
            self.notes.append(f"{kind}: {note}")


WAY = HouseWay.preset("standard")


def server_ms(header: str) -> float | None:
    """The milliseconds of a ``Server-Timing`` header's ``app`` metric.

    >>> server_ms("app;dur=12.5")
    12.5
    """
    for part in header.split(","):
        name, _, rest = part.strip().partition(";")
        if name == "app" and rest.startswith("dur="):
            return float(rest[4:])
    return None


class Person:
    """One paced player: its socket, its seat, its rounds. ``read_table``: it reads its table
    before sitting, as the page does; ``read_hand``: it reads its hand each round once dealt,
    as a page opened mid-round does (``bench_paced.py`` turns both on)."""

    read_table = False
    read_hand = False

    def __init__(
        self,
        http: aiohttp.ClientSession,
        base: str,
        table: int,
        spot: int,
        name: str,
        password: str,
        tally: Tally,
        rng: random.Random,
    ) -> None:
        self.http, self.base, self.table, self.spot = http, base, table, spot
        self.name, self.password, self.tally, self.rng = name, password, tally, rng
        self.token = ""
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.connected = asyncio.Event()
        self.leaving = False

    async def call(self, kind: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; one the server answers 503 ``busy`` (no database connection came
        free in time) is sent again after its ``Retry-After``, as a person clicks again (a
        wager's and a setting's idempotency key goes with it, so nothing is done twice)."""
        for _ in range(30):
            status, data, wait = await self._once(kind, method, path, body)
            if not (status == 503 and isinstance(data, dict) and data.get("code") == "busy"):
                break
            if kind == "login":
                break  # play() counts and retries a busy log-in itself
            self.tally.busy_retried += 1
            await asyncio.sleep(wait)
        return status, data

    async def _once(self, kind: str, method: str, path: str, body: Any) -> tuple[int, Any, float]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        t0 = time.perf_counter()
        async with self.http.request(method, self.base + path, json=body, headers=headers) as r:
            raw = await r.read()
        self.tally.latency[kind].append((time.perf_counter() - t0) * 1000)
        own = server_ms(r.headers.get("Server-Timing", ""))
        if own is not None:
            self.tally.server[kind].append(own)
            if self.tally.playing:
                self.tally.server_play[kind].append(own)
        wait = float(r.headers.get("Retry-After", "1") or 1)
        try:
            return r.status, orjson.loads(raw), wait
        except orjson.JSONDecodeError:
            return r.status, raw.decode(errors="replace"), wait

    async def watch(self) -> None:
        first = True
        while not self.leaving:
            url = f"{self.base}/ws/tables/{self.table}?token={self.token}"
            try:
                async with self.http.ws_connect(url, max_msg_size=2**20) as ws:
                    async for msg in ws:
                        if msg.type is aiohttp.WSMsgType.TEXT:
                            self.messages.append(orjson.loads(msg.data))
                            self.connected.set()
                            self.changed.set()
                if ws.close_code == 4429:
                    self.tally.ws_refused += 1  # too many connections (per user or address)
                    self.tally.refused_players.add(self.name)
                elif not self.leaving:
                    self.tally.ws_dropped += 1
            except aiohttp.WSServerHandshakeError:
                self.tally.ws_refused += 1
            except (aiohttp.ClientError, OSError):
                self.tally.ws_dropped += 1
            if first and not self.connected.is_set():
                self.connected.set()  # refused: play on without it (its cards asked for)
            first = False
            await asyncio.sleep(5.0)  # a person's browser tries again

    async def wait_for(self, pred: Any, timeout: float, since: int) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        i = since
        while True:
            while i < len(self.messages):
                if pred(self.messages[i]):
                    return self.messages[i]
                i += 1
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 1.0))

    async def think(self) -> None:
        await asyncio.sleep(self.rng.uniform(0.5, 3.0))

    async def play(
        self, rounds: int, until: float | None, ready: asyncio.Barrier | None, after: float = 0.0
    ) -> None:
        """Log in, read the table, watch it, sit and play ``rounds`` (or until ``until``);
        ``ready``: every player in before any plays; ``after``: arrive that many seconds late."""
        if after:
            await asyncio.sleep(after)
        while True:
            status, data = await self.call(
                "login",
                "POST",
                "/api/auth/login",
                {"username": self.name, "password": self.password},
            )
            if status != 503:
                break
            self.tally.login_busy += 1  # the hash queue is full: try again, as a person would
            await asyncio.sleep(1.0)
        if status != 200:
            self.tally.bad("login", f"{status} {str(data)[:120]}")
            if ready is not None:
                await ready.abort()
            return
        self.token = data["token"]
        if self.read_table:
            await self.call("table", "GET", f"/api/tables/{self.table}")
        watcher = asyncio.create_task(self.watch())
        try:
            await asyncio.wait_for(self.connected.wait(), 60)
            status, data = await self.call(
                "sit", "POST", f"/api/tables/{self.table}/sit", {"spot": self.spot}
            )
            if status != 200:
                self.tally.bad("sit", f"{status} {str(data)[:120]}")
                if ready is not None:
                    await ready.abort()
                return
            if ready is not None:  # every player in, then play (the log-in burst apart)
                await ready.wait()
            n = 0
            while (n < rounds) if until is None else (time.time() < until):
                n += 1
                if not await self.round():
                    break
                if len(self.messages) > 400:
                    del self.messages[:-100]
            await self.call("leave", "POST", f"/api/tables/{self.table}/leave")
        finally:
            self.leaving = True
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    async def round(self) -> bool:
        await self.think()
        body = {
            "amount": self.rng.randrange(500, 2001, 100),
            "idempotency_key": secrets.token_hex(12),
        }
        mark = len(self.messages)
        data: Any = None
        while True:
            status, data = await self.call("wager", "POST", f"/api/tables/{self.table}/wager", body)
            if status == 200:
                break
            if status == 409 and isinstance(data, dict) and data.get("code") == "round-in-play":
                await self.wait_for(
                    lambda m: m.get("type") in ("round-settled", "voided"), 60, mark
                )
                mark = len(self.messages)
                continue
            self.tally.bad("wager", f"{status} {str(data)[:120]}")
            return False
        rid = data["round_id"]
        dealt = await self.wait_for(
            lambda m: m.get("round_id") == rid and m.get("type") in ("dealt", "voided"), 60, mark
        )
        cards = None
        if dealt is not None and dealt["type"] == "voided":
            return True
        if dealt is not None:
            cards = (dealt.get("your_cards") or {}).get(str(self.spot))
        if cards is None or self.read_hand:
            self.tally.unseen += cards is None
            status, data = await self.call("hand", "GET", f"/api/tables/{self.table}/hand")
            if status == 200 and data.get("round_id") == rid and cards is None:
                cards = data["cards"]
        if cards is not None:
            await self.think()
            low = [c.code for c in WAY.set_hand(parse_cards(cards)).setting.low]
            status, data = await self.call(
                "set",
                "POST",
                f"/api/tables/{self.table}/set",
                {"low": low, "round_id": rid, "idempotency_key": secrets.token_hex(12)},
            )
            if status == 409 and isinstance(data, dict) and data.get("code") in TOO_LATE:
                self.tally.late_refused += 1
            elif status != 200:
                self.tally.bad("set", f"{status} {str(data)[:120]}")
        done = await self.wait_for(
            lambda m: m.get("round_id") == rid and m.get("type") in ("round-settled", "voided"),
            60,
            mark,
        )
        if done is None:
            self.tally.bad("settle", f"{self.name}: round {rid} not seen settled")
        timed_out = any(
            m.get("round_id") == rid
            and m.get("type") == "hand-set"
            and m.get("spot") == self.spot
            and m.get("by") == "house-way"
            and m.get("reason") == "timeout"
            for m in self.messages[mark:]
        )
        self.tally.late_timeout += timed_out
        self.tally.rounds += 1
        return True


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, round(q * (len(s) - 1)))], 1)


async def setup(
    bases: list[str],
    tables: int,
    players: int,
    betting_ms: int,
    setting_ms: int,
    tally: Tally,
    http: aiohttp.ClientSession,
) -> list[Person]:
    """Open the tables as the operator and register and fund their players."""
    rng = random.Random(7)
    op = Person(http, bases[0], 0, 0, *OPERATOR, tally, rng)
    status, data = await op.call(
        "login", "POST", "/api/auth/login", {"username": OPERATOR[0], "password": OPERATOR[1]}
    )
    assert status == 200, data
    op.token = data["token"]
    run = secrets.token_hex(3)
    ids = []
    for i in range(tables):
        status, data = await op.call(
            "create",
            "POST",
            "/api/admin/tables",
            {
                "name": f"people {run} #{i + 1}",
                "mode": "casino",
                "start": "dice",
                "min_wager": 500,
                "max_wager": 5000,
                "betting_time_ms": betting_ms,
                "setting_time_ms": setting_ms,
            },
        )
        assert status == 201, data
        ids.append(int(data["id"]))
    sem = asyncio.Semaphore(8)

    async def enrol(k: int, tid: int, spot: int) -> Person:
        name, password = f"p{run}t{tid}s{spot}", secrets.token_urlsafe(12)
        async with sem:
            status, data = await op.call(
                "register", "POST", "/api/auth/register", {"username": name, "password": password}
            )
            assert status == 201, data
            status, data = await op.call(
                "credit",
                "POST",
                f"/api/admin/wallets/{name}/credit",
                {"amount": 10_000_000, "idempotency_key": f"fund-{name}"},
            )
            assert status == 200, data
        base = bases[k % len(bases)]
        return Person(http, base, tid, spot, name, password, tally, random.Random(rng.random()))

    return list(
        await asyncio.gather(
            *(
                enrol(i * players + s, tid, s + 1)
                for i, tid in enumerate(ids)
                for s in range(players)
            )
        )
    )


async def play(
    bases: list[str],
    tables: int,
    players: int,
    rounds: int,
    until: float | None,
    betting_ms: int = 4000,
    setting_ms: int = 15000,
    on_ready: Any = None,
    on_start: Any = None,
    open_over: float = 0.0,
) -> tuple[Tally, float]:
    """Set up and play; the tally and the wall seconds of play (log-ins included).
    ``on_start`` is called when the opening begins (every account made), ``on_ready`` when
    every player is in. ``open_over`` (seconds): the tables open one after another over that
    time, as a room's do (a table's players arrive together, and each table plays as soon as
    they are in: no table waits for the room); 0: every player at once, and play begins when
    all are in (every table in step: the worst case)."""
    tally = Tally()
    # idle keep-alive connections closed before the server's 5 s do (else a request sent on
    # one the server is closing meets "Server disconnected")
    conn = aiohttp.TCPConnector(limit=0, keepalive_timeout=2.0)
    async with aiohttp.ClientSession(
        connector=conn, timeout=aiohttp.ClientTimeout(total=120)
    ) as http:
        people = await setup(bases, tables, players, betting_ms, setting_ms, tally, http)
        if on_start is not None:
            on_start()
        t0 = time.perf_counter()
        if open_over > 0:  # no barrier: each table plays once its own players are in
            order = {t: i for i, t in enumerate(sorted({p.table for p in people}))}
            later = open_over / max(1, len(order))
            games = asyncio.gather(
                *(p.play(rounds, until, None, order[p.table] * later) for p in people)
            )
        else:
            ready = asyncio.Barrier(len(people) + 1)
            games = asyncio.gather(*(p.play(rounds, until, ready) for p in people))
            await ready.wait()
        tally.login_s = time.perf_counter() - t0
        tally.playing = True
        if on_ready is not None:
            on_ready()
        t1 = time.perf_counter()
        await games
        return tally, time.perf_counter() - t1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--betting-ms", type=int, default=4000)
    ap.add_argument("--setting-ms", type=int, default=15000)
    ap.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--cheap-hash", action="store_true")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    extra = dict(CHEAP_HASH) if args.cheap_hash else {}
    extra.update(dict(e.split("=", 1) for e in args.env))
    env = server_env(extra)
    url, schema, tmp = database(args.database)
    create_operator(url, tmp, env)
    server = start_server(url, env)
    load0, c0 = loadavg(), os.times()
    s0 = s_start = cpu_s(server.pid)
    at_ready: list[tuple[float, os.times_result]] = []
    try:
        tally, wall = asyncio.run(
            play(
                [server.url],
                args.tables,
                args.players,
                args.rounds,
                None,
                args.betting_ms,
                args.setting_ms,
                lambda: at_ready.append((cpu_s(server.pid), os.times())),
            )
        )
        s1, c1 = cpu_s(server.pid), os.times()
    except BaseException:
        print("".join(server.lines[-40:]), file=sys.stderr)
        raise
    finally:
        server.stop()
        drop_schema(schema)
    s_login, c_ready = at_ready[0]
    login_client = (c_ready.user + c_ready.system) - (c0.user + c0.system)
    client = (c1.user + c1.system) - (c_ready.user + c_ready.system)
    s0, s_play = s_login, s1 - s_login  # play alone from here on
    s1 = s0 + s_play
    rounds_played = tally.rounds / max(1, args.players)  # table rounds
    report = {
        "tables": args.tables,
        "players": args.tables * args.players,
        "rounds": args.rounds,
        "database": args.database,
        "login_s": round(tally.login_s, 1),
        "wall_s": round(wall, 1),
        "player_rounds": tally.rounds,
        "hands_late": tally.late_refused + tally.late_timeout,
        "late_refused": tally.late_refused,
        "late_timeout": tally.late_timeout,
        "cards_unseen": tally.unseen,
        "ws_refused": tally.ws_refused,
        "ws_dropped": tally.ws_dropped,
        "players_refused_ws": len(tally.refused_players),
        "login_busy_503": tally.login_busy,
        "login_server_cpu_s": round(s_login - s_start, 1),
        "login_client_cpu_s": round(login_client, 1),
        "server_cpu_s": round(s1 - s0, 1),
        "client_cpu_s": round(client, 1),
        "server_cpu_ms_per_table_round": round(1000 * (s1 - s0) / max(1, rounds_played), 1),
        "client_cpu_ms_per_table_round": round(1000 * client / max(1, rounds_played), 1),
        "wager_p99_ms": pct(tally.latency["wager"], 0.99),
        "set_p99_ms": pct(tally.latency["set"], 0.99),
        "login_p99_ms": pct(tally.latency["login"], 0.99),
        "load_before": load0,
        "load_after": loadavg(),
        "errors": dict(tally.errors),
        "notes": tally.notes[:5],
        "server_errors": sum(1 for ln in server.lines if ln.startswith(("ERROR", "Traceback"))),
    }
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if tally.errors or report["hands_late"] or tally.unseen else 0


if __name__ == "__main__":
    sys.exit(main())
