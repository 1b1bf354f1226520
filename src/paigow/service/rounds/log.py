"""The round's log: its events, appended in the step's transaction, and the round rebuilt from
them (``Round.replay``; the database is the only source of truth)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.events import Event
from paigow.round import Round
from paigow.service.db import GameTable, RoundEvent, RoundRow, RoundWager, User, now
from paigow.service.rounds.head import Head, RoundHead, set_current
from paigow.service.runtime import FreshEvents, RoundCache, after_commit

SYSTEM: Final = "dealer"
INSERT_WAGER: Final = sa.insert(RoundWager)


class InconsistentRound(RuntimeError):
    """A round's records disagree with its log (the dealer voids such a round)."""


# ------------------------------------------------------------------------------------ the log


def load_events(session: Session, round_id: str) -> list[dict[str, Any]]:
    rows = session.execute(
        sa.select(RoundEvent.seq, RoundEvent.data)
        .where(RoundEvent.round_id == round_id)
        .order_by(RoundEvent.seq)
    ).all()
    return [dict(data) for _, data in rows]


def load_round(session: Session, row: RoundRow | RoundHead) -> Round:
    """The round as its persisted log makes it: from this process's cache when the cached copy
    is at the same step, else rebuilt by replaying the log."""
    cache: RoundCache | None = session.info.get("rounds")
    if cache is not None:
        rnd = cache.take(row.id, row.event_count)
        if rnd is not None:
            return rnd
    return Round.replay(load_events(session, row.id))


_INSERT_EVENT = sa.insert(RoundEvent)


def append(
    session: Session,
    row: RoundHead,
    rnd: Round,
    events: Sequence[Event],
    owners: dict[int, int] | None = None,
) -> None:
    """Persist ``events``, the events the round's commands just returned, and its new phase
    (``owners``: the spots wagered on by this step, for the live feeds)."""
    start = len(rnd.events) - len(events)
    if start != row.event_count:
        raise InconsistentRound(f"round {row.id}: log length {row.event_count}, expected {start}")
    new = [e.to_dict() for e in events]
    insert_events(session, row.id, start, new)
    row.set(session, event_count=len(rnd.events), phase=rnd.phase.value)
    cache: RoundCache | None = session.info.get("rounds")
    if cache is not None and not rnd.is_over:
        after_commit(session, lambda: cache.put(rnd))
    fresh: FreshEvents | None = session.info.get("fresh")
    if fresh is not None and new:
        table_id, rid, number, mine = row.table_id, row.id, row.number, dict(owners or {})
        after_commit(session, lambda: fresh.put(table_id, rid, number, start, new, now(), mine))


def insert_events(
    session: Session, round_id: str, start: int, events: list[dict[str, Any]]
) -> None:
    """Append ``events`` (event dicts) to the round's log from sequence number ``start`` on."""
    if not events:
        return
    t = now()
    session.connection().execute(  # Core: the log's rows are never loaded as objects here
        _INSERT_EVENT,
        [
            {"round_id": round_id, "seq": start + i, "type": e["type"], "data": e, "created_at": t}
            for i, e in enumerate(events)
        ],
    )


_INSERT_ROUND = sa.insert(RoundRow)


def new_round(session: Session, head: Head) -> tuple[RoundHead, Round]:
    """Open the table's next round (its row, its first event, the table's current round)."""
    rnd = Round(head.table.rules, head.table.way, round_id=secrets.token_hex(12))
    number = head.round_count + 1
    t = now()
    deadline = t + head.table.betting_time_ms / 1000
    session.connection().execute(
        _INSERT_ROUND,
        {
            "id": rnd.round_id,
            "table_id": head.id,
            "number": number,
            "phase": rnd.phase.value,
            "deadline": deadline,
            "event_count": 0,
            "created_at": t,
            "ended_at": None,
            "result": None,
        },
    )
    set_current(session, head.id, rnd.round_id, number)
    head.round_count = number
    row = RoundHead(rnd.round_id, head.id, number, rnd.phase.value, deadline, 0)
    head.round = row
    append(session, row, rnd, tuple(rnd.events))  # round-started
    return row, rnd


def current_row(session: Session, table: GameTable) -> RoundRow | None:
    if table.current_round_id is None:
        return None
    return session.get(RoundRow, table.current_round_id)


def spot_owners(session: Session, round_id: str) -> dict[int, tuple[int, str]]:
    """spot -> (user id, username) of the round's wagers."""
    rows = session.execute(
        sa.select(RoundWager.spot, RoundWager.user_id, User.username)
        .join(User, User.id == RoundWager.user_id)
        .where(RoundWager.round_id == round_id)
    ).all()
    return {spot: (uid, name) for spot, uid, name in rows}
