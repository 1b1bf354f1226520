"""``paigow serve --demo``: a first-run floor, created once."""

from __future__ import annotations

import stat
from pathlib import Path

import sqlalchemy as sa

from paigow.service.books.ledger import check
from paigow.service.floor import side_holds as floor_side
from paigow.service.process.demo import ensure_demo
from paigow.service.store.bonus_models import ProgressiveBank
from paigow.service.store.db import Database, GameTable, User
from tests.helpers.service import Service


def test_demo_floor_is_created_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.sqlite3'}"
    pw = tmp_path / "pw.txt"
    said = ensure_demo(url, pw)
    assert len(said) == 2 and "operator 'house'" in said[0]
    assert len(pw.read_text().strip()) >= 12
    assert stat.S_IMODE(pw.stat().st_mode) == 0o600
    assert ensure_demo(url, tmp_path / "other.txt") == []  # an existing floor is left alone
    assert not (tmp_path / "other.txt").exists()
    db = Database(url)
    try:
        with db.read() as s:
            tables = s.scalars(sa.select(GameTable)).all()
            ops = s.scalars(sa.select(User).where(User.role == "operator")).all()
    finally:
        db.dispose()
    assert sorted(t.mode for t in tables) == ["casino", "casino", "casino", "practice", "practice"]
    assert [u.username for u in ops] == ["house"]
    variants = {t.name: t.ruleset for t in tables if t.ruleset.get("push")}
    assert variants == {
        "EZ 1": {
            **variants["EZ 1"],
            "commission": "0",
            "push": "queen-high-pai-gow",
            "dragon": True,  # EZ 1 offers the dragon hand
        },
        "Face Up practice": {
            **variants["Face Up practice"],
            "commission": "0",
            "push": "ace-high-pai-gow",
            "face_up": True,
        },
    }
    assert all(t.ruleset["commission"] == "0.05" for t in tables if t.name not in variants)
    assert [t.name for t in tables if t.ruleset.get("dragon")] == ["EZ 1"]
    (fortune,) = [t for t in tables if t.ruleset.get("side_wagers")]
    offers = {o["name"]: o for o in fortune.ruleset["side_wagers"]}
    assert offers["fortune"]["table"]["envy"]  # Fortune with its Envy bonus
    bank = offers["progressive"]["bank"]
    db = Database(url)
    try:
        with db.read() as s:
            row = s.get(ProgressiveBank, bank)
            meter = floor_side.meters(s)[bank]
            assert row is not None and meter == row.seed > 0  # seeded by the house
            assert check(s).balanced
    finally:
        db.dispose()


def test_a_new_tables_defaults_are_the_demo_tables(tmp_path: Path) -> None:
    """Issue 22, item 12: one source for a new table's defaults. The demo tables, the API's
    defaults and what the operator's form is given (``/api/admin/table-defaults``) agree: a
    20-second betting time, commission posted as "5%" (the form's field takes a percentage)."""
    url = f"sqlite:///{tmp_path / 'floor.sqlite3'}"
    ensure_demo(url, tmp_path / "pw.txt")
    db = Database(url)
    try:
        with db.read() as s:
            demo = s.scalars(sa.select(GameTable)).all()
    finally:
        db.dispose()
    svc = Service(url, run_dealers=False)
    try:
        d = svc.op.ok(svc.op.get("/api/admin/table-defaults"))
        assert d["commission"] == "5%" and d["max_commission"] == "5%"
        assert {t.betting_time_ms for t in demo} == {d["betting_time_ms"]} == {20_000}
        assert {t.setting_time_ms for t in demo} == {d["setting_time_ms"]}
        made = svc.op.ok(svc.op.post("/api/admin/tables", {"name": "defaults"}), 201)
        assert made["betting_time_s"] == 20.0 and made["commission_posted"] == "5%"
        pct = svc.op.ok(svc.op.post("/api/admin/tables", {"name": "p", "commission": "2.5%"}), 201)
        assert pct["commission"] == "0.025" and pct["commission_posted"] == "2.5%"
        over = svc.op.post("/api/admin/tables", {"name": "x", "commission": "6%"})
        assert over.status_code == 422 and "5% maximum" in over.text
        assert svc.player().get("/api/admin/table-defaults").status_code == 403
    finally:
        svc.stop()
