"""The dragon hand at a table (docs/rulebook.md#the-dragon-hand-at-a-table): the offer made with
the deal, each player's answer in turn, the turn that runs out, its wager's money at settlement
and its refund on a void.

The offer runs alongside setting (both in the round's ``setting`` phase): the deal's step offers
the packet of the first empty spot in dealing order to the spots with a wager, in order from the
starting position. The player whose turn it is accepts (a wager between the table minimum and
their own wager, from their wallet, checked against their limits as a main wager is) or declines;
each turn lasts an equal share of the setting time, ``setting time / (players offered + 1)``, and
ends by the setting time at the latest; a turn that runs out is declined for the player
(``timeout``), and a player who has left declines when the turn comes (``left``). The dealer sets
its own hand only once the offer is closed and every hand is set.

Money: accepted, the wager moves from the player's wallet to the table's ``wagers-in-play``
account (as a main wager); at settlement it is settled like a spot in the settlement's own ledger
transaction (a loss to ``house:win``; a win returned with its win from ``house:win``, the
commission to ``house:commission``); a void returns it. The record
(:class:`paigow.service.store.dragon_models.RoundDragon`) moves with its money, so nothing is paid
twice.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.events import Event
from paigow.round import Phase, Round
from paigow.service.accounts import player_limits
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books import ledger, play_money
from paigow.service.books.ledger import Movement, TableAccounts, wallet
from paigow.service.game.rounds.head import RoundHead, lock_ahead, lock_head
from paigow.service.game.rounds.log import InconsistentRound, gone_spots, load_round
from paigow.service.game.rounds.projector import project
from paigow.service.game.rounds.wake import Step
from paigow.service.http_errors import Conflict, Unprocessable
from paigow.service.statuses import DragonStatus, TableMode, WagerStatus
from paigow.service.store.db import RoundWager, User, now
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.statements import Sql, insert_into
from paigow.service.store.unit import Tx

_D: Final = cast(sa.Table, RoundDragon.__table__)
_U: Final = cast(sa.Table, User.__table__)
_W: Final = cast(sa.Table, RoundWager.__table__)
_MY_SPOT: Final = Sql(
    sa.select(_W.c.spot).where(
        _W.c.round_id == sa.bindparam("rid"), _W.c.user_id == sa.bindparam("uid")
    )
)
_COLUMNS: Final = ("spot", "status", "turn_deadline", "by_spot", "user_id", "amount", "returned")
_INSERT: Final = insert_into(_D, "round_id", *_COLUMNS)
_READ: Final = Sql(
    sa.select(*(_D.c[n] for n in _COLUMNS), _U.c.username)
    .select_from(_D.outerjoin(_U, _U.c.id == _D.c.user_id))
    .where(_D.c.round_id == sa.bindparam("rid"))
)
_TURN: Final = Sql(
    sa.update(_D)
    .where(_D.c.round_id == sa.bindparam("rid"))
    .values(
        status=sa.bindparam("d_status", type_=sa.String),
        turn_deadline=sa.bindparam("d_deadline", type_=sa.Float),
    )
)
_CLOSE: Final = Sql(
    sa.update(_D)
    .where(_D.c.round_id == sa.bindparam("rid"))
    .values(
        status=sa.bindparam("d_status", type_=sa.String),
        returned=sa.bindparam("d_returned", type_=sa.BigInteger),
    )
)


@dataclass(frozen=True)
class DragonRow:
    """A round's dragon-hand record (:class:`RoundDragon`) with the wagering player's name."""

    spot: int
    status: str
    turn_deadline: float | None
    by_spot: int | None
    user_id: int | None
    amount: int | None
    returned: int | None
    username: str | None


def dragon_row(tx: Tx, round_id: str) -> DragonRow | None:
    """The round's dragon hand as recorded (None: no dragon hand was offered)."""
    row = tx.first(_READ, {"rid": round_id})
    return None if row is None else DragonRow(*row)


def turn_time_s(setting_time_ms: int, offered: int) -> float:
    """Each turn's share of the setting time: ``setting time / (players offered + 1)`` (the
    last share is left to set after the last turn).

    >>> turn_time_s(60_000, 3)
    15.0
    """
    return setting_time_ms / 1000 / (offered + 1)


def _decline_gone(rnd: Round, gone: Collection[int]) -> list[Event]:
    """Each player who has left declines as their turn comes (``left``)."""
    out: list[Event] = []
    while rnd.dragon_turn is not None and rnd.dragon_turn in gone:
        out += rnd.decline_dragon(rnd.dragon_turn, "left")
    return out


def _turn_values(rnd: Round, row: RoundHead, setting_time_ms: int) -> dict[str, Any]:
    """The record's status and turn deadline as the offer stands now."""
    if rnd.dragon_by is not None:
        return {"d_status": WagerStatus.IN_PLAY.value, "d_deadline": None}
    if rnd.dragon_turn is None:
        return {"d_status": DragonStatus.DECLINED.value, "d_deadline": None}
    share = turn_time_s(setting_time_ms, len(rnd.dragon_order or ()))
    deadline = now() + share
    if row.deadline is not None:
        deadline = min(deadline, row.deadline)  # every turn ends by the setting time
    return {"d_status": DragonStatus.OFFERED.value, "d_deadline": deadline}


def offer_at_deal(
    tx: Tx, row: RoundHead, rnd: Round, gone: Collection[int], setting_time_ms: int
) -> list[Event]:
    """In the deal's step, once the round's setting deadline is set: offer the dragon hand (a
    table that deals it, an empty spot dealt) and write its record."""
    if rnd.dragon_spot is None or rnd.phase is not Phase.SETTING:
        return []
    new = list(rnd.offer_dragon()) + _decline_gone(rnd, gone)
    values = _turn_values(rnd, row, setting_time_ms)
    tx.later(
        _INSERT,
        {
            "round_id": row.id,
            "spot": rnd.dragon_spot,
            "status": values["d_status"],
            "turn_deadline": values["d_deadline"],
            "by_spot": None,
            "user_id": None,
            "amount": None,
            "returned": None,
        },
    )
    return new


def close_offer(tx: Tx, row: RoundHead, rnd: Round, table_id: int) -> list[Event]:
    """At the setting time: every turn left is declined (``timeout``, or ``left`` for a player
    who has gone) and the record closed."""
    if not rnd.dragon_pending:
        return []
    new: list[Event] = []
    offered = rnd.dragon_order is not None
    if not offered:  # never: the deal's step offers it; made now, so that it can be closed
        new += rnd.offer_dragon()
    gone = gone_spots(tx, row.id, table_id)
    while rnd.dragon_turn is not None:
        turn = rnd.dragon_turn
        new += rnd.decline_dragon(turn, "left" if turn in gone else "timeout")
    closed = {"d_status": DragonStatus.DECLINED.value, "d_deadline": None}
    if offered:
        tx.later(_TURN, {"rid": row.id, **closed})
    else:
        values = dict.fromkeys(("by_spot", "user_id", "amount", "returned"))
        status, deadline = closed["d_status"], closed["d_deadline"]
        tx.later(
            _INSERT,
            {
                "round_id": row.id,
                "spot": rnd.dragon_spot,
                "status": status,
                "turn_deadline": deadline,
                **values,
            },
        )
    return new


def decline_left(
    tx: Tx, row: RoundHead, rnd: Round, table_id: int, setting_time_ms: int
) -> list[Event]:
    """The player whose turn it is has just left: they decline (``left``), and so does each
    next player who has gone; the next turn starts."""
    gone = gone_spots(tx, row.id, table_id)
    if rnd.dragon_turn is not None:
        gone.add(rnd.dragon_turn)
    new = _decline_gone(rnd, gone)
    tx.later(_TURN, {"rid": row.id, **_turn_values(rnd, row, setting_time_ms)})
    return new


def time_out(tx: Tx, table_id: int, round_id: str) -> bool:
    """The dealer's step when a turn runs out: that player declines (``timeout``), the next
    turn starts (a player who has left declines at once)."""
    head = lock_head(tx, table_id)
    row = head.round
    if row is None or row.id != round_id or row.phase != Phase.SETTING.value:
        return False
    found = dragon_row(tx, row.id)
    if found is None or found.turn_deadline is None or now() < found.turn_deadline:
        return False
    rnd = load_round(tx, row)
    turn = rnd.dragon_turn
    if turn is None:
        raise InconsistentRound(f"round {row.id}: a dragon turn recorded, none in the log")
    new = list(rnd.decline_dragon(turn, "timeout"))
    new += _decline_gone(rnd, gone_spots(tx, row.id, table_id))
    tx.later(_TURN, {"rid": row.id, **_turn_values(rnd, row, head.table.setting_time_ms)})
    project(tx, Step.DRAGON, row, rnd, new)
    return True


def answer_ahead(tx: Tx, table_id: int, user: Principal) -> None:
    """Send what an answer reads first (the table's lock, its round) with the step's next
    statement (:meth:`Tx.ahead`)."""
    lock_ahead(tx, table_id)


def answer(
    tx: Tx,
    table_id: int,
    user: Principal,
    amount: int | None,
    round_id: str | None = None,
) -> dict[str, Any]:
    """The player whose turn it is answers the dragon hand's offer: a wager of ``amount`` cents
    (between the table minimum and their own wager; from their wallet, within their limits) or,
    with ``amount`` None, a refusal."""
    answer_ahead(tx, table_id, user)
    head = lock_head(tx, table_id)
    rules = head.table.rules
    if not rules.dragon:
        raise Unprocessable("this table does not deal the dragon hand", code="no-dragon")
    row = head.round
    if round_id is not None and (row is None or row.id != round_id):
        raise Conflict(f"round {round_id} is not the current round", code="not-current-round")
    if row is None or row.phase != Phase.SETTING.value:
        phase = "no round" if row is None else f"the round is in phase {row.phase}"
        raise Conflict(f"no dragon hand is on offer now ({phase})", code="no-dragon-offer")
    mine = tx.scalar(_MY_SPOT, {"rid": row.id, "uid": user.id})
    if mine is None:
        raise Conflict("you have no wager in this round", code="no-hand")
    spot = int(mine)
    rnd = load_round(tx, row)
    if amount is None:  # the core's refusals: no-dragon-offer, not-your-turn, outside-limits
        rnd.verify_decline_dragon(spot)
    else:
        rnd.verify_accept_dragon(spot, amount)
    out: dict[str, Any] = {
        "table_id": table_id,
        "round_id": row.id,
        "spot": spot,
        "dragon_spot": rnd.dragon_spot,
        "accepted": amount is not None,
        "amount": amount,
    }
    if amount is None:
        new = list(rnd.decline_dragon(spot))
        new += _decline_gone(rnd, gone_spots(tx, row.id, table_id))
        tx.later(_TURN, {"rid": row.id, **_turn_values(rnd, row, head.table.setting_time_ms)})
        project(tx, Step.DRAGON, row, rnd, new)
    else:
        player_limits.check_wager(tx, user, amount)  # self-exclusion, the daily loss limit
        new = list(rnd.accept_dragon(spot, amount))
        practice = head.table.mode == TableMode.PRACTICE
        pays = play_money.account_for(tx, user.username, practice)
        project(tx, Step.DRAGON, row, rnd, new, player=user, practice=practice)
        out["balance"] = ledger.balance(tx, pays)
        out["play_money"] = practice
    out["turn"] = rnd.dragon_turn
    return out


def settle_dragon(tx: Tx, table_id: int, round_id: str, rnd: Round) -> list[Movement]:
    """The dragon wager's money for a settlement (``rnd`` just settled), its record closed; the
    movements go in the settlement's own ledger transaction."""
    found = dragon_row(tx, round_id)
    result = rnd.dragon_result
    if result is None:
        if found is not None and found.status == WagerStatus.IN_PLAY:
            raise InconsistentRound(f"round {round_id}: a dragon wager the log never settled")
        return []
    if (
        found is None
        or found.status != WagerStatus.IN_PLAY
        or found.amount != result.wager
        or found.by_spot != result.by
        or found.username is None
    ):
        raise InconsistentRound(f"round {round_id}: the dragon wager's record does not match")
    memo = f"spot {result.by} dragon {result.outcome}"
    movements = TableAccounts.of(table_id).settled(wallet(found.username), result, memo)
    tx.later(
        _CLOSE,
        {"rid": round_id, "d_status": WagerStatus.SETTLED.value, "d_returned": result.returned},
    )
    return movements


def refund_dragon(tx: Tx, table_id: int, round_id: str) -> tuple[list[Movement], int]:
    """A void: the dragon wager, if one is in play, returned (exactly once: its record moves to
    ``returned`` in the same transaction); an offer still open is closed."""
    found = dragon_row(tx, round_id)
    if found is None:
        return [], 0
    if found.status == DragonStatus.OFFERED:
        tx.later(
            _TURN, {"rid": round_id, "d_status": DragonStatus.DECLINED.value, "d_deadline": None}
        )
        return [], 0
    if found.status != WagerStatus.IN_PLAY or found.amount is None or found.username is None:
        return [], 0
    tx.later(
        _CLOSE,
        {"rid": round_id, "d_status": WagerStatus.RETURNED.value, "d_returned": found.amount},
    )
    memo = f"spot {found.by_spot} dragon void"
    account = TableAccounts.of(table_id).wagers
    return [Movement(account, wallet(found.username), found.amount, memo)], found.amount


def voided_dragon(tx: Tx, round_id: str) -> list[int] | None:
    """The dragon wager a void returns, ``[spot, amount]`` (for a void recorded by hand)."""
    found = dragon_row(tx, round_id)
    if found is None or found.status != WagerStatus.IN_PLAY or found.amount is None:
        return None
    return [int(found.by_spot or 0), found.amount]
