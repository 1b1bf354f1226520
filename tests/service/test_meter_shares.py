"""A progressive meter kept in parts (issue 20: twenty tables on one meter settle as fast as
twenty without one): each table's settlements add their shares to the table's own row and
account, and only a hit (or an operator's seed or reset) locks the bank whole and sweeps them.

Checked here: on PostgreSQL a settlement that cannot hit never waits on another table's
settlement in flight, while a hit waits for it and pays the meter with its shares in; many
tables of one bank settling at once from threads (hits among them) never deadlock and leave the
meter, to the cent, at the seed plus every share less the jackpots plus the house's resets,
with the ledger balanced; and the migration that split the meter keeps a database's meter."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.bonus.hand import bonus_hand
from paigow.bonus.paytable import PayKind, PayTable
from paigow.round import Round
from paigow.service.books import audit, ledger
from paigow.service.books.ledger import BankAccounts
from paigow.service.floor import totals
from paigow.service.game import rounds, side_offers
from paigow.service.store.bonus_models import ProgressiveBank, ProgressiveTable
from paigow.service.store.db import Database
from paigow.service.store.unit import Tx
from tests.helpers.service import pg_schema
from tests.helpers.side_steps import (
    Wagers,
    deal_and_set,
    find_seed,
    new_table,
    play,
    player,
    rules_of_table,
    step,
)

JACKPOT = """
name = "shares-jackpot"
target = "player"

[pays]
flush = "100% of meter"
straight = "10% of meter"
three-of-a-kind = "$7"

[progressive]
share = "20%"
seed = "$100"
"""
PAYS = PayTable.from_toml(JACKPOT)
SHARE = Fraction(1, 5)
SEED = 10_000


def jackpot_table(db: Database, bank: str) -> int:
    offers = side_offers.build_offers(
        [side_offers.OfferSpec("jackpot", None, JACKPOT, 100, 1000, bank)]
    )
    return new_table(db, offers, f"meter {bank}")


def may_hit(rnd: Round, spot: int = 1) -> bool:
    """Whether the spot's seven cards hold a category this pay table pays from the meter."""
    held = bonus_hand(rnd.hands[spot]).held
    return any(c in PAYS.pays and PAYS.pays[c].kind is PayKind.METER for c in held)


def takes_all(rnd: Round, spot: int = 1) -> bool:
    """A flush and nothing better: a hit of the whole meter."""
    best = PAYS.best(bonus_hand(rnd.hands[spot]).held)
    return best is not None and PAYS.pays[best].kind is PayKind.METER and best.value == "flush"


def settle_in(db: Database, table: int, rid: str) -> Callable[[Tx], bool]:
    return lambda tx: rounds.settle(tx, table, rid)


def meter_parts(db: Database, bank: str) -> tuple[int, dict[int, int]]:
    with db.read() as s:
        base = s.get(ProgressiveBank, bank)
        assert base is not None
        rows = s.execute(
            sa.select(ProgressiveTable.table_id, ProgressiveTable.contribution).where(
                ProgressiveTable.bank == bank
            )
        ).all()
    return int(base.base), {int(t): int(c) for t, c in rows}


def books_balanced(db: Database) -> dict[str, Any]:
    with db.read() as s:
        report = ledger.check(s)
    assert report.balanced, report.problems
    v = audit.verify(db)
    assert v["ok"], v
    return report.to_dict()


def expected_meter(start: int, played: list[Round]) -> int:
    """The meter after ``played`` from ``start``, from the rounds' own results: each wager's
    share (20%, rounded down), less each pay from the meter, plus the house's top-up to the
    seed after it."""
    meter = start
    for rnd in played:
        for (_spot, name), res in rnd.side_results.items():
            assert name == "jackpot"
            share = SHARE * res.wager
            meter += share.numerator // share.denominator
            category = None if res.hand is None else PAYS.pays.get(res.hand)
            if category is not None and category.kind is PayKind.METER:
                assert res.meter is not None and res.meter_after is not None
                paid = res.win
                meter += -paid + (res.meter_after - (res.meter - paid))
                assert res.meter_after == max(res.meter - paid, SEED)
    return meter


# ----------------------------------------------------------------------------- PostgreSQL
@pytest.fixture
def pg_db() -> Any:
    with pg_schema() as url:
        d = Database(url, pool_size=12)
        d.migrate()
        try:
            yield d
        finally:
            d.dispose()


def test_a_settlement_never_waits_on_another_tables_and_a_hit_waits_for_them(pg_db: Any) -> None:
    """Three tables of one bank, rounds ready: B's settlement (no hit possible) is held open
    before its commit; C's (no hit) settles meanwhile, never waiting (a lock wait would fail it
    after 5 s); A's hit waits for B's row (PostgreSQL says B blocks it), then pays the meter
    with all three shares in and resets it to the seed; nothing is left in the tables' parts."""
    db = pg_db
    a, b, c = (jackpot_table(db, "held") for _ in range(3))
    assert a < b < c  # a hit locks the tables' rows in this order
    wagers: Wagers = {1: (1000, {"jackpot": 500})}
    ready = {}
    for table, want in (
        (a, takes_all),
        (b, lambda r: not may_hit(r)),
        (c, lambda r: not may_hit(r)),
    ):
        who = player(db, f"held{table}", 100_000)
        seed = find_seed(rules_of_table(db, table), wagers, want)
        ready[table] = deal_and_set(db, table, {1: who}, wagers, seed)
    pids: dict[str, int] = {}
    b_settled, b_commit = threading.Event(), threading.Event()

    def settle_b_and_hold() -> bool:
        with db.engine.begin() as conn:
            pids["b"] = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
            tx = Tx(conn, project=totals.project)
            done = rounds.settle(tx, b, ready[b])
            tx.finish()
            b_settled.set()
            assert b_commit.wait(60)
            return done

    def hit_a() -> bool:
        with db.engine.begin() as conn:
            pids["a"] = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
            tx = Tx(conn, project=totals.project)
            done = rounds.settle(tx, a, ready[a])
            tx.finish()
            return done

    with ThreadPoolExecutor(2) as pool:
        held = pool.submit(settle_b_and_hold)
        try:
            assert b_settled.wait(60)

            def settle_c(tx: Tx) -> bool:
                tx.connection.exec_driver_sql("SET LOCAL lock_timeout = '5s'")
                return rounds.settle(tx, c, ready[c])

            assert step(db, settle_c)  # while B's settlement holds its row
            hit = pool.submit(hit_a)
            deadline = time.time() + 60
            while True:
                with db.engine.connect() as conn:
                    blockers = conn.exec_driver_sql(
                        f"SELECT pg_blocking_pids({int(pids.get('a', 0))})"
                    ).scalar_one()
                if pids.get("b") in (blockers or []):
                    break
                assert not hit.done(), "the hit did not wait for the settlement in flight"
                assert time.time() < deadline, "the hit never waited on B's settlement"
                time.sleep(0.05)
        finally:
            b_commit.set()
        assert held.result(60) and hit.result(60)
    paid = Round.replay(step(db, lambda tx: rounds.load_events(tx, ready[a])))
    res = paid.side_results[(1, "jackpot")]
    assert (res.meter, res.win, res.meter_after) == (SEED + 3 * 100, SEED + 300, SEED)
    base, parts = meter_parts(db, "held")
    assert base == SEED and parts == {a: 0, b: 0, c: 0}
    assert step(db, lambda tx: side_offers.read_meter(tx, "held"))[0] == SEED
    report = books_balanced(db)
    assert report["system_accounts"]["progressive:meter"] == SEED


def test_many_tables_settling_at_once_keep_the_meter_to_the_cent(db: Database) -> None:
    """Six tables of one bank, three batches settled at once from six threads (one transaction
    each, as the dealers do): the first batch with one hit, the second with two, the third with
    none. No deadlock, every settlement done, the meter exactly what the rounds' own results
    say, its version only grown, the ledger balanced."""
    n = 6
    tables = [jackpot_table(db, "crowd") for _ in range(n)]
    people = {t: player(db, f"crowd{t}", 1_000_000) for t in tables}
    rules = {t: rules_of_table(db, t) for t in tables}
    hits_in = [{0}, {2, 5}, set()]
    played: list[Round] = []
    versions = [step(db, lambda tx: side_offers.read_meter(tx, "crowd"))[1]]
    with ThreadPoolExecutor(n) as pool:
        for batch, hitting in enumerate(hits_in):
            ready = {}
            for i, t in enumerate(tables):
                wagers: Wagers = {1: (1000, {"jackpot": 100 + 100 * i + 7 * batch})}
                want = takes_all if i in hitting else (lambda r: not may_hit(r))
                seed = find_seed(rules[t], wagers, want)
                ready[t] = deal_and_set(db, t, {1: people[t]}, wagers, seed)
            jobs = [settle_in(db, t, ready[t]) for t in tables]
            done = list(pool.map(lambda job: step(db, job), jobs))
            assert done == [True] * n
            batch_rounds = [
                Round.replay(step(db, lambda tx, r=ready[t]: rounds.load_events(tx, r)))
                for t in tables
            ]
            got = [
                i
                for i, r in enumerate(batch_rounds)
                if r.side_results[(1, "jackpot")].meter_after
                != r.side_results[(1, "jackpot")].meter
            ]
            assert set(got) == hitting
            played += batch_rounds
            versions.append(step(db, lambda tx: side_offers.read_meter(tx, "crowd"))[1])
    want = expected_meter(SEED, played)
    assert step(db, lambda tx: side_offers.read_meter(tx, "crowd"))[0] == want
    base, parts = meter_parts(db, "crowd")
    assert base + sum(parts.values()) == want
    assert versions == sorted(set(versions))  # each batch moved it on
    for t in tables:  # each table's account holds its part
        assert step(db, lambda tx, t=t: ledger.balance(tx, ledger.shares_account(t))) == parts[t]
    assert step(db, lambda tx: ledger.balance(tx, BankAccounts.of("crowd").meter)) == base
    assert books_balanced(db)["system_accounts"]["progressive:meter"] == want


# ----------------------------------------------------------------------------- the migration
def test_the_migration_keeps_a_databases_meter(db: Database) -> None:
    """A bank whose tables hold shares is brought back to ``0007_dragon`` (the meter whole in
    the bank's row and in its one account, as that revision kept it), then upgraded: the meter
    and its version stay, all of it in the base, every table's part at zero with its account
    (one the downgrade had removed is opened again), the ledger balanced; play goes on."""
    from alembic import command

    from paigow.service.store.migrate import alembic_config, current_revision

    t1, t2, t3 = (jackpot_table(db, "mig") for _ in range(3))
    ann = player(db, "ann", 100_000)
    wagers: Wagers = {1: (1000, {"jackpot": 600})}
    quiet = find_seed(rules_of_table(db, t1), wagers, lambda r: not may_hit(r))
    play(db, t1, {1: ann}, wagers, quiet)
    play(db, t2, {1: ann}, wagers, quiet)
    meter, version = step(db, lambda tx: side_offers.read_meter(tx, "mig"))
    assert meter == SEED + 2 * 120 and meter_parts(db, "mig") == (SEED, {t1: 120, t2: 120, t3: 0})
    cfg = alembic_config(db)
    with db.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0007_dragon")
    assert current_revision(db) == "0007_dragon"
    with db.read() as s:
        old = s.execute(sa.text("SELECT meter, version FROM progressive_banks")).one()
        balances = dict(s.execute(sa.text("SELECT name, balance FROM accounts")).all())
        sums = dict(
            s.execute(
                sa.text("SELECT account, SUM(amount) FROM ledger_entries GROUP BY account")
            ).all()
        )
        columns = {c["name"] for c in sa.inspect(s.connection()).get_columns("progressive_tables")}
    assert (old[0], old[1]) == (meter, version)
    assert balances["progressive:meter:mig"] == meter  # that revision's one account
    assert columns == {"bank", "table_id"}
    assert ledger.shares_account(t3) not in balances  # no entry named it: removed
    assert {n: b for n, b in balances.items() if n.startswith(ledger.SHARES)} == {
        ledger.shares_account(t1): 0,
        ledger.shares_account(t2): 0,
    }
    assert all(int(sums.get(n) or 0) == b for n, b in balances.items())
    db.migrate()
    assert step(db, lambda tx: side_offers.read_meter(tx, "mig")) == (meter, version)
    assert meter_parts(db, "mig") == (meter, {t1: 0, t2: 0, t3: 0})
    books_balanced(db)
    bob = player(db, "bob", 100_000)
    play(db, t3, {1: bob}, wagers, quiet)  # the account opened again takes its share
    assert step(db, lambda tx: side_offers.read_meter(tx, "mig"))[0] == meter + 120
    assert step(db, lambda tx: ledger.balance(tx, ledger.shares_account(t3))) == 120
    hit = find_seed(rules_of_table(db, t1), wagers, takes_all)
    rnd = play(db, t1, {1: ann}, wagers, hit)
    res = rnd.side_results[(1, "jackpot")]
    assert (res.meter, res.win, res.meter_after) == (meter + 240, meter + 240, SEED)
    assert meter_parts(db, "mig") == (SEED, {t1: 0, t2: 0, t3: 0})
    books_balanced(db)


def test_the_ledger_check_finds_a_part_of_the_meter_out_of_step(db: Database) -> None:
    """Each part of the meter is checked against its own account: a table's contribution, a
    bank's base, and an account of shares no table has."""
    t = jackpot_table(db, "tamper")
    wagers: Wagers = {1: (1000, {"jackpot": 600})}
    play(
        db,
        t,
        {1: player(db, "tam", 100_000)},
        wagers,
        find_seed(rules_of_table(db, t), wagers, lambda r: not may_hit(r)),
    )
    books_balanced(db)
    shares, bank = ledger.shares_account(t), BankAccounts.of("tamper").meter

    def problems(statement: str) -> list[str]:
        with db.engine.begin() as conn:
            conn.execute(sa.text(statement))
        with db.read() as s:
            return ledger.check(s).problems

    found = problems(
        f"UPDATE progressive_tables SET contribution = contribution + 1 WHERE table_id = {t}"
    )
    assert found == [f"{shares} holds 120 but its table's shares are 121"]
    found = problems(
        f"UPDATE progressive_tables SET contribution = contribution - 1 WHERE table_id = {t}"
    )
    assert found == []
    found = problems("UPDATE progressive_banks SET base = base - 1 WHERE bank = 'tamper'")
    assert found == [f"{bank} holds {SEED} but its bank's base is {SEED - 1}"]
    found = problems(f"DELETE FROM progressive_tables WHERE table_id = {t}")
    assert f"{shares} holds 120 but is no bank's nor table's meter" in found
