"""Game recall: a round with its log as the viewer may see it, and a table's last rounds."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from paigow.house_way import HouseWay
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.game.rounds.log import load_events, spot_owners
from paigow.service.game.table_rows import ENDED
from paigow.service.http_errors import NotFound
from paigow.service.statuses import Role
from paigow.service.store.db import GameTable, RoundRow
from paigow.service.store.unit import Tx


def round_view(tx: Tx, round_id: str, user: Principal | None) -> dict[str, Any]:
    """A round with its log: complete for operators once the round is over; otherwise as the
    viewer may see it (their own cards, the public events, every setting from the showdown)."""
    from paigow.service.game.visibility import view_log

    row = tx.session.get(RoundRow, round_id)
    if row is None:
        raise NotFound(f"no round {round_id}", code="no-round")
    events = load_events(tx, row.id)
    owners = spot_owners(tx, row.id)
    mine = {spot for spot, (uid, _) in owners.items() if user is not None and uid == user.id}
    over = row.phase in ENDED
    full = over and user is not None and user.role == Role.OPERATOR
    return {
        "id": row.id,
        "table_id": row.table_id,
        "number": row.number,
        "phase": row.phase,
        "over": over,
        "complete_log": full,
        "created_at": row.created_at,
        "ended_at": row.ended_at,
        "players": {str(spot): name for spot, (_, name) in sorted(owners.items())},
        "result": row.result,
        "house_way": _house_way(events),
        "events": view_log(events, mine, full=full),
    }


def _house_way(events: list[dict[str, Any]]) -> dict[str, str] | None:
    """The round's house way by name, label and digest, as its log records it (the digest of
    the recorded rules, so a log written before digests were recorded says it too)."""
    if not events or events[0].get("type") != "round-started":
        return None
    return HouseWay.identity_of(events[0]["house_way"])


def last_rounds(
    tx: Tx, table_id: int, user: Principal | None, limit: int = 10
) -> list[dict[str, Any]]:
    session = tx.session
    if session.get(GameTable, table_id) is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    ids = (
        session.execute(
            sa.select(RoundRow.id)
            .where(RoundRow.table_id == table_id)
            .order_by(RoundRow.number.desc())
            .limit(limit)
        )
        .scalars()
        .all()
    )
    return [round_view(tx, rid, user) for rid in ids]
