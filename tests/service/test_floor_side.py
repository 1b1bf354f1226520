"""The floor and the gaming-day report with side wagers (issue 20, part 5), to the cent on SQLite
and PostgreSQL: rounds with Fortune (and its Envy) and a progressive (a jackpot hit included)
played through the service's own steps with chosen shuffles; every figure per table and wager
type checked against sums made apart (the rounds' own results); the report split by wager type
and reconciled to the ledger, and refused when a record is tampered with; the exact theoretical
hold and variance of a side wager checked against a brute force over every hand of a small deck.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.bonus.hand import BonusCategory, bonus_hand
from paigow.bonus.paytable import PayTable
from paigow.bonus.settle import settle_bonus
from paigow.cards import parse_cards
from paigow.round import Round
from paigow.service.books import ledger
from paigow.service.books.gaming_day import GamingDay
from paigow.service.books.ledger import BankAccounts, SideAccounts
from paigow.service.floor import side_holds as floor_side
from paigow.service.floor.day_report import ReportMismatch, floor_report, render
from paigow.service.floor.view import floor_view
from paigow.service.game import rounds, side_offers
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import Database
from paigow.service.store.floor_models import FloorSideTotal, FloorTable
from paigow.service.store.unit import NoProjector, Tx
from tests.helpers import side_steps
from tests.helpers.side_steps import (
    HW,
    Wagers,
    deal_and_set,
    find_seed,
    play,
    player,
    rules_of_table,
    step,
)

JACKPOT = """
name = "floor-jackpot"
title = "A test progressive: a flush takes the meter"
source = "this test"
target = "player"

[pays]
flush = "100% of meter"
straight = "10% of meter"
three-of-a-kind = "$7"

[progressive]
share = "20%"
seed = "$100"
"""


def new_table(db: Database) -> int:
    offers = side_offers.build_offers(
        [
            side_offers.OfferSpec("fortune", "fortune-a", None, 100, 5000),
            side_offers.OfferSpec("jackpot", None, JACKPOT, 100, 1000, "floor-bank"),
        ]
    )
    return side_steps.new_table(db, offers, "side floor")


def expected(played: list[Round]) -> dict[str, dict[str, int]]:
    """Each wager type's figures summed from the rounds' own results (not the service's)."""
    out: dict[str, dict[str, int]] = {}
    for rnd in played:
        for (_spot, name), res in rnd.side_results.items():
            f = out.setdefault(name, dict.fromkeys(("wagers", "handle", "returned", "envy"), 0))
            f["wagers"] += 1
            f["handle"] += res.wager
            f["returned"] += res.returned
        for (_spot, name), env in rnd.envy.items():
            out[name]["envy"] += env.amount
    return out


def test_the_floor_and_the_report_by_wager_type_reconcile_to_the_cent(db: Database) -> None:
    table = new_table(db)
    ann, bob = player(db, "ann", 500_000), player(db, "bob", 500_000)
    seats = {1: ann, 2: bob}
    jack = PayTable.from_toml(JACKPOT)
    fortune = PayTable.preset("fortune-a")
    wagers: Wagers = {
        1: (1000, {"fortune": 500, "jackpot": 500}),
        2: (2000, {"fortune": 600, "jackpot": 300}),
    }
    wants: list[Callable[[Round], bool]] = [
        lambda r: (
            jack.best(bonus_hand(r.hands[1]).held) is BonusCategory.FLUSH
            and jack.best(bonus_hand(r.hands[2]).held) is None
        ),  # a jackpot hit
        lambda r: any(fortune.best(bonus_hand(r.hands[s]).held) for s in (1, 2)),  # Envy
        lambda r: True,
        lambda r: True,
    ]
    rules = rules_of_table(db, table)
    played = [play(db, table, seats, wagers, find_seed(rules, wagers, w)) for w in wants]
    want = expected(played)
    assert want["jackpot"]["returned"] > 10_000  # the hit paid the meter
    # the floor, per wager type
    with db.read() as s:
        view = floor_view(s, day=GamingDay(), flag_min_hands=100)
    row = next(t for t in view["tables"] if t["id"] == table)
    got = {x["name"]: x for x in row["side_wagers"]}
    assert set(got) == {"fortune", "jackpot"}
    for name, f in want.items():
        g = got[name]
        assert (g["wagers"], g["handle"], g["returned"], g["envy_paid"]) == (
            f["wagers"],
            f["handle"],
            f["returned"],
            f["envy"],
        )
        assert g["house_result"] == f["handle"] - f["returned"] - f["envy"]
        assert g["actual_hold"]["exact"] == str(Fraction(f["handle"] - f["returned"], f["handle"]))
    assert got["jackpot"]["bank"] == "floor-bank" and got["jackpot"]["meter"] is not None
    # the same result from the ledger: the house's side accounts and the meter's movements
    acc = SideAccounts.of(table)
    house = step(db, lambda tx: ledger.balance(tx, acc.win) + ledger.balance(tx, acc.envy))
    meter_acc = BankAccounts.of("floor-bank")
    # the meter is held by the bank's account (its base) and the table's (its shares since)
    meter_now = step(
        db,
        lambda tx: (
            ledger.balance(tx, meter_acc.meter) + ledger.balance(tx, ledger.shares_account(table))
        ),
    )
    assert meter_now == step(db, lambda tx: side_offers.read_meter(tx, "floor-bank")[0])
    seeded = -step(db, lambda tx: ledger.balance(tx, meter_acc.seed))
    total = sum(x["house_result"] for x in got.values())
    assert total == house + (meter_now - seeded)
    # the running totals are what the records add up to: rebuilt from them by the migration
    from alembic import command

    from paigow.service.store.floor_models import FloorSideTotal
    from paigow.service.store.migrate import alembic_config

    def running() -> list[tuple[Any, ...]]:
        with db.read() as s:
            rows = s.execute(sa.select(FloorSideTotal).order_by(FloorSideTotal.name)).scalars()
            return [
                (
                    r.table_id,
                    r.name,
                    r.wagers,
                    r.handle,
                    r.handle_sq,
                    r.round_sq,
                    r.returned,
                    r.envy,
                )
                for r in rows
            ]

    live = running()
    assert [x[1:4] for x in live] == [
        (n, want[n]["wagers"], want[n]["handle"]) for n in sorted(want)
    ]
    cfg = alembic_config(db)
    with db.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005_side_wagers")
    db.migrate()
    assert running() == live
    # the report by gaming day, split by wager type, reconciled
    today = GamingDay().day_of(time.time())
    with db.read() as s:
        report = floor_report(s, today, today, GamingDay())
    lines = {x["wager"]: x for x in report["side_wagers"] if x["table_id"] == table}
    for name, f in want.items():
        line = lines[name]
        assert (line["wagers"], line["handle"], line["returned"], line["envy_paid"]) == (
            f["wagers"],
            f["handle"],
            f["returned"],
            f["envy"],
        )
        assert line["house_result"] == got[name]["house_result"]
    by_type = {x["wager"]: x for x in report["side_wagers_by_type"]}
    assert by_type["fortune"]["handle"] == want["fortune"]["handle"]
    csv_text = render(report, "csv")
    assert f",{table},side floor,jackpot,{want['jackpot']['wagers']}," in csv_text
    assert "<h2>Side wagers by type</h2>" in render(report, "html")
    # a tampered record is found: the report is refused, naming the wager
    with db.engine.begin() as conn:
        conn.execute(
            sa.update(RoundSideWager)
            .where(RoundSideWager.name == "fortune", RoundSideWager.spot == 1)
            .values(returned=RoundSideWager.returned + 1)
        )
    with db.read() as s, pytest.raises(ReportMismatch, match="side wager fortune: returned"):
        floor_report(s, today, today, GamingDay())


def test_a_round_ended_without_the_floors_projector_fails_whole(db: Database) -> None:
    """Issue 46: the game writes what ended (``RoundEnded``) and the floor's projector turns it
    into the totals at the step's finish; a bare ``Tx`` given none fails rather than skip them
    (nothing of the settlement lands), and with it the totals count the round."""
    table = new_table(db)
    wagers: Wagers = {1: (1000, {"fortune": 500})}
    seed = find_seed(rules_of_table(db, table), wagers, lambda r: True)
    rid = deal_and_set(db, table, {1: player(db, "cat", 100_000)}, wagers, seed)
    with pytest.raises(NoProjector), db.engine.begin() as conn:
        tx = Tx(conn)
        assert rounds.settle(tx, table, rid)
        tx.finish()
    assert step(db, lambda tx: rounds.settle(tx, table, rid))  # not settled before: now
    with db.read() as s:
        row = s.get(FloorTable, table)
        sides = s.execute(sa.select(FloorSideTotal.name, FloorSideTotal.wagers)).all()
    assert row is not None and (row.rounds, row.hands, row.handle) == (1, 1, 1000)
    assert [tuple(r) for r in sides] == [("fortune", 1)]


def test_the_theoretical_hold_of_a_side_wager_is_its_exact_return(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a 15-card deck: the floor's hold and variance of Fortune equal a brute force over
    every seven-card hand, each settled by the pay table itself."""
    from paigow.analysis.bonus_return import deck_counts

    deck = parse_cards("As Ks Qs Js Ts 9s 8s Ah Kh Qh Jh Th 9h 8h Jk")
    counts = deck_counts(deck, HW)
    table = PayTable.preset("fortune-a")
    wager = 500
    outcomes = []
    for hand in combinations(deck, 7):
        r = settle_bonus(table, wager, bonus_hand(hand).held)
        outcomes.append(Fraction(wager - r.returned, wager))  # the house's gain per unit
    n = len(outcomes)
    mean = sum(outcomes, Fraction(0)) / n
    var = sum((x * x for x in outcomes), Fraction(0)) / n - mean * mean
    theory = floor_side.theory_from_counts(table, counts, wager)
    assert (theory.hold, theory.band.variance) == (mean, var)
    # on the floor: the same figures, and a band once wagers are in
    monkeypatch.setattr(floor_side, "cached_counts", lambda way, wheel: counts)
    offer = side_offers.build_offers(
        [side_offers.OfferSpec("fortune", "fortune-a", None, wager, 5000)]
    )[0]
    totals = floor_side.SideTotals(4, 2000, 1500, 0, 4 * wager * wager, 4 * wager * wager)
    line = floor_side.side_figures(offer, totals, HW, "second", {})
    assert line["theoretical"]["hold"]["exact"] == str(mean)
    assert line["theoretical"]["status"] == "ready" and line["band_95"] is not None
    monkeypatch.setattr(floor_side, "cached_counts", lambda way, wheel: None)
    assert floor_side.side_figures(offer, None, HW, "second", {})["theoretical"] == {
        "status": "computing"
    }
