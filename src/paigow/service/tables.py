"""Tables: their configuration (ruleset with the posted commission, house way, start method,
limits, time limits, mode), seats, and the public view of a table.

Modes: ``casino`` (players set without help, 9-13(a)) and ``practice`` (house-way hints allowed).
Time limits are the service's own (the core ruleset keeps the setting limit in whole seconds and
has no betting limit): ``betting_time_ms`` runs from the first wager of a round, and betting closes
early once every seated player has wagered; ``setting_time_ms`` runs from the deal, and a hand not
set in time is set by the house way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import BUILTIN_PRESETS, HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, Ruleset, StartMethod
from paigow.service.audit import record
from paigow.service.auth import Principal
from paigow.service.db import GameTable, RoundRow, RoundWager, Seat, User, now
from paigow.service.errors import Conflict, NotFound, Unprocessable
from paigow.service.ledger import open_table_accounts
from paigow.service.runtime import notify
from paigow.service.statuses import ENDED, OPEN_STATUSES, TableMode, TableStatus

MODES: Final = tuple(TableMode)
SPOTS: Final = range(1, 7)
__all__ = ["ENDED", "MODES", "OPEN_STATUSES", "SPOTS"]


def house_way_from(spec: str | Mapping[str, Any]) -> HouseWay:
    """A built-in preset by name, or an operator-defined preset given as parameters (never a file:
    the API must not read the server's files)."""
    try:
        if isinstance(spec, str):
            if spec.strip().lower() not in BUILTIN_PRESETS:
                raise Unprocessable(
                    f"unknown house way {spec!r}: use a preset ({', '.join(BUILTIN_PRESETS)}) "
                    "or give the parameters {name, two_pair, quads}",
                    code="bad-house-way",
                )
            return HouseWay.preset(spec)
        return HouseWay.from_dict(spec)
    except PaigowError as exc:
        raise Unprocessable(str(exc), code="bad-house-way") from None


def build_ruleset(
    *,
    commission: str,
    house_way: HouseWay,
    start: str,
    foul: str,
    wheel: str,
    min_wager: int,
    max_wager: int,
    setting_time_ms: int,
) -> Ruleset:
    try:
        return Ruleset(
            commission=Commission(commission),
            house_way=house_way.name,
            start=StartMethod(start),
            foul=FoulRule(foul),
            wheel=Wheel(wheel),
            min_wager=min_wager,
            max_wager=max_wager,
            set_time_limit=max(1, math.ceil(setting_time_ms / 1000)),
        )
    except PaigowError as exc:
        raise Unprocessable(str(exc), code="bad-ruleset") from None


def create_table(
    session: Session,
    *,
    operator: str,
    name: str,
    ruleset: Ruleset,
    house_way: HouseWay,
    mode: str,
    betting_time_ms: int,
    setting_time_ms: int,
) -> GameTable:
    if mode not in MODES:
        raise Unprocessable(f"mode must be one of {', '.join(MODES)}", code="bad-mode")
    table = GameTable(
        name=name,
        ruleset=ruleset.to_dict(),
        house_way=house_way.to_dict(),
        mode=mode,
        betting_time_ms=betting_time_ms,
        setting_time_ms=setting_time_ms,
        status=TableStatus.OPEN,
        created_at=now(),
        created_by=operator,
        current_round_id=None,
        round_count=0,
    )
    session.add(table)
    session.flush()
    open_table_accounts(session, table.id)
    record(
        session,
        operator,
        "table-created",
        f"table:{table.id}",
        {
            "name": name,
            "ruleset": table.ruleset,
            "house_way": table.house_way,
            "mode": mode,
            "betting_time_ms": betting_time_ms,
            "setting_time_ms": setting_time_ms,
        },
    )
    notify(session, table.id, "table")
    return table


def lock_table(session: Session, table_id: int) -> GameTable:
    """The table's row, locked for this transaction (PostgreSQL ``FOR UPDATE``; SQLite's write
    transactions hold the whole database)."""
    table = session.execute(
        sa.select(GameTable).where(GameTable.id == table_id).with_for_update()
    ).scalar_one_or_none()
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    return table


def get_table(session: Session, table_id: int) -> GameTable:
    table = session.get(GameTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    return table


def table_ruleset(table: GameTable) -> Ruleset:
    return Ruleset.from_dict(dict(table.ruleset))


def table_house_way(table: GameTable) -> HouseWay:
    return HouseWay.from_dict(dict(table.house_way))


def current_round(session: Session, table: GameTable) -> RoundRow | None:
    if table.current_round_id is None:
        return None
    return session.get(RoundRow, table.current_round_id)


# --------------------------------------------------------------------------------------- seats
def sit(session: Session, table_id: int, user: Principal, spot: int) -> dict[str, Any]:
    table = lock_table(session, table_id)
    if table.status != TableStatus.OPEN:
        raise Conflict(f"table {table_id} is {table.status}", code="table-closed")
    if spot not in SPOTS:
        raise Unprocessable("spots are 1..6", code="bad-spot")
    mine = session.execute(
        sa.select(Seat).where(Seat.table_id == table_id, Seat.user_id == user.id)
    ).scalar_one_or_none()
    if mine is not None:
        if mine.spot == spot:
            return {"table_id": table_id, "spot": spot}
        raise Conflict(
            f"you already sit on spot {mine.spot}; leave it first", code="already-seated"
        )
    if session.get(Seat, (table_id, spot)) is not None:
        raise Conflict(f"spot {spot} is taken", code="spot-taken")
    rnd = current_round(session, table)
    if rnd is not None and rnd.phase not in ENDED:
        busy = session.get(RoundWager, (rnd.id, spot))
        if busy is not None and busy.user_id != user.id:
            raise Conflict(
                f"spot {spot} still has a wager in play this round; sit after it", code="spot-busy"
            )
    session.add(Seat(table_id=table_id, spot=spot, user_id=user.id, sat_at=now()))
    notify(session, table_id, "table")
    return {"table_id": table_id, "spot": spot}


def leave(session: Session, table_id: int, user: Principal) -> dict[str, Any]:
    """Leave the seat. A wager already in play stays in play: the hand can still be set (or is
    set by the house way at the time limit) and the result goes to the player's wallet."""
    lock_table(session, table_id)
    seat = session.execute(
        sa.select(Seat).where(Seat.table_id == table_id, Seat.user_id == user.id)
    ).scalar_one_or_none()
    if seat is None:
        raise Conflict("you are not seated at this table", code="not-seated")
    spot = seat.spot
    session.delete(seat)
    notify(session, table_id, "table")
    return {"table_id": table_id, "spot": spot, "left": True}


# --------------------------------------------------------------------------------------- views
def public_state(session: Session, table: GameTable, at: float | None = None) -> dict[str, Any]:
    """What every view of a table shows, the posted commission included."""
    t = at if at is not None else now()
    rs = table.ruleset
    seats = {
        spot: name
        for spot, name in session.execute(
            sa.select(Seat.spot, User.username)
            .join(User, User.id == Seat.user_id)
            .where(Seat.table_id == table.id)
        )
    }
    round_view: dict[str, Any] | None = None
    row = current_round(session, table)
    if row is not None:
        wagers = session.execute(
            sa.select(RoundWager.spot, RoundWager.amount)
            .where(RoundWager.round_id == row.id)
            .order_by(RoundWager.spot)
        ).all()
        round_view = {
            "id": row.id,
            "number": row.number,
            "phase": row.phase,
            "deadline": row.deadline,
            "time_left_s": None if row.deadline is None else max(0.0, round(row.deadline - t, 3)),
            "wagers": [{"spot": s, "amount": a} for s, a in wagers],
        }
    return {
        "id": table.id,
        "name": table.name,
        "status": table.status,
        "mode": table.mode,
        "commission": rs["commission"],
        "commission_posted": str(Commission(rs["commission"])),
        "house_way": table.house_way["name"],
        "start": rs["start"],
        "foul": rs["foul"],
        "wheel": rs["wheel"],
        "min_wager": rs["min_wager"],
        "max_wager": rs["max_wager"],
        "betting_time_s": table.betting_time_ms / 1000,
        "setting_time_s": table.setting_time_ms / 1000,
        "spots": [{"spot": s, "occupied": s in seats, "player": seats.get(s)} for s in SPOTS],
        "round": round_view,
        "rounds_played": table.round_count,
    }
