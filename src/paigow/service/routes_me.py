"""The caller's own account: ``GET /api/me`` (who I am, my balance, my seats). My limits are in
:mod:`paigow.service.routes_floor`, my ledger in :mod:`paigow.service.web`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter

from paigow.service import ledger
from paigow.service.db import Seat
from paigow.service.deps import Player, RuntimeDep, error_responses
from paigow.service.schemas import MeOut

router = APIRouter()


@router.get("/api/me", tags=["auth"], response_model=MeOut, responses=error_responses(401))
def me(user: Player, rt: RuntimeDep) -> dict[str, Any]:
    """Who I am, my balance (cents) and where I sit."""
    with rt.read() as tx:
        balance = ledger.balance(tx, ledger.wallet(user.username))
        seats = tx.session.execute(
            sa.select(Seat.table_id, Seat.spot).where(Seat.user_id == user.id)
        ).all()
    return {
        "id": user.id,
        "username": user.username,
        "role": user.role,
        "balance": balance,
        "seats": [{"table_id": t, "spot": p} for t, p in seats],
    }
