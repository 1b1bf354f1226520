"""The dealer's steps: what is due at a table (one cheap read), then deal, the dealer's setting,
settlement, voids and closing, each in one transaction with its events and money."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.errors import PaigowError
from paigow.events import DragonSettled, Event, SpotSettled
from paigow.round import Phase
from paigow.service.books import play_money
from paigow.service.books.audit import record
from paigow.service.books.ledger import Movement, TableAccounts, wallet
from paigow.service.game.rounds.dragon import (
    close_offer,
    offer_at_deal,
    refund_dragon,
    settle_dragon,
    voided_dragon,
)
from paigow.service.game.rounds.head import Head, RoundHead, lock_head, set_current, set_status
from paigow.service.game.rounds.log import (
    SYSTEM,
    gone_spots,
    insert_events,
    load_round,
)
from paigow.service.game.rounds.projector import CLOSE_WAGER, WagerRecord, project
from paigow.service.game.rounds.side_steps import meters_for, refund_side, settle_side, side_rows
from paigow.service.game.rounds.wake import Step, wake
from paigow.service.game.table_rows import ENDED
from paigow.service.statuses import DealerStep, TableMode, TableStatus, WagerStatus
from paigow.service.store.bus import Kind, notify
from paigow.service.store.db import GameTable, RoundEvent, RoundRow, RoundWager, Seat, User, now
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.statements import Sql
from paigow.service.store.step import RoundEnded
from paigow.service.store.unit import Tx


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
    dragon_deadline: float | None = None
    """When the dragon hand's open turn ends (None: no offer open)."""


def _peek_statement() -> sa.Select[Any]:
    tables = cast(sa.Table, GameTable.__table__)
    round_rows = cast(sa.Table, RoundRow.__table__)
    wagers = cast(sa.Table, RoundWager.__table__)
    seats = cast(sa.Table, Seat.__table__)
    events = cast(sa.Table, RoundEvent.__table__)
    current = tables.c.current_round_id
    n_wagers = (
        sa.select(sa.func.count())
        .select_from(wagers)
        .where(wagers.c.round_id == current)
        .scalar_subquery()
    )
    idle = (
        sa.select(sa.func.count())
        .select_from(seats)
        .where(
            seats.c.table_id == tables.c.id,
            seats.c.user_id.not_in(
                sa.select(wagers.c.user_id).where(wagers.c.round_id == current).correlate(tables)
            ),
        )
        .scalar_subquery()
    )
    hands_set = (
        sa.select(sa.func.count())
        .select_from(events)
        .where(events.c.round_id == current, events.c.type == "hand-set")
        .scalar_subquery()
    )
    dragons = cast(sa.Table, RoundDragon.__table__)
    turn = (  # the dragon hand's open turn, if any
        sa.select(dragons.c.turn_deadline).where(dragons.c.round_id == current).scalar_subquery()
    )
    return (
        sa.select(
            tables.c.status,
            round_rows.c.id,
            round_rows.c.phase,
            round_rows.c.deadline,
            n_wagers,
            idle,
            hands_set,
            turn,
        )
        .select_from(tables.outerjoin(round_rows, round_rows.c.id == current))
        .where(tables.c.id == sa.bindparam("tid"))
    )


_PEEK: Final = Sql(_peek_statement())


def peek(tx: Tx, table_id: int) -> TableView | None:
    """The table's :class:`TableView` in one statement (the dealer looks often)."""
    head = tx.first(_PEEK, {"tid": table_id})
    if head is None:
        return None
    status, round_id, phase, deadline, n_wagers, n_idle, n_set, turn = head
    if round_id is None:
        return TableView(table_id, status, None, None, None, 0, 0, 0)
    setting = phase == Phase.SETTING.value
    return TableView(
        table_id,
        status,
        round_id,
        phase,
        deadline,
        int(n_wagers),
        int(n_idle),
        int(n_set) if setting else 0,
        float(turn) if setting and turn is not None else None,
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

    The dragon hand's offer open: a turn that has run out is the dealer's to decline; the
    dealer's hand waits for the offer to close.

    >>> next_step(TableView(1, "open", "r", "setting", 100.0, 2, 0, 2, 60.0), 50.0)
    (None, 10.0)
    >>> next_step(TableView(1, "open", "r", "setting", 100.0, 2, 0, 2, 60.0), 60.0)[0] == "dragon"
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
        if left is not None and left <= 0:
            return DealerStep.DEALER, None  # the setting time is up (a dragon offer with it)
        turn = view.dragon_deadline
        if turn is not None:
            if turn <= at:
                return DealerStep.DRAGON, None
            return None, turn - at if left is None else min(left, turn - at)
        if view.hands_set >= view.wagers:
            return DealerStep.DEALER, None
        return None, left
    if phase == Phase.DEALER:
        return DealerStep.SETTLE, None
    return (
        DealerStep.VOID,
        None,
    )  # shuffled / starting: a step that cannot have been committed alone


def deal(tx: Tx, table_id: int, round_id: str, rng: random.Random | None = None) -> bool:
    """Close betting and deal: shuffle (the OS CSPRNG), the starting position, the packets."""
    head = lock_head(tx, table_id)
    row = head.round
    if row is None or row.id != round_id or row.phase != Phase.BETTING.value:
        return False
    rnd = load_round(tx, row)
    new = list(rnd.deal(rng if rng is not None else random.SystemRandom()))
    if rnd.phase is Phase.SETTING:
        gone = gone_spots(tx, row.id, table_id)
        for spot in sorted(gone):
            new += rnd.left(spot)  # wagered, then left before the deal: set at once
        row.set(tx, deadline=now() + head.table.setting_time_ms / 1000)
        # the dragon hand offered with the deal (a table that deals it, an empty spot dealt)
        new += offer_at_deal(tx, row, rnd, gone, head.table.setting_time_ms)
    project(tx, Step.DEALER, row, rnd, new)
    if rnd.phase is Phase.VOIDED:
        _refund_all(tx, head, row, "irregular deck")
    tx.step.rounds_counted.append((head.table.mode, head.table.rules, "dealt"))
    return True


def dealer_sets(tx: Tx, table_id: int, round_id: str) -> bool:
    """Late hands are set by the house way (time-outs); the dealer sets the bank's hand (at a
    face-up table it did at the deal: only the late hands are set, settlement follows)."""
    row = lock_head(tx, table_id).round
    if row is None or row.id != round_id or row.phase != Phase.SETTING.value:
        return False
    rnd = load_round(tx, row)
    waiting = rnd.spots_to_set()
    if (waiting or rnd.dragon_pending) and row.deadline is not None and now() < row.deadline:
        return False  # not due yet (a hand, or an answer to the dragon hand, may still come)
    new: list[Event] = close_offer(tx, row, rnd, table_id)  # the dragon's turns left time out
    for spot in waiting:
        new += rnd.time_out(spot)
    if rnd.ruleset.face_up:  # the dealer set face up at the deal: settlement is next
        if new:
            project(tx, Step.DEALER, row, rnd, new)
        return True
    new += rnd.set_dealer()
    row.set(tx, deadline=None)
    project(tx, Step.DEALER, row, rnd, new)
    return True


_WAGERS: Final = cast(sa.Table, RoundWager.__table__)
_USERS: Final = cast(sa.Table, User.__table__)
_ROUND_WAGERS: Final = Sql(
    sa.select(
        _WAGERS.c.spot, _WAGERS.c.user_id, _USERS.c.username, _WAGERS.c.amount, _WAGERS.c.status
    )
    .join(_USERS, _USERS.c.id == _WAGERS.c.user_id)
    .where(_WAGERS.c.round_id == sa.bindparam("rid"))
    .order_by(_WAGERS.c.spot)
)
_SETTLES_FROM: Final = (Phase.DEALER.value, Phase.SETTING.value)


def settle(tx: Tx, table_id: int, round_id: str) -> bool:
    """Settle every spot and move the money, in one transaction with the events (a face-up
    round from ``setting``: its dealer set at the deal)."""
    head = lock_head(tx, table_id)
    row = head.round
    if row is None or row.id != round_id or row.phase not in _SETTLES_FROM:
        return False
    rnd = load_round(tx, row)
    if not rnd.can_settle():
        return False  # the core's rule: a face-up round settles from setting once all have set
    rules = head.table.rules
    wagers = {w[0]: WagerRecord(*w) for w in tx.run(_ROUND_WAGERS, {"rid": row.id})}
    sides = side_rows(tx, row.id) if rnd.side_wagers else {}
    # the table's own rows of its progressive banks (a bank the round may pay from: the bank
    # whole) are locked from here to the commit: what the step reads is read above
    meters = meters_for(tx, table_id, rules, rnd) if rnd.side_wagers else None
    new = rnd.settle({b: m for b, (m, _v) in meters.items()}) if meters else rnd.settle()
    paid: list[Movement] = []  # the main wagers' money: the projector's, from the events
    if rnd.ruleset.dragon:  # the dragon hand's wager: in the same ledger transaction
        paid += settle_dragon(tx, table_id, row.id, rnd)
    if rnd.side_wagers:  # in the same ledger transaction as the main wagers'
        notify(tx, table_id)  # first: the table's notice carries the events, not its meter's
        paid += settle_side(tx, table_id, row.id, rules, new, sides, meters, rnd.meters_after)[0]
    hands: dict[int, SpotSettled | DragonSettled] = dict(rnd.results)
    if rnd.dragon_result is not None:  # a hand of the player who wagered on it
        hands[-rnd.dragon_result.spot] = rnd.dragon_result
    # what ended, for the floor's running totals (its projector, at the step's finish)
    tx.step.ended.append(RoundEnded(head.table, hands, dict(rnd.side_results), dict(rnd.envy)))
    project(tx, Step.DEALER, row, rnd, new, practice=_practice(head), wagers=wagers, paid=paid)
    totals = new[-1].to_dict()  # round-settled
    totals.pop("type")
    result_doc = {
        "totals": totals,
        "returned": {str(s): r.returned for s, r in rnd.results.items()},
    }
    if rnd.dragon_result is not None:
        d = rnd.dragon_result
        result_doc["dragon"] = {
            "spot": d.spot,
            "by": d.by,
            "wager": d.wager,
            "returned": d.returned,
        }
    _end(tx, head, row, result_doc)
    tx.step.rounds_counted.append((head.table.mode, rules, "settled"))
    return True


def _practice(head: Head) -> bool:
    """A practice table: its money is play money."""
    return head.table.mode == TableMode.PRACTICE


def _end(tx: Tx, head: Head, row: RoundHead, result: dict[str, Any]) -> None:
    row.set(tx, ended_at=now(), deadline=None, result=result)
    set_current(tx, head.id, None, head.round_count)
    head.round = None


def _refund_all(tx: Tx, head: Head, row: RoundHead, reason: str) -> int:
    """Return every wager still in play (exactly once: each wager's status moves to
    ``returned`` in the same transaction as its refund)."""
    movements = []
    closed: list[dict[str, Any]] = []
    total = 0
    for w in (WagerRecord(*r) for r in tx.run(_ROUND_WAGERS, {"rid": row.id})):
        if w.status != WagerStatus.IN_PLAY:
            continue
        movements.append(
            Movement(
                TableAccounts.of(head.id).wagers,
                wallet(w.username),
                w.amount,
                f"spot {w.spot} void",
            )
        )
        closed.append(
            {
                "rid": row.id,
                "w_spot": w.spot,
                "w_status": WagerStatus.RETURNED.value,
                "w_returned": w.amount,
            }
        )
        total += w.amount
    if closed:
        tx.many(CLOSE_WAGER, closed, later=True)
    if head.table.rules.dragon:  # the dragon wager, returned like a main wager
        dragon_movements, dragon_total = refund_dragon(tx, head.id, row.id)
        movements += dragon_movements
        total += dragon_total
    side_movements, side_total = refund_side(tx, head.id, row.id)
    if movements or side_movements:
        play_money.post(
            tx, "void-refund", movements + side_movements, _practice(head), reference=row.id
        )
    if movements:
        tx.step.ended.append(RoundEnded(head.table, returned=total))  # the floor's totals
    result: dict[str, Any] = {"void": reason, "returned_total": total}
    if side_total:
        result["side_returned_total"] = side_total
    _end(tx, head, row, result)
    return total


def void(tx: Tx, table_id: int, round_id: str, reason: str, actor: str = SYSTEM) -> bool:
    """Void the round: every wager returned, the fault recorded in the log and the audit log.
    Works even when the log cannot be replayed (the wager records say what to return)."""
    head = lock_head(tx, table_id)
    row = head.round
    if row is None or row.id != round_id or row.phase in ENDED:
        return False
    phase_before = row.phase
    try:
        rnd = load_round(tx, row)
        voided = rnd.void(reason)
    except PaigowError as exc:  # an unreadable log: record the void by hand
        reason = f"{reason}; the log cannot be replayed: {exc}"
        returned = [[r[0], r[3]] for r in tx.run(_ROUND_WAGERS, {"rid": row.id})]
        event: dict[str, Any] = {"type": "voided", "reason": reason, "returned": returned}
        sides = [[k[0], k[1], r.amount] for k, r in side_rows(tx, row.id).items()]
        if sides:
            event["side_returned"] = sides
        dragon = voided_dragon(tx, row.id) if head.table.rules.dragon else None
        if dragon is not None:
            event["dragon"] = dragon
        insert_events(tx, row.id, row.event_count, [event])
        row.set(tx, event_count=row.event_count + 1, phase=Phase.VOIDED.value)
        notify(tx, table_id, wake(Step.DEALER, None))  # no round here to tell the rule
    else:
        project(tx, Step.DEALER, row, rnd, voided)  # the refunds: from the records, below
    total = _refund_all(tx, head, row, reason)
    record(
        tx.session,
        actor,
        "round-voided",
        f"round:{row.id}",
        {"table_id": table_id, "phase": phase_before, "reason": reason, "returned_total": total},
    )
    tx.step.rounds_counted.append((head.table.mode, head.table.rules, "voided"))
    return True


def finish_close(tx: Tx, table_id: int) -> bool:
    """A closing table whose round is over: closed, seats cleared."""
    head = lock_head(tx, table_id)
    if head.status != TableStatus.CLOSING:
        return False
    if head.round is not None and head.round.phase not in ENDED:
        return False
    set_status(tx, table_id, TableStatus.CLOSED)
    tx.session.execute(sa.delete(Seat).where(Seat.table_id == table_id))
    record(tx.session, SYSTEM, "table-closed", f"table:{table_id}", {})
    notify(tx, table_id, Kind.TABLE)
    return True


def close_table(tx: Tx, table_id: int, operator: str) -> dict[str, Any]:
    """An operator closes a table: no new wagers; a round still in betting is voided (wagers
    returned) by the dealer; a dealt round is played out; then the table is closed."""
    head = lock_head(tx, table_id)
    if head.status == TableStatus.CLOSED:
        return {"table_id": table_id, "status": TableStatus.CLOSED}
    set_status(tx, table_id, TableStatus.CLOSING)
    record(tx.session, operator, "table-close", f"table:{table_id}", {})
    notify(tx, table_id, Kind.TABLE)
    return {"table_id": table_id, "status": TableStatus.CLOSING}


def reopen_table(tx: Tx, table_id: int, operator: str) -> dict[str, Any]:
    """An operator reopens a closed (or closing) table: open for wagers again (audited); its
    dealer starts again on the notice."""
    head = lock_head(tx, table_id)
    if head.status == TableStatus.OPEN:
        return {"table_id": table_id, "status": TableStatus.OPEN}
    was = head.status
    set_status(tx, table_id, TableStatus.OPEN)
    record(tx.session, operator, "table-reopen", f"table:{table_id}", {"was": was})
    notify(tx, table_id, Kind.TABLE)
    return {"table_id": table_id, "status": TableStatus.OPEN}
