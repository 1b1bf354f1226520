"""An operator's own house way at a table (docs/house-way.md, docs/service.md): the table form
and API take a house-way file of the rule language or its table as JSON, refuse a bad one with
what is wrong (its line, or a hand it leaves without a rule), and a table created with one sets
the dealer's hand, and a timed-out player's, by its rules, with their ids in the log."""

from __future__ import annotations

from typing import Any

import pytest

from paigow.cards import parse_cards
from paigow.house_way import HouseWay

MINE = """name = "my-casino"
title = "Every hand by the best low"

[[rule]]
id = "mine.best-low"
choose = "best-low"
"""


def test_a_bad_house_way_file_is_refused_with_its_line(svc: Any) -> None:
    op = svc.op
    bad = MINE.replace('choose = "best-low"', 'when = "pairs >= 2 and flsh"\nlow = "pair"')
    r = op.post("/api/admin/tables", {"name": "x", "house_way_toml": bad})
    assert r.status_code == 422 and r.json()["code"] == "bad-house-way"
    # issue 50, item 7: the 'when' line, and the file by the name it was given
    assert "your house-way file:6: rule 'mine.best-low'" in r.json()["detail"]
    r = op.post(
        "/api/admin/tables", {"name": "x", "house_way_toml": bad, "house_way_file": "mine.toml"}
    )
    assert "mine.toml:6: rule 'mine.best-low'" in r.json()["detail"]
    assert "unknown feature 'flsh'" in r.json()["detail"]
    r = op.post("/api/admin/tables", {"name": "x", "house_way": "casino-royale"})
    assert r.status_code == 422 and "use a preset" in r.json()["detail"]
    r = op.post("/api/admin/tables", {"name": "x", "house_way_toml": "name = 3"})
    assert r.status_code == 422 and r.json()["code"] == "bad-house-way"


def test_a_house_way_that_leaves_hands_without_a_rule_is_refused_with_one(svc: Any) -> None:
    holes = MINE.replace('choose = "best-low"', 'when = "pairs > 0"\nlow = "single1+single2"')
    r = svc.op.post("/api/admin/tables", {"name": "x", "house_way_toml": holes})
    assert r.status_code == 422 and r.json()["code"] == "bad-house-way"
    detail = r.json()["detail"]
    assert "hands have no rule, e.g. " in detail
    example = detail.split("e.g. ", 1)[1].split(":", 1)[0]
    way = HouseWay.from_text(holes)
    with pytest.raises(Exception, match="no rule sets the hand"):
        way.set_hand(parse_cards(example))
    assert all(t["name"] != "x" for t in svc.op.ok(svc.op.get("/api/tables")))  # none made


@pytest.mark.slow
def test_a_table_plays_by_an_operators_own_house_way(svc: Any) -> None:
    """Checked over every hand at creation (class by class, about a second, once per house way)."""
    from paigow.analysis.compiled import validate

    op = svc.op
    # checked here first, so that the server finds the answer kept (the request would otherwise
    # wait out the run over every hand)
    assert validate(HouseWay.from_text(MINE, "house_way_toml")) == []
    made = op.ok(
        op.post(
            "/api/admin/tables",
            {"name": "mine", "house_way_toml": MINE, "betting_time_ms": 400,
             "setting_time_ms": 1500},
        ),
        201,
    )  # fmt: skip
    assert made["house_way"] == "my-casino"
    way = HouseWay.from_text(MINE)
    a = svc.player()
    a.sit(made["id"], 1)
    rid = a.ok(a.wager(made["id"], 1000))["round_id"]
    h = a.wait_dealt(made["id"])
    a.wait_phase(made["id"], (None, "settled"))  # never sets: the house way sets it
    rnd = op.ok(op.get(f"/api/rounds/{rid}"))
    mine = next(e for e in rnd["events"] if e["type"] == "hand-set")
    assert (mine["by"], mine["rule"]) == ("house-way", "mine.best-low")
    want = way.set_hand(parse_cards(h["cards"])).setting
    assert sorted(mine["low"]) == sorted(c.code for c in want.low) or sorted(
        parse_cards(mine["low"])
    ) == sorted(want.low)
    dealer = next(e for e in rnd["events"] if e["type"] == "dealer-set")
    assert dealer["rule"] == "mine.best-low"
    started = rnd["events"][0]
    assert started["house_way"]["rules"][0]["id"] == "mine.best-low"


def test_a_file_may_not_take_a_presets_name_unless_it_is_that_preset(svc: Any) -> None:
    """Issue 50, item 2: a house way's identity is its content."""
    op = svc.op
    posing = MINE.replace('name = "my-casino"', 'name = "standard"')
    r = op.post("/api/admin/tables", {"name": "x", "house_way_toml": posing})
    assert r.status_code == 422 and r.json()["code"] == "bad-house-way"
    assert "the name 'standard' is the standard preset's" in r.json()["detail"]
    rules = HouseWay.from_text(MINE).to_dict() | {"name": "Foxwoods"}
    r = op.post("/api/admin/tables", {"name": "x", "house_way": rules})
    assert r.status_code == 422 and "is a preset's" in r.json()["detail"]
    itself = HouseWay.preset("standard").to_toml()
    assert HouseWay.from_text(itself).is_preset  # the preset's own file keeps its name


def test_a_table_shows_a_files_house_way_by_name_and_digest(
    svc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 50, item 2: two files with one name are told apart at the table and the floor."""
    from paigow.analysis import compiled

    monkeypatch.setattr(compiled, "validate", lambda *a, **k: [])  # not the run over every hand
    op = svc.op
    made = op.ok(op.post("/api/admin/tables", {"name": "mine", "house_way_toml": MINE}), 201)
    digest = HouseWay.from_text(MINE).digest
    assert made["house_way"] == "my-casino"
    assert made["house_way_label"] == f"my-casino #{digest[:8]}"
    listed = {t["id"]: t for t in op.ok(op.get("/api/tables"))}
    assert listed[made["id"]]["house_way_label"] == f"my-casino #{digest[:8]}"
    plain = op.ok(op.post("/api/admin/tables", {"name": "plain"}), 201)
    assert plain["house_way_label"] == "standard"
    floor = op.ok(op.get("/api/admin/floor"))
    row = next(t for t in floor["tables"] if t["id"] == made["id"])
    assert row["house_way_label"] == f"my-casino #{digest[:8]}"


def test_a_tables_house_way_in_plain_words(svc: Any) -> None:
    """Issue 50: ``GET /api/tables/{id}/house-way``, the table's own house way numbered in plain
    words (the rules page shows it), each rule with an example hand it sets."""
    op = svc.op
    made = op.ok(op.post("/api/admin/tables", {"name": "fox", "house_way": "foxwoods"}), 201)
    got = op.ok(op.get(f"/api/tables/{made['id']}/house-way"))
    way = HouseWay.preset("foxwoods")
    assert (got["name"], got["label"], got["digest"]) == ("foxwoods", "foxwoods", way.digest)
    assert [r["number"] for r in got["rules"]] == list(range(1, len(way.rules) + 1))
    for rule in got["rules"]:
        example = rule["example"]
        assert way.set_hand(parse_cards(example["cards"])).rule == example["rule"]
    assert op.get("/api/tables/999999/house-way").status_code == 404


def test_a_tables_version_is_carried_by_its_views_recall_and_log(
    svc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 50, versions: the table, the floor, recall and the log carry the house way's name
    and digest; a table keeps the version it opened with when another opens under the same name
    with other rules."""
    from paigow.analysis import compiled

    monkeypatch.setattr(compiled, "validate", lambda *a, **k: [])  # not the run over every hand
    op = svc.op
    first = HouseWay.from_text(MINE)
    second = HouseWay.from_text(MINE.replace("best-low", "best-high"))
    a = op.ok(op.post("/api/admin/tables", {"name": "v1", "house_way_toml": MINE}), 201)
    other = MINE.replace("best-low", "best-high")
    b = op.ok(op.post("/api/admin/tables", {"name": "v2", "house_way_toml": other}), 201)
    assert (a["house_way_digest"], b["house_way_digest"]) == (first.digest, second.digest)
    assert op.ok(op.get(f"/api/tables/{a['id']}"))["house_way_digest"] == first.digest
    floor = {t["id"]: t for t in op.ok(op.get("/api/admin/floor"))["tables"]}
    assert floor[a["id"]]["house_way_digest"] == first.digest
    assert floor[b["id"]]["house_way_digest"] == second.digest
    p = svc.player()
    p.sit(a["id"], 1)
    rid = p.ok(p.wager(a["id"], 1000))["round_id"]
    rnd = p.ok(p.get(f"/api/rounds/{rid}"))
    assert rnd["house_way"] == {"name": "my-casino", "label": first.label, "digest": first.digest}
    started = rnd["events"][0]
    assert started["house_way_digest"] == first.digest
    listed = p.ok(p.get(f"/api/tables/{a['id']}/rounds"))
    assert listed[0]["house_way"]["digest"] == first.digest
