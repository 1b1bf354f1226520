"""Playing at a table over HTTP and WebSocket: sit, wager, cards, setting, results; what players
may and may not do; fouls, time-outs, hints, closing a table."""

from __future__ import annotations

import itertools
import time
from typing import Any

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.narrator import hand_names
from paigow.round import Round
from paigow.setting import all_settings
from tests.helpers.service import house_low

HW = HouseWay.preset("standard")


def foul_low(cards: list[str]) -> list[str] | None:
    fouls = [s for s in all_settings(parse_cards(cards)) if s.is_foul]
    return [c.code for c in fouls[0].low] if fouls else None


def replay(events: list[dict[str, Any]]) -> Round:
    return Round.replay([{k: v for k, v in e.items() if k != "seq"} for e in events])


def test_a_full_round(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000)
    a, b = svc.player("ann"), svc.player("bob")
    state = a.table(table)
    assert state["commission"] == "0.05" and state["commission_posted"] == "5%"
    assert [s["occupied"] for s in state["spots"]] == [False] * 6
    a.sit(table, 2)
    b.sit(table, 5)
    assert a.ok(a.wager(table, 1500))["balance"] == 100_000 - 1500
    assert a.table(table)["round"]["phase"] == "betting"
    placed = b.ok(b.wager(table, 2000))
    # every seated player has wagered: betting closes, the dealer deals
    ha, hb = a.wait_dealt(table), b.wait_dealt(table)
    assert ha["spot"] == 2 and hb["spot"] == 5 and len(ha["cards"]) == 7 and len(hb["cards"]) == 7
    assert not set(ha["cards"]) & set(hb["cards"])
    sa = a.ok(a.set(table, house_low(ha["cards"])))
    assert sa["by"] == "player" and not sa["foul"]
    b.ok(b.set(table, house_low(hb["cards"])))
    a.wait_phase(table, (None, "settled"))
    rid = placed["round_id"]
    rnd = a.ok(a.get(f"/api/rounds/{rid}"))
    assert rnd["phase"] == "settled" and not rnd["complete_log"]
    full = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    assert full["complete_log"]
    replayed = replay(full["events"])
    back = replayed.returned()
    assert a.balance() == 100_000 - 1500 + back[2]
    assert b.balance() == 100_000 - 2000 + back[5]
    assert full["result"]["returned"] == {str(k): v for k, v in back.items()}
    report = svc.verify()
    assert report["ok"], report


def test_players_see_only_their_own_cards(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000, setting_time_ms=10_000)
    a, b = svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 6)
    wa, wb = a.ws(table), b.ws(table)
    spectator = a.ws(table, token="")
    try:
        for ws in (wa, wb, spectator):
            hello = ws.wait_for(lambda m: m["type"] == "hello")
            assert hello["table"]["commission_posted"] == "5%"
        a.ok(a.wager(table, 1000))
        rid = b.ok(b.wager(table, 1000))["round_id"]
        ha, hb = a.wait_dealt(table), b.wait_dealt(table)
        dealt_a = wa.wait_for(lambda m: m["type"] == "dealt")
        dealt_b = wb.wait_for(lambda m: m["type"] == "dealt")
        dealt_s = spectator.wait_for(lambda m: m["type"] == "dealt")
        assert dealt_a["your_cards"] == {"1": ha["cards"]}
        assert dealt_b["your_cards"] == {"6": hb["cards"]}
        assert "your_cards" not in dealt_s
        # the narration each viewer gets names their own cards and no one else's
        assert dealt_a["text"].endswith(f"your cards (spot 1): {' '.join(ha['cards'])}")
        assert "your cards" not in dealt_s["text"] and "spot 6" in dealt_s["text"]
        assert not set(_strings(dealt_b)) & set(ha["cards"])
        # before the showdown: nobody else's cards, over HTTP either
        view_b = b.ok(b.get(f"/api/rounds/{rid}"))
        assert not set(_strings(view_b)) & set(ha["cards"])
        assert all(e["type"] != "shuffled" or "deck" not in e for e in view_b["events"])
        r = b.get(f"/api/tables/{table}/rounds")
        assert r.status_code == 200
        assert not set(_strings(r.json())) & set(ha["cards"])
        # a set hand stays private until the showdown
        a.ok(a.set(table, house_low(ha["cards"])))
        set_seen_by_b = wb.wait_for(lambda m: m["type"] == "hand-set" and m["spot"] == 1)
        assert "high" not in set_seen_by_b
        assert set_seen_by_b["text"] == "spot 1 has set its hand"
        mine = wa.wait_for(lambda m: m["type"] == "hand-set" and m["spot"] == 1)
        assert sorted(mine["high"] + mine["low"]) == sorted(ha["cards"])
        assert mine["text"].startswith(f"spot 1 sets: {' '.join(mine['high'])} (")
        b.ok(b.set(table, house_low(hb["cards"])))
        showdown = spectator.wait_for(lambda m: m["type"] == "dealer-set")
        assert set(showdown["settings"]) == {"1", "6"} and showdown["rule"]
        names = hand_names(showdown["high"], showdown["low"])  # derived, not stored
        assert (showdown["high_name"], showdown["low_name"]) == names
        assert showdown["text"].startswith(f"dealer sets by the house way, rule {showdown['rule']}")
        settled = spectator.wait_for(lambda m: m["type"] == "spot-settled")
        assert settled["text"].startswith(f"spot {settled['spot']}: ")
        spectator.wait_for(lambda m: m["type"] == "round-settled")
        wa.wait_for(lambda m: m["type"] == "round-settled")
        wb.wait_for(lambda m: m["type"] == "round-settled")
        # the deck, the leftover cards and discarded packets are never sent
        full = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
        shuffled = next(e for e in full["events"] if e["type"] == "shuffled")
        dealt = next(e for e in full["events"] if e["type"] == "dealt")
        # no card of the dealer's before its time: nothing before the showdown names one
        dealer_cards = {c for p in dealt["packets"] if p["spot"] is None for c in p["cards"]}
        assert len(dealer_cards) == 7
        assert not set(_strings(view_b)) & dealer_cards
        for ws in (wa, wb, spectator):
            before = list(itertools.takewhile(lambda m: m["type"] != "dealer-set", ws.messages))
            assert any(m["type"] == "hand-set" for m in before)  # the players set first
            for m in before:
                assert not set(_strings(m)) & dealer_cards, m
        leftover = set(dealt["leftover"])
        discarded = {c for p in dealt["discarded"] for c in p["cards"]}
        assert len(shuffled["deck"]) == 53 and len(leftover) == 4 and len(discarded) == 28
        for ws in (wa, wb, spectator):
            for m in ws.messages:
                assert "deck" not in m and "leftover" not in m and "discarded" not in m
                assert m["type"] in ("hello", "pong", "wallet", "table") or m["text"], m
                assert not set(_strings(m)) & (leftover | discarded), m
        # each player's feed ends on their wallet's committed balance (it travels in the
        # change's notice, versioned, not read back)
        for client, ws in ((a, wa), (b, wb)):
            balance = client.ok(client.get("/api/me"))["balance"]
            ws.wait_for(lambda m, want=balance: m["type"] == "wallet" and m["balance"] == want)
            assert [m for m in ws.messages if m["type"] == "wallet"][-1]["balance"] == balance
        # after the round, players still see no deck or leftover
        after = b.ok(b.get(f"/api/rounds/{rid}"))
        assert not set(_strings(after)) & (leftover | discarded)
        assert set(_strings(after)) >= set(ha["cards"])  # the showdown made a's hand public
    finally:
        for ws in (wa, wb, spectator):
            ws.close()


def _strings(obj: Any) -> list[str]:
    """Every string in ``obj`` and every word of it (so that a card named in a narration's
    ``text`` counts as shown)."""
    if isinstance(obj, str):
        return [obj, *(w.strip("(),;:.") for w in obj.split())]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_no_acting_for_another_seat(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000)
    a, b, c = svc.player(), svc.player(), svc.player()
    a.sit(table, 3)
    r = b.post(f"/api/tables/{table}/sit", {"spot": 3})
    assert r.status_code == 409 and r.json()["code"] == "spot-taken"
    r = c.wager(table, 1000)
    assert r.status_code == 409 and r.json()["code"] == "not-seated"
    b.sit(table, 4)
    r = a.post(f"/api/tables/{table}/sit", {"spot": 5})
    assert r.status_code == 409 and r.json()["code"] == "already-seated"
    a.ok(a.wager(table, 1000))
    b.ok(b.wager(table, 1000))
    a.wait_dealt(table)
    # c has no hand: cannot see or set anyone's
    assert c.get(f"/api/tables/{table}/hand").json()["code"] == "no-hand"
    hb = b.hand(table)
    r = c.set(table, house_low(hb["cards"]))
    assert r.status_code == 409 and r.json()["code"] == "no-hand"
    # a cannot set b's hand: a's request sets a's own hand, and b's cards are not a's
    r = a.set(table, hb["cards"][:2])
    assert r.status_code == 422 and r.json()["code"] == "bad-setting"
    assert "not one of the seven cards" in r.json()["detail"]
    # the leave of one player does not touch another's seat
    c.post(f"/api/tables/{table}/leave")
    assert [s["player"] for s in a.table(table)["spots"]][2:4] == [a.username, b.username]


def test_balance_and_limits(svc: Any) -> None:
    table = svc.new_table(min_wager=500, max_wager=5_000)
    poor = svc.player(credit=700)
    poor.sit(table, 1)
    for amount, status, code in (
        (499, 422, "outside-limits"),
        (5_001, 422, "outside-limits"),
        (1_000, 409, "insufficient-funds"),
    ):
        r = poor.wager(table, amount)
        assert r.status_code == status and r.json()["code"] == code, (amount, r.text)
    for bad in (10.5, "1000", -5, 0, True, 10**13, None):
        r = poor.post(f"/api/tables/{table}/wager", {"amount": bad, "idempotency_key": "k"})
        assert r.status_code == 422, (bad, r.text)
    r = poor.post(f"/api/tables/{table}/wager", {"amount": 600})
    assert r.status_code == 400 and r.json()["code"] == "idempotency-key-required"
    r = poor.post(f"/api/tables/{table}/wager", {"amount": 600, "idempotency_key": "k", "extra": 1})
    assert r.status_code == 422
    assert poor.balance() == 700
    poor.ok(poor.wager(table, 600))
    assert poor.balance() == 100
    r = poor.wager(table, 600)
    assert r.status_code == 409
    assert svc.verify()["ok"]


def test_out_of_order_requests(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000)
    a, b = svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 2)
    r = a.get(f"/api/tables/{table}/hand")
    assert r.status_code == 404 and r.json()["code"] == "no-round"
    r = a.set(table, ["As", "Kd"])
    assert r.status_code == 409 and r.json()["code"] == "not-setting"
    a.ok(a.wager(table, 1000))
    r = a.wager(table, 1000)
    assert r.status_code == 409 and r.json()["code"] == "already-wagered"
    r = a.set(table, ["As", "Kd"])
    assert r.status_code == 409 and r.json()["code"] == "not-setting"
    b.ok(b.wager(table, 1000))
    h = a.wait_dealt(table)
    c = svc.player()
    c.sit(table, 3)
    r = c.wager(table, 1000)
    assert r.status_code == 409 and r.json()["code"] == "round-in-play"
    a.ok(a.set(table, house_low(h["cards"])))
    r = a.set(table, house_low(h["cards"]))
    assert r.status_code == 409 and r.json()["code"] == "already-set"
    for bad in (
        {"low": ["As"]},
        {"low": ["As", "Kd", "Qh"]},
        {"low": ["Zz", "Kd"]},
        {"low": "AsKd"},
        {"low": ["As", "Kd"], "confirm_foul": "yes"},
    ):
        r = a.post(f"/api/tables/{table}/set", bad)
        assert r.status_code in (409, 422), (bad, r.text)
    assert a.get("/api/tables/99999/hand").status_code == 404
    assert a.get("/api/tables/0").status_code == 422
    assert a.get("/api/tables/99999999999999999999").status_code == 422
    assert a.get("/api/rounds/NOT-HEX").status_code == 422


def test_foul_needs_confirmation_then_loses(svc: Any) -> None:
    table = svc.new_table(betting_time_ms=5000)
    a = svc.player()
    a.sit(table, 1)
    for _ in range(5):  # nearly every hand can be fouled; deal again if not
        rid = a.ok(a.wager(table, 1000))["round_id"]
        h = a.wait_dealt(table)
        low = foul_low(h["cards"])
        if low is None:
            a.ok(a.set(table, house_low(h["cards"])))
            a.wait_phase(table, (None, "settled"))
            continue
        r = a.set(table, low)
        assert r.status_code == 409 and r.json()["code"] == "foul-unconfirmed"
        assert "foul" in r.json()["detail"] and "confirm_foul" in r.json()["detail"]
        assert "loses" in r.json()["detail"]
        s = a.ok(a.set(table, low, confirm_foul=True))
        assert s["foul"] is True and s["by"] == "player"
        a.wait_phase(table, (None, "settled"))
        rnd = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
        settled = next(e for e in rnd["events"] if e["type"] == "spot-settled")
        assert settled["foul"] is True and settled["outcome"] == "loss" and settled["returned"] == 0
        assert replay(rnd["events"]).results[1].foul
        break
    else:
        raise AssertionError("no foulable hand in five deals")
    assert svc.verify()["ok"]


def test_time_out_sets_by_the_house_way(svc: Any) -> None:
    # long enough for spot 1 to set in time on a loaded machine; spot 2 then times out
    table = svc.new_table(betting_time_ms=5000, setting_time_ms=1500)
    a, b = svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 2)
    rid = a.ok(a.wager(table, 1000))["round_id"]
    b.ok(b.wager(table, 1000))
    h = a.wait_dealt(table)
    a.ok(a.set(table, house_low(h["cards"])))
    hb = b.hand(table)
    b.wait_phase(table, (None, "settled"))  # b never sets
    rnd = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    by_spot = {e["spot"]: e for e in rnd["events"] if e["type"] == "hand-set"}
    assert by_spot[1]["by"] == "player"
    assert by_spot[2]["by"] == "house-way" and by_spot[2]["reason"] == "timeout"
    expected = HW.set_hand(parse_cards(hb["cards"]))
    assert sorted(by_spot[2]["low"]) == sorted(c.code for c in expected.setting.low)
    assert by_spot[2]["rule"] == expected.rule
    r = b.set(table, house_low(hb["cards"]))
    assert r.status_code == 409


def test_hints_only_at_practice_tables(svc: Any) -> None:
    casino = svc.new_table(mode="casino", betting_time_ms=5000)
    practice = svc.new_table(mode="practice", betting_time_ms=5000)
    a = svc.player()
    a.sit(casino, 1)
    a.sit(practice, 1)
    a.ok(a.wager(casino, 1000))
    a.ok(a.wager(practice, 1000))
    a.wait_dealt(casino)
    h = a.wait_dealt(practice)
    r = a.get(f"/api/tables/{casino}/hint")
    assert r.status_code == 403 and r.json()["code"] == "casino-table"
    hint = a.ok(a.get(f"/api/tables/{practice}/hint"))
    expected = HW.set_hand(parse_cards(h["cards"]))
    assert hint["rule"] == expected.rule and sorted(hint["low"]) == sorted(
        c.code for c in expected.setting.low
    )


def test_table_settings_and_closing(svc: Any) -> None:
    r = svc.op.post("/api/admin/tables", {"name": "x", "commission": "0.06"})
    assert r.status_code == 422 and "5%" in r.json()["detail"]
    r = svc.op.post("/api/admin/tables", {"name": "x", "commission": 0.05})
    assert r.status_code == 422
    r = svc.op.post("/api/admin/tables", {"name": "x", "house_way": "/etc/passwd"})
    assert r.status_code == 422 and r.json()["code"] == "bad-house-way"
    r = svc.op.post("/api/admin/tables", {"name": "x", "min_wager": 500, "max_wager": 100})
    assert r.status_code == 422
    custom = {
        "name": "my-way",
        "two_pair": {
            "high_high": "split",
            "high_middle": "split",
            "high_low": "split",
            "middle_middle": "keep",
            "middle_low": "keep",
            "low_low": "keep",
        },
        "quads": {"low": "keep", "middle": "keep", "high": "split"},
    }
    t = svc.op.ok(
        svc.op.post(
            "/api/admin/tables",
            {
                "name": "rng",
                "commission": "0.04",
                "start": "rng",
                "house_way": custom,
                "mode": "practice",
                "betting_time_ms": 60_000,
            },
        ),
        201,
    )
    assert t["commission_posted"] == "4%" and t["start"] == "rng" and t["house_way"] == "my-way"
    table = t["id"]
    a, idle = svc.player(), svc.player()
    a.sit(table, 1)
    idle.sit(table, 2)  # seated without a wager: betting stays open (60 s)
    a.ok(a.wager(table, 1000))
    # a practice table plays for play money ($1,000.00 at the first practice), not the wallet
    assert a.balance() == 100_000 and a.play_balance() == 99_000
    assert svc.op.ok(svc.op.post(f"/api/admin/tables/{table}/close"))["status"] == "closing"
    a.wait_phase(table, (None, "voided"))
    deadline = time.time() + 10
    while a.table(table)["status"] != "closed" and time.time() < deadline:
        time.sleep(0.05)
    state = a.table(table)
    assert state["status"] == "closed" and not any(s["occupied"] for s in state["spots"])
    assert a.balance() == 100_000 and a.play_balance() == 100_000  # the wager came back
    r = a.post(f"/api/tables/{table}/sit", {"spot": 2})
    assert r.status_code == 409 and r.json()["code"] == "table-closed"
    assert table not in [x["id"] for x in a.ok(a.get("/api/tables"))]
    assert table in [x["id"] for x in a.ok(a.get("/api/tables", params={"include_closed": "true"}))]
    audit = svc.op.get("/api/admin/audit").text
    assert '"action":"round-voided"' in audit and '"action":"table-close"' in audit
    assert svc.verify()["ok"]


def test_leaving_mid_round_keeps_the_wager_in_play(svc: Any) -> None:
    # setting time long enough that the round is still in play when the new player tries to sit
    # (on a loaded machine 300 ms could pass first), short enough to keep the test quick
    table = svc.new_table(betting_time_ms=5000, setting_time_ms=3000)
    a, b = svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 2)
    rid = a.ok(a.wager(table, 1000))["round_id"]
    b.ok(b.wager(table, 1000))
    a.wait_dealt(table)
    a.ok(a.post(f"/api/tables/{table}/leave"))
    # a new player cannot take the spot while its wager is in play
    c = svc.player()
    r = c.post(f"/api/tables/{table}/sit", {"spot": 1})
    assert r.status_code == 409 and r.json()["code"] == "spot-busy"
    b.wait_phase(table, (None, "settled"))
    rnd = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))
    back = replay(rnd["events"]).returned()
    assert a.balance() == 99_000 + back[1]
    assert svc.verify()["ok"]


def test_a_player_who_leaves_has_the_hand_set_by_the_house_way_at_once(svc: Any) -> None:
    # issue 22, item 4: a long setting time that the table must not wait out for a player gone
    table = svc.new_table(betting_time_ms=30_000, setting_time_ms=60_000)
    a, b, c = svc.player(), svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 2)
    c.sit(table, 3)
    rid = a.ok(a.wager(table, 1000))["round_id"]
    # c wagers and leaves before the deal; b's wager closes betting (everyone seated wagered)
    c.ok(c.wager(table, 1000))
    c.ok(c.post(f"/api/tables/{table}/leave"))
    b.ok(b.wager(table, 1000))
    a.wait_dealt(table)
    left = a.ok(a.post(f"/api/tables/{table}/leave"))
    assert left["left"] and left["hand_set"]
    hb = b.wait_dealt(table)
    started = time.time()
    b.ok(b.set(table, house_low(hb["cards"])))
    b.wait_phase(table, (None, "settled"), timeout=20)
    assert time.time() - started < 20  # not the 60 s setting time
    events = svc.op.ok(svc.op.get(f"/api/rounds/{rid}"))["events"]
    sets = {e["spot"]: e for e in events if e["type"] == "hand-set"}
    assert sets[1]["by"] == "house-way" and sets[1]["reason"] == "left"
    assert sets[3]["by"] == "house-way" and sets[3]["reason"] == "left"
    assert sets[2]["by"] == "player"
    back = replay(events).returned()  # the log replays, "left" included
    assert a.balance() == 99_000 + back[1] and c.balance() == 99_000 + back[3]
    assert svc.verify()["ok"]
