"""The core's refusals through the API (issue 45): the round's own checks answer with the core's
code, its status from the one handler (``CORE_STATUS``) and its message as the detail; the
service checks none of them again. tests/test_error_codes.py provokes every code through the core
and the handler; the dragon hand's codes through the API are in test_dragon_service.py."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.service.http_errors import CORE_STATUS

HW = HouseWay.preset("standard")
FORTUNE = {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 5000}


def refused(r: httpx.Response, code: str) -> str:
    assert (r.status_code, r.json()["code"]) == (CORE_STATUS[code], code), r.text
    return str(r.json()["detail"])


def wager(c: Any, table: int, amount: int, side: dict[str, int]) -> httpx.Response:
    body = {"amount": amount, "side": side, "idempotency_key": secrets.token_hex(8)}
    return c.post(f"/api/tables/{table}/wager", body)  # type: ignore[no-any-return]


def test_the_core_codes_through_the_api(svc: Any) -> None:
    bad = svc.op.post("/api/admin/tables", {"name": "bad", "commission": "0.10"})
    refused(bad, "bad-ruleset")
    table = svc.new_table(
        min_wager=500, max_wager=5000, side_wagers=[FORTUNE], betting_time_ms=60_000
    )
    a, b = svc.player(), svc.player()
    a.sit(table, 1)
    b.sit(table, 2)
    assert "outside the table limits" in refused(wager(a, table, 499, {}), "outside-limits")
    refused(wager(a, table, 1000, {"nope": 100}), "unknown-side-wager")
    assert "outside its limits" in refused(wager(a, table, 1000, {"fortune": 99}), "outside-limits")
    a.ok(wager(a, table, 1000, {"fortune": 200}))
    again = {"side": {"fortune": 100}, "idempotency_key": "again"}
    refused(a.post(f"/api/tables/{table}/side-wagers", again), "already-wagered")
    b.ok(wager(b, table, 1000, {}))
    ha, hb = a.wait_dealt(table), b.wait_dealt(table)
    detail = refused(a.set(table, hb["cards"][:2]), "bad-setting")
    assert "not one of the seven cards" in detail
    low = [c.code for c in HW.set_hand(parse_cards(ha["cards"])).setting.low]
    a.ok(a.set(table, low))
    assert refused(a.set(table, low), "already-set") == "spot 1 has already set its hand"
    assert a.balance() == 100_000 - 1200
