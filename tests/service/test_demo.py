"""``paigow serve --demo``: a first-run floor, created once."""

from __future__ import annotations

import stat
from pathlib import Path

import sqlalchemy as sa

from paigow.service.books.ledger import check
from paigow.service.process.demo import ensure_demo
from paigow.service.store.bonus_models import ProgressiveBank
from paigow.service.store.db import Database, GameTable, User


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
    assert sorted(t.mode for t in tables) == ["casino", "casino", "practice"]
    assert [u.username for u in ops] == ["house"]
    assert all(t.ruleset["commission"] == "0.05" for t in tables)
    (fortune,) = [t for t in tables if t.ruleset.get("side_wagers")]
    offers = {o["name"]: o for o in fortune.ruleset["side_wagers"]}
    assert offers["fortune"]["table"]["envy"]  # Fortune with its Envy bonus
    bank = offers["progressive"]["bank"]
    db = Database(url)
    try:
        with db.read() as s:
            row = s.get(ProgressiveBank, bank)
            assert row is not None and row.meter == row.seed > 0  # seeded by the house
            assert check(s).balanced
    finally:
        db.dispose()
