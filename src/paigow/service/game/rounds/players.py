"""Player commands: a wager (which opens a round if none is open), setting a hand, the player's
own hand and, at practice tables, the house way's hint (at a face-up table with the setting
that does best against the dealer's exposed setting)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.cards import Card, parse_cards
from paigow.events import Event, HandSet
from paigow.round import Phase, Round, verify_wager_amount
from paigow.service.accounts import player_limits
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books import ledger, play_money
from paigow.service.game import table_rows
from paigow.service.game.rounds.dragon import decline_left
from paigow.service.game.rounds.head import RoundHead, lock_ahead, lock_head, read_head
from paigow.service.game.rounds.log import current_row, load_round, new_round
from paigow.service.game.rounds.projector import project
from paigow.service.game.rounds.side_steps import check_side, side_events
from paigow.service.game.rounds.wake import Step
from paigow.service.game.table_rows import ENDED, table_house_way, table_ruleset
from paigow.service.http_errors import Conflict, Forbidden, NotFound, Unprocessable
from paigow.service.statuses import TableMode, TableStatus
from paigow.service.store.db import GameTable, RoundRow, RoundWager, Seat
from paigow.service.store.floor_models import PlayerLimit
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx
from paigow.setting import Setting
from paigow.variants import best_against, push_triggered

_SEATS: Final = cast(sa.Table, Seat.__table__)
_WAGERS: Final = cast(sa.Table, RoundWager.__table__)
_LIMITS: Final = cast(sa.Table, PlayerLimit.__table__)
_OTHERS: Final = _SEATS.alias("others")
_TABLES: Final = cast(sa.Table, GameTable.__table__)
_ROUNDS: Final = cast(sa.Table, RoundRow.__table__)


def _current_round() -> sa.ScalarSelect[Any]:
    """The id of the table's current round while it is in play (NULL once it has ended), read
    with the table's row locked: what :func:`lock_head` reads, so that a step's reads of its
    round can go in the same message as the lock."""
    return (
        sa.select(_ROUNDS.c.id)
        .select_from(_TABLES.join(_ROUNDS, _ROUNDS.c.id == _TABLES.c.current_round_id))
        .where(_TABLES.c.id == sa.bindparam("tid"), *(_ROUNDS.c.phase != p.value for p in ENDED))
        .scalar_subquery()
    )


_PLAYER_AT_TABLE: Final = Sql(
    sa.select(
        _SEATS.c.spot,
        sa.select(_WAGERS.c.spot)
        .where(_WAGERS.c.round_id == _current_round(), _WAGERS.c.user_id == sa.bindparam("uid"))
        .limit(1)
        .scalar_subquery(),
        sa.select(sa.func.count())
        .select_from(_OTHERS)
        .where(
            _OTHERS.c.table_id == sa.bindparam("tid"),
            _OTHERS.c.user_id.not_in(
                sa.select(_WAGERS.c.user_id).where(_WAGERS.c.round_id == _current_round())
            ),
        )
        .scalar_subquery(),
        sa.exists().where(_LIMITS.c.user_id == sa.bindparam("uid")),
    ).where(_SEATS.c.table_id == sa.bindparam("tid"), _SEATS.c.user_id == sa.bindparam("uid"))
)
"""The player's spot at the table, their wager in the table's current round (if any), how many
seated players have no wager in it, and whether the player has limits (one statement)."""


def wager_ahead(tx: Tx, table_id: int, user: Principal) -> None:
    """Send what a wager reads (the table's lock, its round, the player's seat) with the step's
    next statement (:meth:`Tx.ahead`): with the idempotency key's look-up, or on their own."""
    lock_ahead(tx, table_id)
    tx.ahead(_PLAYER_AT_TABLE, {"tid": table_id, "uid": user.id})


def set_ahead(tx: Tx, table_id: int, user: Principal) -> None:
    """Send what setting a hand reads (the table's lock, its round, the player's wager in it)
    with the step's next statement (:meth:`Tx.ahead`)."""
    lock_ahead(tx, table_id)
    tx.ahead(_MY_WAGER_NOW, {"tid": table_id, "uid": user.id})


def place_wager(
    tx: Tx,
    table_id: int,
    user: Principal,
    amount: int,
    side_wagers: Mapping[str, int] | None = None,
    play: bool | None = None,
) -> dict[str, Any]:
    """Reserve ``amount`` from the player's wallet and place it on their spot (a new round opens
    with the first wager), with the side wagers ``side_wagers`` (name -> cents) in the same
    step: all of them or nothing. At a practice table the wager is play money (the player's
    play wallet); ``play`` (play money asked for) at a casino table is refused."""
    side_wagers = dict(side_wagers or {})
    wager_ahead(tx, table_id, user)  # the seat read goes with the lock (if not sent already)
    head = lock_head(tx, table_id)
    practice = head.table.mode == TableMode.PRACTICE
    play_money.refuse_at_casino(practice, play)
    if head.status != TableStatus.OPEN:
        raise Conflict(f"table {table_id} is {head.status}: no new wagers", code="table-closed")
    row = head.round
    current = row if row is not None and row.phase not in ENDED else None
    found = tx.first(_PLAYER_AT_TABLE, {"tid": table_id, "uid": user.id})
    if found is None:
        raise Conflict("sit at the table before you wager", code="not-seated")
    spot, mine, idle, limited = found
    verify_wager_amount(head.table.rules, amount)  # the core's limits, before money moves
    if side_wagers:
        check_side(head.table.rules, side_wagers)
    if limited:  # self-exclusion, daily loss limit (the side wagers count too; play money not)
        player_limits.check_wager(tx, user, 0 if practice else amount + sum(side_wagers.values()))
    if current is None:
        row, rnd = new_round(tx, head)
    elif current.phase != Phase.BETTING.value:
        raise Conflict(
            f"the round is in play ({current.phase}); wagers open when it is over",
            code="round-in-play",
        )
    else:
        row = current
        rnd = load_round(tx, row)
        if mine is not None:
            raise Conflict(
                f"you already have a wager on spot {mine} in this round", code="already-wagered"
            )
    # who holds the spot (an opaque id: Envy never pays a player for their own hands)
    player = str(user.id) if head.table.rules.side_wagers else None
    new = list(rnd.wager(spot, amount, player=player))
    new += side_events(rnd, spot, side_wagers)
    account = play_money.account_for(tx, user.username, practice)
    opened = row.event_count == 1  # only round-started before this wager
    # idle: the seated players without a wager, this player among them
    project(
        tx,
        Step.WAGER,
        row,
        rnd,
        new,
        player=user,
        practice=practice,
        opened=opened,
        last=int(idle) <= 1,
    )
    return {
        "table_id": table_id,
        "round_id": row.id,
        "spot": spot,
        "amount": amount,
        "side": side_wagers,
        "balance": ledger.balance(tx, account),
        "play_money": practice,
        "betting_closes_at": row.deadline,
    }


def place_side_wagers(
    tx: Tx, table_id: int, user: Principal, side_wagers: Mapping[str, int]
) -> dict[str, Any]:
    """Side wagers (name -> cents) on the spot of the player's main wager in the current round,
    while betting is open (never without a main wager): all of them or nothing."""
    if not side_wagers:
        raise Unprocessable("name at least one side wager", code="bad-side-wager")
    set_ahead(tx, table_id, user)
    head = lock_head(tx, table_id)
    row = head.round
    if row is None or row.phase != Phase.BETTING.value:
        phase = "no round" if row is None else f"the round is in phase {row.phase}"
        raise Conflict(
            f"side wagers go with a main wager while betting is open ({phase})",
            code="not-betting",
        )
    spot = tx.scalar(_MY_WAGER_NOW, {"tid": table_id, "uid": user.id})
    if spot is None:
        raise Conflict(
            "place your main wager first: a side wager goes with one", code="no-main-wager"
        )
    check_side(head.table.rules, side_wagers)
    if tx.first(_HAS_LIMITS, {"uid": user.id}) is not None:
        player_limits.check_wager(tx, user, sum(side_wagers.values()))
    rnd = load_round(tx, row)
    new = side_events(rnd, int(spot), side_wagers)
    practice = head.table.mode == TableMode.PRACTICE
    account = play_money.account_for(tx, user.username, practice)
    project(tx, Step.SIDE_WAGERS, row, rnd, new, player=user, practice=practice)
    return {
        "table_id": table_id,
        "round_id": row.id,
        "spot": int(spot),
        "side": dict(side_wagers),
        "balance": ledger.balance(tx, account),
        "play_money": practice,
    }


_HAS_LIMITS: Final = Sql(
    sa.select(_LIMITS.c.user_id).where(_LIMITS.c.user_id == sa.bindparam("uid"))
)


_MY_WAGER: Final = Sql(
    sa.select(_WAGERS.c.spot, _WAGERS.c.amount).where(
        _WAGERS.c.round_id == sa.bindparam("rid"), _WAGERS.c.user_id == sa.bindparam("uid")
    )
)
_MY_WAGER_NOW: Final = Sql(
    sa.select(_WAGERS.c.spot).where(
        _WAGERS.c.round_id == _current_round(), _WAGERS.c.user_id == sa.bindparam("uid")
    )
)
"""The player's spot in the table's current round (while it is in play)."""


def set_hand(
    tx: Tx,
    table_id: int,
    user: Principal,
    low: Sequence[str],
    confirm_foul: bool,
    round_id: str | None = None,
) -> dict[str, Any]:
    """The player sets their hand by naming the two low cards. A foul is refused unless
    ``confirm_foul``; confirmed, it is accepted and, under the Indiana rule, loses."""
    row, spot, rnd = _my_setting_round(tx, table_id, user, round_id)
    rnd.verify_set_low(spot, low)  # the core's refusals: already-set, bad-setting
    setting = Setting.from_low(rnd.hands[spot], low)
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
    return _hand_set(tx, table_id, row, rnd, spot, rnd.set_hand(spot, setting))


def set_by_house_way(
    tx: Tx, table_id: int, user: Principal, round_id: str | None = None
) -> dict[str, Any]:
    """The player asks the house to set their hand, as casinos allow: the house way sets it,
    recorded as such in the log (``hand-set`` by ``house-way``, reason ``asked``); refused once
    the hand is set (the core's ``already-set``)."""
    row, spot, rnd = _my_setting_round(tx, table_id, user, round_id)
    rnd.verify_set_house_way(spot)  # the core's refusals: already-set
    return _hand_set(tx, table_id, row, rnd, spot, rnd.set_house_way(spot))


def _my_setting_round(
    tx: Tx, table_id: int, user: Principal, round_id: str | None
) -> tuple[RoundHead, int, Round]:
    """The table's round while hands are set, the player's spot in it and the round (refused
    with 409 when there is no hand of theirs to set now)."""
    set_ahead(tx, table_id, user)
    row = lock_head(tx, table_id).round
    if round_id is not None and (row is None or row.id != round_id):
        raise Conflict(f"round {round_id} is not the current round", code="not-current-round")
    if row is None or row.phase != Phase.SETTING.value:
        phase = "no round" if row is None else f"the round is in phase {row.phase}"
        raise Conflict(f"no hand to set now ({phase})", code="not-setting")
    spot = tx.scalar(_MY_WAGER_NOW, {"tid": table_id, "uid": user.id})  # in round ``row``
    if spot is None:
        raise Conflict("you have no hand in this round", code="no-hand")
    return row, int(spot), load_round(tx, row)


def _hand_set(
    tx: Tx, table_id: int, row: RoundHead, rnd: Round, spot: int, new: Sequence[Event]
) -> dict[str, Any]:
    project(tx, Step.SET, row, rnd, new)
    (e,) = [ev.to_dict() for ev in new if isinstance(ev, HandSet)]
    return {
        "table_id": table_id,
        "round_id": row.id,
        "spot": spot,
        "high": e["high"],
        "low": e["low"],
        "foul": e["foul"],
        "by": e["by"],
        "reason": e.get("reason"),
    }


def leave(tx: Tx, table_id: int, user: Principal) -> dict[str, Any]:
    """Leave the seat. A wager in play stays in play and its result goes to the player's
    wallet; a dealt hand not yet set is set by the house way at once (``left``), as a casino's
    dealer sets an abandoned hand, so the table does not wait the setting time for a player who
    is gone (a hand not dealt yet is set the same way when the cards go out); the dragon hand
    offered to the player is declined (``left``), as it is when their turn comes later."""
    head = lock_head(tx, table_id)  # the table's one lock of the step
    out = table_rows.unseat_player(tx, table_id, user)
    row = head.round
    if row is None or row.phase != Phase.SETTING.value:
        return out
    spot = tx.scalar(_MY_WAGER_NOW, {"tid": table_id, "uid": user.id})
    if spot is None:
        return out
    rnd = load_round(tx, row)
    new: list[Event] = []
    if rnd.can_left(spot):  # a dealt hand still to set: the core's rule
        new += rnd.left(spot)
        out = {**out, "hand_set": True}
    if rnd.dragon_turn == spot:
        new += decline_left(tx, row, rnd, table_id, head.table.setting_time_ms)
        out = {**out, "dragon_declined": True}
    if not new:
        return out
    project(tx, Step.LEAVE, row, rnd, new)
    return out


def my_hand(tx: Tx, table_id: int, user: Principal) -> dict[str, Any]:
    # the table and its round in one Core statement: every player reads its hand each round,
    # on the event loop on SQLite (two ORM loads were most of this read's time)
    row = read_head(tx, table_id).round
    if row is None:
        raise NotFound("no round in progress at this table", code="no-round")
    found = tx.first(_MY_WAGER, {"rid": row.id, "uid": user.id})
    if found is None:
        raise Conflict("you have no hand in this round", code="no-hand")
    spot, amount = found
    rnd = load_round(tx, row)
    cards = rnd.hands.get(spot)
    setting = None
    for e in rnd.events:
        if e.type == "hand-set" and e.to_dict()["spot"] == spot:
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
        "spot": spot,
        "wager": amount,
        "cards": None if cards is None else [c.code for c in cards],
        "setting": setting,
        "deadline": row.deadline,
    }


def practice_table(tx: Tx, table_id: int, what: str) -> GameTable:
    """The table, when it is a practice table: ``what`` (hints, the EV) is refused at a casino
    table, where the player sets the hand without help."""
    table = tx.session.get(GameTable, table_id)
    if table is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    if table.mode != TableMode.PRACTICE:
        raise Forbidden(
            f"{what} for practice tables only: at a casino table the player sets the "
            "hand without help (68 IAC 10-9-13(a))",
            code="casino-table",
        )
    return table


def hint(tx: Tx, table_id: int, user: Principal) -> dict[str, Any]:
    table = practice_table(tx, table_id, "hints are")
    hand = my_hand(tx, table_id, user)
    if hand["cards"] is None:
        raise Conflict("your cards are not dealt yet", code="not-dealt")
    way = table_house_way(table)
    wheel = table_ruleset(table).wheel
    hw = way.set_hand(parse_cards(hand["cards"]), wheel)
    value = hw.setting.value(wheel)
    out: dict[str, Any] = {
        "house_way": way.name,
        "rule": hw.rule,
        "high": [c.code for c in hw.setting.high],
        "low": [c.code for c in hw.setting.low],
        "high_name": value.high.name,
        "low_name": value.low.name,
    }
    row = current_row(tx, table)
    if row is not None and table_ruleset(table).face_up:
        out["best"] = _best_against_dealer(load_round(tx, row), parse_cards(hand["cards"]))
    return out


def _best_against_dealer(rnd: Round, cards: Sequence[Card]) -> dict[str, Any] | None:
    """The setting of ``cards`` that does best against the dealer's setting shown face up
    (:func:`paigow.variants.best_against`), its certain outcome and whether the push rule
    holds; None before the dealer has set."""
    if rnd.dealer_setting is None or rnd.dealer_cards is None:
        return None
    rules = rnd.ruleset
    pushes = push_triggered(rules.push, rnd.dealer_cards, rnd.dealer_setting)
    choice = best_against(cards, rnd.dealer_setting, rnd.house_way, rules.wheel, pushes=pushes)
    value = choice.best.value(rules.wheel)
    return {
        "high": [c.code for c in choice.best.high],
        "low": [c.code for c in choice.best.low],
        "high_name": value.high.name,
        "low_name": value.low.name,
        "outcome": choice.settlement.outcome.value,
        "pushed_by_rule": pushes,
    }
