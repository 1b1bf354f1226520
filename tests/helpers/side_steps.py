"""Helpers of the side-wager tests (``test_side_wagers.py``, ``test_floor_side.py``,
``test_meter_shares.py``): the dealer's steps driven directly, each one transaction, with a
chosen shuffle (a seed found by playing the same round in memory). The migrated database they
take is the ``db`` fixture of ``conftest.py``."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.ruleset import SideWagerOffer
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.accounts.users import create_user
from paigow.service.books import ledger
from paigow.service.books.ledger import Movement
from paigow.service.floor import totals
from paigow.service.game import rounds, seats, table_rows
from paigow.service.store.bus import Notice, outbox
from paigow.service.store.db import Database
from paigow.service.store.unit import Tx
from paigow.setting import all_settings

T = TypeVar("T")
HW = HouseWay.preset("standard")
Wagers = dict[int, tuple[int, dict[str, int]]]
"""Each spot's main wager and side wagers (name -> cents)."""
SETTLE_NOTICES: list[Notice] = []
"""The notices of the last settlement :func:`play` made."""


def step(db: Database, fn: Callable[[Tx], T]) -> T:
    """Run ``fn`` as one step (one transaction) and commit it."""
    with db.engine.begin() as conn:
        tx = Tx(conn, project=totals.project)
        out = fn(tx)
        tx.finish()
        return out


def player(db: Database, name: str, credit: int) -> Principal:
    """A new player whose wallet an operator credited with ``credit`` cents."""

    def make(tx: Tx) -> Principal:
        user = create_user(tx.session, name, "x", "player")
        tx.session.flush()
        ledger.post(
            tx,
            "credit",
            [Movement(ledger.CREDITS, ledger.wallet(name), credit)],
            amount=credit,
            reference=name,
        )
        return Principal(user["id"], name, "player")

    return step(db, make)


def new_table(db: Database, side_wagers: Sequence[SideWagerOffer], name: str = "bonus") -> int:
    """A casino table offering ``side_wagers`` (a minute to bet and to set: the steps run by
    hand); its id."""
    rules = table_rows.build_ruleset(
        commission="0.05",
        house_way=HW,
        start="rng",
        foul="loses",
        wheel="second",
        min_wager=100,
        max_wager=100_000,
        setting_time_ms=60_000,
        side_wagers=tuple(side_wagers),
    )

    def make(tx: Tx) -> int:
        t = table_rows.create_table(
            tx,
            operator="boss",
            name=name,
            ruleset=rules,
            house_way=HW,
            mode="casino",
            betting_time_ms=60_000,
            setting_time_ms=60_000,
        )
        return t.id

    return step(db, make)


def rules_of_table(db: Database, table: int) -> Callable[[], Any]:
    rules = step(db, lambda tx: table_rows.table_ruleset(table_rows.get_table(tx.session, table)))
    return lambda: rules


def find_seed(rules_of: Callable[[], Any], wagers: Wagers, want: Callable[[Round], bool]) -> int:
    """A shuffle seed whose deal, for these wagers, makes ``want`` true (played in memory)."""
    for seed in range(20_000):
        rnd = Round(rules_of(), HW, round_id="probe")
        for spot, (amount, _side) in sorted(wagers.items()):
            rnd.wager(spot, amount)
        rnd.deal(random.Random(seed))
        if rnd.hands and want(rnd):
            return seed
    raise AssertionError("no seed found")


def deal_and_set(
    db: Database,
    table: int,
    players: dict[int, Principal],
    wagers: Wagers,
    seed: int,
    foul: set[int] | None = None,
) -> str:
    """Sit, wager (with side wagers), deal with ``seed``, set (house way, or a foul for the
    spots in ``foul``) and let the dealer set: the round's id, ready to settle."""
    for spot, user in players.items():
        step(db, lambda tx, u=user, s=spot: seats.sit(tx, table, u, s))
    for spot, (amount, side_wagers) in sorted(wagers.items()):
        step(
            db,
            lambda tx, s=spot, a=amount, w=side_wagers: rounds.place_wager(
                tx, table, players[s], a, w
            ),
        )
    rid = step(db, lambda tx: table_rows.get_table(tx.session, table).current_round_id)
    assert rid is not None
    assert step(db, lambda tx: rounds.deal(tx, table, rid, random.Random(seed)))
    for spot, user in players.items():
        hand = step(db, lambda tx, u=user: rounds.my_hand(tx, table, u))
        cards = parse_cards(hand["cards"])
        if foul and spot in foul:
            setting = next(s for s in all_settings(cards) if s.is_foul)
        else:
            setting = HW.set_hand(cards).setting
        low = [c.code for c in setting.low]
        step(db, lambda tx, u=user, lo=low: rounds.set_hand(tx, table, u, lo, True))
    assert step(db, lambda tx: rounds.dealer_sets(tx, table, rid))
    return str(rid)


def play(
    db: Database,
    table: int,
    players: dict[int, Principal],
    wagers: Wagers,
    seed: int,
    foul: set[int] | None = None,
) -> Round:
    """:func:`deal_and_set`, then settle; the round as its log makes it (the settlement's
    notices in :data:`SETTLE_NOTICES`)."""
    rid = deal_and_set(db, table, players, wagers, seed, foul)
    settled = step(db, lambda tx: (rounds.settle(tx, table, rid), list(outbox(tx).notices)))
    assert settled[0]
    SETTLE_NOTICES[:] = settled[1]
    return Round.replay(step(db, lambda tx: rounds.load_events(tx, rid)))
