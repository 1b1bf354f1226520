"""Game recall: ``GET /api/tables/{id}/rounds`` (a table's last rounds) and
``GET /api/rounds/{round_id}`` (a round with its event log, filtered for the caller)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from paigow.service.api.deps import Player, RoundId, RuntimeDep, TableId, error_responses
from paigow.service.api.schemas import RoundOut
from paigow.service.game import rounds

router = APIRouter()


@router.get(
    "/api/tables/{table_id}/rounds",
    tags=["recall"],
    response_model=list[RoundOut],
    responses=error_responses(401, 404, 422),
)
def table_rounds(table_id: TableId, user: Player, rt: RuntimeDep) -> list[dict[str, Any]]:
    """The table's last ten rounds with their logs (see GET /api/rounds/{round_id})."""
    with rt.read() as tx:
        return rounds.last_rounds(tx, table_id, user)


@router.get(
    "/api/rounds/{round_id}",
    tags=["recall"],
    response_model=RoundOut,
    responses=error_responses(401, 404, 422),
)
def get_round(round_id: RoundId, user: Player, rt: RuntimeDep) -> dict[str, Any]:
    """A round with its event log. Operators get the complete log (deck order included,
    replayable by the rules engine) once the round is over; players see their own cards,
    the public events, and every setting from the showdown."""
    with rt.read() as tx:
        return rounds.round_view(tx, round_id, user)
