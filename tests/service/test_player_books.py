"""What a player sees of their own play (issue 47): the EV sheet at a Face Up practice table
against the dealer's exposed setting, the statement of the wallet, and the house way set on
request; every figure checked against an independent computation."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from paigow.cards import parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ruleset import Ruleset
from paigow.service.accounts.auth import Principal
from paigow.service.config import ServiceConfig
from paigow.service.game import rounds, tables
from paigow.service.runtime import Runtime
from paigow.setting import Setting, all_settings
from paigow.settlement import Outcome, settle
from paigow.variants import push_triggered

HW = HouseWay.preset("standard")


class Staged:
    """A live server without dealers and a runtime on its database: the dealer's steps taken
    by hand with a seeded deck, the players' commands over HTTP."""

    def __init__(self, helpers: Any, db_url: str) -> None:
        self.svc = helpers.Service(db_url, run_dealers=False)
        self.rt = Runtime(ServiceConfig(db_url))

    def close(self) -> None:
        self.svc.stop()
        self.rt.db.dispose()

    def player(self, tid: int, spot: int, credit: int = 100_000) -> tuple[Principal, Any]:
        c = self.svc.player(credit=credit)
        me = c.ok(c.get("/api/me"))
        p = Principal(me["id"], me["username"], "player")
        with self.rt.write() as tx:
            tables.sit(tx, tid, p, spot)
        return p, c

    def wager_and_deal(self, tid: int, p: Principal, amount: int, seed: int) -> str:
        with self.rt.write() as tx:
            rid = str(rounds.place_wager(tx, tid, p, amount)["round_id"])
        with self.rt.write() as tx:
            assert rounds.deal(tx, tid, rid, random.Random(seed))
        return rid


@pytest.fixture
def staged(helpers: Any, db_url: str) -> Iterator[Staged]:
    s = Staged(helpers, db_url)
    try:
        yield s
    finally:
        s.close()


def refused(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text
    return str(r.json()["detail"])


# ------------------------------------------------------------------ the Face Up EV sheet
def test_the_face_up_ev_sheet_is_against_the_dealers_exposed_setting(staged: Staged) -> None:
    """At a Face Up practice table the dealer's setting is shown before the players set: the EV
    sheet prices each of the 21 settings against that setting (each outcome certain), not over
    all 53,524,680 dealer hands; checked setting by setting against the settlement itself."""
    tid = staged.svc.new_table(
        variant="face-up", mode="practice", betting_time_ms=3_600_000, setting_time_ms=3_600_000
    )
    p, c = staged.player(tid, 2)
    staged.wager_and_deal(tid, p, 1000, seed=11)
    hand = c.ok(c.get(f"/api/tables/{tid}/hand"))
    sheet = c.ok(c.get(f"/api/web/tables/{tid}/ev"))
    assert sheet["available"] is True
    a = sheet["analysis"]
    assert a["against"] == "exposed" and a["dealer_hands"] == 1
    with staged.rt.read() as tx:
        table = tables.get_table(tx.session, tid)
        row = rounds.current_row(tx, table)
        assert row is not None
        rnd = rounds.load_round(tx, row)
    assert rnd.dealer_setting is not None and rnd.dealer_cards is not None
    rules = Ruleset.preset("face-up")
    pushes = push_triggered(rules.push, rnd.dealer_cards, rnd.dealer_setting)
    seven = parse_cards(hand["cards"])
    rate = rules.commission.rate
    for got, s in zip(a["settings"], all_settings(seven), strict=True):
        r = settle(s, rnd.dealer_setting, 100, Commission("0"), rules.wheel)
        outcome = Outcome.PUSH if pushes and not r.foul else r.outcome
        want = {Outcome.WIN: 1 - rate, Outcome.PUSH: Fraction(0), Outcome.LOSS: Fraction(-1)}
        assert got["low"] == [x.code for x in s.low]
        assert got["ev"] == pytest.approx(float(want[outcome]))
        assert (got["win"], got["push"], got["loss"]) == (
            int(outcome is Outcome.WIN),
            int(outcome is Outcome.PUSH),
            int(outcome is Outcome.LOSS),
        )
    best = max(float(x["ev"]) for x in a["settings"])
    assert a["settings"][a["optimal"]]["ev"] == best
    # the hint's best setting has the same certain outcome as the sheet's optimal one
    hint = c.ok(c.get(f"/api/tables/{tid}/hint"))
    assert hint["best"]["outcome"] == {1: "win", 0: "push", -1: "loss"}[round(best)]
    house = Setting.from_low(seven, a["settings"][a["house_way"]]["low"])
    assert house.same_hands(HW.set_hand(seven).setting)
