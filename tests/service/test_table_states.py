"""A table's public state read by the one-table reader (three statements on the driver, the
configuration from the process's cache) equals the general reader's, in every phase."""

from __future__ import annotations

import random
from typing import Any

import sqlalchemy as sa

from paigow.service.game import rounds, table_rows
from tests.helpers.service import Service


def _both(rt: Any, tid: int) -> tuple[dict[str, Any], dict[str, Any]]:
    with rt.read() as tx:
        one = table_rows.read_state(tx, tid)
        _, many = table_rows.read_states(tx.session, [tid])
    assert one is not None
    a, b = dict(one), dict(many[tid])
    for state in (a, b):  # read a moment apart
        if state["round"] is not None:
            state["round"] = {k: v for k, v in state["round"].items() if k != "time_left_s"}
    return a, b


def test_one_table_state_equals_the_general_reader(db_url: str) -> None:
    svc = Service(db_url, run_dealers=False)
    try:
        rt = svc.server.app.state.rt
        tid = svc.new_table(betting_time_ms=60_000, setting_time_ms=60_000, mode="practice")
        a, b = _both(rt, tid)
        assert a == b and a["round"] is None and not any(s["occupied"] for s in a["spots"])
        players = [svc.player() for _ in range(3)]
        for spot, p in enumerate(players, start=1):
            p.sit(tid, spot)
        players[0].ok(players[0].wager(tid, 700))
        players[2].ok(players[2].wager(tid, 900))
        a, b = _both(rt, tid)
        assert a == b and a["round"]["phase"] == "betting"
        assert a["round"]["wagers"] == [{"spot": 1, "amount": 700}, {"spot": 3, "amount": 900}]
        rid = a["round"]["id"]
        with rt.write() as tx:
            assert rounds.deal(tx, tid, rid, random.Random(5))
        a, b = _both(rt, tid)
        assert a == b and a["round"]["phase"] == "setting"
        with rt.write() as tx:
            tx.session.execute(sa.text("UPDATE rounds SET deadline = 0 WHERE id = :r"), {"r": rid})
        with rt.write() as tx:
            assert rounds.dealer_sets(tx, tid, rid)
        with rt.write() as tx:
            assert rounds.settle(tx, tid, rid)
        a, b = _both(rt, tid)
        assert a == b and a["round"] is None and a["rounds_played"] == 1
        assert [s["player"] for s in a["spots"][:3]] == [p.username for p in players]
        with rt.read() as tx:
            assert table_rows.read_state(tx, 987654) is None
    finally:
        svc.stop()
