"""A bot of ``paigow bots`` (:mod:`paigow.cli.bots`): its settings, and one player that logs in,
watches its table over a WebSocket, sits and plays its rounds through the public API, keeping
what it saw for the run's check."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import aiohttp
import orjson

from paigow.cards import Card, parse_cards
from paigow.cli.bots_dragon import play_dragon
from paigow.cli.bots_http import Api, Response
from paigow.house_way import BUILTIN_PRESETS, HouseWay
from paigow.service.aio import stop_tasks, woken
from paigow.setting import Setting, all_settings
from paigow.variants import best_against


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
    side_wagers: bool = True
    """The tables offer side wagers (:data:`SIDE_OFFERS`) and the bots place them (rates:)."""
    side_rate: float = 0.6  # of the players in a round
    side_later_rate: float = 0.3  # of those, by their own request after the main wager
    variants: tuple[str, ...] = ()
    """The variants the tables deal in turn (table ``i`` the ``i % len``-th: ``indiana``, ``ez``,
    ``commission-free``, ``face-up``); none: every table under the Indiana rules."""
    dragon: bool = False
    """The tables offer the dragon hand (:mod:`paigow.cli.bots_dragon`: the bots answer it)."""
    price_settings: bool = False
    """The tables price each setting after each round (``price_settings``)."""
    acks_path: str | None = None
    """A file to write every acknowledged step to, a JSON line each (:meth:`Stats.ack`)."""


KEEP_MESSAGES = 500
"""A player keeps the messages of its last rounds, not of all it has played: each round looks
only at what came after it began (a look over every message of the run grew with each round)."""
TOO_LATE = ("not-setting", "already-set", "not-current-round")
"""The codes of a setting refused because the round moved on before it arrived."""


def side_returns_told(messages: Sequence[dict[str, Any]], round_id: str, spot: int) -> int:
    """What a spot's side wagers returned in a round, Envy included, as the table told it:
    each event once, by its sequence number (a reconnection hands the round's events on again,
    in its hello and in the round read back).

    >>> settled = {"round_id": "r", "seq": 9, "type": "side-wager-settled", "spot": 2,
    ...            "returned": 1500}
    >>> envy = {"round_id": "r", "seq": 10, "type": "envy-paid", "spot": 2, "amount": 500}
    >>> side_returns_told([settled, envy, dict(settled), {**settled, "spot": 3}], "r", 2)
    2000
    """
    told = {
        m.get("seq", id(m)): m
        for m in messages
        if m.get("round_id") == round_id
        and m.get("type") in ("side-wager-settled", "envy-paid")
        and m.get("spot") == spot
    }
    return sum(
        int(m["returned"] if m["type"] == "side-wager-settled" else m["amount"])
        for m in told.values()
    )


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
        self.token = ""  # nosec B105  # empty until log-in; not a password
        self.log = PlayerLog(name, credit)
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        named = str(table["house_way"])  # a table of an operator's own way: the bots play standard
        self.way = HouseWay.preset(named if named in BUILTIN_PRESETS else "standard")
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
            await woken(self.changed, min(left, 1.0))

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
            await woken(self.connected, 30)
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
            await stop_tasks([watcher])

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
        elif r.status_code == 409 and r.code() in TOO_LATE:
            # refused because the round moved on first (a busy server): still a refusal
            stats.expected["bad-too-late"] += 1
        else:
            stats.bad(
                "bad-request-accepted",
                f"{r.method} {r.path} -> {r.status_code} {r.text[:200]}",
            )

    async def _round(self) -> bool:
        cfg, stats = self.cfg, self.api.stats
        amount = self.rng.randrange(cfg.min_wager, cfg.max_wager + 1, 100)
        key = secrets.token_hex(12)
        body: dict[str, Any] = {"amount": amount, "idempotency_key": key}
        side: dict[str, int] = {}
        offers = {o["name"]: o for o in self.table.get("side_wagers") or ()}
        if offers and self.rng.random() < cfg.side_rate:
            for name, o in sorted(offers.items()):
                if self.rng.random() < 0.7:
                    side[name] = self.rng.randrange(o["min_wager"], o["max_wager"] + 1, 100)
        later = bool(side) and self.rng.random() < cfg.side_later_rate  # by their own request
        if side and not later:
            body["side"] = side
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
        stats.ack("wager", rid, self.tid, self.name, placed["spot"], amount=amount)
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
        if later:
            side = await self._side_later(side)
        entry = {
            "spot": placed["spot"],
            "wager": amount,
            "returned": None,
            "foul": False,
            "side": side,
            "side_returned": None,
        }
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
            entry["side_returned"] = sum(side.values())
            return True
        if cards is None:
            stats.bad("deal", f"{self.name}: no cards for round {rid}")
            return False
        if self.table.get("dragon"):  # its answer to the dragon hand, when its turn comes
            turn = asyncio.create_task(play_dragon(self, rid, placed["spot"], amount, entry, mark))
            self._tasks.add(turn)
            turn.add_done_callback(self._tasks.discard)
        if self.rng.random() < cfg.bad_rate:
            await self._bad_requests("setting", cards)
        if dealt is not None and self.table.get("face_up"):  # the dealer's setting in view
            shown = lambda m: m.get("round_id") == rid and m.get("type") == "dealer-set"  # noqa: E731
            await self._wait(shown, cfg.step_timeout_s, mark)  # (the deal's, a message later)
        seven = parse_cards(cards)
        foul = self.rng.random() < cfg.foul_rate
        fouls = [s for s in all_settings(seven) if s.is_foul] if foul else []
        if fouls:
            low = [c.code for c in self.rng.choice(fouls).low]
            body2: dict[str, Any] = {"low": low, "confirm_foul": True}
            entry["foul"] = True
        else:
            low = [c.code for c in self._setting(seven, rid, mark).low]
            body2 = {"low": low}
        body2["idempotency_key"] = secrets.token_hex(12)
        body2["round_id"] = rid
        r = await self.api.call("set", "POST", f"/api/tables/{self.tid}/set", self.token, body2)
        if r.status_code == 409 and r.code() in TOO_LATE:
            stats.expected["set-too-late"] += 1  # the time limit passed: the house way set it
            entry["foul"] = False
        elif not self.expect("set", r, 200):
            return False
        else:
            stats.ack("set", rid, self.tid, self.name, placed["spot"], low=sorted(low))
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
        if self._tasks:  # the dragon's turn is over once the round is
            ended, _ = await asyncio.wait(list(self._tasks))
            for task in ended:  # a task counts its own faults: its exception is only retrieved
                if not task.cancelled():
                    task.exception()
        mine = [
            m
            for m in self.messages[mark:]
            if m.get("round_id") == rid
            and m.get("type") == "spot-settled"
            and m.get("spot") == placed["spot"]
        ]
        self.settled[rid] = time.perf_counter()
        stats.ack(str(done["type"]), rid, self.tid, self.name, placed["spot"])
        entry["returned"] = (
            amount if done["type"] == "voided" else (mine[0]["returned"] if mine else None)
        )
        entry["side_returned"] = (
            sum(side.values())
            if done["type"] == "voided"
            else side_returns_told(self.messages[mark:], rid, placed["spot"])
        )
        return True

    def _setting(self, seven: Sequence[Card], rid: str, mark: int) -> Setting:
        """The house way's setting; at a face-up table, half the time the setting that does
        best against the dealer's, set face up before the players (its message seen)."""
        if self.table.get("face_up") and self.rng.random() < 0.5:
            shown = [
                m
                for m in self.messages[mark:]
                if m.get("round_id") == rid and m.get("type") == "dealer-set"
            ]
            if shown:
                d = shown[0]
                dealer = Setting(tuple(parse_cards(d["high"])), tuple(parse_cards(d["low"])))
                return best_against(seven, dealer, self.way).best
        return self.way.set_hand(seven).setting

    async def _side_later(self, side: dict[str, int]) -> dict[str, int]:
        """Place ``side`` by its own request (none once betting has closed); those placed."""
        stats = self.api.stats
        body = {"side": side, "idempotency_key": secrets.token_hex(12)}
        path = f"/api/tables/{self.tid}/side-wagers"
        r = await self.api.call("side-wagers", "POST", path, self.token, body)
        if r.status_code == 409 and r.code() == "not-betting":
            stats.expected["side-too-late"] += 1
            return {}
        if not self.expect("side-wagers", r, 200):
            return {}
        if self.rng.random() < self.cfg.retry_rate:  # again: must not move money twice
            again = await self.api.call("side-retry", "POST", path, self.token, body)
            if again.status_code != 200 or again.json() != r.json():
                stats.bad("idempotency", f"{self.name}: side retry gave {again.status_code}")
            else:
                stats.expected["idempotent-replay"] += 1
        return side
