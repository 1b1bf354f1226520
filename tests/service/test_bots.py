"""``paigow bots``: each round of a player looks only at the messages that came after it began,
and a player keeps the messages of its last rounds only (a look over every message of the run,
at every step of every round, grew with each round played); what it was acknowledged is
recorded, and the check of those records finds a row gone."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.helpers import acks
from tests.helpers.service import Service, run_bots


def test_a_player_keeps_only_its_last_rounds_messages(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paigow.cli import bots_player

    monkeypatch.setattr(bots_player, "KEEP_MESSAGES", 8)
    held: list[int] = []
    original = bots_player.Player._round

    async def counted(self: Any) -> bool:
        held.append(len(self.messages))
        return await original(self)

    monkeypatch.setattr(bots_player.Player, "_round", counted)
    svc = Service(sqlite_url)
    try:
        report = run_bots(
            svc.url,
            tables=1,
            players=2,
            rounds=12,
            bad_rate=0.0,
            retry_rate=0.0,
            foul_rate=0.0,
        )
    finally:
        svc.stop()
    assert report["ledger_balanced"] and report["replay_mismatches"] == 0, report
    assert not report["errors"]["unexpected"], report["errors"]
    assert report["rounds"] >= 12
    # each round brings a player a dozen messages and more: 24 rounds' worth without the trim
    assert len(held) == 24 and max(held) <= 2 * 8 + 40 < 12 * 12


@pytest.mark.slow
def test_bots_play_the_variants_and_the_check_covers_them(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``paigow bots --variant``: an EZ table and a face-up table (whose bots play the best
    setting against the exposed dealer half the time); the end-of-run ledger and replay checks
    cover their rounds."""
    from paigow.cli import bots_player

    seen: list[bool] = []
    original = bots_player.Player._setting

    def watched(self: Any, seven: Any, rid: str, mark: int) -> Any:
        shown = any(
            m.get("round_id") == rid and m.get("type") == "dealer-set" for m in self.messages
        )
        seen.append(bool(self.table.get("face_up")) and shown)
        return original(self, seven, rid, mark)

    monkeypatch.setattr(bots_player.Player, "_setting", watched)
    svc = Service(db_url)
    try:
        report = run_bots(
            svc.url,
            tables=2,
            players=2,
            rounds=6,
            variants=("ez", "face-up"),
            side_wagers=False,
            bad_rate=0.0,
            retry_rate=0.0,
            foul_rate=0.0,
        )
        variants = {
            (t["push"], t["face_up"])
            for t in svc.op.ok(svc.op.get("/api/tables?include_closed=true"))
            if t["name"].startswith("bots")
        }
    finally:
        svc.stop()
    assert report["ledger_balanced"] and report["replay_mismatches"] == 0, report
    assert not report["errors"]["unexpected"], report["errors"]
    assert report["rounds"] >= 12
    assert variants == {("queen-high-pai-gow", False), ("ace-high-pai-gow", True)}
    # at the face-up table every bot set its hand with the dealer's setting already in view
    assert seen.count(True) >= 2 * 6


@pytest.mark.slow
def test_bots_answer_the_dragon_hand_and_the_check_covers_it(db_url: str) -> None:
    """``paigow bots --dragon``: three bots at each of an Indiana and a face-up table (three
    empty spots: a dragon hand every round) wager on it, decline it or let their turn run out,
    some answers sent twice and some refused; the end-of-run check holds every dragon wager
    against the replayed rounds and the bots' wallets, and the ledger balances."""
    svc = Service(db_url)
    try:
        report = run_bots(
            svc.url,
            tables=2,
            players=3,
            rounds=6,
            variants=("indiana", "face-up"),
            dragon=True,
            side_wagers=False,
            setting_ms=4000,
            bad_rate=0.2,
            retry_rate=0.3,
            foul_rate=0.0,
            seed=11,
        )
        offered = [
            t["dragon"]
            for t in svc.op.ok(svc.op.get("/api/tables?include_closed=true"))
            if t["name"].startswith("bots")
        ]
    finally:
        svc.stop()
    assert report["ledger_balanced"] and report["replay_mismatches"] == 0, report
    assert not report["errors"]["unexpected"], report["errors"]
    assert offered == [True, True] and report["rounds"] >= 12
    assert report["dragon_wagers"] >= 1 and report["dragon_declined"] >= 1, report
    expected = report["errors"]["expected"]
    assert expected.get("HTTP 422", 0) >= 1  # a dragon wager above the bot's own wager


def test_bots_record_each_acknowledged_step_and_the_check_finds_one_gone(
    sqlite_url: str, tmp_path: Path
) -> None:
    """``paigow bots --acks FILE``: a line for every wager, setting and round end the server
    acknowledged; :func:`tests.helpers.acks.missing` finds each in the database, and reports
    the one whose row is taken away (what a failover to a lagging standby would lose)."""
    from paigow.service.store.db import Database, RoundWager

    path = tmp_path / "acks.jsonl"
    svc = Service(sqlite_url)
    try:
        report = run_bots(svc.url, tables=1, players=2, rounds=3, acks_path=str(path))
    finally:
        svc.stop()
    assert not report["errors"]["unexpected"], report["errors"]
    rows = acks.read(path)
    kinds = Counter(a["kind"] for a in rows)
    assert kinds == report["acks"] and kinds["wager"] == 6, kinds
    assert kinds["round-settled"] + kinds["voided"] == 6 and kinds["set"] >= 4, kinds
    assert not any(acks.missing(rows, sqlite_url).values())
    wager = next(a for a in rows if a["kind"] == "wager")
    db = Database(sqlite_url)
    try:  # the wager's row changed (round_events is append-only: its rows cannot be)
        with db.engine.begin() as c:
            c.execute(
                sa.update(RoundWager)
                .where(RoundWager.round_id == wager["round"], RoundWager.spot == wager["spot"])
                .values(amount=wager["amount"] + 100)
            )
    finally:
        db.dispose()
    # a setting and a round end acknowledged that the database never had
    setting = next(a for a in rows if a["kind"] == "set")
    setting = {**setting, "low": sorted(set(["2c", "3d", "Kh", "As"]) - set(setting["low"]))[:2]}
    ended = {**next(a for a in rows if a["kind"] == "round-settled"), "round": "0" * 32}
    lost = acks.missing([*rows, setting, ended], sqlite_url)
    assert lost == {"wager": [wager], "set": [setting], "end": [ended]}, lost
