"""The floor's read model: every table's figures against its theoretical hold and bands
(:func:`floor_view`) and one table's chart (:func:`chart`), from the running totals (a handful of
indexed reads, never a scan of rounds)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ruleset import PushRule
from paigow.service.books.gaming_day import GamingDay
from paigow.service.floor.hold import (
    Z95,
    Z999,
    as_decimal,
    band_for,
    decimal_text,
    hold_text,
    table_ident,
    table_push,
)
from paigow.service.floor.side_holds import meters, offers_of, side_figures, side_totals
from paigow.service.statuses import TableStatus
from paigow.service.store.db import GameTable, Seat, User, now
from paigow.service.store.floor_models import FloorEdge, FloorPoint, FloorTable


def _table_figures(
    t: GameTable, row: FloorTable | None, edge: FloorEdge | None, players: Sequence[str]
) -> dict[str, Any]:
    rounds = hands = handle = wins = losses = commission = voided = returned = 0
    handle_sq = round_sq = 0
    flagged, flag = False, None
    if row is not None:
        rounds, hands, handle = row.rounds, row.hands, row.handle
        wins, losses, commission = row.player_wins, row.player_losses, row.commission
        voided, returned = row.voided_rounds, row.voided_returned
        handle_sq, round_sq = row.handle_sq, row.round_sq
        flagged, flag = row.flagged, row.flag
    result = losses - wins + commission
    push = PushRule(table_push(t))
    way = HouseWay.identity_of(t.house_way)
    out: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "mode": t.mode,
        "house_way": t.house_way["name"],
        "house_way_label": way["label"],
        "house_way_digest": way["digest"],
        "wheel": t.ruleset["wheel"],
        "commission": t.ruleset["commission"],
        "commission_posted": str(Commission(t.ruleset["commission"])),
        "push": table_push(t),
        "push_posted": None if push is PushRule.NONE else f"{push.words}: every wager pushes",
        "face_up": bool(t.ruleset.get("face_up", False)),
        "dragon": bool(t.ruleset.get("dragon", False)),
        "players": list(players),
        "rounds": rounds,
        "hands": hands,
        "handle": handle,
        "player_wins": wins,
        "player_losses": losses,
        "commission_taken": commission,
        "house_result": result,
        "voided_rounds": voided,
        "voided_returned": returned,
        "actual_hold": hold_text(Fraction(result, handle)) if handle else None,
        "flagged": flagged,
        "flag": flag if flagged else None,
    }
    band = band_for(edge, t.ruleset["commission"])
    if band is None:
        out["theoretical"] = {
            "status": "failed" if edge is not None and edge.status == "failed" else "computing",
            "error": edge.error if edge is not None else None,
        }
        out["band_95"] = out["band_999"] = None
        out["inside_95"] = out["inside_999"] = None
        return out
    out["theoretical"] = {
        "status": "ready",
        "house_way_hold": hold_text(band.mean),
        "sigma_per_hand": decimal_text(band.sigma),
        "optimal_hold": _optimal(edge, t.ruleset["commission"]),
    }
    if handle:
        lo95, hi95 = band.interval(Z95, handle_sq, handle)
        lo999, hi999 = band.interval(Z999, round_sq, handle)
        out["band_95"] = [decimal_text(lo95), decimal_text(hi95)]
        out["band_999"] = [decimal_text(lo999), decimal_text(hi999)]
        hold = as_decimal(Fraction(result, handle))
        out["inside_95"] = bool(lo95 <= hold <= hi95)
        out["inside_999"] = bool(lo999 <= hold <= hi999)
    else:
        out["band_95"] = out["band_999"] = None
        out["inside_95"] = out["inside_999"] = None
    return out


def _optimal(edge: FloorEdge | None, commission: str) -> dict[str, str] | None:
    if edge is None or not edge.optimal:
        return None
    rate = str(Commission(commission).rate)
    found = edge.optimal.get(rate)
    if not found:
        return None
    return hold_text(Fraction(found))


def floor_view(
    session: Session, include_closed: bool = False, *, day: GamingDay, flag_min_hands: int
) -> dict[str, Any]:
    """Every open (or closing) table's figures, and the totals: a handful of indexed reads.
    ``include_closed``: closed tables too."""
    q = (
        sa.select(GameTable, FloorTable)
        .outerjoin(FloorTable, FloorTable.table_id == GameTable.id)
        .order_by(GameTable.id)
    )
    if not include_closed:
        q = q.where(GameTable.status != TableStatus.CLOSED)
    tables = list(session.execute(q).all())
    players: dict[int, list[str]] = {}
    for table_id, _spot, name in session.execute(
        sa.select(Seat.table_id, Seat.spot, User.username)
        .join(User, User.id == Seat.user_id)
        .join(GameTable, GameTable.id == Seat.table_id)
        .where(GameTable.status != TableStatus.CLOSED)
        .order_by(Seat.table_id, Seat.spot)
    ):
        players.setdefault(table_id, []).append(name)
    edges = {e.ident: e for e in session.execute(sa.select(FloorEdge)).scalars()}
    out_tables = []
    missing: dict[str, tuple[dict[str, Any], str, str]] = {}
    missing_bonus: dict[str, tuple[dict[str, Any], str]] = {}
    offered = {t.id: offers_of(t.ruleset) for t, _ in tables}
    sides = side_totals(session, [tid for tid, o in offered.items() if o])
    meter_now = meters(session) if sides or any(offered.values()) else {}
    for t, row in tables:
        ident = table_ident(t)
        edge = edges.get(ident)
        if edge is None or edge.status != "ready":
            missing[ident] = (dict(t.house_way), str(t.ruleset["wheel"]), table_push(t))
        fig = _table_figures(t, row, edge, players.get(t.id, []))
        way = HouseWay.from_dict(dict(t.house_way)) if offered[t.id] else None  # read once
        fig["side_wagers"] = [
            side_figures(
                o, sides.get(t.id, {}).get(o.name), way, str(t.ruleset["wheel"]), meter_now
            )
            for o in offered[t.id]
            if way is not None
        ]
        if any(x["theoretical"]["status"] == "computing" for x in fig["side_wagers"]):
            missing_bonus[ident] = (dict(t.house_way), str(t.ruleset["wheel"]))
        out_tables.append(fig)
    totals: dict[str, Any] = {
        k: sum(int(x[k]) for x in out_tables)
        for k in (
            "rounds",
            "hands",
            "handle",
            "player_wins",
            "player_losses",
            "commission_taken",
            "house_result",
            "voided_rounds",
            "voided_returned",
        )
    }
    totals["actual_hold"] = (
        hold_text(Fraction(totals["house_result"], totals["handle"])) if totals["handle"] else None
    )
    return {
        "at": now(),
        "gaming_day": day.describe(),
        "tables": out_tables,
        "totals": totals,
        "flagged": [x["id"] for x in out_tables if x["flagged"]],
        "flag_min_hands": flag_min_hands,
        "_missing_edges": missing,
        "_missing_bonus": missing_bonus,
    }


def chart(session: Session, table: GameTable, max_points: int = 240) -> dict[str, Any]:
    """Actual hold against hands played after each settled round (at most ``max_points``
    evenly spaced rounds, the latest always included) with both bands at each point."""
    row = session.get(FloorTable, table.id)
    count = row.rounds if row is not None else 0
    step = max(1, -(-count // max_points))
    q = sa.select(FloorPoint).where(FloorPoint.table_id == table.id)
    if step > 1:
        q = q.where(sa.or_(FloorPoint.seq % step == 0, FloorPoint.seq == count))
    points = session.execute(q.order_by(FloorPoint.seq)).scalars().all()
    band = band_for(session.get(FloorEdge, table_ident(table)), table.ruleset["commission"])
    out = []
    for p in points:
        item: dict[str, Any] = {
            "round": p.seq,
            "hands": p.hands,
            "handle": p.handle,
            "result": p.result,
            "hold": decimal_text(as_decimal(Fraction(p.result, p.handle))) if p.handle else None,
        }
        if band is not None and p.handle:
            item["band_95"] = [decimal_text(x) for x in band.interval(Z95, p.handle_sq, p.handle)]
            item["band_999"] = [decimal_text(x) for x in band.interval(Z999, p.round_sq, p.handle)]
        out.append(item)
    return {
        "table_id": table.id,
        "name": table.name,
        "theoretical": None if band is None else hold_text(band.mean),
        "points": out,
        "flagged": bool(row.flagged) if row is not None else False,
    }
