"""Who may hold a seat, and freeing the seats of players who are gone.

- A player sits only with at least the table's minimum wager in the wallet, and holds at most
  ``max_seats_per_user`` seats over all tables (one per table).
- A seat is freed when its player wagered in none of the table's last ``idle_rounds`` rounds
  played since sitting, or when every WebSocket the player had open to the table has been gone
  for ``seat_away_s`` (the server processes write ``seats.seen_at`` while a connection is open).
  Each freeing is an audit record ``seat-freed`` with the reason, and a table notice (clients see
  the spot free). A wager in play stays in play, as when a player leaves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books import ledger, play_money
from paigow.service.books.audit import record
from paigow.service.config import ServiceConfig
from paigow.service.game import table_rows
from paigow.service.game.rounds.head import lock_ahead, lock_head
from paigow.service.http_errors import Conflict, Unprocessable
from paigow.service.statuses import TableMode, TableStatus
from paigow.service.store.bus import Kind, notify
from paigow.service.store.db import RoundRow, RoundWager, Seat, User, now
from paigow.service.store.statements import Sql, insert_into
from paigow.service.store.unit import Tx

SYSTEM = "dealer"


def sit(tx: Tx, table_id: int, user: Principal, spot: int) -> dict[str, Any]:
    """Seat the player on ``spot``: the one way to a seat (the route's, the tests' and the
    benchmarks'). The table's row is locked once, with its round (:func:`lock_head`), and the
    seats' reads go with the lock in one message (:meth:`Tx.ahead`). A player not yet seated at
    an open table is refused (409) without the table's minimum in the wallet (play money at a
    practice table) or beyond the seats a player may hold (the step's ``max_seats_per_user``);
    then the table must be open, the spot free and without another player's wager in play."""
    # a spot outside 1..6 is refused below (bad-spot); its holder is not asked for meanwhile
    params = {"tid": table_id, "uid": user.id, "spot": spot if spot in table_rows.SPOTS else 0}
    lock_ahead(tx, table_id)
    tx.ahead(_SIT_READS, params)
    head = lock_head(tx, table_id)
    table = head.table
    found = tx.first(_SIT_READS, params)
    assert found is not None  # a select of scalars: one row
    mine, held, holder = found
    if mine is None and head.status == TableStatus.OPEN:
        minimum = int(table.ruleset["min_wager"])
        practice = table.mode == TableMode.PRACTICE  # plays for the player's play money
        account = play_money.account_for(tx, user.username, practice)
        balance = ledger.balance(tx, account)
        if balance < minimum:
            what = "play money" if practice else "wallet"
            raise Conflict(
                f"your {what} holds {balance} cents, less than this table's minimum wager of "
                f"{minimum}: it must hold at least the minimum to sit",
                code="no-money",
            )
        if int(held) >= tx.config.max_seats_per_user:
            raise Conflict(
                f"you already hold {held} seats, the most one player may hold; leave one first",
                code="too-many-seats",
            )
    if head.status != TableStatus.OPEN:
        raise Conflict(f"table {table_id} is {head.status}", code="table-closed")
    if spot not in table_rows.SPOTS:
        raise Unprocessable("spots are 1..6", code="bad-spot")
    if mine is not None:
        if mine == spot:
            return {"table_id": table_id, "spot": spot}
        raise Conflict(f"you already sit on spot {mine}; leave it first", code="already-seated")
    if holder is not None:
        raise Conflict(f"spot {spot} is taken", code="spot-taken")
    rnd = head.round
    if rnd is not None and rnd.phase not in table_rows.ENDED:
        busy = tx.scalar(_SPOT_WAGER, {"rid": rnd.id, "spot": spot})
        if busy is not None and busy != user.id:
            raise Conflict(
                f"spot {spot} still has a wager in play this round; sit after it", code="spot-busy"
            )
    tx.later(
        _INSERT_SEAT, {"table_id": table_id, "spot": spot, "user_id": user.id, "sat_at": now()}
    )
    notify(tx, table_id, Kind.TABLE)
    return {"table_id": table_id, "spot": spot}


_SEATS: Final = cast(sa.Table, Seat.__table__)
_ROUNDS: Final = cast(sa.Table, RoundRow.__table__)
_WAGERS: Final = cast(sa.Table, RoundWager.__table__)
_SIT_READS: Final = Sql(
    sa.select(
        sa.select(_SEATS.c.spot)
        .where(_SEATS.c.table_id == sa.bindparam("tid"), _SEATS.c.user_id == sa.bindparam("uid"))
        .scalar_subquery(),
        sa.select(sa.func.count())
        .select_from(_SEATS)
        .where(_SEATS.c.user_id == sa.bindparam("uid"))
        .scalar_subquery(),
        sa.select(_SEATS.c.user_id)
        .where(_SEATS.c.table_id == sa.bindparam("tid"), _SEATS.c.spot == sa.bindparam("spot"))
        .scalar_subquery(),
    )
)
"""What a sit reads, in one statement: the player's spot at the table (if any), how many seats
the player holds, and who holds the spot asked for (if anyone)."""
_SPOT_WAGER: Final = Sql(
    sa.select(_WAGERS.c.user_id).where(
        _WAGERS.c.round_id == sa.bindparam("rid"), _WAGERS.c.spot == sa.bindparam("spot")
    )
)
_INSERT_SEAT: Final = insert_into(_SEATS, "table_id", "spot", "user_id", "sat_at")
_TOUCH: Final = Sql(
    sa.update(_SEATS)
    .where(_SEATS.c.table_id == sa.bindparam("t"), _SEATS.c.user_id == sa.bindparam("u"))
    .values(seen_at=sa.bindparam("at", type_=sa.Float))
)
_SEATED: Final = Sql(
    sa.select(_SEATS.c.spot, _SEATS.c.user_id, _SEATS.c.sat_at, _SEATS.c.seen_at).where(
        _SEATS.c.table_id == sa.bindparam("tid")
    )
)
_ENDED: Final = sa.or_(*(_ROUNDS.c.phase == sa.literal_column(f"'{p}'") for p in table_rows.ENDED))
_LAST_ENDED: Final = (
    sa.select(_ROUNDS.c.id, _ROUNDS.c.created_at)
    .where(_ROUNDS.c.table_id == sa.bindparam("tid"), _ENDED)
    .order_by(_ROUNDS.c.number.desc())
    .limit(sa.bindparam("n", type_=sa.Integer))
)
_RECENT: Final = Sql(_LAST_ENDED)
_WAGERED: Final = Sql(
    sa.select(_WAGERS.c.user_id).where(
        _WAGERS.c.round_id.in_(sa.select(_LAST_ENDED.subquery().c.id))
    )
)


def touch(tx: Tx, pairs: Iterable[tuple[int, int]], at: float | None = None) -> None:
    """Mark the seats of these (table id, user id) pairs as seen (a WebSocket is open).

    The rows are updated in one fixed order (by table, then user), so that two transactions
    touching overlapping seats never wait for each other in opposite orders (a deadlock).
    """
    t = at if at is not None else now()
    rows = [{"t": table, "u": user, "at": t} for table, user in sorted(set(pairs))]
    tx.many(_TOUCH, rows, later=True)


def to_free(
    tx: Tx, table_id: int, config: ServiceConfig, at: float | None = None
) -> list[tuple[int, int, str]]:
    """The seats of table ``table_id`` to free: (spot, user id, reason)."""
    t = at if at is not None else now()
    seats = tx.run(_SEATED, {"tid": table_id})
    if not seats:
        return []
    out: list[tuple[int, int, str]] = []
    recent: list[tuple[str, float]] = []
    if config.idle_rounds > 0:
        recent = [
            (str(rid), float(created))
            for rid, created in tx.run(_RECENT, {"tid": table_id, "n": config.idle_rounds})
        ]
    wagered: set[int] = set()
    if len(recent) == config.idle_rounds and recent:
        wagered = {
            int(uid) for (uid,) in tx.run(_WAGERED, {"tid": table_id, "n": config.idle_rounds})
        }
    for spot, uid, sat_at, seen_at in seats:
        if config.seat_away_s > 0 and seen_at is not None and t - seen_at > config.seat_away_s:
            out.append((spot, uid, f"no connection for {config.seat_away_s:g} s"))
        elif (
            len(recent) == config.idle_rounds
            and recent
            and uid not in wagered
            and all(created >= sat_at for _, created in recent)
        ):
            out.append((spot, uid, f"no wager in the last {config.idle_rounds} rounds"))
    return out


def free(tx: Tx, table_id: int, found: list[tuple[int, int, str]], config: ServiceConfig) -> int:
    """Free the seats ``found`` by :func:`to_free` that are still held by the same player (and,
    for a player gone, still unseen)."""
    freed = 0
    t = now()
    session = tx.session
    for spot, uid, reason in found:
        seat = session.get(Seat, (table_id, spot), with_for_update=True)
        if seat is None or seat.user_id != uid:
            continue
        if reason.startswith("no connection") and (
            seat.seen_at is None or t - seat.seen_at <= config.seat_away_s
        ):
            continue
        name = session.execute(sa.select(User.username).where(User.id == uid)).scalar_one()
        session.delete(seat)
        record(
            session,
            SYSTEM,
            "seat-freed",
            f"table:{table_id}",
            {"table_id": table_id, "spot": spot, "username": name, "reason": reason},
        )
        freed += 1
    if freed:
        notify(tx, table_id, Kind.TABLE)
    return freed
