"""The commit sequence's work on what a step leaves (:attr:`paigow.service.store.unit.Tx.step`,
its :class:`~paigow.service.store.step.StepContext`), the same for every step
(see :class:`paigow.service.store.unit.Tx`): when its work is done (:func:`write_left`: its
deferred writes), when it is kept
(:func:`keep`) and once it has committed (:func:`committed`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final, Protocol, cast

import sqlalchemy as sa

from paigow.service.http_errors import NotFound
from paigow.service.ops import telemetry
from paigow.service.store.db import Account, RoundRow
from paigow.service.store.statements import Sql
from paigow.service.store.step import StepContext


class Tx(Protocol):
    """What the commit sequence needs of a step (a :class:`paigow.service.store.unit.Tx`)."""

    step: StepContext
    database: Any

    @property
    def batched(self) -> bool: ...

    def later(self, sql: Sql, params: Mapping[str, Any] | None = None) -> None: ...

    def rowcount(self, sql: Sql, params: Mapping[str, Any] | None = None) -> int: ...


def write_left(tx: Tx) -> None:
    """The step's work is done (the rounds it ended already went to the floor's totals:
    :meth:`paigow.service.store.unit.Tx.finish`): the rounds' rows it changed are written (one
    ``UPDATE`` each), then the house accounts' movements (in account order, last: their rows
    stay locked as briefly as they can)."""
    heads, tx.step.round_heads = tx.step.round_heads, []
    for head in heads:
        if head.changed:
            values = {f"new_{n}": v for n, v in head.changed.items()}
            tx.later(round_update(tuple(sorted(head.changed))), {"round_id": head.id, **values})
            head.changed = {}
    deltas, tx.step.house_deltas = tx.step.house_deltas, {}
    if deltas:
        _apply_house_deltas(tx, deltas)


def keep(tx: Tx) -> None:
    """The step's work is kept (SQLite: its savepoint released, so that the next step of the
    same commit finds it; PostgreSQL: just before its commit is sent, so that the next step at
    the table, which that commit wakes, finds it): the rounds it leaves go back into the round
    cache (the writer clears the cache if the commit then fails)."""
    kept, tx.step.rounds_kept = tx.step.rounds_kept, []
    cache = tx.step.rounds
    if cache is not None:
        for rnd in kept:
            cache.put(rnd)


def committed(tx: Tx) -> None:
    """The step has committed (never if it rolled back): the events it appended go to the
    process's fresh events (its live feeds), and the rounds it dealt or ended are counted."""
    fresh = tx.step.fresh
    if fresh is not None and tx.step.outbox.batches:
        at = time.time()
        for table_id, round_id, number, start, events, owners in tx.step.outbox.batches:
            fresh.put(table_id, round_id, number, start, events, at, owners)
    counted, tx.step.rounds_counted = tx.step.rounds_counted, []
    for mode, rules, outcome in counted:
        if outcome == "dealt":
            telemetry.dealt(mode, rules)()
        else:
            telemetry.ended(mode, rules, outcome)()


_ROUNDS: Final = cast(sa.Table, RoundRow.__table__)
_UPDATES: dict[tuple[str, ...], Sql] = {}


def round_update(names: tuple[str, ...]) -> Sql:
    """The round's UPDATE of the columns ``names`` (sorted; parameters ``round_id`` and
    ``new_NAME``), built once for each set of columns a step changes."""
    stmt = _UPDATES.get(names)
    if stmt is None:
        stmt = _UPDATES[names] = Sql(
            sa.update(_ROUNDS)
            .where(_ROUNDS.c.id == sa.bindparam("round_id"))
            .values({n: sa.bindparam(f"new_{n}", type_=_ROUNDS.c[n].type) for n in names})
        )
    return stmt


_ACCOUNTS: Final = cast(sa.Table, Account.__table__)
_ADD_HOUSE: Final = Sql(
    sa.update(_ACCOUNTS)
    .where(_ACCOUNTS.c.name == sa.bindparam("n"))
    .values(balance=_ACCOUNTS.c.balance + sa.bindparam("d", type_=sa.BigInteger))
)
_KNOWN: set[tuple[str, str]] = set()
"""Accounts seen to exist (by database engine): accounts are never deleted, so a house account's
update needs no check again (and may wait to be sent with the step's commit)."""


def account_seen(tx: Tx, account: str) -> bool:
    """Whether ``account`` was seen to exist in this database, by this process."""
    return (tx.database, account) in _KNOWN


def see_account(tx: Tx, account: str) -> None:
    """Remember that ``account`` exists in this database (a committed transaction found it)."""
    if len(_KNOWN) > 100_000:
        _KNOWN.clear()
    _KNOWN.add((tx.database, account))


def _apply_house_deltas(tx: Tx, deltas: Mapping[str, int]) -> None:
    """Add each house account's movement (account -> cents) to its balance, in account order
    (the lock order of every step: the table, wallets, house accounts)."""
    for name in sorted(deltas):
        delta = deltas[name]
        if delta == 0:
            continue
        if tx.batched and account_seen(tx, name):  # sent with the commit
            tx.later(_ADD_HOUSE, {"n": name, "d": delta})
            continue
        if tx.rowcount(_ADD_HOUSE, {"n": name, "d": delta}) != 1:
            raise NotFound(f"no account {name!r}")
        see_account(tx, name)
