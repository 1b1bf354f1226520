"""Game recall (the last ten rounds, any round by id, replayable to the same results), the audit
log and its export, ``paigow audit verify``, and the schema (Alembic, append-only logs)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.narrator import hand_names
from paigow.round import Round
from paigow.service.store.db import Base, Database

HW = HouseWay.preset("standard")


def play_rounds(svc: Any, n: int) -> tuple[int, list[str]]:
    table = svc.new_table(betting_time_ms=2000, setting_time_ms=2000)
    p = svc.player(credit=1_000_000)
    p.sit(table, 4)
    ids = []
    for _ in range(n):
        ids.append(p.ok(p.wager(table, 1000))["round_id"])
        h = p.wait_dealt(table)
        p.ok(p.set(table, [c.code for c in HW.set_hand(parse_cards(h["cards"])).setting.low]))
        p.wait_phase(table, (None, "settled"))
    return table, ids


def audit_cli(db_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paigow.cli", "audit", *extra, "--database", db_url],
        capture_output=True,
        text=True,
    )


def test_last_ten_rounds_replay_to_the_recorded_results(svc: Any) -> None:
    table, ids = play_rounds(svc, 11)
    rounds = svc.op.ok(svc.op.get(f"/api/tables/{table}/rounds"))
    assert [r["id"] for r in rounds] == ids[::-1][:10]
    for r in rounds:
        assert r["complete_log"] and r["phase"] == "settled"
        rnd = Round.replay([{k: v for k, v in e.items() if k != "seq"} for e in r["events"]])
        assert {str(k): v for k, v in rnd.returned().items()} == r["result"]["returned"]
        totals = rnd.events[-1].to_dict()
        assert {k: totals[k] for k in ("wagered", "returned", "commission")} == r["result"][
            "totals"
        ]
        assert [e["seq"] for e in r["events"]] == list(range(len(r["events"])))
    # the eleventh is still there by id
    first = svc.op.ok(svc.op.get(f"/api/rounds/{ids[0]}"))
    assert first["number"] == 1 and first["complete_log"]
    # players get the recall too, without the deck
    p = svc.player()
    seen = p.ok(p.get(f"/api/tables/{table}/rounds"))
    assert len(seen) == 10 and not any(r["complete_log"] for r in seen)
    assert all("deck" not in e for r in seen for e in r["events"])
    assert p.get("/api/rounds/abc123").status_code == 404


def test_audit_export_and_verify_cli(svc: Any) -> None:
    play_rounds(svc, 2)
    lines = svc.op.get("/api/admin/audit").text.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)
    actions = {r["action"] for r in records}
    assert {"operator-created", "table-created", "credit"} <= actions
    assert all(r["at"].endswith("Z") for r in records)
    later = svc.op.get("/api/admin/audit", params={"after_id": records[-2]["id"]}).text.splitlines()
    assert len(later) == 1
    exported = audit_cli(svc.db_url, "export")
    assert exported.returncode == 0 and len(exported.stdout.splitlines()) == len(lines)

    ok = audit_cli(svc.db_url, "verify", "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    report = json.loads(ok.stdout)
    assert report["rounds"] == 2 and report["replayed"] == 2
    assert report["mismatches"] == [] and report["ledger_balanced"] is True
    text = audit_cli(svc.db_url, "verify")
    assert text.returncode == 0 and "balanced" in text.stdout


def _tamper(db_url: str, *statements: str) -> None:
    db = Database(db_url)
    try:
        with db.engine.begin() as conn:
            for stmt in statements:
                conn.execute(sa.text(stmt))
    finally:
        db.dispose()


def test_verify_catches_a_tampered_balance(svc: Any) -> None:
    play_rounds(svc, 1)
    _tamper(svc.db_url, "UPDATE accounts SET balance = balance + 1 WHERE name LIKE 'house:win:%'")
    r = audit_cli(svc.db_url, "verify", "--json")
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["ledger_balanced"] is False and report["mismatches"] == []


def test_verify_catches_a_tampered_log(svc: Any) -> None:
    _, ids = play_rounds(svc, 1)
    db = Database(svc.db_url)
    with db.read() as s:
        data = s.execute(
            sa.text("SELECT data FROM round_events WHERE round_id = :r AND type = 'spot-settled'"),
            {"r": ids[0]},
        ).scalar_one()
    db.dispose()
    event = data if isinstance(data, dict) else json.loads(data)
    event["returned"] = event["returned"] + 100
    new = json.dumps(event).replace("'", "''")
    drop = (
        ["DROP TRIGGER round_events_append_only ON round_events"]
        if svc.db_url.startswith("postgresql")
        else ["DROP TRIGGER round_events_no_update"]
    )
    _tamper(
        svc.db_url,
        *drop,
        f"UPDATE round_events SET data = '{new}' WHERE round_id = '{ids[0]}' AND type = 'spot-settled'",
    )
    r = audit_cli(svc.db_url, "verify", "--json")
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert report["mismatches"] and report["mismatches"][0]["round_id"] == ids[0]


def test_verify_cli_on_a_bad_database(tmp_path: Any) -> None:
    r = audit_cli(f"sqlite:///{tmp_path / 'none' / 'x.db'}", "verify")
    assert r.returncode != 0
    r = audit_cli("mysql://nowhere/x", "verify")
    assert r.returncode != 0 and "unsupported" in r.stderr


def test_schema_matches_the_models_and_logs_are_append_only(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    db = Database(db_url)
    try:
        db.migrate()
        db.migrate()  # again: nothing to do
        with db.engine.connect() as conn:
            mc = MigrationContext.configure(conn)
            from alembic.script import ScriptDirectory

            import paigow.service.store.bonus_models  # (side wagers: part of the schema too)
            import paigow.service.store.floor_models  # (its models are part of the schema)
            import paigow.service.store.session_models  # noqa: F401  (sessions, second factor)
            from paigow.service.store.migrate import alembic_config

            head = ScriptDirectory.from_config(alembic_config(db)).get_current_head()
            assert mc.get_current_revision() == head
            assert compare_metadata(mc, Base.metadata) == []
        with db.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO audit_log (at, actor, action, details) VALUES (0, 'x', 'y', '{}')"
                )
            )
        for stmt in (
            "UPDATE audit_log SET actor = 'z'",
            "DELETE FROM audit_log",
        ):
            with pytest.raises(sa.exc.DBAPIError), db.engine.begin() as conn:
                conn.execute(sa.text(stmt))
    finally:
        db.dispose()


def _rewrite_as_version_1(db_url: str, round_id: str) -> None:
    """Make a stored round's log what the engine wrote before log versions: no ``log_version``
    and the dealer's hand names in its dealer-set (here in words this engine never uses, as if
    they had been reworded since)."""
    db = Database(db_url)
    try:
        with db.read() as s:
            rows = {
                kind: (seq, data if isinstance(data, dict) else json.loads(data))
                for seq, kind, data in s.execute(
                    sa.text(
                        "SELECT seq, type, data FROM round_events WHERE round_id = :r "
                        "AND type IN ('round-started', 'dealer-set')"
                    ),
                    {"r": round_id},
                )
            }
    finally:
        db.dispose()
    started, dealer = rows["round-started"][1], rows["dealer-set"][1]
    del started["log_version"]
    started.pop("house_way_digest", None)  # nor the digest (log version 5)
    dealer.update(high_name="an old name", low_name="another old name")
    drop = (
        ["DROP TRIGGER round_events_append_only ON round_events"]
        if db_url.startswith("postgresql")
        else ["DROP TRIGGER round_events_no_update"]
    )
    quoted = {"round-started": json.dumps(started), "dealer-set": json.dumps(dealer)}
    updates = [
        f"UPDATE round_events SET data = '{text.replace(chr(39), chr(39) * 2)}' "
        f"WHERE round_id = '{round_id}' AND seq = {rows[kind][0]}"
        for kind, text in quoted.items()
    ]
    _tamper(db_url, *drop, *updates)


def test_rounds_stored_before_log_versions_still_verify_and_show(svc: Any) -> None:
    table, ids = play_rounds(svc, 2)
    _rewrite_as_version_1(svc.db_url, ids[0])
    db = Database(svc.db_url)
    with db.read() as s:
        started = s.execute(
            sa.text("SELECT data FROM round_events WHERE round_id = :r AND seq = 0"),
            {"r": ids[0]},
        ).scalar_one()
    db.dispose()
    assert "log_version" not in (started if isinstance(started, dict) else json.loads(started))
    # audit verify replays the old log (its display text is never compared)
    r = audit_cli(svc.db_url, "verify", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["rounds"] == 2 and report["mismatches"] == []
    # recall shows it with names derived from the cards and the narrator's text
    for viewer in (svc.op, svc.player()):
        old = viewer.ok(viewer.get(f"/api/rounds/{ids[0]}"))
        dealer = next(e for e in old["events"] if e["type"] == "dealer-set")
        want = hand_names(dealer["high"], dealer["low"])
        assert (dealer["high_name"], dealer["low_name"]) == want
        assert "old name" not in json.dumps(old)
        assert all(e["text"] for e in old["events"])
        assert dealer["text"].endswith(f"({want[1]})")
    full = svc.op.ok(svc.op.get(f"/api/rounds/{ids[0]}"))
    rnd = Round.replay([{k: v for k, v in e.items() if k != "seq"} for e in full["events"]])
    assert {str(k): v for k, v in rnd.returned().items()} == full["result"]["returned"]
    # and the table plays on
    p = svc.player(credit=10_000)
    p.sit(table, 2)
    p.ok(p.wager(table, 1000))
    assert audit_cli(svc.db_url, "verify").returncode == 0
