"""Push rules and Face Up at the service: the operator's table form (a variant, a push rule, face
up; clear 422s), what is posted, a face-up round's order of events and views over HTTP and
WebSocket, a push by the rule settled to the cent on a staged deck, and the floor's theoretical
hold of an EZ table (docs/rulebook.md#push-rules-face-up-and-the-dragon-hand). The dragon hand at
the service: tests/service/test_dragon_service.py."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from math import comb
from typing import Any

import pytest

from paigow.analysis.edge import saved_name
from paigow.analysis.kernels import edge_digest
from paigow.cards import parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.ruleset import Ruleset
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.config import ServiceConfig
from paigow.service.floor import edges
from paigow.service.floor.hold import edge_ident, table_ident
from paigow.service.game import rounds, table_rows
from paigow.service.game.seats import sit
from paigow.service.runtime import Runtime
from paigow.service.store.db import RoundRow
from paigow.setting import Setting
from paigow.variants import best_against, push_triggered
from tests.helpers.service import Service

HW = HouseWay.preset("standard")


def house_low(cards: list[str]) -> list[str]:
    return [c.code for c in HW.set_hand(parse_cards(cards)).setting.low]


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj, *(w.strip("(),;:.") for w in obj.split())]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_the_operators_form_takes_a_variant_a_push_rule_and_face_up(svc: Any) -> None:
    op = svc.op
    ez = op.ok(op.post("/api/admin/tables", {"name": "ez", "variant": "ez"}), 201)
    assert ez["commission"] == "0" and ez["commission_posted"] == "0%"
    assert ez["push"] == "queen-high-pai-gow" and not ez["face_up"]
    assert ez["push_posted"] == "dealer's queen-high pai gow: every wager pushes"
    # an explicit commission or push rule wins over the variant's
    mixed = op.ok(
        op.post("/api/admin/tables", {"name": "m", "variant": "ez", "commission": "5%"}), 201
    )
    assert mixed["commission_posted"] == "5%" and mixed["push"] == "queen-high-pai-gow"
    up = op.ok(
        op.post("/api/admin/tables", {"name": "u", "variant": "face-up", "push": "none"}), 201
    )
    assert up["face_up"] and up["push"] == "none" and up["push_posted"] is None
    assert up["commission_posted"] == "0%"
    plain = op.ok(op.post("/api/admin/tables", {"name": "p", "push": "nine-high-low"}), 201)
    assert plain["commission_posted"] == "5%" and plain["push"] == "nine-high-low"
    indiana = op.ok(op.post("/api/admin/tables", {"name": "i"}), 201)
    assert indiana["push"] == "none" and indiana["face_up"] is False
    # every player's view of the table posts it too
    assert svc.player().table(ez["id"])["push_posted"] == ez["push_posted"]
    for bad, word in (
        ({"variant": "vegas"}, "variant"),
        ({"push": "king-high"}, "push"),
        ({"face_up": "yes"}, "face_up"),
        (
            {"dragon": 1},
            "dragon",
        ),  # a boolean (the dragon hand: tests/service/test_dragon_service.py)
    ):
        r = op.post("/api/admin/tables", {"name": "bad", **bad})
        assert r.status_code == 422, (bad, r.text)
        assert word in r.text


def test_a_face_up_round_shows_the_dealers_setting_before_anyone_sets(svc: Any) -> None:
    table = svc.new_table(
        variant="face-up", mode="practice", betting_time_ms=5000, setting_time_ms=15_000
    )
    a, b = svc.player(), svc.player()
    a.sit(table, 2)
    b.sit(table, 4)
    wa, wb = a.ws(table), b.ws(table)
    spectator = a.ws(table, token="")
    try:
        hello = spectator.wait_for(lambda m: m["type"] == "hello")
        assert hello["table"]["face_up"] is True
        for ws in (wa, wb):  # subscribed: what comes after is sent as messages
            ws.wait_for(lambda m: m["type"] == "hello")
        a.ok(a.wager(table, 1000))
        rid = b.ok(b.wager(table, 1500))["round_id"]
        ha, hb = a.wait_dealt(table), b.wait_dealt(table)
        # the dealer's seven cards, set by the house way, reach every viewer right after the
        # deal, before any player has set
        shown = {}
        for ws in (wa, wb, spectator):
            dealer = ws.wait_for(lambda m: m["type"] == "dealer-set")
            kinds = [m["type"] for m in ws.messages if m.get("round_id") == rid]
            assert kinds.index("dealer-set") == kinds.index("dealt") + 1
            assert "hand-set" not in kinds
            assert len(dealer["high"]) == 5 and len(dealer["low"]) == 2 and dealer["rule"]
            assert dealer["settings"] == {}  # no player's setting shown with it
            assert dealer["text"].startswith("dealer sets by the house way")
            shown[id(ws)] = dealer
        dealer = shown[id(spectator)]
        seven = set(dealer["high"] + dealer["low"])
        assert len(seven) == 7 and not seven & set(ha["cards"] + hb["cards"])
        view = b.ok(b.get(f"/api/rounds/{rid}"))
        started = view["events"][0]
        assert started["face_up"] is True and started["push"] == "ace-high-pai-gow"
        assert [e["type"] for e in view["events"]][-2:] == ["dealt", "dealer-set"]
        # the practice hint adds the setting that does best against the exposed dealer
        hint = a.ok(a.get(f"/api/tables/{table}/hint"))
        d = Setting(tuple(parse_cards(dealer["high"])), tuple(parse_cards(dealer["low"])))
        dealer_cards = parse_cards(dealer["high"] + dealer["low"])
        pushes = push_triggered(Ruleset.preset("face-up").push, dealer_cards, d)
        best = best_against(parse_cards(ha["cards"]), d, HW, pushes=pushes)
        assert hint["best"]["low"] == [c.code for c in best.best.low]
        assert hint["best"]["outcome"] == best.settlement.outcome.value
        assert hint["best"]["pushed_by_rule"] is pushes
        # the players' settings stay private until their settlement
        a.ok(a.set(table, hint["best"]["low"]))
        seen = wb.wait_for(lambda m: m["type"] == "hand-set" and m["spot"] == 2)
        assert "high" not in seen
        b.ok(b.set(table, house_low(hb["cards"])))
        settled = spectator.wait_for(lambda m: m["type"] == "round-settled")
        results = [m for m in spectator.messages if m["type"] == "spot-settled"]
        assert [m["spot"] for m in results] == [2, 4]
        assert sorted(results[0]["setting"]["high"] + results[0]["setting"]["low"]) == sorted(
            ha["cards"]
        )
        assert settled["round_id"] == rid
        full = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
        kinds = [e["type"] for e in full["events"]]
        assert kinds[kinds.index("dealt") :] == [
            "dealt",
            "dealer-set",
            "hand-set",
            "hand-set",
            "spot-settled",
            "spot-settled",
            "round-settled",
        ]
        rnd = Round.replay([{k: v for k, v in e.items() if k != "seq"} for e in full["events"]])
        assert rnd.returned() == {int(k): v for k, v in full["result"]["returned"].items()}
        # a practice table: play money ($1,000.00 at the first practice), never the wallet
        assert a.balance() == 100_000
        assert a.play_balance() == 100_000 - 1000 + rnd.returned()[2]
        report = svc.verify()
        assert report["ok"], report
    finally:
        for ws in (wa, wb, spectator):
            ws.close()


# ------------------------------------------------------------------ staged rounds, no dealers
class Staged:
    """A live server without dealers and a runtime on its database: rounds played through the
    service's own steps with a seeded deck."""

    def __init__(self, db_url: str) -> None:
        self.svc = Service(db_url, run_dealers=False)
        self.rt = Runtime(ServiceConfig(db_url))

    def close(self) -> None:
        self.svc.stop()
        self.rt.db.dispose()

    def players(self, tid: int, spots: list[int]) -> list[tuple[Principal, Any]]:
        out = []
        for spot in spots:
            c = self.svc.player()
            me = c.ok(c.get("/api/me"))
            p = Principal(me["id"], me["username"], "player")
            with self.rt.write() as tx:
                sit(tx, tid, p, spot)
            out.append((p, c))
        return out


@pytest.fixture
def staged(db_url: str) -> Iterator[Staged]:
    s = Staged(db_url)
    try:
        yield s
    finally:
        s.close()


def seed_where(ruleset: Ruleset, wagers: dict[int, int], want: Any) -> int:
    """The first seed whose deal (as the service deals it) makes ``want(round)`` true."""
    for seed in itertools.count():
        rnd = Round(ruleset, HW)
        for spot, amount in wagers.items():
            rnd.wager(spot, amount)
        rnd.deal(random.Random(seed))
        if want(rnd):
            return seed
    raise AssertionError("unreachable")


def _triggers(rnd: Round) -> bool:
    assert rnd.dealer_cards is not None
    setting = HW.set_hand(rnd.dealer_cards).setting
    return push_triggered(rnd.ruleset.push, rnd.dealer_cards, setting)


def test_a_push_by_the_rule_is_settled_to_the_cent(staged: Staged) -> None:
    """An EZ table with a 5% commission posted: on a staged deck the dealer's queen-high pai gow
    pushes every wager (each returned to the cent, nothing to the house), and the next round
    pays its wins less the commission."""
    tid = staged.svc.new_table(
        variant="ez", commission="5%", betting_time_ms=3_600_000, setting_time_ms=3_600_000
    )
    rules = Ruleset.preset("ez", commission=Ruleset().commission)
    wagers = {1: 1234, 3: 2500}
    seats = staged.players(tid, sorted(wagers))
    pushed = seed_where(rules, wagers, _triggers)

    def play(seed: int) -> tuple[str, Round]:
        for (p, _), amount in zip(seats, wagers.values(), strict=True):
            with staged.rt.write() as tx:
                rid = rounds.place_wager(tx, tid, p, amount)["round_id"]
        with staged.rt.write() as tx:
            assert rounds.deal(tx, tid, rid, random.Random(seed))
        with staged.rt.write() as tx:
            row = tx.session.get(RoundRow, rid)
            assert row is not None
            row.deadline = 0.0  # every hand set by the house way
        with staged.rt.write() as tx:
            assert rounds.dealer_sets(tx, tid, rid)
        with staged.rt.write() as tx:
            assert rounds.settle(tx, tid, rid)
        full = staged.svc.op.ok(staged.svc.op.get(f"/api/rounds/{rid}"))
        events = [{k: v for k, v in e.items() if k != "seq"} for e in full["events"]]
        return rid, Round.replay(events)

    before = [c.balance() for _, c in seats]
    rid, rnd = play(pushed)
    assert rnd.pushed
    for spot, r in rnd.results.items():
        assert (r.outcome, r.reason, r.returned, r.win, r.commission) == (
            "push",
            "queen-high-pai-gow",
            wagers[spot],
            0,
            0,
        )
    assert [c.balance() for _, c in seats] == before
    view = seats[0][1].ok(seats[0][1].get(f"/api/rounds/{rid}"))
    said = [e["text"] for e in view["events"] if e["type"] == "spot-settled"]
    assert all("dealer's queen-high pai gow: all wagers push" in t for t in said), said
    # a round the rule does not push: wins paid less the 5% commission, to the cent
    plain = seed_where(rules, wagers, lambda r: not _triggers(r))
    _, rnd2 = play(plain)
    assert not rnd2.pushed and all(r.reason is None for r in rnd2.results.values())
    after = [c.balance() for _, c in seats]
    for (spot, amount), b0, b1 in zip(wagers.items(), before, after, strict=True):
        r = rnd2.results[spot]
        assert r.commission == Commission("0.05").on(r.win)
        assert r.returned == (0 if r.outcome == "loss" else amount + r.win - r.commission)
        assert b1 - b0 == r.returned - amount
    report = staged.svc.verify()
    assert report["ok"], report


def test_a_face_up_round_through_the_dealers_steps(staged: Staged) -> None:
    """The dealer's steps at a face-up table: the deal sets the dealer's hand; settlement waits
    for every hand; the dealer's step then only sets late hands, and settlement follows from
    ``setting``."""
    tid = staged.svc.new_table(
        variant="face-up", betting_time_ms=3_600_000, setting_time_ms=3_600_000
    )
    ((p, c), (q, _)) = staged.players(tid, [1, 5])
    with staged.rt.write() as tx:
        rid = rounds.place_wager(tx, tid, p, 1000)["round_id"]
    with staged.rt.write() as tx:
        rounds.place_wager(tx, tid, q, 1000)
    with staged.rt.write() as tx:
        assert rounds.deal(tx, tid, rid, random.Random(7))
    with staged.rt.write() as tx:
        assert not rounds.settle(tx, tid, rid)  # hands still to set
        assert not rounds.dealer_sets(tx, tid, rid)  # not due before the time limit
    hand = c.ok(c.get(f"/api/tables/{tid}/hand"))
    c.ok(c.post(f"/api/tables/{tid}/set", {"low": house_low(hand["cards"])}))
    with staged.rt.write() as tx:
        row = tx.session.get(RoundRow, rid)
        assert row is not None and row.phase == "setting"
        row.deadline = 0.0
    with staged.rt.write() as tx:
        assert rounds.dealer_sets(tx, tid, rid)  # spot 5 timed out
    with staged.rt.write() as tx:
        assert rounds.settle(tx, tid, rid)
    full = staged.svc.op.ok(staged.svc.op.get(f"/api/rounds/{rid}"))
    kinds = [e["type"] for e in full["events"]]
    assert kinds.count("dealer-set") == 1
    assert kinds.index("dealer-set") < kinds.index("hand-set")
    late = [e for e in full["events"] if e["type"] == "hand-set" and e["spot"] == 5]
    assert late[0]["reason"] == "timeout" and full["phase"] == "settled"
    assert staged.svc.verify()["ok"]


# ------------------------------------------------------------------ the floor
EZ_COUNTS = {  # docs/cli.md: `paigow edge --variant ez`, standard house way, every deal
    "win": 2_231_196_776_738_748,
    "push": 3_556_179_423_924_688,
    "loss": 2_463_082_830_550_964,
}
EZ_EDGE = "28985756726527/1031307378901800"


def test_the_floor_holds_an_ez_table_to_its_exact_edge_under_the_push_rule(
    sqlite_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An EZ table's theoretical hold is house way against house way with the dealer's
    queen-high pai gow pushing (the counts ``paigow edge --variant ez`` saves), not Indiana's
    counts at 0%: its own identity, its own saved file."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(cache))
    deals = comb(53, 7) * comb(46, 7)
    assert sum(EZ_COUNTS.values()) == deals
    saved = {
        "player": "house-way",
        "deals": deals,
        **EZ_COUNTS,
        "house_way": HW.to_dict(),
        "wheel": "second",
        "deck": 53,
        "push_rule": "queen-high-pai-gow",
        "code": edge_digest("house-way"),
    }
    plain = {**saved, "push_rule": None, "win": 2358120164000604, "push": 3427552624666108}
    plain.pop("push_rule")
    plain["loss"] = deals - plain["win"] - plain["push"]
    (cache / saved_name(HouseWay.preset("standard"), "second", "house-way")).write_text(
        json.dumps(plain)
    )
    ez_file = cache / saved_name(
        HouseWay.preset("standard"), "second", "house-way", "queen-high-pai-gow"
    )
    # a result for another push rule is not taken
    ez_file.write_text(json.dumps({**saved, "push_rule": "nine-high-low"}))
    assert edges.saved_house_way(cache, HW, "second", "queen-high-pai-gow") is None
    ez_file.write_text(json.dumps(saved))
    got = edges.saved_house_way(cache, HW, "second", "queen-high-pai-gow")
    assert got is not None and got["push"] == EZ_COUNTS["push"]
    assert edges.saved_house_way(cache, HW, "second")["push"] == plain["push"]  # type: ignore[index]
    started: list[str] = []
    monkeypatch.setattr(edges.EdgeWorker, "_executor", lambda self: started.append("pool"))
    svc = Service(sqlite_url, run_dealers=False)
    try:
        ez = svc.new_table(variant="ez")
        indiana = svc.new_table(commission="0%")
        rows = {t["id"]: t for t in svc.op.ok(svc.op.get("/api/admin/floor"))["tables"]}
        assert rows[ez]["theoretical"]["status"] == "ready", rows[ez]["theoretical"]
        assert rows[ez]["theoretical"]["house_way_hold"]["exact"] == EZ_EDGE
        assert rows[ez]["theoretical"]["house_way_hold"]["decimal"] == "0.02810584"
        assert rows[ez]["push_posted"] == "dealer's queen-high pai gow: every wager pushes"
        assert rows[indiana]["push"] == "none" and rows[indiana]["push_posted"] is None
        # the same house way at 0% without the push rule holds less
        indiana_hold = rows[indiana]["theoretical"]["house_way_hold"]["decimal"]
        assert indiana_hold != "0.02810584" and float(indiana_hold) < 0.0281
        assert started == []  # both saved: no worker started
    finally:
        svc.stop()
    rt = Runtime(ServiceConfig(sqlite_url))
    try:
        with rt.db.read() as s:
            ident = table_ident(table_rows.get_table(s, ez))
        assert ident == edge_ident(HW.to_dict(), "second", "queen-high-pai-gow")
        assert ident != edge_ident(HW.to_dict(), "second")
    finally:
        rt.db.dispose()


def test_the_floors_worker_counts_under_the_tables_push_rule(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background worker's computation takes the push rule to the exact count (on the
    full deck it takes minutes: here the count itself is stood in for) and saves it where
    ``paigow edge`` does, so a second server reads it."""
    from paigow.analysis import edge as E
    from paigow.analysis.compiled import cache_dir
    from paigow.ruleset import PushRule

    for compiled in cache_dir().glob("houseway-standard-second-*.bin*"):  # compiled once, shared
        if not compiled.name.endswith(".lock"):
            (tmp_path / compiled.name).symlink_to(compiled)
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    asked: list[PushRule] = []
    deals = comb(53, 7) * comb(46, 7)

    def counted(spec: Any, runner: Any, *, push: PushRule = PushRule.NONE, **_: Any) -> Any:
        asked.append(push)
        extra = {"deck": 53, "push_rule": push.value} if push is not PushRule.NONE else {}
        return E.EdgeResult(
            "house-way",
            deals,
            EZ_COUNTS["win"],
            EZ_COUNTS["push"],
            EZ_COUNTS["loss"],
            Commission("0"),
            1.0,
            extra,
        )

    monkeypatch.setattr(E, "house_way_edge", counted)
    way = HW
    got = edges.compute_edge_counts(way, "second", 1, "queen-high-pai-gow")
    assert asked == [PushRule.QUEEN_HIGH_PAI_GOW]
    assert (got["win"], got["push"], got["loss"]) == tuple(EZ_COUNTS.values())
    assert (
        tmp_path
        / saved_name(HouseWay.preset("standard"), "second", "house-way", "queen-high-pai-gow")
    ).exists()
    again = edges.compute_edge_counts(way, "second", 1, "queen-high-pai-gow")
    assert again["push"] == EZ_COUNTS["push"] and len(asked) == 1  # read back, not recounted
