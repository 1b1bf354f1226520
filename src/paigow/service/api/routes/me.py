"""The caller's own account: ``GET /api/me`` (who I am, my balance, my seats). My limits are in
:mod:`paigow.service.api.routes.floor`, my ledger in :mod:`paigow.service.api.routes.web`."""

from __future__ import annotations

from typing import Any, Final, cast

import sqlalchemy as sa
from fastapi import APIRouter, Response

from paigow.service.accounts.auth_tokens import Principal
from paigow.service.api.auth_schemas import MeOut
from paigow.service.api.deps import Player, RuntimeDep, error_responses, json_response
from paigow.service.books import ledger
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
