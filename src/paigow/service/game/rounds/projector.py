"""The one projector of a round's steps: the events a step's core commands returned become what
the step leaves in its transaction, derived in one place and in one order:

1. the money the events move (:func:`derive`): a ``wager-placed`` moves the wager from the
   player's wallet to the table's ``wagers-in-play``, a ``side-wager-placed`` to the table's
   side wagers in play, a ``dragon-accepted`` to ``wagers-in-play``; a ``spot-settled`` pays
   the spot's wager as :meth:`paigow.service.books.ledger.TableAccounts.settled` derives it.
   With the side wagers' and the dragon hand's settlement money (derived where their records
   are read: :mod:`paigow.service.game.rounds.side_steps`, :mod:`paigow.service.game.rounds.dragon`)
   it is posted as the step's one ledger transaction (at a practice table in play money);
2. the records of those wagers (a wager's row written or closed, a side wager's row, the
   dragon hand's record taken by its player), with the step's deferred writes;
3. the events themselves, appended to the round's log with its new phase
   (:func:`paigow.service.game.rounds.log.append`);
4. the table's notice, its kind by the dealer's wake rule
   (:func:`paigow.service.game.rounds.wake.wake`).

A command locks and loads, calls the core (which verifies) and hands what it returned to
:func:`project`; it posts, writes and announces none of this itself. A void's refunds, which must
work from the records when the log cannot be replayed, are derived from the records
(:mod:`paigow.service.game.rounds.steps`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.events import (
    DragonAccepted,
    Event,
    RoundSettled,
    SideWagerPlaced,
    SpotSettled,
    WagerPlaced,
)
from paigow.round import Round
from paigow.service.accounts.auth_tokens import Principal
from paigow.service.books import play_money
from paigow.service.books.ledger import Movement, SideAccounts, TableAccounts, wallet
from paigow.service.game.rounds.head import RoundHead
from paigow.service.game.rounds.log import INSERT_WAGER, InconsistentRound, append
from paigow.service.game.rounds.wake import Step, wake
from paigow.service.statuses import WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.bus import notify
from paigow.service.store.db import RoundWager
from paigow.service.store.dragon_models import RoundDragon
from paigow.service.store.statements import Sql, insert_into
from paigow.service.store.unit import Tx

_SIDE: Final = cast(sa.Table, RoundSideWager.__table__)
_DRAGON: Final = cast(sa.Table, RoundDragon.__table__)
_WAGERS: Final = cast(sa.Table, RoundWager.__table__)
CLOSE_WAGER: Final = Sql(
    sa.update(_WAGERS)
    .where(_WAGERS.c.round_id == sa.bindparam("rid"), _WAGERS.c.spot == sa.bindparam("w_spot"))
    .values(status=sa.bindparam("w_status"), returned=sa.bindparam("w_returned"))
)
"""A wager's record closed (settled or returned), with what went back to the player."""
INSERT_SIDE: Final = insert_into(
    _SIDE, "round_id", "spot", "name", "user_id", "amount", "status", "returned", "envy"
)
"""A side wager's record, written when it is placed."""
TAKE_DRAGON: Final = Sql(
    sa.update(_DRAGON)
    .where(_DRAGON.c.round_id == sa.bindparam("rid"))
    .values(
        status=WagerStatus.IN_PLAY.value,
        turn_deadline=None,
        by_spot=sa.bindparam("d_by", type_=sa.Integer),
        user_id=sa.bindparam("d_user", type_=sa.Integer),
        amount=sa.bindparam("d_amount", type_=sa.BigInteger),
    )
)
"""The dragon hand's record once a player wagers on it (the offer closed)."""


@dataclass(frozen=True)
class WagerRecord:
    """A main wager's record as the settlement reads it (with its player's name)."""

    spot: int
    user_id: int
    username: str
    amount: int
    status: str


@dataclass
class Derived:
    """What a step's events mean for the books: the money's movements and the records to
    write (each a statement and its parameters, in the order derived)."""

    movements: list[Movement] = field(default_factory=list)
    records: list[tuple[Sql, dict[str, Any]]] = field(default_factory=list)
    owners: dict[int, int] = field(default_factory=dict)
    """spot -> user id of the main wagers placed (for the live feeds)."""

    def place(
        self,
        who: Principal,
        account: str,
        amount: int,
        memo: str,
        statement: Sql,
        record: dict[str, Any],
    ) -> None:
        """A wager placed: ``amount`` from ``who``'s wallet to ``account``, and its record."""
        self.movements.append(Movement(wallet(who.username), account, amount, memo))
        self.records.append((statement, record))


def derive(
    table_id: int,
    round_id: str,
    events: Sequence[Event],
    player: Principal | None = None,
    wagers: Mapping[int, WagerRecord] | None = None,
) -> Derived:
    """The money and records of ``events`` at table ``table_id`` in round ``round_id``: each
    wager placed from ``player``'s wallet, each spot settled against its record in ``wagers``
    (the round's, read by the settlement). No I/O: :func:`project` writes them.

    >>> ann = Principal(5, "ann", "player")
    >>> p = derive(7, "r1", [WagerPlaced(2, 1000), SideWagerPlaced(2, "fortune", 500)], ann)
    >>> [(m.source, m.target, m.amount, m.memo) for m in p.movements]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('wallet:ann', 'wagers-in-play:table-7', 1000, 'spot 2'),
     ('wallet:ann', 'side-wagers-in-play:table-7', 500, 'spot 2 fortune')]
    >>> len(p.records), p.owners
    (2, {2: 5})
    >>> won = SpotSettled(2, "win", "win", "win", 1000, 1000, 50, 1950, False)
    >>> p = derive(7, "r1", [won], wagers={2: WagerRecord(2, 5, "ann", 1000, "in-play")})
    >>> [(m.source, m.target, m.amount) for m in p.movements]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('wagers-in-play:table-7', 'wallet:ann', 1000), ('house:win:table-7', 'wallet:ann', 1000),
     ('wallet:ann', 'house:commission:table-7', 50)]
    >>> derive(7, "r1", [WagerPlaced(2, 1000)])
    Traceback (most recent call last):
    ...
    ValueError: wager-placed in round r1 with no player to pay for it
    """
    out = Derived()
    for event in events:
        match event:
            case WagerPlaced(spot=spot, amount=amount):
                who = _payer(player, event, round_id)
                record: dict[str, Any] = {
                    "round_id": round_id,
                    "spot": spot,
                    "user_id": who.id,
                    "amount": amount,
                    "status": WagerStatus.IN_PLAY.value,
                }
                account = TableAccounts.of(table_id).wagers
                out.place(who, account, amount, f"spot {spot}", INSERT_WAGER, record)
                out.owners[spot] = who.id
            case SideWagerPlaced(spot=spot, name=name, amount=amount):
                who = _payer(player, event, round_id)
                record = {
                    "round_id": round_id,
                    "spot": spot,
                    "name": name,
                    "user_id": who.id,
                    "amount": amount,
                    "status": WagerStatus.IN_PLAY.value,
                    "returned": None,
                    "envy": 0,
                }
                account = SideAccounts.of(table_id).wagers
                out.place(who, account, amount, f"spot {spot} {name}", INSERT_SIDE, record)
            case DragonAccepted(spot=spot, amount=amount):
                who = _payer(player, event, round_id)
                record = {"rid": round_id, "d_by": spot, "d_user": who.id, "d_amount": amount}
                account = TableAccounts.of(table_id).wagers
                out.place(who, account, amount, f"spot {spot} dragon", TAKE_DRAGON, record)
            case SpotSettled(spot=spot, outcome=outcome):
                w = (wagers or {}).get(spot)
                if w is None or w.status != WagerStatus.IN_PLAY or w.amount != event.wager:
                    raise InconsistentRound(
                        f"round {round_id} spot {spot}: the wager record does not match the log"
                    )
                memo = f"spot {spot} {outcome}"
                out.movements += TableAccounts.of(table_id).settled(wallet(w.username), event, memo)
                out.records.append(
                    (
                        CLOSE_WAGER,
                        {
                            "rid": round_id,
                            "w_spot": spot,
                            "w_status": WagerStatus.SETTLED.value,
                            "w_returned": event.returned,
                        },
                    )
                )
            case _:
                pass  # no money of its own (the side wagers' and dragon's settled: ``paid``)
    return out


def _payer(player: Principal | None, event: Event, round_id: str) -> Principal:
    if player is None:
        raise ValueError(f"{event.type} in round {round_id} with no player to pay for it")
    return player


def project(
    tx: Tx,
    step: Step,
    row: RoundHead,
    rnd: Round,
    events: Sequence[Event],
    *,
    player: Principal | None = None,
    practice: bool = False,
    opened: bool = False,
    last: bool = False,
    wagers: Mapping[int, WagerRecord] | None = None,
    paid: Sequence[Movement] = (),
) -> None:
    """Leave in ``tx`` what ``events`` (returned by ``step``'s core commands on ``rnd``, the
    round of ``row``) mean, in the module's order: their money (wagers from ``player``'s wallet;
    spots settled against ``wagers``, the round's records; ``paid``: the side wagers' and the
    dragon hand's settlement money) as one ledger transaction, in play money where
    ``practice``; their records; the log; the table's notice (``opened``, ``last``: the wake
    rule's, for a wager)."""
    out = derive(row.table_id, row.id, events, player, wagers)
    movements = out.movements + [m for m in paid if m.amount]
    if movements:
        settles = any(isinstance(e, RoundSettled) for e in events)
        kind = "settlement" if settles else "wager"
        actor = None if player is None else player.username
        play_money.post(tx, kind, movements, practice, reference=row.id, actor=actor)
    batches: dict[Sql, list[dict[str, Any]]] = {}
    for statement, params in out.records:  # one deferred statement per kind of record
        batches.setdefault(statement, []).append(params)
    for statement, rows in batches.items():
        tx.many(statement, rows, later=True)
    append(tx, row, rnd, events, out.owners)
    notify(tx, row.table_id, wake(step, rnd, opened=opened, last=last))
