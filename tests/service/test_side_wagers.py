"""Side wagers in the service, to the cent, on SQLite and PostgreSQL: the dealer's steps driven
directly with a chosen shuffle (a seed found by playing the same round in memory), and the
API's placing, refusals, views and live meter.

Expected amounts are computed apart from the service's code: the pay table's figures applied to
each spot's bonus hand (:func:`paigow.bonus.hand.bonus_hand`), the shares and seeds of the
progressive by hand."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.bonus.hand import BonusCategory, bonus_hand
from paigow.bonus.paytable import PayTable
from paigow.errors import RoundError
from paigow.round import Round
from paigow.service.books import audit, ledger
from paigow.service.books.gaming_day import GamingDay
from paigow.service.books.ledger import BankAccounts, SideAccounts, TableAccounts
from paigow.service.floor.day_report import floor_report
from paigow.service.game import rounds, seats, side_offers, table_rows
from paigow.service.http_errors import Conflict, Unprocessable
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import AuditRecord, Database
from paigow.setting import all_settings
from tests.helpers import side_steps
from tests.helpers.side_steps import (
    HW,
    SETTLE_NOTICES,
    Wagers,
    find_seed,
    play,
    player,
    rules_of_table,
    step,
)

JACKPOT = """
name = "test-jackpot"
title = "A test progressive: a flush takes the meter"
source = "this test"
target = "player"

[pays]
seven-card-straight-flush = "100% of meter"
flush = "100% of meter"
straight = "10% of meter"
three-of-a-kind = "$7"

[progressive]
share = "20%"
seed = "$100"
"""


# ----------------------------------------------------------------------------- the steps
def offers(*, jackpot_bank: str = "test-bank") -> tuple[Any, ...]:
    return side_offers.build_offers(
        [
            side_offers.OfferSpec("fortune", "fortune-a", None, 100, 5000),
            side_offers.OfferSpec("jackpot", None, JACKPOT, 100, 1000, jackpot_bank),
        ]
    )


def new_table(db: Database, **kw: Any) -> int:
    return side_steps.new_table(db, offers(**kw))


def balance(db: Database, account: str) -> int:
    return step(db, lambda tx: ledger.balance(tx, account))


def meter(db: Database, bank: str = "test-bank") -> int:
    """The bank's meter (its base and its tables' contributions)."""
    return step(db, lambda tx: side_offers.read_meter(tx, bank)[0])


def check_books(db: Database) -> None:
    """The ledger's check, every round replayed against its records, and the floor's report
    (main wagers) still reconciled to the ledger to the cent."""
    with db.read() as s:
        report = ledger.check(s)
        assert report.balanced, report.problems
        today = GamingDay().day_of(time.time())
        floor = floor_report(s, today, today, GamingDay())  # raises ReportMismatch when it does not
        assert floor["reconciled"]
    v = audit.verify(db)
    assert v["ok"], v


FORTUNE = PayTable.preset("fortune-a")


def fortune_pays(cards: Any, wager: int) -> tuple[BonusCategory | None, int]:
    """What the Fortune table pays on these seven cards (the pay table's own figures)."""
    held = bonus_hand(cards).held
    paid = [c for c in held if c in FORTUNE.pays]
    if not paid:
        return None, 0
    best = max(paid, key=lambda c: FORTUNE.pays[c].win(wager))
    return best, FORTUNE.pays[best].win(wager)


def envy_for(cards: Any) -> int:
    assert FORTUNE.envy is not None
    held = bonus_hand(cards).held
    return max((FORTUNE.envy.amounts.get(c, 0) for c in held), default=0)


# ----------------------------------------------------------------------------- settlement
def test_bonus_win_with_a_foul_and_envy_across_two_players(db: Database) -> None:
    table = new_table(db)
    ann, bob = player(db, "ann", 50_000), player(db, "bob", 50_000)
    wagers: Wagers = {1: (1000, {"fortune": 500}), 2: (2000, {"fortune": 600})}
    seed = find_seed(
        rules_of_table(db, table),
        wagers,
        lambda r: (
            envy_for(r.hands[1]) > 0
            and envy_for(r.hands[2]) == 0
            and any(s.is_foul for s in all_settings(r.hands[1]))
        ),
    )
    rnd = play(db, table, {1: ann, 2: bob}, wagers, seed, foul={1})
    # spot 1 fouled: its main wager lost, its Fortune wager paid on the seven cards
    assert rnd.results[1].returned == 0 and rnd.results[1].foul
    cat1, win1 = fortune_pays(rnd.hands[1], 500)
    _, win2 = fortune_pays(rnd.hands[2], 600)
    assert cat1 is not None and win1 > 0
    envy_to_bob = envy_for(rnd.hands[1])
    assert rnd.envy[(2, "fortune")].amount == envy_to_bob
    assert (1, "fortune") not in rnd.envy  # nothing for bob's hand, never for ann's own
    main2 = rnd.results[2].returned  # the wager and its win less the commission
    assert balance(db, "wallet:ann") == 50_000 - 1000 - 500 + 500 + win1
    assert balance(db, "wallet:bob") == (
        50_000 - 2000 - 600 + main2 + (600 + win2 if win2 else 0) + envy_to_bob
    )
    accounts = SideAccounts.of(table)
    assert balance(db, accounts.wagers) == 0
    assert balance(db, accounts.envy) == -envy_to_bob
    side_paid = (500 + win1) + (600 + win2 if win2 else 0)
    assert balance(db, accounts.win) == 1100 - side_paid
    with db.read() as s:
        rows = {(r.spot, r.name): r for r in s.execute(sa.select(RoundSideWager)).scalars()}
    assert rows[(1, "fortune")].returned == 500 + win1 and rows[(1, "fortune")].status == "settled"
    assert rows[(2, "fortune")].envy == envy_to_bob
    check_books(db)


def test_jackpot_hit_pays_the_meter_and_resets_it_to_the_seed(db: Database) -> None:
    table = new_table(db)
    assert meter(db) == 10_000  # opened seeded by the house
    bank = BankAccounts.of("test-bank")
    assert balance(db, bank.meter) == 10_000 and balance(db, bank.seed) == -10_000
    ann, bob = player(db, "ann", 50_000), player(db, "bob", 50_000)
    wagers: Wagers = {1: (1000, {"jackpot": 500}), 3: (1000, {"jackpot": 300})}
    table_pays = PayTable.from_toml(JACKPOT)

    def flush_only(r: Round) -> bool:
        best = table_pays.best(bonus_hand(r.hands[1]).held)
        other = table_pays.best(bonus_hand(r.hands[3]).held)
        return best is BonusCategory.FLUSH and other is None

    seed = find_seed(rules_of_table(db, table), wagers, flush_only)
    rnd = play(db, table, {1: ann, 3: bob}, wagers, seed)
    shares = 500 * Fraction(1, 5) + 300 * Fraction(1, 5)  # 100 + 60
    before = 10_000 + int(shares)
    hit = rnd.side_results[(1, "jackpot")]
    assert (hit.meter, hit.win, hit.meter_after) == (before, before, 10_000)
    assert meter(db) == 10_000 and balance(db, bank.meter) == 10_000
    assert balance(db, bank.seed) == -20_000  # the seed, and the reset after the hit
    main1 = rnd.results[1].returned
    assert balance(db, "wallet:ann") == 50_000 - 1500 + main1 + 500 + before
    accounts = SideAccounts.of(table)
    # the house's side result: the wagers less their shares, less the wager it returned
    assert balance(db, accounts.win) == (500 - 100) + (300 - 60) - 500
    with db.read() as s:
        hits = (
            s.execute(sa.select(AuditRecord).where(AuditRecord.action == "jackpot-hit"))
            .scalars()
            .all()
        )
    assert len(hits) == 1 and hits[0].details["win"] == before
    assert hits[0].details["meter_after"] == 10_000 and hits[0].target == "bank:test-bank"
    # the table's notice (which carries the round's events) first, then the meter's to each
    # table of the bank
    assert [(n.table_id, n.kind, n.bank, n.balance) for n in dict.fromkeys(SETTLE_NOTICES)] == [
        (table, "round", None, None),
        (table, "meter", "test-bank", 10_000),
    ]
    check_books(db)


def test_meter_grows_by_each_share_and_operators_seed_and_reset(db: Database) -> None:
    table = new_table(db)
    ann = player(db, "ann", 50_000)
    wagers: Wagers = {2: (1000, {"jackpot": 999})}
    table_pays = PayTable.from_toml(JACKPOT)
    seed = find_seed(
        rules_of_table(db, table),
        wagers,
        lambda r: table_pays.best(bonus_hand(r.hands[2]).held) is None,
    )
    play(db, table, {2: ann}, wagers, seed)
    assert meter(db) == 10_000 + 999 // 5  # 199 (199.8 rounded down)
    # no meter pay was possible: the shares went in at the commit, no lock waited on; the
    # meter's notice says it moved, its watchers read it
    assert [(n.kind, n.bank, n.balance) for n in dict.fromkeys(SETTLE_NOTICES)] == [
        ("round", None, None),
        ("meter", "test-bank", None),
    ]
    out = step(db, lambda tx: side_offers.set_bank(tx, "test-bank", 1, "boss", "seed"))
    assert out == {"bank": "test-bank", "meter_before": 10_199, "meter": 10_200}
    out = step(db, lambda tx: side_offers.set_bank(tx, "test-bank", 5_000, "boss", "reset"))
    assert out["meter"] == 5_000 and meter(db) == 5_000
    bank = BankAccounts.of("test-bank")
    assert balance(db, bank.meter) == 5_000
    with db.read() as s:
        actions = [a for (a,) in s.execute(sa.select(AuditRecord.action).order_by(AuditRecord.id))]
    assert "progressive-seed" in actions and "progressive-reset" in actions
    with pytest.raises(Unprocessable):
        step(db, lambda tx: side_offers.set_bank(tx, "test-bank", -1, "boss", "reset"))
    check_books(db)


def test_void_returns_side_wagers_exactly_once(db: Database) -> None:
    table = new_table(db)
    ann = player(db, "ann", 10_000)
    step(db, lambda tx: seats.sit(tx, table, ann, 4))
    step(db, lambda tx: rounds.place_wager(tx, table, ann, 1000, {"fortune": 200, "jackpot": 100}))
    assert balance(db, "wallet:ann") == 10_000 - 1300
    assert balance(db, SideAccounts.of(table).wagers) == 300
    rid = step(db, lambda tx: table_rows.get_table(tx.session, table).current_round_id)
    assert step(db, lambda tx: rounds.void(tx, table, rid, "test fault"))
    assert not step(db, lambda tx: rounds.void(tx, table, rid, "test fault"))  # once
    assert balance(db, "wallet:ann") == 10_000
    assert balance(db, SideAccounts.of(table).wagers) == 0
    assert balance(db, TableAccounts.of(table).wagers) == 0
    assert meter(db) == 10_000  # a void adds no share
    events = step(db, lambda tx: rounds.load_events(tx, rid))
    assert events[-1]["side_returned"] == [[4, "fortune", 200], [4, "jackpot", 100]]
    check_books(db)


def test_refusals_leave_nothing_half_applied(db: Database) -> None:
    table = new_table(db)
    ann = player(db, "ann", 1_500)
    step(db, lambda tx: seats.sit(tx, table, ann, 1))
    cases: list[tuple[dict[str, int], type[Exception], str]] = [
        ({"nope": 100}, RoundError, "unknown-side-wager"),  # the core's refusals
        ({"fortune": 99}, RoundError, "outside-limits"),
        ({"fortune": 5001}, RoundError, "outside-limits"),
        ({"fortune": 600}, Conflict, "insufficient-funds"),  # 1000 + 600 > 1500
    ]
    for wagers, error, code in cases:
        with pytest.raises(error) as info:
            step(db, lambda tx, w=wagers: rounds.place_wager(tx, table, ann, 1000, w))
        assert info.value.code == code  # type: ignore[attr-defined]
        assert balance(db, "wallet:ann") == 1_500
        assert step(db, lambda tx: table_rows.get_table(tx.session, table).current_round_id) is None
    with pytest.raises(Conflict) as info:
        step(db, lambda tx: rounds.place_side_wagers(tx, table, ann, {"fortune": 100}))
    assert info.value.code == "not-betting"
    step(db, lambda tx: rounds.place_wager(tx, table, ann, 1000))
    with pytest.raises(Conflict) as info:
        step(db, lambda tx: rounds.place_side_wagers(tx, table, ann, {"fortune": 501}))
    assert info.value.code == "insufficient-funds" and balance(db, "wallet:ann") == 500
    got = step(db, lambda tx: rounds.place_side_wagers(tx, table, ann, {"fortune": 500}))
    assert got["side"] == {"fortune": 500} and got["balance"] == 0
    with pytest.raises((Conflict, RoundError)) as info:
        step(db, lambda tx: rounds.place_side_wagers(tx, table, ann, {"fortune": 100}))
    assert info.value.code in ("already-wagered", "insufficient-funds")  # type: ignore[attr-defined]
    check_books(db)


def test_offers_are_validated_with_clear_errors() -> None:
    def refused(spec: side_offers.OfferSpec) -> str:
        with pytest.raises(Unprocessable) as info:
            side_offers.build_offers([spec])
        return str(info.value)

    assert "unknown pay table 'nope'" in refused(side_offers.OfferSpec("x", "nope", None, 1, 2))
    assert "not both or neither" in refused(side_offers.OfferSpec("x", "fortune-a", "a=1", 1, 2))
    assert "line" in refused(side_offers.OfferSpec("x", None, 'name = "t"\n[pays\n', 1, 2))
    assert "below min_wager" in refused(side_offers.OfferSpec("x", "fortune-a", None, 500, 100))
    assert "takes no bank" in refused(side_offers.OfferSpec("x", "fortune-a", None, 1, 2, "b"))
    assert "bank name" in refused(side_offers.OfferSpec("x", None, JACKPOT, 1, 2, "Bad Bank!"))


def test_a_bank_takes_only_the_same_progressive(db: Database) -> None:
    new_table(db, jackpot_bank="shared")
    new_table(db, jackpot_bank="shared")  # a second table joins the bank: no second seed
    assert meter(db, "shared") == 10_000
    other = JACKPOT.replace('seed = "$100"', 'seed = "$200"')
    rules = table_rows.build_ruleset(
        commission="0.05",
        house_way=HW,
        start="rng",
        foul="loses",
        wheel="second",
        min_wager=100,
        max_wager=1000,
        setting_time_ms=60_000,
        side_wagers=side_offers.build_offers(
            [side_offers.OfferSpec("j", None, other, 100, 100, "shared")]
        ),
    )
    with pytest.raises(Unprocessable) as info:
        step(
            db,
            lambda tx: table_rows.create_table(
                tx,
                operator="boss",
                name="x",
                ruleset=rules,
                house_way=HW,
                mode="casino",
                betting_time_ms=1000,
                setting_time_ms=1000,
            ),
        )
    assert info.value.code == "bank-mismatch"
    with db.read() as s:
        tables_of = s.execute(sa.text("SELECT count(*) FROM progressive_tables")).scalar()
    assert tables_of == 2


# ----------------------------------------------------------------------------- the API
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_api_places_side_wagers_posts_offers_and_pushes_the_meter(svc: Any) -> None:
    offers_in = [
        {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 5000},
        {
            "name": "jackpot",
            "paytable_toml": JACKPOT,
            "min_wager": 100,
            "max_wager": 1000,
            "bank": "api-bank",
        },
    ]
    table = svc.new_table(side_wagers=offers_in, min_wager=100, betting_time_ms=4000)
    state = svc.op.ok(svc.op.get(f"/api/tables/{table}"))
    assert [o["name"] for o in state["side_wagers"]] == ["fortune", "jackpot"]
    assert state["side_wagers"][0]["table"]["pays"]  # the pay table in full
    assert state["meters"] == {"api-bank": 10_000}
    bad = svc.op.post(
        "/api/admin/tables",
        {
            "name": "bad",
            "side_wagers": [
                {
                    "name": "x",
                    "paytable_toml": 'name = "t"\n[pays\n',
                    "min_wager": 1,
                    "max_wager": 2,
                }
            ],
        },
    )
    assert bad.status_code == 422 and "line" in bad.json()["detail"], bad.text
    p = svc.player(credit=10_000)
    p.sit(table, 1)
    q = svc.player(credit=5_000)  # seated without a wager: betting stays open
    q.sit(table, 2)
    q.ok(q.post("/api/me/limits", {"daily_loss_limit": 1_200}))
    r = q.post(
        f"/api/tables/{table}/wager",
        {"amount": 1000, "side": {"fortune": 300}, "idempotency_key": "q1"},
    )  # the side wager counts toward the loss limit
    assert r.status_code == 403 and r.json()["code"] == "loss-limit", r.text
    assert q.balance() == 5_000
    text = svc.op.get("/api/admin/audit").text  # recorded by the step that refused
    assert '"action":"wager-refused-loss-limit"' in text
    assert '"amount":1300' in text  # the main wager and its side wager
    ws = p.ws(table)
    try:
        # the feed is subscribed once its hello came (a wager committed before that is in the
        # hello's log, not sent again as an event)
        ws.wait_for(lambda m: m.get("type") == "hello")
        r = p.post(
            f"/api/tables/{table}/side-wagers", {"side": {"fortune": 100}, "idempotency_key": "s0"}
        )
        assert r.status_code == 409 and r.json()["code"] == "not-betting", r.text
        r = p.post(
            f"/api/tables/{table}/wager",
            {"amount": 1000, "side": {"fortune": 200}, "idempotency_key": "w1"},
        )
        assert r.status_code == 200 and r.json()["side"] == {"fortune": 200}, r.text
        placed = ws.wait_for(lambda m: m.get("type") == "wager-placed")
        assert "player" not in placed  # the holder's id is not shown to the table
        shown = ws.wait_for(lambda m: m.get("type") == "side-wager-placed")
        assert (shown["spot"], shown["name"], shown["amount"]) == (1, "fortune", 200)
        body = {"side": {"jackpot": 500}, "idempotency_key": "s1"}
        first = p.ok(p.post(f"/api/tables/{table}/side-wagers", body))
        assert first["balance"] == 10_000 - 1700
        assert p.ok(p.post(f"/api/tables/{table}/side-wagers", body)) == first  # idempotent
        again = p.post(
            f"/api/tables/{table}/side-wagers", {"side": {"jackpot": 500}, "idempotency_key": "s2"}
        )
        assert again.status_code == 409 and again.json()["code"] == "already-wagered"
        settled = ws.wait_for(
            lambda m: m.get("type") == "side-wager-settled" and m.get("name") == "jackpot",
            timeout=30,
        )
        # the meter after the round: seed and the share (500 x 20%), or the seed after a hit
        assert settled["meter"] == 10_000 + 100
        want = settled["meter_after"]
        assert want in (10_000, 10_000 + 100)
        meter_msg = ws.wait_for(lambda m: m.get("type") == "meter" and m["meter"] == want)
        assert meter_msg == {"type": "meter", "bank": "api-bank", "meter": want}
    finally:
        ws.close()
    p.wait_phase(table, (None, "settled", "voided"), timeout=30)
    report = svc.op.ok(svc.op.get("/api/admin/ledger"))
    assert report["balanced"], report["problems"]
    banks = svc.op.ok(svc.op.get("/api/admin/progressives"))
    assert banks[0]["bank"] == "api-bank" and banks[0]["tables"] == [table]
    seeded = svc.op.ok(svc.op.post("/api/admin/progressives/api-bank/seed", {"amount": 5}))
    assert seeded["meter"] == seeded["meter_before"] + 5
