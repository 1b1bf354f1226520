"""``paigow bots``: a load client that plays real rounds against a running server through the
public API and WebSockets, then checks what the server did.

With the operator credentials it is given it creates the tables and registers and funds its players;
each player logs in, watches its table over a WebSocket, sits, and plays its rounds: wagers (with
idempotency keys, some sent twice), sets its hand by the house way (a few fouls, confirmed), and
now and then sends a request that must be refused (a wager above the limit or without a key, a
foul without confirmation, cards it was not dealt, an operator route). At the end it replays every
round's complete log with the rules engine, compares the results with what the players saw and
with their wallets (every player's balance must equal what it was credited plus what its rounds
returned less what it wagered, side wagers and Envy included), and asks the server to check its
ledger. Unless told not to, the tables offer side wagers (Fortune with Envy, and a progressive
whose meter all the run's tables share) and the bots place them, with the wager or by the
separate request.

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
from collections import Counter
from typing import Any, Final

from paigow.cli.bots_dragon import dragon_check
from paigow.cli.bots_http import (
    Api,
    Stats,
    client_session,
    percentile,
    split_urls,
)
from paigow.cli.bots_player import BotConfig, Player
from paigow.errors import PaigowError
from paigow.round import Round
from paigow.service.books.play_money import PLAY_START
from paigow.service.runtime import settle_memory
from paigow.side_wagers import paid_from_meter

BOTS_JACKPOT: Final = """
name = "bots-jackpot"
title = "The load client's progressive (meter pays on common hands, so that hits happen)"
source = "paigow bots: a test pay table, not a casino's"
target = "player"

[pays]
seven-card-straight-flush = "100% of meter"
royal-flush = "50% of meter"
four-of-a-kind = "10% of meter"
flush = "1% of meter"
three-of-a-kind = "$10"

[progressive]
share = "20%"
seed = "$500"
"""


def side_offers(bank: str) -> list[dict[str, Any]]:
    """The side wagers the bots' tables offer: Fortune (pay table A, with Envy) and a
    progressive whose meter ``bank`` every table of the run shares."""
    return [
        {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 2500},
        {
            "name": "jackpot",
            "paytable_toml": BOTS_JACKPOT,
            "min_wager": 100,
            "max_wager": 500,
            "bank": bank,
        },
    ]


async def _run(cfg: BotConfig) -> dict[str, Any]:
    rng = random.Random(cfg.seed)  # nosec B311  # load-test bots, seeded for replay; no secret
    urls = split_urls(cfg.url)
    with contextlib.ExitStack() as files:
        sink = files.enter_context(open(cfg.acks_path, "a")) if cfg.acks_path else None
        return await _play_all(cfg, rng, Stats(sink), urls)


async def _play_all(
    cfg: BotConfig, rng: random.Random, stats: Stats, urls: list[str]
) -> dict[str, Any]:
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
            body: dict[str, Any] = {
                "name": f"bots {run_id} #{i + 1}",
                "mode": "practice" if i % 2 else "casino",
                "start": "rng" if i % 3 == 2 else "dice",
                "min_wager": cfg.min_wager,
                "max_wager": cfg.max_wager,
                "betting_time_ms": cfg.betting_ms,
                "setting_time_ms": cfg.setting_ms,
            }
            if cfg.variants:
                body["variant"] = cfg.variants[i % len(cfg.variants)]
            if cfg.dragon:
                body["dragon"] = True
            if cfg.price_settings:
                body["price_settings"] = True
            if cfg.side_wagers:  # one progressive bank for the whole run (casino tables: a
                # practice table plays for play money and shares no progressive meter)
                offers = side_offers(f"bots-{run_id}")
                practice = body["mode"] == "practice"
                body["side_wagers"] = [o for o in offers if not (practice and "bank" in o)]
            r = await api.call("create-table", "POST", "/api/admin/tables", op, body)
            if r.status_code != 201:
                raise RuntimeError(f"cannot create a table: HTTP {r.status_code} {r.text[:200]}")
            tables.append(r.json())
        credit = cfg.rounds * cfg.max_wager * (3 if cfg.dragon else 2) + 10_000
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
            own_rng = random.Random(rng.random())  # nosec B311  # a bot's seeded RNG; no secret
            player = Player(cfg, api, table, spot, name, password, credit, own_rng)
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
    report["acks"] = dict(Counter(a["kind"] for a in stats.acks))
    report["ws_reconnects"] = stats.expected.get("ws-reconnect", 0)
    report["errors"] = {"expected": dict(stats.expected), "unexpected": dict(stats.unexpected)}
    report["error_notes"] = stats.notes
    report["latency_ms"] = {
        kind: {"p50": percentile(v, 0.5), "p99": percentile(v, 0.99), "n": len(v)}
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
    fouls = dragons = 0
    side_wagered = side_returned = jackpots = 0
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
            moved, problem = dragon_check(rnd, entry, p.name)
            if problem is not None:
                mismatches.append({"round_id": rid, "problem": problem})
            expected_balance += moved
            dragons += int(moved != 0 or entry.get("dragon") is not None)
            side = entry.get("side") or {}
            if side:
                keys = [(entry["spot"], n) for n in side]
                if {k: rnd.side_wagers.get(k) for k in keys} != {
                    (entry["spot"], n): a for n, a in side.items()
                }:
                    mismatches.append(
                        {"round_id": rid, "problem": f"{p.name}: side wagers {side} not in the log"}
                    )
                back = rnd.side_returned()
                side_got = sum(back.get(k, 0) for k in keys) + sum(
                    rnd.envy[k].amount for k in keys if k in rnd.envy
                )
                if entry.get("side_returned") is not None and entry["side_returned"] != side_got:
                    mismatches.append(
                        {
                            "round_id": rid,
                            "problem": f"{p.name} saw side wagers return {entry['side_returned']}"
                            f", replay gives {side_got}",
                        }
                    )
                expected_balance += side_got - sum(side.values())
                side_wagered += sum(side.values())
                side_returned += side_got
                jackpots += sum(
                    1
                    for k in keys
                    if k in rnd.side_results and paid_from_meter(rnd.ruleset, rnd.side_results[k])
                )
        r = await api.call("me", "GET", "/api/me", await _login(api, p))
        # a practice table plays for play money (opened with PLAY_START at the first sit): the
        # wallet keeps what was credited
        if r.status_code == 200 and p.table.get("mode") == "practice":
            want = {"balance": p.log.credited, "play_balance": PLAY_START + expected_balance}
            want["play_balance"] -= p.log.credited
        else:
            want = {"balance": expected_balance}
        got_me = r.json() if r.status_code == 200 else {}
        for key, value in want.items():
            if r.status_code == 200 and got_me.get(key) != value:
                balances_ok = False
                stats.bad("balance", f"{p.name}: {key} {got_me.get(key)}, expected {value}")
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
        "dragon_wagers": dragons,
        "dragon_declined": sum(
            1 for rnd in replayed.values() for e in rnd.events if e.type == "dragon-declined"
        ),
        "side_wagered": side_wagered,
        "side_returned": side_returned,
        "jackpot_hits": jackpots,
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
        f"{report['requests']} requests; {report['fouls']} fouls, {report['timeouts']} time-outs; "
        f"{report['dragon_wagers']} dragon wagers, {report['dragon_declined']} dragon refusals"
    )
    if report.get("steady_rounds_per_s") is not None:
        console.print(
            f"while every player played ({report['steady_window_s']} s): "
            f"{report['steady_rounds']} rounds, {report['steady_rounds_per_s']} rounds/s"
        )
    if report.get("side_wagered"):
        console.print(
            f"side wagers: {report['side_wagered']} cents wagered, {report['side_returned']} "
            f"returned (Envy included); {report['jackpot_hits']} meter pays"
        )
    console.print(
        f"ledger balanced: {report['ledger_balanced']}; replay mismatches: {report['replay_mismatches']}"
    )
    console.print(f"acknowledged: {report.get('acks', {})}")
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
