"""Side wagers in a round's steps: placing them (with the main wager, or on their own during
betting: the core's events here, their money and records by the round's projector,
:mod:`paigow.service.game.rounds.projector`), their money at settlement (in the settlement's
own transaction: the side wagers' accounts, the progressive meters, Envy) and their refund on
a void.

Money of a side wager of ``w`` cents at table ``t`` (accounts of :mod:`paigow.service.books.ledger`):
placed, ``w`` moves from the wallet to ``side-wagers-in-play:table-t``; settled, a progressive
wager's share moves to the table's contribution to its bank's meter
(``progressive:meter:shares:table-t``) and the rest to ``house:side-win:table-t``; a win
returns the wager from ``house:side-win`` and pays the win from there, or from the meter for a
pay of the meter (every table's contribution first swept into the bank's
``progressive:meter:<bank>``; after a 100% hit the house resets it to the seed:
``progressive:seed`` to the meter); Envy is paid from ``house:envy:table-t``. Each wager's record moves to ``settled`` (or
``returned``) in the same transaction as its money, so that nothing is paid twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.bonus.hand import BonusCategory
from paigow.bonus.paytable import PayKind, Target
from paigow.events import Event
from paigow.round import Round, verify_side_offer
from paigow.ruleset import Ruleset
from paigow.service.books.audit import record
from paigow.service.books.ledger import (
    BankAccounts,
    Movement,
    SideAccounts,
    shares_account,
    wallet,
)
from paigow.service.game import side_offers
from paigow.service.game.rounds.log import SYSTEM, InconsistentRound
from paigow.service.statuses import WagerStatus
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import User
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx
from paigow.side_wagers import meter_pay, meter_shares

_SIDE: Final = cast(sa.Table, RoundSideWager.__table__)
_USERS: Final = cast(sa.Table, User.__table__)
_ROUND_SIDE: Final = Sql(
    sa.select(_SIDE.c.spot, _SIDE.c.name, _USERS.c.username, _SIDE.c.amount, _SIDE.c.status)
    .join(_USERS, _USERS.c.id == _SIDE.c.user_id)
    .where(_SIDE.c.round_id == sa.bindparam("rid"))
    .order_by(_SIDE.c.spot, _SIDE.c.name)
)
_CLOSE_SIDE: Final = Sql(
    sa.update(_SIDE)
    .where(
        _SIDE.c.round_id == sa.bindparam("rid"),
        _SIDE.c.spot == sa.bindparam("s_spot"),
        _SIDE.c.name == sa.bindparam("s_name"),
    )
    .values(
        status=sa.bindparam("s_status"),
        returned=sa.bindparam("s_returned", type_=sa.BigInteger),
        envy=sa.bindparam("s_envy", type_=sa.BigInteger),
    )
)


@dataclass(frozen=True)
class SideRow:
    spot: int
    name: str
    username: str
    amount: int
    status: str


def side_rows(tx: Tx, round_id: str) -> dict[tuple[int, str], SideRow]:
    """The round's side-wager records by (spot, name)."""
    return {(r[0], r[1]): SideRow(*r) for r in tx.run(_ROUND_SIDE, {"rid": round_id})}


# ------------------------------------------------------------------------------------ placing
def check_side(rules: Ruleset, side_wagers: Mapping[str, int]) -> None:
    """Refuse side wagers the table does not offer or outside their limits (the core's
    ``unknown-side-wager``, ``outside-limits``: 422), before any money moves."""
    for name, amount in side_wagers.items():
        verify_side_offer(rules, name, amount)


def side_events(rnd: Round, spot: int, side_wagers: Mapping[str, int]) -> list[Event]:
    """The core's events for ``side_wagers`` (name -> cents) on ``spot`` (which holds a main
    wager), in the order of their names; the core refuses any (``already-wagered``)."""
    events: list[Event] = []
    for name in sorted(side_wagers):
        events += rnd.side_wager(spot, name, side_wagers[name])
    return events


# ------------------------------------------------------------------------------------ settling
def meter_banks(rules: Ruleset, rnd: Round) -> set[str]:
    """The banks a settlement of ``rnd`` might pay from: those of its progressive wagers whose
    seven cards hold a category the pay table pays from the meter (a bet on the dealer's cards:
    always counted)."""
    banks: set[str] = set()
    hands = rnd.bonus_hands()
    for spot, name in rnd.side_wagers:
        offer = rules.offer(name)
        table = offer.table
        if offer.bank is None or table.progressive is None:
            continue
        if table.target is not Target.PLAYER:
            banks.add(offer.bank)
            continue
        pays = table.pays
        if any(c in pays and pays[c].kind is PayKind.METER for c in hands[spot].held):
            banks.add(offer.bank)
    return banks


def meters_for(
    tx: Tx, table_id: int, rules: Ruleset, rnd: Round
) -> dict[str, tuple[int, int | None]] | None:
    """Before the round settles: each progressive bank's meter with this round's shares added
    to the table's contributions (bank -> (meter, version)), or None when the round has no
    progressive wager. A bank the round might pay from is locked whole to the commit (its row
    and every table's: the hit pays the meter as it is); for the others only this table's own
    row is updated and their meters read as the other tables last committed them (version
    None: no other table's row waited on, no meter paid). See :func:`side_offers.add_shares`."""
    shares = meter_shares(rules, rnd.side_wagers)
    if not shares:
        return None
    return side_offers.add_shares(tx, table_id, shares, meter_banks(rules, rnd) & set(shares))


def settle_side(
    tx: Tx,
    table_id: int,
    round_id: str,
    rules: Ruleset,
    new: Sequence[Event],
    rows: Mapping[tuple[int, str], SideRow],
    meters: Mapping[str, tuple[int, int | None]] | None,
    meters_after: Mapping[str, int],
) -> tuple[list[Movement], int, int]:
    """The side wagers' money for the settlement events ``new`` (``rows``: the round's side-wager
    records, :func:`side_rows`, which this closes): the movements to post with the main
    wagers', the side wagers' total and what they returned (Envy included). The meters after
    any hit are written (``meters_after``: the round's), with a ``jackpot-hit`` audit record per
    hit, and announced to their banks' tables."""
    accounts = SideAccounts.of(table_id)
    shares = shares_account(table_id)
    movements: list[Movement] = []
    closed: dict[tuple[int, str], dict[str, Any]] = {}
    hits: set[str] = set()
    envy: dict[tuple[int, str], int] = {}
    wagered = returned_total = 0
    for event in new:
        d = event.to_dict()
        kind = d["type"]
        if kind not in ("side-wager-settled", "envy-paid"):
            continue
        key = (int(d["spot"]), str(d["name"]))
        row = rows.get(key)
        if row is None or row.status != WagerStatus.IN_PLAY:
            raise InconsistentRound(
                f"round {round_id} spot {key[0]} {key[1]!r}: the side wager's record does not "
                "match the log"
            )
        who = wallet(row.username)
        memo = f"spot {key[0]} {key[1]}"
        if kind == "envy-paid":
            amount = int(d["amount"])
            if amount:
                movements.append(Movement(accounts.envy, who, amount, memo + " envy"))
                envy[key] = envy.get(key, 0) + amount
                returned_total += amount
            continue
        wager, win, back = int(d["wager"]), int(d["win"]), int(d["returned"])
        if wager != row.amount:
            raise InconsistentRound(
                f"round {round_id} spot {key[0]} {key[1]!r}: wager {row.amount} recorded, "
                f"{wager} in the log"
            )
        wagered += wager
        returned_total += back
        offer = rules.offer(key[1])
        share = side_offers.share_of(offer, wager)
        bank = None if offer.bank is None else BankAccounts.of(offer.bank)
        if share and bank is not None:  # into the table's own contribution to the meter
            movements.append(Movement(accounts.wagers, shares, share, memo + " meter"))
        if wager - share:
            movements.append(Movement(accounts.wagers, accounts.win, wager - share, memo))
        hand = None if d.get("hand") is None else BonusCategory(d["hand"])
        from_meter = meter_pay(offer.table, hand, win)
        if from_meter and (meters or {}).get(offer.bank or "", (0, None))[1] is None:
            raise InconsistentRound(  # never: a bank the round may pay from is locked
                f"round {round_id}: a pay from bank {offer.bank!r}, whose row was not locked"
            )
        if from_meter and bank is not None and offer.bank is not None:
            # a hit: the win is paid from the meter, which the house tops up to its seed
            before, after = int(d["meter"]), int(d["meter_after"])
            reset = after - (before - from_meter)
            if reset < 0 or from_meter > before:
                raise InconsistentRound(
                    f"round {round_id} spot {key[0]}: meter {before} -> {after} on a win of {win}"
                )
            if reset:
                movements.append(Movement(bank.seed, bank.meter, reset, memo + " reset"))
            movements.append(Movement(bank.meter, who, from_meter, memo + " jackpot"))
            hits.add(offer.bank)
            record(
                tx.session,
                SYSTEM,
                "jackpot-hit",
                f"bank:{offer.bank}",
                {
                    "table_id": table_id,
                    "round_id": round_id,
                    "spot": key[0],
                    "name": key[1],
                    "player": row.username,
                    "hand": d.get("hand"),
                    "wager": wager,
                    "win": win,
                    "meter_before": before,
                    "meter_after": after,
                    "seeded": reset,
                },
            )
        if back - from_meter:
            movements.append(Movement(accounts.win, who, back - from_meter, memo + " won"))
        closed[key] = {
            "rid": round_id,
            "s_spot": key[0],
            "s_name": key[1],
            "s_status": WagerStatus.SETTLED.value,
            "s_returned": back,
            "s_envy": 0,
        }
    for key, row in rows.items():
        if key not in closed and row.status == WagerStatus.IN_PLAY:
            raise InconsistentRound(
                f"round {round_id} spot {key[0]} {key[1]!r}: a side wager the log never settled"
            )
    for key, amount in envy.items():
        if key not in closed:
            raise InconsistentRound(f"round {round_id} spot {key[0]}: Envy on an unsettled wager")
        closed[key]["s_envy"] = amount
    if closed:
        tx.many(_CLOSE_SIDE, list(closed.values()), later=True)
    for name, (meter, version) in sorted((meters or {}).items()):
        if version is None:  # its shares are added at the commit: the watchers read it
            side_offers.notify_meter(tx, name, None, None)
            continue
        final = meters_after.get(name, meter)
        if name in hits or final != meter:  # the tables' contributions swept into the base
            swept, version = side_offers.sweep(tx, name, final)
            movements += swept
        side_offers.notify_meter(tx, name, final, version)
    return [m for m in movements if m.amount], wagered, returned_total


def refund_side(tx: Tx, table_id: int, round_id: str) -> tuple[list[Movement], int]:
    """Every side wager of the round still in play returned (a void), exactly once: each
    record moves to ``returned`` in the same transaction as its refund."""
    movements: list[Movement] = []
    closed: list[dict[str, Any]] = []
    account = SideAccounts.of(table_id).wagers
    total = 0
    for key, row in side_rows(tx, round_id).items():
        if row.status != WagerStatus.IN_PLAY:
            continue
        movements.append(
            Movement(account, wallet(row.username), row.amount, f"spot {key[0]} {key[1]} void")
        )
        closed.append(
            {
                "rid": round_id,
                "s_spot": key[0],
                "s_name": key[1],
                "s_status": WagerStatus.RETURNED.value,
                "s_returned": row.amount,
                "s_envy": 0,
            }
        )
        total += row.amount
    if closed:
        tx.many(_CLOSE_SIDE, closed, later=True)
    return movements, total
