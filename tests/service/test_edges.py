"""Issue 49's rough edges outside the browser: each fix's check."""

from __future__ import annotations

import csv
import io
import random
from typing import Any

from paigow.service.floor.day_report import FIELDS, to_csv
from paigow.service.floor.day_report_side import SIDE_FIELDS


def _report() -> dict[str, Any]:
    figures = {f: 1250 for f in FIELDS}
    side = {f: 300 for f in SIDE_FIELDS}
    line = {"gaming_day": "2026-12-05", "table_id": 1, "table": "A", **figures}
    side_line = {"gaming_day": "2026-12-05", "table_id": 1, "table": "A", "wager": "fortune"}
    return {
        "from": "2026-12-05",
        "to": "2026-12-05",
        "tables": [line],
        "days": [{"gaming_day": "2026-12-05", **figures}],
        "total": figures,
        "side_wagers": [{**side_line, **side}],
        "side_wagers_by_type": [{"gaming_day": "2026-12-05", "wager": "fortune", **side}],
        "reconciled": True,
    }


def test_gaming_day_csv_says_its_amounts_are_cents() -> None:
    """Edge 8: every money column of the gaming-day CSV says it is in cents; counts do not."""
    rows = list(csv.reader(io.StringIO(to_csv(_report()))))
    head = rows[0]
    assert head[:3] == ["gaming_day", "table_id", "table"]
    assert "rounds" in head and "hands" in head and "voided_rounds" in head
    assert "handle_cents" in head and "house_result_cents" in head and "handle" not in head
    side_head = next(r for r in rows if "side_wager" in r)
    assert (
        "wagers" in side_head and "returned_cents" in side_head and "envy_paid_cents" in side_head
    )
    assert rows[1][head.index("handle_cents")] == "1250"


def _dragon_log() -> list[dict[str, Any]]:
    from paigow.round import Round
    from paigow.ruleset import Ruleset

    rnd = Round(Ruleset(dragon=True))
    rnd.wager(1, 500)
    rnd.deal(random.Random(3))
    rnd.offer_dragon()
    return [e.to_dict() for e in rnd.events]


def test_the_deal_never_calls_the_dragon_packet_discarded() -> None:
    """Edge 11: the event log said "discarded unseen: spot N" and then offered spot N's packet
    as the dragon hand; the packet is said to be set aside."""
    from paigow.service.game.visibility import view_log

    log = _dragon_log()
    spot = next(e["spot"] for e in log if e["type"] == "dragon-offered")
    for seen in (view_log(log, {1}), view_log(log, {1}, full=True)):
        dealt = next(e["text"] for e in seen if e["type"] == "dealt")
        discarded = dealt.split("discarded unseen: ", 1)[1].split(" and the 4 cards", 1)[0]
        assert f"spot {spot}" not in discarded.split(", ")
        assert f"spot {spot}'s packet set aside face down: the dragon hand" in dealt
