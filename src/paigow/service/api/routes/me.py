"""The caller's own account: ``GET /api/me`` (who I am, my balance, my seats) and
``GET /api/me/statement`` (every movement of my wallet in a range of gaming days, with the running
balance, grouped by round; JSON in pages, or CSV). My limits are in
:mod:`paigow.service.api.routes.floor`, my ledger in :mod:`paigow.service.api.routes.web`."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Final, cast

import sqlalchemy as sa
from fastapi import APIRouter, Query, Response

from paigow.service.accounts.auth import Principal
from paigow.service.api.auth_schemas import MeOut
from paigow.service.api.deps import Player, RuntimeDep, error_responses, json_response
from paigow.service.books import ledger
from paigow.service.books import statement as statements
from paigow.service.store.db import Seat
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

router = APIRouter()
_SEATS: Final = cast(sa.Table, Seat.__table__)
_MY_SEATS: Final = Sql(
    sa.select(_SEATS.c.table_id, _SEATS.c.spot)
    .where(_SEATS.c.user_id == sa.bindparam("uid"))
    .order_by(_SEATS.c.table_id)
)


def about(tx: Tx, user: Principal) -> dict[str, Any]:
    """The user, their wallet's balance and their seats (two statements)."""
    balance = ledger.balance(tx, ledger.wallet(user.username))
    seats = tx.run(_MY_SEATS, {"uid": user.id})
    return {
        "id": user.id,
        "username": user.username,
        "role": user.role,
        "balance": balance,
        "seats": [{"table_id": t, "spot": p} for t, p in seats],
    }


@router.get("/api/me", tags=["auth"], response_model=MeOut, responses=error_responses(401))
async def me(user: Player, rt: RuntimeDep) -> Response:
    """Who I am, my balance (cents) and where I sit."""
    return json_response(await rt.reading(lambda tx: about(tx, user)))


@router.get(
    "/api/me/statement",
    tags=["auth"],
    responses={
        **error_responses(401, 422),
        200: {"content": {"application/json": {}, "text/csv": {}}},
    },
)
def my_statement(
    user: Player,
    rt: RuntimeDep,
    first: Annotated[
        dt.date | None, Query(alias="from", description="First gaming day (YYYY-MM-DD)")
    ] = None,
    last: Annotated[
        dt.date | None, Query(alias="to", description="Last gaming day (YYYY-MM-DD)")
    ] = None,
    page: Annotated[int, Query(ge=1, le=10**6, description="Page, from 1")] = 1,
    size: Annotated[int, Query(ge=1, le=statements.MAX_PAGE, description="Movements a page")] = 50,
    fmt: Annotated[str, Query(alias="format", pattern="^(json|csv)$")] = "json",
) -> Response:
    """Every movement of my wallet in gaming days ``from`` .. ``to`` (both required, at most
    93 days; 422 ``unbounded-range``, ``reversed-range``, ``range-too-long``), in cents, with
    the balance after each: grouped by round (with the table and round for its recall), the
    operators' credits and debits on their own; ``size`` movements a page (at most 200), or
    ``format=csv`` for the whole range in dollars."""
    account = ledger.wallet(user.username)
    with rt.db.read() as s:
        if fmt == "csv":
            text = statements.statement_csv(s, account, first, last)
            name = f"paigow-statement-{user.username}-{first}-{last}.csv"
            return Response(
                text,
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )
        return json_response(statements.statement(s, account, first, last, page, size))
