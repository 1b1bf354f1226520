"""The floor's routes: the operator's floor, each table's chart, the gaming-day report, and the
players' limits (``app.include_router(router)``).

- ``GET /api/admin/floor`` (operators): every open table's figures against its theoretical hold;
  starts the background computation of any ruleset's exact edge not known yet.
- ``GET /api/admin/floor/tables/{id}/chart``: actual hold against hands played, with the bands.
- ``GET /api/admin/floor/report?from=DATE&to=DATE&format=json|csv|html``: the report by gaming day
  (409 with every difference if it does not reconcile to the ledger).
- ``GET /api/admin/limits``: players with a self-exclusion in force or a loss limit;
  ``POST /api/admin/players/{username}/lift-exclusion`` is refused while an exclusion runs.
- ``GET /api/admin/players?from=DATE&to=DATE&page=N&size=N&format=json|csv``: every player rated
  by their decisions (:mod:`paigow.service.floor.players`); ``GET /api/admin/players/{id}`` one
  (404 ``no-player``), ``GET /api/admin/players/{id}/statement`` their wallet's statement.
- ``GET /api/me/limits``, ``POST /api/me/limits`` (``{"daily_loss_limit": cents | null}``),
  ``POST /api/me/exclusion`` (``{"days": n}``): the player's own limits.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from paigow.service.accounts import player_limits
from paigow.service.api.deps import (
    FirstDay,
    Format,
    LastDay,
    Operator,
    PageNo,
    Player,
    RuntimeDep,
    TableId,
    UsernamePath,
    error_responses,
    json_response,
)
from paigow.service.books import ledger
from paigow.service.books import statement as statements
from paigow.service.floor import day_report as floor_report
from paigow.service.floor import players as rated
from paigow.service.floor.edges import edge_worker
from paigow.service.floor.ratings import rater
from paigow.service.floor.view import chart, floor_view
from paigow.service.game import table_rows
from paigow.service.http_errors import BadRequest, Conflict
from paigow.service.runtime import Runtime
from paigow.service.statuses import Role

router = APIRouter()


class LossLimitIn(BaseModel):
    daily_loss_limit: int | None = Field(
        description="Cents (1 to 10^11), or null for no limit", ge=1, le=10**11
    )


class ExclusionIn(BaseModel):
    days: int = Field(ge=1, le=player_limits.MAX_EXCLUSION_DAYS, description="Days from now")


def _min_hands(rt: Runtime) -> int:
    return rt.config.floor_flag_min_hands


def _floor_view(rt: Runtime, s: Session, include_closed: bool) -> dict[str, Any]:
    return floor_view(s, include_closed, day=rt.gaming_day, flag_min_hands=_min_hands(rt))


@router.get("/api/admin/floor", tags=["admin"])
def get_floor(
    rt: RuntimeDep,
    user: Operator,
    include_closed: Annotated[bool, Query(description="Closed tables too")] = False,
) -> dict[str, Any]:
    """Every open table: players, rounds, hands, handle, player wins and losses, commission,
    house result (cents), actual hold beside the exact theoretical hold (``computing`` until
    known), the 95% band and the 99.9% flag."""
    with rt.db.read() as s:
        view = _floor_view(rt, s, include_closed)
    missing = view.pop("_missing_edges")
    bonus = view.pop("_missing_bonus")
    if missing and edge_worker().ensure(rt.db, missing, min_hands=_min_hands(rt)):
        with rt.db.read() as s:  # a saved exact edge was just stored: shown at once
            view = _floor_view(rt, s, include_closed)
        view.pop("_missing_edges")
        bonus = view.pop("_missing_bonus")
    if bonus:
        edge_worker().ensure_bonus(bonus)
    return view


@router.get("/api/admin/floor/tables/{table_id}/chart", tags=["admin"])
def get_chart(
    rt: RuntimeDep,
    table_id: TableId,
    user: Operator,
    points: Annotated[int, Query(ge=2, le=2000)] = 240,
) -> dict[str, Any]:
    """Actual hold against hands played after each settled round, inside the bands."""
    with rt.db.read() as s:
        return chart(s, table_rows.get_table(s, table_id), points)


@router.get("/api/admin/floor/report", tags=["admin"])
def get_report(
    rt: RuntimeDep,
    user: Operator,
    first: Annotated[dt.date, Query(alias="from", description="First gaming day")],
    last: Annotated[dt.date, Query(alias="to", description="Last gaming day")],
    fmt: Annotated[str, Query(alias="format", pattern="^(json|csv|html)$")] = "json",
) -> Response:
    """The report by gaming day, per table and in total, reconciled to the ledger to the cent."""
    try:
        with rt.db.read() as s:
            if rt.db.is_postgres:
                s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            report = floor_report.floor_report(s, first, last, rt.gaming_day)
    except ValueError as exc:
        raise BadRequest(str(exc), code="bad-dates") from None
    except floor_report.ReportMismatch as exc:
        return JSONResponse(
            {"detail": str(exc), "code": "not-reconciled", "problems": exc.problems},
            status_code=409,
        )
    if fmt == "json":
        return JSONResponse(report)
    name = f"paigow-floor-{first}-{last}.{fmt}"
    media = "text/csv" if fmt == "csv" else "text/html"
    return Response(
        floor_report.render(report, fmt),
        media_type=f"{media}; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/api/admin/limits", tags=["admin"])
def get_limits(rt: RuntimeDep, user: Operator) -> list[dict[str, Any]]:
    """Players with a self-exclusion in force (and when it ends) or a daily loss limit."""
    with rt.db.read() as s:
        return player_limits.excluded_players(s)


@router.post("/api/admin/players/{username}/lift-exclusion", tags=["admin"])
def lift_exclusion(
    rt: RuntimeDep,
    user: Operator,
    username: UsernamePath,
) -> dict[str, Any]:
    """Refused (403) while a player's self-exclusion runs: no one can lift it before it ends."""
    with rt.write() as tx:
        return player_limits.lift_exclusion(tx, user.username, username)


@router.get("/api/me/limits", tags=["auth"])
def my_limits(rt: RuntimeDep, user: Player) -> dict[str, Any]:
    """My daily loss limit, today's loss, and my self-exclusion."""
    with rt.db.read() as s:
        return player_limits.state(s, user.id, day=rt.gaming_day)


@router.post("/api/me/limits", tags=["auth"])
def set_my_limit(rt: RuntimeDep, body: LossLimitIn, user: Player) -> dict[str, Any]:
    """Set my daily loss limit: lower at once; higher (or none) only after the cooling-off."""
    if user.role != Role.PLAYER:
        raise Conflict("limits are for players", code="players-only")
    with rt.write() as tx:
        return player_limits.set_loss_limit(
            tx.session,
            user,
            body.daily_loss_limit,
            cooling_s=rt.config.limit_cooling_s,
            day=rt.gaming_day,
        )


@router.post("/api/me/exclusion", tags=["auth"])
def exclude_me(rt: RuntimeDep, body: ExclusionIn, user: Player) -> dict[str, Any]:
    """Exclude myself from play for a number of days (it cannot be lifted before it ends)."""
    if user.role != Role.PLAYER:
        raise Conflict("self-exclusion is for players", code="players-only")
    with rt.write() as tx:
        return player_limits.self_exclude(tx.session, user, body.days, day=rt.gaming_day)


# ------------------------------------------------------------------------------ the players
PlayerId = Annotated[int, Path(ge=1, le=2**62, description="A player's id")]
PLAYERS_OUT: dict[int | str, dict[str, Any]] = {
    **error_responses(401, 403, 404, 422),
    200: {"content": {"application/json": {}, "text/csv": {}}},
}


def _days(
    rt: Runtime, first: dt.date | None, last: dt.date | None
) -> tuple[dt.date | None, dt.date | None]:
    """Neither given: today's gaming day (one given alone: refused as the statement refuses)."""
    if first is None and last is None:
        import time

        first = last = rt.gaming_day.day_of(time.time())
    return first, last


def _ask_pool(rt: Runtime, view: dict[str, Any]) -> dict[str, Any]:
    """Hand the exact edges and holds not known yet to the floor's pool (never waited for)."""
    missing, bonus = view.pop("_missing_edges"), view.pop("_missing_bonus")
    if missing:
        edge_worker().ensure(rt.db, missing, min_hands=_min_hands(rt))
    if bonus:
        edge_worker().ensure_bonus(bonus)
    return view


@router.get("/api/admin/players", tags=["admin"], responses=PLAYERS_OUT)
async def get_players(
    rt: RuntimeDep,
    user: Operator,
    first: FirstDay = None,
    last: LastDay = None,
    page: PageNo = 1,
    size: Annotated[int, Query(ge=1, le=rated.MAX_PAGE, description="Players a page")] = 50,
    fmt: Format = "json",
) -> Response:
    """Every player (by username, ``size`` a page, at most 100): wallet, last seen, hands,
    handle by wager type, actual result, the flat and the exact theoretical win by decision
    and their difference, hands rated and waiting, limits, statement (cents; theoretical wins
    exact). Gaming days ``from`` .. ``to`` (today's without either; at most 93, the 422s of the
    statement). Wakes the rating of the hands waiting; never waits for it."""
    first, last = _days(rt, first, last)
    rater().wake(rt.db, rt.step)

    def read() -> Any:
        with rt.db.read(snapshot=True) as s:  # the totals agree with the lines
            if fmt == "csv":
                return rated.players_csv(s, first, last, day=rt.gaming_day)
            return rated.players(s, first, last, page, size, day=rt.gaming_day)

    got = await asyncio.to_thread(read)
    if fmt == "csv":
        return Response(
            got,
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="paigow-players-{first}-{last}.csv"'
            },
        )
    return json_response(await asyncio.to_thread(_ask_pool, rt, got))


@router.get("/api/admin/players/{user_id}", tags=["admin"], responses=PLAYERS_OUT)
async def get_player(
    rt: RuntimeDep, user: Operator, user_id: PlayerId, first: FirstDay = None, last: LastDay = None
) -> Response:
    """One player's line of the players' page (404 ``no-player``)."""
    first, last = _days(rt, first, last)
    rater().wake(rt.db, rt.step)

    def read() -> dict[str, Any]:
        with rt.db.read(snapshot=True) as s:
            got = rated.player(s, user_id, first, last, day=rt.gaming_day)
        return _ask_pool(rt, got)

    return json_response(await asyncio.to_thread(read))


@router.get("/api/admin/players/{user_id}/statement", tags=["admin"], responses=PLAYERS_OUT)
def get_player_statement(
    rt: RuntimeDep,
    user: Operator,
    user_id: PlayerId,
    first: FirstDay = None,
    last: LastDay = None,
    page: PageNo = 1,
    size: Annotated[int, Query(ge=1, le=statements.MAX_PAGE)] = 50,
) -> Response:
    """A player's statement, as the player reads theirs (404 ``no-player``)."""
    first, last = _days(rt, first, last)
    with rt.db.read() as s:
        account = ledger.wallet(rated.username_of(s, user_id))
        return json_response(
            statements.statement(s, account, first, last, page, size, day=rt.gaming_day)
        )
