"""The dragon hand at the service (docs/rulebook.md#the-dragon-hand-at-a-table), on SQLite and
PostgreSQL: the operator's option (off by default, posted), the offer in order from the starting
position, the refusals (not your turn, an amount outside the table minimum to your own wager,
more than your wallet holds, a table without the dragon hand, no offer open), a wager settled to
the cent like a spot in the settlement's own ledger transaction (the floor counting it as a hand
of its player), every player declining, a turn that runs out, players who leave, a void's
refund, the views over HTTP and WebSocket (the dragon face down until the showdown), and every
round replayed and the ledger checked."""

from __future__ import annotations

import itertools
import random
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from paigow.commission import Commission
from paigow.events import DragonSettled
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.ruleset import Ruleset
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.config import ServiceConfig
from paigow.service.game import rounds
from paigow.service.game.rounds.dragon import dragon_row, turn_time_s
from paigow.service.game.seats import sit
from paigow.service.runtime import Runtime
from paigow.service.statuses import DealerStep
from paigow.service.store.db import RoundRow
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import FloorTable
from paigow.settlement import settle
from paigow.variants import offer_order
from tests.helpers.service import Service

HW = HouseWay.preset("standard")
LONG = 3_600_000


def full_log(svc: Any, rid: str) -> list[dict[str, Any]]:
    """The round's log as the operator reads it: complete once the round is over (else as any
    viewer holding no spot sees it)."""
    full = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    assert full["complete_log"] == full["over"]
    return [{k: v for k, v in e.items() if k != "seq"} for e in full["events"]]


def seed_where(ruleset: Ruleset, wagers: dict[int, int], want: Callable[[Round], bool]) -> int:
    """The first seed whose deal (as the service deals it) makes ``want(round)`` true."""
    for seed in itertools.count():
        rnd = Round(ruleset, HW)
        for spot, amount in wagers.items():
            rnd.wager(spot, amount)
        rnd.deal(random.Random(seed))
        if want(rnd):
            return seed
    raise AssertionError("unreachable")


def starts_at(position: int) -> Callable[[Round], bool]:
    return lambda r: r.start is not None and r.start.position == position


class Staged:
    """A live server without dealers and a runtime on its database: the dealer's steps taken by
    hand with a seeded deck, the players' answers over HTTP."""

    def __init__(self, db_url: str) -> None:
        self.svc = Service(db_url, run_dealers=False)
        self.rt = Runtime(ServiceConfig(db_url))

    def close(self) -> None:
        self.svc.stop()
        self.rt.db.dispose()

    def players(self, tid: int, credits: dict[int, int]) -> dict[int, tuple[Principal, Any]]:
        out = {}
        for spot, credit in credits.items():
            c = self.svc.player(credit=credit)
            me = c.ok(c.get("/api/me"))
            p = Principal(me["id"], me["username"], "player")
            with self.rt.write() as tx:
                sit(tx, tid, p, spot)
            out[spot] = (p, c)
        return out

    def wager_all(
        self, tid: int, seats: dict[int, tuple[Principal, Any]], wagers: dict[int, int]
    ) -> str:
        rid = ""
        for spot, amount in wagers.items():
            with self.rt.write() as tx:
                rid = rounds.place_wager(tx, tid, seats[spot][0], amount)["round_id"]
        return rid

    def deal(self, tid: int, rid: str, seed: int) -> None:
        with self.rt.write() as tx:
            assert rounds.deal(tx, tid, rid, random.Random(seed))

    def expire(self, rid: str, *, turn: bool = False, setting: bool = False) -> None:
        with self.rt.write() as tx:
            if turn:
                found = tx.session.get(RoundDragon, rid)
                assert found is not None and found.turn_deadline is not None
                found.turn_deadline = 0.0
            if setting:
                row = tx.session.get(RoundRow, rid)
                assert row is not None
                row.deadline = 0.0

    def finish(self, tid: int, rid: str) -> None:
        """The setting time runs out (late hands set by the house way), the dealer sets, the
        round is settled."""
        self.expire(rid, setting=True)
        with self.rt.write() as tx:
            assert rounds.dealer_sets(tx, tid, rid)
        with self.rt.write() as tx:
            assert rounds.settle(tx, tid, rid)

    def view(self, tid: int) -> rounds.TableView:
        with self.rt.read() as tx:
            found = rounds.peek(tx, tid)
        assert found is not None
        return found


@pytest.fixture
def staged(db_url: str) -> Iterator[Staged]:
    s = Staged(db_url)
    try:
        yield s
    finally:
        s.close()


def dragon(c: Any, tid: int, amount: int | None, **extra: Any) -> Any:
    body: dict[str, Any] = {"accept": amount is not None, "idempotency_key": secrets.token_hex(8)}
    if amount is not None:
        body["amount"] = amount
    return c.post(f"/api/tables/{tid}/dragon", {**body, **extra})


def refused(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text
    return str(r.json()["detail"])


# ------------------------------------------------------------------ the operator's option
def test_the_operators_option_is_off_by_default_and_posted(svc: Any) -> None:
    op = svc.op
    plain = op.ok(op.post("/api/admin/tables", {"name": "plain"}), 201)
    assert plain["dragon"] is False
    up = op.ok(
        op.post("/api/admin/tables", {"name": "d", "variant": "face-up", "dragon": True}), 201
    )
    assert up["dragon"] is True and up["face_up"] and up["commission_posted"] == "0%"
    assert svc.player().table(up["id"])["dragon"] is True  # every view of the table posts it
    r = op.post("/api/admin/tables", {"name": "bad", "dragon": "yes"})
    assert r.status_code == 422 and "dragon" in r.text
    # the round's opening event says so too, in words
    p = svc.player()
    p.sit(up["id"], 3)
    rid = p.ok(p.wager(up["id"], 1000))["round_id"]
    started = p.ok(p.get(f"/api/rounds/{rid}"))["events"][0]
    assert started["dragon"] is True and "the dragon hand offered" in started["text"]


def test_the_requests_refused_before_any_money_moves(staged: Staged) -> None:
    plain = staged.svc.new_table(betting_time_ms=LONG, setting_time_ms=LONG)
    seats = staged.players(plain, {2: 10_000})
    c = seats[2][1]
    rid = staged.wager_all(plain, seats, {2: 1000})
    staged.deal(plain, rid, 1)
    detail = refused(dragon(c, plain, 500), 422, "no-dragon")
    assert "does not deal the dragon hand" in detail
    bad = [
        {"accept": True},  # no amount
        {"accept": False, "amount": 500},  # a refusal takes none
        {"accept": True, "amount": 5.5},
        {"accept": "yes"},
    ]
    for body in bad:
        r = c.post(f"/api/tables/{plain}/dragon", {**body, "idempotency_key": "k"})
        assert r.status_code == 422, (body, r.text)
    r = c.post(f"/api/tables/{plain}/dragon", {"accept": False})
    assert r.status_code == 400, r.text  # an idempotency key is required
    assert c.balance() == 9_000


# ------------------------------------------------------------------ the offer, answers, money
def test_the_offer_goes_in_order_from_the_start_and_a_wager_settles_to_the_cent(
    staged: Staged,
) -> None:
    tid = staged.svc.new_table(dragon=True, betting_time_ms=LONG, setting_time_ms=LONG)
    wagers = {1: 2000, 3: 1000, 4: 1500}
    credits = {1: 2500, 3: 50_000, 4: 50_000}
    seats = staged.players(tid, credits)
    # start at position 5 (spot 4): dealt 4, 5, 6, dealer, 1, 2, 3; spot 5 is the first empty
    seed = seed_where(Ruleset(dragon=True), wagers, starts_at(5))
    rid = staged.wager_all(tid, seats, wagers)
    refused(dragon(seats[1][1], tid, 500), 409, "no-dragon-offer")  # betting: no offer yet
    staged.deal(tid, rid, seed)
    log = full_log(staged.svc, rid)
    dealt = next(e for e in log if e["type"] == "dealt")
    offered = log[-1]
    assert offered["type"] == "dragon-offered" and log[-2] == dealt
    assert offered["order"] == [4, 1, 3] == list(offer_order(dealt["order"], sorted(wagers)))
    assert offered["spot"] == 5 and dealt["order"][0] == 5
    found = dragon_row_of(staged, rid)
    assert found.status == "offered" and found.spot == 5
    assert found.turn_deadline is not None
    share = turn_time_s(LONG, 3)
    assert abs(found.turn_deadline - (time.time() + share)) < 30
    # the dealer waits for the answer: not its turn to set, nor to decline yet
    step, wait = rounds.next_step(staged.view(tid), time.time())
    assert step is None and wait is not None and 0 < wait <= share
    # not your turn; then spot 4 declines and the offer goes to spot 1
    detail = refused(dragon(seats[1][1], tid, 500), 409, "not-your-turn")
    assert "offered to spot 4 now, not to your spot 1" in detail
    answered = seats[4][1].ok(dragon(seats[4][1], tid, None, round_id=rid))
    assert (answered["accepted"], answered["turn"], answered["dragon_spot"]) == (False, 1, 5)
    refused(dragon(seats[4][1], tid, None), 409, "not-your-turn")  # once is enough
    # spot 1: between the table minimum ($5) and its own wager ($20), within its wallet ($5)
    detail = refused(dragon(seats[1][1], tid, 400), 422, "outside-limits")
    assert "$5.00 (the table minimum) to $20.00 (your wager)" in detail
    refused(dragon(seats[1][1], tid, 2001), 422, "outside-limits")
    refused(dragon(seats[1][1], tid, 1000), 409, "insufficient-funds")
    assert seats[1][1].balance() == 500  # nothing moved
    refused(dragon(seats[1][1], tid, 500, round_id="ab" * 12), 409, "not-current-round")
    took = seats[1][1].ok(dragon(seats[1][1], tid, 500, round_id=rid))
    assert (took["accepted"], took["amount"], took["balance"], took["turn"]) == (True, 500, 0, None)
    refused(dragon(seats[3][1], tid, 500), 409, "no-dragon-offer")  # the offer is closed
    assert dragon_row_of(staged, rid).status == "in-play"
    # in play: the wager sits in the table's wagers-in-play account (the ledger checks it)
    assert staged.svc.verify()["ok"]
    # the players see the wager but not the dragon's cards before the showdown
    view = seats[3][1].ok(seats[3][1].get(f"/api/rounds/{rid}"))["events"]
    shown = {e["type"]: e for e in view}
    assert shown["dragon-accepted"]["spot"] == 1 and shown["dragon-accepted"]["amount"] == 500
    assert set(shown["dragon-set"]) == {"seq", "type", "spot", "text"}
    assert shown["dragon-set"]["text"].endswith("set by the house way, face down")
    staged.finish(tid, rid)
    log = full_log(staged.svc, rid)
    rnd = Round.replay(log)  # the live round replays
    assert rnd.events == Round.replay(rnd.log()).events
    result = rnd.dragon_result
    assert isinstance(result, DragonSettled) and (result.spot, result.by) == (5, 1)
    assert rnd.dealer_setting is not None and rnd.dragon_setting is not None
    want = settle(rnd.dragon_setting, rnd.dealer_setting, 500, Commission("0.05"))
    assert (result.outcome, result.win, result.commission, result.returned) == (
        want.outcome.value,
        want.win,
        want.commission,
        want.returned,
    )
    # every wallet to the cent: the dragon's result goes to spot 1's player
    for spot, (_, c) in seats.items():
        back = rnd.results[spot].returned + (result.returned if spot == 1 else 0)
        wagered = wagers[spot] + (500 if spot == 1 else 0)
        assert c.balance() == credits[spot] - wagered + back
    assert dragon_row_of(staged, rid).status == "settled"
    assert dragon_row_of(staged, rid).returned == result.returned
    # the floor counts it as a hand of its player: handle, hands, wins and commission
    with staged.rt.read() as tx:
        floor = tx.session.get(FloorTable, tid)
        assert floor is not None
        assert (floor.hands, floor.handle) == (4, 4500 + 500)
        hands = [*rnd.results.values(), result]
        assert floor.commission == sum(h.commission for h in hands)
        assert floor.player_losses == sum(h.wager for h in hands if h.returned == 0)
    row_result = staged.svc.op.ok(staged.svc.op.get(f"/api/rounds/{rid}"))["result"]
    assert row_result["dragon"] == {"spot": 5, "by": 1, "wager": 500, "returned": result.returned}
    assert row_result["totals"]["dragon_wagered"] == 500
    # at the showdown every player sees the dragon's setting with the dealer's
    view = seats[3][1].ok(seats[3][1].get(f"/api/rounds/{rid}"))["events"]
    dealer = next(e for e in view if e["type"] == "dealer-set")
    d = rnd.dragon_setting.to_dict()
    assert dealer["dragon"]["spot"] == 5 and (
        dealer["dragon"]["high"],
        dealer["dragon"]["low"],
    ) == (
        d["high"],
        d["low"],
    )
    settled = next(e for e in view if e["type"] == "dragon-settled")
    assert settled["text"].startswith("dragon hand (spot 5's packet) of spot 1:")
    report = staged.svc.verify()
    assert report["ok"], report
    # the gaming day's report reconciles the ledger with the round records, the dragon included
    day = gaming_day_report(staged.svc)
    assert day["reconciled"] is True
    assert day["total"]["handle"] == 5000 and day["total"]["hands"] == 4


def gaming_day_report(svc: Any) -> Any:
    from paigow.service.books.gaming_day import GamingDay

    today = GamingDay().day_of(time.time()).isoformat()
    return svc.op.ok(svc.op.get(f"/api/admin/floor/report?from={today}&to={today}"))


def dragon_row_of(staged: Staged, rid: str) -> Any:
    with staged.rt.read() as tx:
        found = dragon_row(tx, rid)
    assert found is not None
    return found


def test_every_player_declines_a_turn_runs_out_and_players_who_leave_decline(
    staged: Staged,
) -> None:
    setting_ms = 60_000
    tid = staged.svc.new_table(dragon=True, betting_time_ms=LONG, setting_time_ms=setting_ms)
    wagers = {1: 1000, 2: 1000, 3: 1000, 4: 1000}
    seats = staged.players(tid, dict.fromkeys(wagers, 20_000))
    seed = seed_where(Ruleset(dragon=True), wagers, starts_at(5))  # offered to 4, 1, 2, 3
    rid = staged.wager_all(tid, seats, wagers)
    seats[2][1].ok(seats[2][1].post(f"/api/tables/{tid}/leave"))  # gone before the deal
    staged.deal(tid, rid, seed)
    # spot 4 does not answer: when its turn runs out the dealer declines for it
    with staged.rt.write() as tx:
        assert not rounds.dragon_time_out(tx, tid, rid)  # not due yet
    staged.expire(rid, turn=True)
    assert rounds.next_step(staged.view(tid), time.time())[0] is DealerStep.DRAGON
    before = time.time()
    with staged.rt.write() as tx:
        assert rounds.dragon_time_out(tx, tid, rid)
    found = dragon_row_of(staged, rid)
    assert found.status == "offered" and found.turn_deadline is not None
    share = turn_time_s(setting_ms, 4)
    assert before + share - 1 <= found.turn_deadline <= time.time() + share + 1
    # spot 1 leaves while the offer is its: it declines (and its hand is set by the house way)
    left = seats[1][1].ok(seats[1][1].post(f"/api/tables/{tid}/leave"))
    assert left["dragon_declined"] is True and left["hand_set"] is True
    # spot 2 left before the deal: it declined as its turn came; spot 3 declines itself
    refused(dragon(seats[2][1], tid, None), 409, "not-your-turn")  # gone: its turn passed
    seats[3][1].ok(dragon(seats[3][1], tid, None))
    found = dragon_row_of(staged, rid)
    assert (found.status, found.turn_deadline, found.amount) == ("declined", None, None)
    log = full_log(staged.svc, rid)
    answers = [(e["spot"], e.get("reason")) for e in log if e["type"] == "dragon-declined"]
    assert answers == [(4, "timeout"), (1, "left"), (2, "left"), (3, None)]
    texts = [e["text"] for e in staged.svc.op.ok(staged.svc.op.get(f"/api/rounds/{rid}"))["events"]]
    assert "spot 4 declines the dragon hand (no answer in time)" in texts
    # the offer is closed: the dealer sets once the hands are set (or their time is up)
    assert staged.view(tid).dragon_deadline is None
    staged.finish(tid, rid)
    rnd = Round.replay(full_log(staged.svc, rid))
    assert rnd.dragon_result is None and rnd.dragon_returned() is None
    for spot, (_, c) in seats.items():
        assert c.balance() == 20_000 - 1000 + rnd.results[spot].returned
    report = staged.svc.verify()
    assert report["ok"], report


def test_the_setting_time_closes_the_offer_and_a_void_returns_the_dragon_wager(
    staged: Staged,
) -> None:
    tid = staged.svc.new_table(dragon=True, betting_time_ms=LONG, setting_time_ms=LONG)
    wagers = {2: 3000, 6: 1000}
    seats = staged.players(tid, dict.fromkeys(wagers, 10_000))
    seed = seed_where(Ruleset(dragon=True), wagers, starts_at(1))  # offered to 2, then 6
    # a round where the setting time runs out with the offer open: every turn left times out
    rid = staged.wager_all(tid, seats, wagers)
    staged.deal(tid, rid, seed)
    staged.finish(tid, rid)
    log = full_log(staged.svc, rid)
    answers = [(e["spot"], e.get("reason")) for e in log if e["type"] == "dragon-declined"]
    assert answers == [(2, "timeout"), (6, "timeout")]
    kinds = [e["type"] for e in log]
    assert kinds.index("dragon-declined") < kinds.index("dealer-set")
    # the next round: spot 2 wagers $30.00 on the dragon, then the round is voided
    rid = staged.wager_all(tid, seats, wagers)
    staged.deal(tid, rid, seed)
    balance = seats[2][1].balance()
    seats[2][1].ok(dragon(seats[2][1], tid, 3000))
    assert seats[2][1].balance() == balance - 3000
    with staged.rt.write() as tx:
        assert rounds.void(tx, tid, rid, "dealer error", "boss")
    assert seats[2][1].balance() == balance + 3000  # the main wager and the dragon's returned
    voided = full_log(staged.svc, rid)[-1]
    assert voided["type"] == "voided" and voided["dragon"] == [2, 3000]
    assert dragon_row_of(staged, rid).status == "returned"
    result = staged.svc.op.ok(staged.svc.op.get(f"/api/rounds/{rid}"))["result"]
    assert result["returned_total"] == 3000 + 1000 + 3000
    with staged.rt.read() as tx:
        floor = tx.session.get(FloorTable, tid)
        assert floor is not None and floor.voided_returned == 7000
    report = staged.svc.verify()
    assert report["ok"], report
    day = gaming_day_report(staged.svc)
    assert day["reconciled"] is True and day["total"]["voided_returned"] == 7000


# ------------------------------------------------------------------ live, with the dealer
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_a_dragon_round_live_over_http_and_websocket(svc: Any) -> None:
    """Dealers running: every viewer sees the offer, the acceptance, the dragon face down, its
    setting at the showdown and its result; a second round's turns run out at the dealer."""
    table = svc.new_table(dragon=True, betting_time_ms=60_000, setting_time_ms=20_000)
    a, b = svc.player(), svc.player()
    a.sit(table, 2)
    b.sit(table, 4)
    wa, wb = a.ws(table), b.ws(table)
    spectator = a.ws(table, token="")
    try:
        hello = spectator.wait_for(lambda m: m["type"] == "hello")
        assert hello["table"]["dragon"] is True
        for ws in (wa, wb):  # subscribed: what comes after is sent as messages
            ws.wait_for(lambda m: m["type"] == "hello")
        a.ok(a.wager(table, 1000))
        rid = b.ok(b.wager(table, 2000))["round_id"]
        offers = [
            ws.wait_for(lambda m: m["type"] == "dragon-offered") for ws in (wa, wb, spectator)
        ]
        assert all(o == offers[0] for o in offers)  # the same for every viewer
        order = offers[0]["order"]
        assert sorted(order) == [2, 4] and offers[0]["spot"] not in (2, 4)
        first = {2: a, 4: b}[order[0]]
        amount = 1000  # within both players' wagers
        first.ok(dragon(first, table, amount, round_id=rid))
        for ws in (wa, wb, spectator):
            took = ws.wait_for(lambda m: m["type"] == "dragon-accepted")
            assert (took["spot"], took["amount"]) == (order[0], amount)
            face_down = ws.wait_for(lambda m: m["type"] == "dragon-set")
            assert "high" not in face_down and "face down" in face_down["text"]
        for c in (a, b):
            hand = c.hand(table)
            low = [x.code for x in HW.set_hand([*map(_card, hand["cards"])]).setting.low]
            c.ok(c.set(table, low))
        for ws in (wa, wb, spectator):
            dealer = ws.wait_for(lambda m: m["type"] == "dealer-set")
            assert (
                dealer["dragon"]["spot"] == offers[0]["spot"] and len(dealer["dragon"]["high"]) == 5
            )
            result = ws.wait_for(lambda m: m["type"] == "dragon-settled")
            assert result["by"] == order[0]
            ws.wait_for(lambda m: m["type"] == "round-settled")
        rnd = Round.replay(full_log(svc, rid))
        assert rnd.dragon_returned() == (order[0], result["returned"])
        credit = {a: 100_000 - 1000, b: 100_000 - 2000}
        for spot, c in ((2, a), (4, b)):
            back = rnd.results[spot].returned
            if spot == order[0]:
                back += result["returned"] - amount
            assert c.balance() == credit[c] + back
        # the next round nobody answers: each turn runs out at the dealer (a timeout)
        a.ok(a.wager(table, 1000))
        rid2 = b.ok(b.wager(table, 1000))["round_id"]
        a.wait_dealt(table)
        b.wait_dealt(table)
        for c in (a, b):
            hand = c.hand(table)
            low = [x.code for x in HW.set_hand([*map(_card, hand["cards"])]).setting.low]
            c.ok(c.set(table, low))
        spectator.wait_for(
            lambda m: m["type"] == "round-settled" and m["round_id"] == rid2, timeout=40
        )
        log = full_log(svc, rid2)
        answers = [e.get("reason") for e in log if e["type"] == "dragon-declined"]
        assert answers == ["timeout", "timeout"]
        report = svc.verify()
        assert report["ok"], report
    finally:
        for ws in (wa, wb, spectator):
            ws.close()


def _card(code: str) -> Any:
    from paigow.cards import parse_cards

    return parse_cards([code])[0]


def test_a_face_up_table_shows_the_dragon_with_its_settlement(staged: Staged) -> None:
    """Face up: the dealer set at the deal, then the offer; the dragon's setting is shown with its
    settlement (as a spot's is); settlement waits for the offer to close."""
    tid = staged.svc.new_table(
        variant="face-up", dragon=True, betting_time_ms=LONG, setting_time_ms=LONG
    )
    seats = staged.players(tid, {3: 10_000})
    c = seats[3][1]
    rid = staged.wager_all(tid, seats, {3: 2000})
    staged.deal(tid, rid, 3)
    kinds = [e["type"] for e in full_log(staged.svc, rid)]
    assert kinds[-3:] == ["dealt", "dealer-set", "dragon-offered"]
    hand = c.hand(tid)
    low = [x.code for x in HW.set_hand([*map(_card, hand["cards"])]).setting.low]
    c.ok(c.set(tid, low))
    with staged.rt.write() as tx:
        assert not rounds.settle(tx, tid, rid)  # the offer is still open
    c.ok(dragon(c, tid, 2000))
    with staged.rt.write() as tx:
        assert rounds.settle(tx, tid, rid)
    view = c.ok(c.get(f"/api/rounds/{rid}"))["events"]
    settled = next(e for e in view if e["type"] == "dragon-settled")
    rnd = Round.replay(full_log(staged.svc, rid))
    assert rnd.dragon_setting is not None
    assert settled["setting"]["high"] == rnd.dragon_setting.to_dict()["high"]
    assert "dragon" not in next(e for e in view if e["type"] == "dealer-set")
    assert c.balance() == 10_000 - 4000 + rnd.results[3].returned + rnd.dragon_returned()[1]
    report = staged.svc.verify()
    assert report["ok"], report
