"""Does a progressive meter shared by many tables make their settlements wait on each other?

``python benchmarks/bench_meter.py --database URL [--tables 20] [--rounds 5]`` prepares, at each
of ``--tables`` tables, a round up to the dealer's setting (one player, a wager, side wagers),
then settles every table's round at once from as many threads (one transaction each, the
dealer's own step :func:`paigow.service.game.rounds.settle`) and times the whole batch; three
floors side by side: no side wagers, Fortune only, and Fortune plus a progressive all the tables
share (each settlement then updates the bank's meter row and holds its lock to its commit).
Prints settlements per second for each (best of ``--rounds`` batches). A fresh schema is used on
PostgreSQL (``?options=-csearch_path%3D...`` in the URL) or a new SQLite file.
"""

from __future__ import annotations

import argparse
import random
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.service.accounts.auth import Principal
from paigow.service.accounts.users import create_user
from paigow.service.books import ledger
from paigow.service.books.ledger import Movement
from paigow.service.game import rounds, side, tables
from paigow.service.store.db import Database
from paigow.service.store.unit import Tx

HW = HouseWay.preset("standard")
JACKPOT = """
name = "bench-jackpot"
target = "player"
[pays]
seven-card-straight-flush = "100% of meter"
five-aces = "10% of meter"
four-of-a-kind = "$75"
[progressive]
share = "15%"
seed = "$10000"
"""


def step(db: Database, fn: Any) -> Any:
    with db.engine.begin() as conn:
        tx = Tx(conn)
        out = fn(tx)
        tx.finish()
        return out


def floor(db: Database, kind: str, n: int, tag: str) -> list[tuple[int, Principal]]:
    specs = []
    if kind != "none":
        specs.append(side.OfferSpec("fortune", "fortune-a", None, 100, 5000))
    if kind == "progressive":
        specs.append(side.OfferSpec("jackpot", None, JACKPOT, 100, 1000, f"bank-{tag}"))
    rules = tables.build_ruleset(
        commission="0.05",
        house_way=HW,
        start="rng",
        foul="loses",
        wheel="second",
        min_wager=100,
        max_wager=100_000,
        setting_time_ms=60_000,
        side_wagers=side.build_offers(specs),
    )
    out = []
    for i in range(n):

        def make(tx: Tx, i: int = i) -> tuple[int, Principal]:
            t = tables.create_table(
                tx,
                operator="bench",
                name=f"{tag} {i}",
                ruleset=rules,
                house_way=HW,
                mode="casino",
                betting_time_ms=60_000,
                setting_time_ms=60_000,
            )
            name = f"{tag}{i}"
            user = create_user(tx.session, name, "x", "player")
            tx.session.flush()
            ledger.post(
                tx,
                "credit",
                [Movement(ledger.CREDITS, ledger.wallet(name), 10**9)],
                amount=10**9,
            )
            who = Principal(user["id"], name, "player")
            tables.sit(tx, t.id, who, 1)
            return t.id, who

        out.append(step(db, make))
    return out


def prepare(db: Database, table: int, who: Principal, kind: str, rng: random.Random) -> str:
    wagers = {} if kind == "none" else {"fortune": 500}
    if kind == "progressive":
        wagers["jackpot"] = 100
    placed = step(db, lambda tx: rounds.place_wager(tx, table, who, 1000, wagers))
    rid = placed["round_id"]
    step(db, lambda tx: rounds.deal(tx, table, rid, rng))
    hand = step(db, lambda tx: rounds.my_hand(tx, table, who))
    low = [c.code for c in HW.set_hand(parse_cards(hand["cards"])).setting.low]
    step(db, lambda tx: rounds.set_hand(tx, table, who, low, True))
    step(db, lambda tx: rounds.dealer_sets(tx, table, rid))
    return str(rid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database", required=True)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    db = Database(args.database, pool_size=2 * args.tables + 4)
    db.migrate()
    rng = random.Random(1)
    print(f"{db.backend}: {args.tables} tables settling at once, best of {args.rounds} batches")
    try:
        for kind in ("none", "fortune", "progressive"):
            at = floor(db, kind, args.tables, f"{kind[:4]}{secrets.token_hex(3)}")
            best = float("inf")
            with ThreadPoolExecutor(args.tables) as pool:
                for _ in range(args.rounds):
                    rids = [prepare(db, t, who, kind, rng) for t, who in at]
                    t0 = time.perf_counter()
                    done = list(
                        pool.map(
                            lambda a: step(db, lambda tx: rounds.settle(tx, a[0], a[1])),
                            [(t, rid) for (t, _), rid in zip(at, rids, strict=True)],
                        )
                    )
                    best = min(best, time.perf_counter() - t0)
                    assert all(done)
            print(
                f"  {kind:12s} {args.tables / best:8.0f} settlements/s "
                f"({1000 * best:.1f} ms for the batch)"
            )
        with db.read() as s:
            report = ledger.check(s)
        print(f"  ledger balanced: {report.balanced}")
    finally:
        db.dispose()


if __name__ == "__main__":
    main()
