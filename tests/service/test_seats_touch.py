"""Presence writes seats in one fixed order, so two writers never lock them in opposite orders."""

from __future__ import annotations

from typing import Any

from paigow.service.game import seats


class _RecordingTx:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, list[dict[str, Any]], bool]] = []

    def many(self, statement: Any, rows: list[dict[str, Any]], later: bool = False) -> None:
        self.calls.append((statement, rows, later))


def test_touch_updates_seats_in_table_then_user_order_once_each() -> None:
    tx = _RecordingTx()
    seats.touch(tx, [(3, 9), (1, 7), (3, 2), (1, 7), (2, 5)], at=10.0)  # type: ignore[arg-type]
    [(_, rows, later)] = tx.calls
    assert later
    assert [(r["t"], r["u"]) for r in rows] == [(1, 7), (2, 5), (3, 2), (3, 9)]
    assert {r["at"] for r in rows} == {10.0}
