"""The browser table: static ES modules and CSS from ``paigow/service/web`` and three read-only helpers.

:data:`router` serves ``/`` (the single page, routed by its URL hash: ``#/lobby``,
``#/table/ID``, ``#/recall/ID``, ``#/operator``) and the routes below; ``create_app`` mounts the
page's files (:data:`WEB_DIR`) at ``/static/*``.

- ``POST /api/web/evaluate``: both hands' names and the foul flag of a setting (seven cards and the
  two low cards), computed by the rules engine, so the page shows exactly what the table rules;
- ``GET /api/web/rules``: the rules for players (``docs/rules.md``, Markdown);
- ``GET /api/web/ledger``: the caller's own latest ledger entries (their wallet only);
- ``GET /api/web/tables/{id}/ev``: practice tables only (403 at a casino table), the exact EV of
  every setting of the caller's own current hand, when the compiled house way already exists on
  this server (never built on demand); at a Face Up table, once the dealer's setting is exposed,
  against that setting (``against: exposed``, each setting's outcome certain, no table needed);
- ``GET /api/web/tables/{id}/side-returns``: practice tables only, each offered side wager's exact
  return (house edge) per unit wagered, as its posted pay table reads: ``status`` ``ready``, or
  ``computing`` while the house way's bonus hands are counted in the background (once per house
  way, seconds; then every pay table answers in milliseconds, kept).

None of them changes anything.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, PlainTextResponse
from pydantic import BaseModel, Field

from paigow.errors import PaigowError
from paigow.service.api.deps import Player, RuntimeDep
from paigow.service.api.schemas import CardCode, Strict
from paigow.service.books import ledger
from paigow.service.game import rounds, side_offers, table_rows
from paigow.service.game.rounds.players import practice_table
from paigow.service.http_errors import BadRequest, NotFound
from paigow.service.store.db import LedgerEntry, LedgerTransaction
from paigow.service.store.unit import Tx

WEB_DIR = Path(str(resources.files("paigow.service") / "web"))
"""The page's files (package data)."""

router = APIRouter()
_compiled: dict[str, Any] = {}
_compiled_lock = threading.Lock()


class EvaluateIn(Strict):
    cards: list[CardCode] = Field(min_length=7, max_length=7)
    low: list[CardCode] = Field(min_length=2, max_length=2)
    wheel: str = Field(default="second", pattern=r"^(second|lowest)$")


class EvaluateOut(BaseModel):
    high: list[str]
    low: list[str]
    high_name: str
    low_name: str
    foul: bool


def evaluate(cards: list[str], low: list[str], wheel: str = "second") -> dict[str, Any]:
    """Both hands of a setting, named, and whether it fouls.

    >>> r = evaluate("As Kd 9h 7c 5s 3d 2c".split(), ["As", "Kd"])
    >>> r["high_name"], r["low_name"], r["foul"]
    ('high card, nine high', 'high card, ace-king', True)
    """
    from paigow.cards import parse_cards
    from paigow.ranking import Wheel
    from paigow.setting import Setting

    try:
        setting = Setting.from_low(parse_cards(cards, count=7), low)
        value = setting.value(Wheel(wheel))
    except (PaigowError, ValueError) as exc:
        raise BadRequest(str(exc), code="bad-cards") from None
    return {
        "high": [c.code for c in setting.high],
        "low": [c.code for c in setting.low],
        "high_name": value.high.name,
        "low_name": value.low.name,
        "foul": value.foul,
    }


def _open_compiled(way: Any, wheel: Any) -> Any | None:
    """The compiled house way if its file already exists here (never built on demand)."""
    from paigow.analysis.compiled import CompiledHouseWay, cache_path

    path = cache_path(way, wheel)
    key = str(path)
    with _compiled_lock:
        if key in _compiled:
            return _compiled[key]
        if not path.exists():
            return None
        try:
            opened = CompiledHouseWay.open(way, wheel, build_missing=False)
        except PaigowError:
            return None
        _compiled[key] = opened
        return opened


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/api/web/rules", include_in_schema=False)
def web_rules() -> PlainTextResponse:
    text = (WEB_DIR / "rules.md").read_text(encoding="utf-8")
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.post("/api/web/evaluate", include_in_schema=False, response_model=EvaluateOut)
def web_evaluate(body: EvaluateIn) -> dict[str, Any]:
    return evaluate(body.cards, body.low, body.wheel)


@router.get("/api/web/ledger", include_in_schema=False)
def web_ledger(user: Player, rt: RuntimeDep) -> dict[str, Any]:
    account = ledger.wallet(user.username)
    with rt.db.read() as s:
        rows = s.execute(
            sa.select(
                LedgerEntry.id,
                LedgerEntry.amount,
                LedgerEntry.memo,
                LedgerTransaction.id,
                LedgerTransaction.kind,
                LedgerTransaction.reference,
                LedgerTransaction.created_at,
            )
            .join(LedgerTransaction, LedgerTransaction.id == LedgerEntry.txn_id)
            .where(LedgerEntry.account == account)
            .order_by(LedgerEntry.id.desc())
            .limit(20)
        ).all()
        balance = ledger.balance(Tx(s.connection(), s), account)
    return {
        "account": account,
        "balance": balance,
        "entries": [
            {
                "entry_id": eid,
                "amount": amount,
                "memo": memo,
                "transaction_id": tid,
                "kind": kind,
                "reference": ref,
                "created_at": at,
            }
            for eid, amount, memo, tid, kind, ref, at in rows
        ],
    }


@router.get("/api/web/tables/{table_id}/side-returns", include_in_schema=False)
def web_side_returns(
    table_id: Annotated[int, PathParam(ge=1, le=2**31 - 1)], rt: RuntimeDep
) -> dict[str, Any]:
    from paigow.service.floor.edges import edge_worker
    from paigow.service.floor.hold import table_ident
    from paigow.service.floor.side_holds import offer_returns, offers_of

    with rt.read() as tx:
        table = practice_table(tx, table_id, "the side wagers' exact returns are")
        way = table_rows.table_house_way(table)
        wheel = str(table.ruleset["wheel"])
        offers = offers_of(table.ruleset)
        meters = side_offers.meters_of_table(tx, table_id) if offers else {}
    if not offers:
        return {"status": "ready", "offers": []}
    found = offer_returns(offers, way, wheel, meters)
    if found is None:
        edge_worker().ensure_bonus({table_ident(table): (dict(table.house_way), wheel)})
        return {"status": "computing", "offers": []}
    return {"status": "ready", "offers": found}


@router.get("/api/web/tables/{table_id}/ev", include_in_schema=False)
def web_ev(
    table_id: Annotated[int, PathParam(ge=1, le=2**31 - 1)], user: Player, rt: RuntimeDep
) -> dict[str, Any]:
    from paigow.analysis.analyze import analyze, analyze_against, analyze_fast
    from paigow.cards import parse_cards
    from paigow.variants import push_triggered

    with rt.read() as tx:
        table = practice_table(tx, table_id, "the EV is")
        hand = rounds.my_hand(tx, table_id, user)
        way = table_rows.table_house_way(table)
        ruleset = table_rows.table_ruleset(table)
        exposed = None
        if ruleset.face_up and hand["cards"] is not None:
            row = rounds.current_row(tx, table)
            assert row is not None  # my_hand found the round
            rnd = rounds.load_round(tx, row)
            if rnd.dealer_setting is not None and rnd.dealer_cards is not None:
                pushes = push_triggered(ruleset.push, rnd.dealer_cards, rnd.dealer_setting)
                exposed = (rnd.dealer_setting, pushes)
    if hand["cards"] is None:
        raise NotFound("your cards are not dealt yet", code="not-dealt")
    if exposed is not None:  # every setting's outcome is certain against the exposed setting
        result = analyze_against(
            parse_cards(hand["cards"]),
            exposed[0],
            way,
            ruleset.wheel,
            ruleset.commission,
            ruleset.foul,
            pushes=exposed[1],
        )
        return {"available": True, "round_id": hand["round_id"], "analysis": result.to_dict()}
    compiled = _open_compiled(way, ruleset.wheel)
    if compiled is None:
        return {"available": False, "round_id": hand["round_id"], "analysis": None}
    cards = parse_cards(hand["cards"])
    # from the compiled optimal player's structures when built (milliseconds); else counted
    result = analyze_fast(cards, compiled, ruleset.commission, ruleset.foul) or analyze(
        cards, compiled, ruleset.commission, ruleset.foul, workers=1
    )
    return {"available": True, "round_id": hand["round_id"], "analysis": result.to_dict()}
