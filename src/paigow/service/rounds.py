"""Rounds at a table: the rules engine's :class:`paigow.round.Round` driven through its steps, with
its events persisted as the round's append-only log in the same transaction as the money movement
of that step.

Every step runs in one write transaction that first locks the table's row, rebuilds the round from
its persisted log (``Round.replay``: the database is the only source of truth), checks that the step
is still due, applies it, appends the new events and moves the money. A step that finds the round
already past it does nothing, so a step retried (by a restarted process, or by a second dealer in
the moment a lock changes hands) never happens twice.

Steps: a wager opens a round if none is open (``betting``); the dealer deals (``setting``: shuffle,
starting position and packets in one step), then sets the bank's hand after every player has set
or the time limit has passed, the late hands set by the house way (``dealer``), then settles
(``settled``). A round that cannot go on is voided and every wager returned.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.cards import parse_cards
from paigow.errors import PaigowError
from paigow.events import Event, HandSet
from paigow.round import Phase, Round
from paigow.service import floor, ledger, player_limits
from paigow.service.audit import record
from paigow.service.auth import Principal
from paigow.service.db import GameTable, RoundEvent, RoundRow, RoundWager, Seat, User, now
from paigow.service.errors import Conflict, Forbidden, NotFound, Unprocessable
from paigow.service.ledger import Movement, TableAccounts, wallet
from paigow.service.runtime import FreshEvents, RoundCache, after_commit, notify
from paigow.service.statuses import DealerStep, Role, TableMode, TableStatus, WagerStatus
from paigow.service.tables import ENDED, lock_table, table_house_way, table_ruleset
from paigow.setting import Setting

SYSTEM: Final = "dealer"


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


def load_round(session: Session, row: RoundRow) -> Round:
    """The round as its persisted log makes it: from this process's cache when the cached copy
    is at the same step, else rebuilt by replaying the log."""
    cache: RoundCache | None = session.info.get("rounds")
    if cache is not None:
        rnd = cache.take(row.id, row.event_count)
        if rnd is not None:
            return rnd
    return Round.replay(load_events(session, row.id))


_INSERT_EVENT = sa.insert(RoundEvent)
_INSERT_WAGER = sa.insert(RoundWager)


def _append(
    session: Session,
    row: RoundRow,
    rnd: Round,
    events: Sequence[Event],
    owners: dict[int, int] | None = None,
) -> None:
    """Persist ``events``, the events the round's commands just returned, and its new phase
    (``owners``: the spots wagered on by this step, for the live feeds)."""
    start = len(rnd.events) - len(events)
    if start != row.event_count:
        raise InconsistentRound(f"round {row.id}: log length {row.event_count}, expected {start}")
    t = now()
    new = [e.to_dict() for e in events]
    if new:
        session.connection().execute(  # Core: the log's rows are never loaded as objects here
            _INSERT_EVENT,
            [
                {
                    "round_id": row.id,
                    "seq": start + i,
                    "type": e["type"],
                    "data": e,
                    "created_at": t,
                }
                for i, e in enumerate(new)
            ],
        )
    row.event_count = len(rnd.events)
    row.phase = rnd.phase.value
    cache: RoundCache | None = session.info.get("rounds")
    if cache is not None and not rnd.is_over:
        after_commit(session, lambda: cache.put(rnd))
    fresh: FreshEvents | None = session.info.get("fresh")
    if fresh is not None and new:
        table_id, rid, number, mine = row.table_id, row.id, row.number, dict(owners or {})
        after_commit(session, lambda: fresh.put(table_id, rid, number, start, new, now(), mine))


def _new_round(session: Session, table: GameTable) -> tuple[RoundRow, Round]:
    rnd = Round(table_ruleset(table), table_house_way(table), round_id=secrets.token_hex(12))
    table.round_count += 1
    row = RoundRow(
        id=rnd.round_id,
        table_id=table.id,
        number=table.round_count,
        phase=rnd.phase.value,
        deadline=now() + table.betting_time_ms / 1000,
        event_count=0,
        created_at=now(),
        ended_at=None,
        result=None,
    )
    session.add(row)
    session.flush()
    _append(session, row, rnd, tuple(rnd.events))  # round-started
    table.current_round_id = row.id
    return row, rnd


def _current(session: Session, table: GameTable) -> RoundRow | None:
    if table.current_round_id is None:
        return None
    return session.get(RoundRow, table.current_round_id)


def _owners(session: Session, round_id: str) -> dict[int, tuple[int, str]]:
    """spot -> (user id, username) of the round's wagers."""
    rows = session.execute(
        sa.select(RoundWager.spot, RoundWager.user_id, User.username)
        .join(User, User.id == RoundWager.user_id)
        .where(RoundWager.round_id == round_id)
    ).all()
    return {spot: (uid, name) for spot, uid, name in rows}


# ------------------------------------------------------------------------------------ players
def place_wager(session: Session, table_id: int, user: Principal, amount: int) -> dict[str, Any]:
    """Reserve ``amount`` from the player's wallet and place it on their spot (a new round opens
    with the first wager)."""
    table = lock_table(session, table_id)
    if table.status != TableStatus.OPEN:
        raise Conflict(f"table {table_id} is {table.status}: no new wagers", code="table-closed")
    seat = session.execute(
        sa.select(Seat).where(Seat.table_id == table_id, Seat.user_id == user.id)
    ).scalar_one_or_none()
    if seat is None:
        raise Conflict("sit at the table before you wager", code="not-seated")
    player_limits.check_wager(session, user, amount)  # self-exclusion, daily loss limit
    lo, hi = table.ruleset["min_wager"], table.ruleset["max_wager"]
    if not lo <= amount <= hi:
        raise Unprocessable(
            f"wager {amount} is outside the table limits {lo}..{hi} (cents)", code="outside-limits"
        )
    row = _current(session, table)
    if row is None or row.phase in ENDED:
        row, rnd = _new_round(session, table)
    elif row.phase != Phase.BETTING.value:
        raise Conflict(
            f"the round is in play ({row.phase}); wagers open when it is over", code="round-in-play"
        )
    else:
        rnd = load_round(session, row)
        mine = session.execute(
            sa.select(RoundWager.spot).where(
                RoundWager.round_id == row.id, RoundWager.user_id == user.id
            )
        ).first()
        if mine is not None:
            raise Conflict(
                f"you already have a wager on spot {mine[0]} in this round", code="already-wagered"
            )
    if seat.spot in rnd.wagers:
        raise Conflict(f"spot {seat.spot} already has a wager this round", code="already-wagered")
    new = rnd.wager(seat.spot, amount)
    ledger.post(
        session,
        "wager",
        [
            Movement(
                wallet(user.username),
                TableAccounts.of(table_id).wagers,
                amount,
                memo=f"spot {seat.spot}",
            )
        ],
        reference=row.id,
        actor=user.username,
    )
    session.connection().execute(
        _INSERT_WAGER,
        {
            "round_id": row.id,
            "spot": seat.spot,
            "user_id": user.id,
            "amount": amount,
            "status": WagerStatus.IN_PLAY.value,
        },
    )
    opened = row.event_count == 1  # only round-started before this wager
    _append(session, row, rnd, new, {seat.spot: user.id})
    idle = session.execute(
        sa.select(sa.func.count())
        .select_from(Seat)
        .where(
            Seat.table_id == table_id,
            Seat.user_id.not_in(sa.select(RoundWager.user_id).where(RoundWager.round_id == row.id)),
        )
    ).scalar_one()
    # wake the dealer when a round opens (its betting deadline starts) or betting may close
    notify(session, table_id, "due" if opened or idle == 0 else "round")
    return {
        "table_id": table_id,
        "round_id": row.id,
        "spot": seat.spot,
        "amount": amount,
        "balance": ledger.balance(session, wallet(user.username)),
        "betting_closes_at": row.deadline,
    }


def _my_wager(session: Session, row: RoundRow, user: Principal) -> RoundWager:
    w = session.execute(
        sa.select(RoundWager).where(RoundWager.round_id == row.id, RoundWager.user_id == user.id)
    ).scalar_one_or_none()
    if w is None:
        raise Conflict("you have no hand in this round", code="no-hand")
    return w


def set_hand(
    session: Session,
    table_id: int,
    user: Principal,
    low: Sequence[str],
    confirm_foul: bool,
    round_id: str | None = None,
) -> dict[str, Any]:
    """The player sets their hand by naming the two low cards. A foul is refused unless
    ``confirm_foul``; confirmed, it is accepted and, under the Indiana rule, loses."""
    table = lock_table(session, table_id)
    row = _current(session, table)
    if round_id is not None and (row is None or row.id != round_id):
        raise Conflict(f"round {round_id} is not the current round", code="not-current-round")
    if row is None or row.phase != Phase.SETTING.value:
        phase = "no round" if row is None else f"the round is in phase {row.phase}"
        raise Conflict(f"no hand to set now ({phase})", code="not-setting")
    w = _my_wager(session, row, user)
    rnd = load_round(session, row)
    if w.spot in rnd.settings:
        raise Conflict(f"spot {w.spot} has already set its hand", code="already-set")
    cards = rnd.hands[w.spot]
    try:
        setting = Setting.from_low(cards, low)
    except PaigowError as exc:
        raise Unprocessable(f"bad setting: {exc}", code="bad-setting") from None
    if setting.is_foul and not confirm_foul:
        v = setting.value(rnd.ruleset.wheel)
        consequence = (
            "under the Indiana rule (68 IAC 10-9-13(a)) a foul hand loses"
            if rnd.ruleset.foul.value == "loses"
            else "under this table's rule the house way will set the hand instead"
        )
        raise Conflict(
            f"that setting is a foul: the low hand ({v.low.name}) outranks the high hand "
            f"({v.high.name}); {consequence}. Send confirm_foul: true to play it anyway.",
            code="foul-unconfirmed",
        )
    new = rnd.set_hand(w.spot, setting)
    _append(session, row, rnd, new)
    notify(session, table_id, "round" if rnd.spots_to_set() else "due")  # due: all have set
    (e,) = [ev.to_dict() for ev in new if isinstance(ev, HandSet)]
    return {
        "table_id": table_id,
        "round_id": row.id,
        "spot": w.spot,
        "high": e["high"],
        "low": e["low"],
        "foul": e["foul"],
        "by": e["by"],
        "reason": e.get("reason"),
    }


def my_hand(session: Session, table_id: int, user: Principal) -> dict[str, Any]:
    table = session.get(GameTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    row = _current(session, table)
    if row is None:
        raise NotFound("no round in progress at this table", code="no-round")
    w = _my_wager(session, row, user)
    rnd = load_round(session, row)
    cards = rnd.hands.get(w.spot)
    setting = None
    for e in rnd.events:
        if e.type == "hand-set" and e.to_dict()["spot"] == w.spot:
            d = e.to_dict()
            setting = {
                "high": d["high"],
                "low": d["low"],
                "foul": d["foul"],
                "by": d["by"],
                "reason": d.get("reason"),
            }
    return {
        "table_id": table_id,
        "round_id": row.id,
        "phase": row.phase,
        "spot": w.spot,
        "wager": w.amount,
        "cards": None if cards is None else [c.code for c in cards],
        "setting": setting,
        "deadline": row.deadline,
    }


def hint(session: Session, table_id: int, user: Principal) -> dict[str, Any]:
    table = session.get(GameTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    if table.mode != TableMode.PRACTICE:
        raise Forbidden(
            "hints are for practice tables only: at a casino table the player sets the hand "
            "without help (68 IAC 10-9-13(a))",
            code="casino-table",
        )
    hand = my_hand(session, table_id, user)
    if hand["cards"] is None:
        raise Conflict("your cards are not dealt yet", code="not-dealt")
    way = table_house_way(table)
    hw = way.set_hand(parse_cards(hand["cards"]), table_ruleset(table).wheel)
    value = hw.setting.value(table_ruleset(table).wheel)
    return {
        "house_way": way.name,
        "rule": hw.rule,
        "high": [c.code for c in hw.setting.high],
        "low": [c.code for c in hw.setting.low],
        "high_name": value.high.name,
        "low_name": value.low.name,
    }


# ------------------------------------------------------------------------------------ the dealer
@dataclass(frozen=True)
class TableView:
    """What the dealer needs to decide its next step (one cheap read)."""

    table_id: int
    status: str
    round_id: str | None
    phase: str | None
    deadline: float | None
    wagers: int
    seated_without_wager: int
    hands_set: int


def peek(session: Session, table_id: int) -> TableView | None:
    """The table's :class:`TableView` in one statement (the dealer looks often)."""
    current = GameTable.current_round_id
    wagers = (
        sa.select(sa.func.count())
        .select_from(RoundWager)
        .where(RoundWager.round_id == current)
        .scalar_subquery()
    )
    idle = (
        sa.select(sa.func.count())
        .select_from(Seat)
        .where(
            Seat.table_id == GameTable.id,
            Seat.user_id.not_in(
                sa.select(RoundWager.user_id).where(RoundWager.round_id == current)
            ),
        )
        .scalar_subquery()
    )
    hands_set = (
        sa.select(sa.func.count())
        .select_from(RoundEvent)
        .where(RoundEvent.round_id == current, RoundEvent.type == "hand-set")
        .scalar_subquery()
    )
    head = session.execute(
        sa.select(
            GameTable.status,
            RoundRow.id,
            RoundRow.phase,
            RoundRow.deadline,
            wagers,
            idle,
            hands_set,
        )
        .select_from(GameTable)
        .outerjoin(RoundRow, RoundRow.id == current)
        .where(GameTable.id == table_id)
    ).first()
    if head is None:
        return None
    status, round_id, phase, deadline, n_wagers, n_idle, n_set = head
    if round_id is None:
        return TableView(table_id, status, None, None, None, 0, 0, 0)
    return TableView(
        table_id,
        status,
        round_id,
        phase,
        deadline,
        int(n_wagers),
        int(n_idle),
        int(n_set) if phase == Phase.SETTING.value else 0,
    )


def next_step(view: TableView, at: float) -> tuple[DealerStep | None, float | None]:
    """The dealer's next step for ``view`` at time ``at``: (step, None) to act now, or
    (None, seconds) to wait at most that long (None: until something changes).

    >>> v = TableView(1, "open", "r", "betting", 100.0, 2, 1, 0)
    >>> next_step(v, 99.0), next_step(v, 100.0)
    ((None, 1.0), (<DealerStep.DEAL: 'deal'>, None))
    >>> next_step(TableView(1, "open", "r", "betting", 100.0, 2, 0, 0), 50.0)[0] == "deal"
    True
    >>> next_step(TableView(1, "open", "r", "setting", 100.0, 2, 0, 2), 50.0)[0] == "dealer"
    True
    >>> next_step(TableView(1, "open", "r", "dealer", None, 2, 0, 2), 50.0)[0] == "settle"
    True
    """
    if view.status == TableStatus.CLOSED:
        return DealerStep.STOP, None
    phase = view.phase
    if phase is None or phase in ENDED:
        if view.status == TableStatus.CLOSING:
            return DealerStep.CLOSE, None
        return None, None
    left = None if view.deadline is None else view.deadline - at
    if phase == Phase.BETTING:
        if view.status == TableStatus.CLOSING:
            return DealerStep.VOID, None
        if view.wagers and (view.seated_without_wager == 0 or (left is not None and left <= 0)):
            return DealerStep.DEAL, None
        return None, left
    if phase == Phase.SETTING:
        if view.hands_set >= view.wagers or (left is not None and left <= 0):
            return DealerStep.DEALER, None
        return None, left
    if phase == Phase.DEALER:
        return DealerStep.SETTLE, None
    return (
        DealerStep.VOID,
        None,
    )  # shuffled / starting: a step that cannot have been committed alone


def deal(session: Session, table_id: int, round_id: str, rng: random.Random | None = None) -> bool:
    """Close betting and deal: shuffle (the OS CSPRNG), the starting position, the packets."""
    table = lock_table(session, table_id)
    row = _current(session, table)
    if row is None or row.id != round_id or row.phase != Phase.BETTING.value:
        return False
    rnd = load_round(session, row)
    new = rnd.deal(rng if rng is not None else random.SystemRandom())
    _append(session, row, rnd, new)
    if rnd.phase is Phase.VOIDED:
        _refund_all(session, table, row, "irregular deck")
    else:
        row.deadline = now() + table.setting_time_ms / 1000
    notify(session, table_id)
    return True


def dealer_sets(session: Session, table_id: int, round_id: str) -> bool:
    """Late hands are set by the house way (time-outs); the dealer sets the bank's hand."""
    table = lock_table(session, table_id)
    row = _current(session, table)
    if row is None or row.id != round_id or row.phase != Phase.SETTING.value:
        return False
    rnd = load_round(session, row)
    waiting = rnd.spots_to_set()
    if waiting and row.deadline is not None and now() < row.deadline:
        return False  # not due yet (a hand may still come)
    new: list[Event] = []
    for spot in waiting:
        new += rnd.time_out(spot)
    new += rnd.set_dealer()
    _append(session, row, rnd, new)
    row.deadline = None
    notify(session, table_id)
    return True


def settle(session: Session, table_id: int, round_id: str) -> bool:
    """Settle every spot and move the money, in one transaction with the events."""
    table = lock_table(session, table_id)
    row = _current(session, table)
    if row is None or row.id != round_id or row.phase != Phase.DEALER.value:
        return False
    rnd = load_round(session, row)
    new = rnd.settle()
    owners = _owners(session, row.id)
    wagers = {
        w.spot: w
        for w in session.execute(
            sa.select(RoundWager).where(RoundWager.round_id == row.id)
        ).scalars()
    }
    movements: list[Movement] = []
    house = TableAccounts.of(table_id)
    for spot, result in rnd.results.items():
        w = wagers[spot]
        if w.status != WagerStatus.IN_PLAY or w.amount != result.wager:
            raise InconsistentRound(
                f"round {row.id} spot {spot}: the wager record does not match the log"
            )
        name = wallet(owners[spot][1])
        memo = f"spot {spot} {result.outcome}"
        if result.returned == 0:
            movements.append(Movement(house.wagers, house.win, result.wager, memo))
        else:
            movements.append(Movement(house.wagers, name, result.wager, memo))
            if result.win:
                movements.append(Movement(house.win, name, result.win, memo))
            if result.commission:
                movements.append(
                    Movement(name, house.commission, result.commission, memo + " commission")
                )
        w.status = WagerStatus.SETTLED
        w.returned = result.returned
    ledger.post(session, "settlement", movements, reference=row.id)
    floor.record_settlement(session, table, rnd.results)  # the floor's running totals
    _append(session, row, rnd, new)
    totals = new[-1].to_dict()  # round-settled
    totals.pop("type")
    row.result = {
        "totals": totals,
        "returned": {str(s): r.returned for s, r in rnd.results.items()},
    }
    _end(table, row)
    notify(session, table_id)
    return True


def _end(table: GameTable, row: RoundRow) -> None:
    row.ended_at = now()
    row.deadline = None
    table.current_round_id = None


def _refund_all(session: Session, table: GameTable, row: RoundRow, reason: str) -> int:
    """Return every wager still in play (exactly once: each wager's status moves to
    ``returned`` in the same transaction as its refund)."""
    owners = _owners(session, row.id)
    movements = []
    total = 0
    for w in session.execute(
        sa.select(RoundWager)
        .where(RoundWager.round_id == row.id, RoundWager.status == WagerStatus.IN_PLAY)
        .order_by(RoundWager.spot)
    ).scalars():
        movements.append(
            Movement(
                TableAccounts.of(table.id).wagers,
                wallet(owners[w.spot][1]),
                w.amount,
                f"spot {w.spot} void",
            )
        )
        w.status = WagerStatus.RETURNED
        w.returned = w.amount
        total += w.amount
    if movements:
        ledger.post(session, "void-refund", movements, reference=row.id)
        floor.record_void(session, table, total)
    row.result = {"void": reason, "returned_total": total}
    _end(table, row)
    return total


def void(session: Session, table_id: int, round_id: str, reason: str, actor: str = SYSTEM) -> bool:
    """Void the round: every wager returned, the fault recorded in the log and the audit log.
    Works even when the log cannot be replayed (the wager records say what to return)."""
    table = lock_table(session, table_id)
    row = _current(session, table)
    if row is None or row.id != round_id or row.phase in ENDED:
        return False
    phase_before = row.phase
    try:
        rnd = load_round(session, row)
        _append(session, row, rnd, rnd.void(reason))
    except PaigowError as exc:  # an unreadable log: record the void by hand
        reason = f"{reason}; the log cannot be replayed: {exc}"
        returned = [
            [w.spot, w.amount]
            for w in session.execute(
                sa.select(RoundWager).where(RoundWager.round_id == row.id).order_by(RoundWager.spot)
            ).scalars()
        ]
        session.add(
            RoundEvent(
                round_id=row.id,
                seq=row.event_count,
                type="voided",
                data={"type": "voided", "reason": reason, "returned": returned},
                created_at=now(),
            )
        )
        row.event_count += 1
        row.phase = Phase.VOIDED.value
    total = _refund_all(session, table, row, reason)
    record(
        session,
        actor,
        "round-voided",
        f"round:{row.id}",
        {"table_id": table_id, "phase": phase_before, "reason": reason, "returned_total": total},
    )
    notify(session, table_id)
    return True


def finish_close(session: Session, table_id: int) -> bool:
    """A closing table whose round is over: closed, seats cleared."""
    table = lock_table(session, table_id)
    if table.status != TableStatus.CLOSING:
        return False
    row = _current(session, table)
    if row is not None and row.phase not in ENDED:
        return False
    table.status = TableStatus.CLOSED
    session.execute(sa.delete(Seat).where(Seat.table_id == table_id))
    record(session, SYSTEM, "table-closed", f"table:{table_id}", {})
    notify(session, table_id, "table")
    return True


def close_table(session: Session, table_id: int, operator: str) -> dict[str, Any]:
    """An operator closes a table: no new wagers; a round still in betting is voided (wagers
    returned) by the dealer; a dealt round is played out; then the table is closed."""
    table = lock_table(session, table_id)
    if table.status == TableStatus.CLOSED:
        return {"table_id": table_id, "status": TableStatus.CLOSED}
    table.status = TableStatus.CLOSING
    record(session, operator, "table-close", f"table:{table_id}", {})
    notify(session, table_id, "table")
    return {"table_id": table_id, "status": TableStatus.CLOSING}


# ------------------------------------------------------------------------------------ recall
def round_view(session: Session, round_id: str, user: Principal | None) -> dict[str, Any]:
    """A round with its log: complete for operators once the round is over; otherwise as the
    viewer may see it (their own cards, the public events, every setting from the showdown)."""
    from paigow.service.views import view_log

    row = session.get(RoundRow, round_id)
    if row is None:
        raise NotFound(f"no round {round_id}", code="no-round")
    events = load_events(session, row.id)
    owners = _owners(session, row.id)
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
        "events": view_log(events, mine, full=full),
    }


def last_rounds(
    session: Session, table_id: int, user: Principal | None, limit: int = 10
) -> list[dict[str, Any]]:
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
    return [round_view(session, rid, user) for rid in ids]
