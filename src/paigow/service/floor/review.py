"""My play: every hand a player played at a table that prices settings, by gaming day and by
session (the player's run of rounds at one table), with the setting played, the best and the
house way's and what the choice gave up in dollars; each day's totals given up against the best
and against the house way; the ten costliest decisions with their hands; as JSON or CSV. And one
round's prices for its player (404 for a round they had no hand in: nothing of another player).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from fractions import Fraction
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.analysis.price import dollars
from paigow.service.books.gaming_day import GamingDay
from paigow.service.books.statement import check_range
from paigow.service.floor.prices import PRICED, prices_offered
from paigow.service.http_errors import NotFound, Unprocessable
from paigow.service.store.db import GameTable, RoundRow, RoundWager
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.floor_models import RoundPrice

MAX_HANDS: Final = 5_000
"""The most hands one review holds (a range with more is refused: ask for fewer days)."""
COSTLIEST: Final = 10


def _hand(r: RoundPrice, day: GamingDay) -> dict[str, Any]:
    data = dict(r.data or {})
    out: dict[str, Any] = {
        "round_id": r.round_id,
        "table_id": r.table_id,
        "round_number": r.round_number,
        "spot": r.spot,
        "dragon": r.dragon,
        "wager": r.wager,
        "settled_at": r.settled_at,
        "gaming_day": day.day_of(r.settled_at).isoformat(),
        "status": r.status,
        "recall": f"#/recall/{r.table_id}/{r.round_id}",
    }
    if r.status != PRICED:
        out.update(reason=r.reason, cards=data.get("cards"))
        return out
    out.update(data)
    return out


def _total(hands: list[dict[str, Any]], field: str) -> Fraction:
    return sum((Fraction(h[field]) for h in hands if h["status"] == PRICED), Fraction(0))


def _totals(hands: list[dict[str, Any]]) -> dict[str, Any]:
    best, house = _total(hands, "given_up_cents"), _total(hands, "house_given_up_cents")
    return {
        "hands": len(hands),
        "priced": sum(1 for h in hands if h["status"] == PRICED),
        "given_up_cents": str(best),
        "given_up_dollars": dollars(best),
        "house_given_up_cents": str(house),
        "house_given_up_dollars": dollars(house),
    }


def _rows(session: Session, user_id: int, start: float, end: float) -> list[RoundPrice]:
    where = (
        RoundPrice.user_id == user_id,
        RoundPrice.settled_at >= start,
        RoundPrice.settled_at < end,
    )
    n = session.execute(sa.select(sa.func.count()).select_from(RoundPrice).where(*where))
    if int(n.scalar_one()) > MAX_HANDS:
        raise Unprocessable(
            f"the range holds more than {MAX_HANDS:,} hands: ask for fewer days",
            code="too-many-rows",
        )
    return list(
        session.scalars(
            sa.select(RoundPrice)
            .where(*where)
            .order_by(RoundPrice.settled_at, RoundPrice.round_id, RoundPrice.dragon)
        )
    )


def review(
    session: Session,
    user_id: int,
    first: dt.date | None,
    last: dt.date | None,
    *,
    day: GamingDay,
) -> dict[str, Any]:
    """The player's hands in gaming days ``first`` .. ``last`` (bounded, at most 93 days)."""
    check_range(first, last)
    assert first is not None and last is not None
    start, end = day.bounds(first)[0], day.bounds(last)[1]
    hands = [_hand(r, day) for r in _rows(session, user_id, start, end)]
    days: dict[str, list[dict[str, Any]]] = {}
    for h in hands:
        days.setdefault(h["gaming_day"], []).append(h)
    out_days = []
    for d, its in days.items():
        sessions: list[dict[str, Any]] = []
        for h in its:  # a session: the player's run of rounds at one table
            if not sessions or sessions[-1]["table_id"] != h["table_id"]:
                sessions.append({"table_id": h["table_id"], "hands": []})
            sessions[-1]["hands"].append(h)
        for s in sessions:
            s.update(totals=_totals(s["hands"]))
        out_days.append({"gaming_day": d, "totals": _totals(its), "sessions": sessions})
    priced = [h for h in hands if h["status"] == PRICED]
    costliest = sorted(priced, key=lambda h: -Fraction(h["given_up_cents"]))[:COSTLIEST]
    return {
        "from": first.isoformat(),
        "to": last.isoformat(),
        "gaming_day": day.describe(),
        "totals": _totals(hands),
        "days": out_days,
        "costliest": [h for h in costliest if Fraction(h["given_up_cents"]) > 0],
    }


CSV_COLUMNS: Final = (
    "gaming_day",
    "table_id",
    "round_number",
    "round_id",
    "hand",
    "wager",
    "cards",
    "played",
    "played_ev",
    "best",
    "best_ev",
    "house_way",
    "house_way_ev",
    "given_up",
    "given_up_vs_house_way",
    "status",
)


def _setting(s: dict[str, Any]) -> str:
    return f"{' '.join(s['high'])} / {' '.join(s['low'])}"


def review_csv(
    session: Session, user_id: int, first: dt.date | None, last: dt.date | None, *, day: GamingDay
) -> str:
    """The review's hands as CSV, one line a hand, amounts in dollars (rounded to the cent)."""
    data = review(session, user_id, first, last, day=day)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for d in data["days"]:
        for s in d["sessions"]:
            for h in s["hands"]:
                hand = f"dragon (from spot {h['spot']})" if h["dragon"] else f"spot {h['spot']}"
                base = [d["gaming_day"], h["table_id"], h["round_number"], h["round_id"], hand]
                base.append(f"{h['wager'] // 100}.{h['wager'] % 100:02d}")
                if h["status"] != PRICED:
                    w.writerow([*base, " ".join(h.get("cards") or ()), *[""] * 8, h["status"]])
                    continue
                w.writerow(
                    [
                        *base,
                        " ".join(h["cards"]),
                        _setting(h["played"]),
                        h["played"]["ev_dollars"],
                        _setting(h["best"]),
                        h["best"]["ev_dollars"],
                        _setting(h["house_way"]),
                        h["house_way"]["ev_dollars"],
                        h["given_up_dollars"],
                        h["house_given_up_dollars"],
                        h["status"],
                    ]
                )
    return out.getvalue()


def round_review(
    session: Session, user_id: int, round_id: str, *, day: GamingDay
) -> dict[str, Any]:
    """The prices of the player's hands in one round: ``status`` ``priced`` (the hands),
    ``pending`` (settled moments ago, or not yet settled) or ``not-offered`` (a casino table
    that does not offer it). 404 when the player had no hand in the round."""
    mine = (
        session.execute(
            sa.select(RoundWager.spot).where(
                RoundWager.round_id == round_id, RoundWager.user_id == user_id
            )
        ).first()
        or session.execute(
            sa.select(RoundDragon.by_spot).where(
                RoundDragon.round_id == round_id, RoundDragon.user_id == user_id
            )
        ).first()
    )
    if mine is None:
        raise NotFound(f"you had no hand in round {round_id}", code="no-hand-here")
    row = session.get(RoundRow, round_id)
    table = None if row is None else session.get(GameTable, row.table_id)
    if row is None or table is None:
        raise NotFound(f"you had no hand in round {round_id}", code="no-hand-here")
    rows = session.scalars(
        sa.select(RoundPrice)
        .where(RoundPrice.round_id == round_id, RoundPrice.user_id == user_id)
        .order_by(RoundPrice.dragon, RoundPrice.spot)
    ).all()
    if rows:
        status = "priced"
    elif not prices_offered(table.mode, dict(table.ruleset)):
        status = "not-offered"
    else:
        status = "pending"
    return {
        "round_id": round_id,
        "table_id": row.table_id,
        "round_number": row.number,
        "status": status,
        "hands": [_hand(r, day) for r in rows],
    }
