"""The round's log: its events, appended in the step's transaction, and the round rebuilt from
them (``Round.replay``; the database is the only source of truth)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.errors import PaigowError
from paigow.events import Event
from paigow.round import Round
from paigow.service.game.rounds.head import Head, RoundHead, set_current
from paigow.service.store.bus import appended
from paigow.service.store.db import GameTable, RoundEvent, RoundRow, RoundWager, Seat, User, now
from paigow.service.store.statements import Sql, insert_into
from paigow.service.store.unit import Tx

SYSTEM: Final = "dealer"
_WAGERS: Final = cast(sa.Table, RoundWager.__table__)
_EVENTS: Final = cast(sa.Table, RoundEvent.__table__)
_ROUNDS: Final = cast(sa.Table, RoundRow.__table__)
_USERS: Final = cast(sa.Table, User.__table__)


INSERT_WAGER: Final = insert_into(_WAGERS, "round_id", "spot", "user_id", "amount", "status")


class InconsistentRound(RuntimeError):
    """A round's records disagree with its log (the dealer voids such a round)."""


# ------------------------------------------------------------------------------------ the log


_LOAD_EVENTS: Final = Sql(
    sa.select(_EVENTS.c.data)
    .where(_EVENTS.c.round_id == sa.bindparam("rid"), _EVENTS.c.seq >= sa.bindparam("start"))
    .order_by(_EVENTS.c.seq)
)


def load_events(tx: Tx, round_id: str, start: int = 0) -> list[dict[str, Any]]:
    """The round's logged events, from sequence number ``start`` on."""
    return [dict(data) for (data,) in tx.run(_LOAD_EVENTS, {"rid": round_id, "start": start})]


def load_round(tx: Tx, row: RoundRow | RoundHead) -> Round:
    """The round as its persisted log makes it: this process's cached copy when it is at the
    same step; a copy behind (another process's steps since, their notices not heard yet)
    brought up to the log by the events it lacks, which it re-derives and checks
    (:meth:`Round.follow`); else rebuilt by replaying the whole log."""
    cache = tx.step.rounds
    if cache is not None:
        rnd = cache.take_at_most(row.id, row.event_count)
        if rnd is not None:
            have = len(rnd.events)
            if have == row.event_count:
                return rnd
            try:
                rnd.follow(load_events(tx, row.id, have))
            except PaigowError:
                pass  # a copy the log does not follow on from: replayed below
            else:
                if len(rnd.events) == row.event_count:
                    return rnd
    return Round.replay(load_events(tx, row.id))


_INSERT_EVENT: Final = insert_into(_EVENTS, "round_id", "seq", "type", "data", "created_at")


def append(
    tx: Tx,
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
    insert_events(tx, row.id, start, new)
    row.set(tx, event_count=len(rnd.events), phase=rnd.phase.value)
    if not rnd.is_over:  # back in the round cache once the step's work is kept
        tx.step.rounds_kept.append(rnd)
    if new:  # for the live feeds (of every process: they travel in the step's notice)
        appended(tx, row.table_id, row.id, row.number, start, new, dict(owners or {}))


def insert_events(tx: Tx, round_id: str, start: int, events: list[dict[str, Any]]) -> None:
    """Append ``events`` (event dicts) to the round's log from sequence number ``start`` on."""
    if not events:
        return
    t = now()
    tx.many(
        _INSERT_EVENT,
        [
            {"round_id": round_id, "seq": start + i, "type": e["type"], "data": e, "created_at": t}
            for i, e in enumerate(events)
        ],
        later=True,
    )


_INSERT_ROUND: Final = insert_into(
    _ROUNDS,
    "id",
    "table_id",
    "number",
    "phase",
    "deadline",
    "event_count",
    "created_at",
    "ended_at",
    "result",
)


def new_round(tx: Tx, head: Head) -> tuple[RoundHead, Round]:
    """Open the table's next round (its row, its first event, the table's current round)."""
    rnd = Round(head.table.rules, head.table.way, round_id=secrets.token_hex(12))
    number = head.round_count + 1
    t = now()
    deadline = t + head.table.betting_time_ms / 1000
    tx.later(
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
    set_current(tx, head.id, rnd.round_id, number)
    head.round_count = number
    row = RoundHead(rnd.round_id, head.id, number, rnd.phase.value, deadline, 0)
    head.round = row
    append(tx, row, rnd, tuple(rnd.events))  # round-started
    return row, rnd


def current_row(tx: Tx, table: GameTable) -> RoundRow | None:
    if table.current_round_id is None:
        return None
    return tx.session.get(RoundRow, table.current_round_id)


_OWNERS: Final = Sql(
    sa.select(_WAGERS.c.spot, _WAGERS.c.user_id, _USERS.c.username)
    .join(_USERS, _USERS.c.id == _WAGERS.c.user_id)
    .where(_WAGERS.c.round_id == sa.bindparam("rid"))
)


def spot_owners(tx: Tx, round_id: str) -> dict[int, tuple[int, str]]:
    """spot -> (user id, username) of the round's wagers."""
    return {spot: (uid, name) for spot, uid, name in tx.run(_OWNERS, {"rid": round_id})}


_SEATS: Final = cast(sa.Table, Seat.__table__)
_GONE: Final = Sql(
    sa.select(_WAGERS.c.spot)
    .where(
        _WAGERS.c.round_id == sa.bindparam("rid"),
        ~sa.exists().where(
            _SEATS.c.table_id == sa.bindparam("tid"),
            _SEATS.c.user_id == _WAGERS.c.user_id,
            _SEATS.c.spot == _WAGERS.c.spot,
        ),
    )
    .order_by(_WAGERS.c.spot)
)
"""The spots of a round whose players no longer sit there (they wagered, then left)."""


def gone_spots(tx: Tx, round_id: str, table_id: int) -> set[int]:
    """The spots of the round whose players have left them (one statement)."""
    return {int(spot) for (spot,) in tx.run(_GONE, {"rid": round_id, "tid": table_id})}
