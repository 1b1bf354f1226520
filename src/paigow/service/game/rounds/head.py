"""The table and its current round as a step locks, reads and changes them: Core statements of
exactly the columns a step needs (no ORM objects, no unit-of-work flush), and the table's
configuration, which never changes once the table is created, cached in the process.

Every step that changes a table or its round takes the table's one lock here, whatever it does
(a wager, a deal, a seat, closing the table): it locks the table's row and reads its round in one
round trip (:func:`lock_head`: one
statement on SQLite, two in one message on PostgreSQL, which a step may send ahead with its
first statement: :func:`lock_ahead`); the round's changes are kept on its
:class:`RoundHead` and written in one ``UPDATE`` when the step's work is done
(:func:`RoundHead.set`), so a step that appends events and moves a deadline writes the round's
row once. The statements run on the driver (:mod:`paigow.service.store.unit`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

import sqlalchemy as sa

from paigow.house_way import HouseWay
from paigow.ruleset import Ruleset
from paigow.service.http_errors import NotFound
from paigow.service.store.db import GameTable, RoundRow
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Tx

_TABLES: Final = cast(sa.Table, GameTable.__table__)
_ROUNDS: Final = cast(sa.Table, RoundRow.__table__)


@dataclass(frozen=True)
class TableConfig:
    """What never changes at a table once it is created: its ruleset, house way, mode and time
    limits (``created_at`` tells a cached copy from another table's that reused the id)."""

    id: int
    name: str
    ruleset: Mapping[str, Any]
    house_way: Mapping[str, Any]
    mode: str
    betting_time_ms: int
    setting_time_ms: int
    created_at: float

    @functools.cached_property
    def rules(self) -> Ruleset:
        return Ruleset.from_dict(dict(self.ruleset))

    @functools.cached_property
    def way(self) -> HouseWay:
        return HouseWay.from_dict(dict(self.house_way))


class _Configs:
    """Table configurations by database and table id, for every thread of the process."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int], TableConfig] = {}
        self._lock = threading.Lock()

    def get(self, tx: Tx, table_id: int, created_at: float) -> TableConfig:
        key = (tx.database, table_id)  # one process may serve (or test) several databases
        hit = self._items.get(key)
        if hit is not None and hit.created_at == created_at:
            return hit
        row = tx.first(_CONFIG, {"tid": table_id})
        if row is None:
            raise NotFound(f"no table {table_id}", code="no-table")
        name, ruleset, house_way, mode, betting_ms, setting_ms, created = row
        config = TableConfig(
            id=table_id,
            name=name,
            ruleset=dict(ruleset),
            house_way=dict(house_way),
            mode=mode,
            betting_time_ms=int(betting_ms),
            setting_time_ms=int(setting_ms),
            created_at=float(created),
        )
        with self._lock:
            if len(self._items) > 10_000:
                self._items.clear()
            self._items[key] = config
        return config


CONFIGS: Final = _Configs()

_CONFIG: Final = Sql(
    sa.select(
        _TABLES.c.name,
        _TABLES.c.ruleset,
        _TABLES.c.house_way,
        _TABLES.c.mode,
        _TABLES.c.betting_time_ms,
        _TABLES.c.setting_time_ms,
        _TABLES.c.created_at,
    ).where(_TABLES.c.id == sa.bindparam("tid"))
)


@dataclass(eq=False)
class RoundHead:
    """A round's row as a step reads it; :meth:`set` changes it (written before the commit)."""

    id: str
    table_id: int
    number: int
    phase: str
    deadline: float | None
    event_count: int
    changed: dict[str, Any] = field(default_factory=dict)

    def set(self, tx: Tx, **values: Any) -> None:
        """Change columns of the round's row (``phase``, ``event_count``, ``deadline``,
        ``result``, ``ended_at``): written in one UPDATE when the step's work is done
        (:meth:`Tx.finish`)."""
        for name, value in values.items():
            if name in ("phase", "event_count", "deadline"):
                setattr(self, name, value)
        self.changed.update(values)
        if self not in tx.step.round_heads:
            tx.step.round_heads.append(self)


@dataclass(eq=False)
class Head:
    """A table locked for a step: its configuration, status and round count, and its current
    round (None: no round in progress)."""

    table: TableConfig
    status: str
    round_count: int
    round: RoundHead | None

    @property
    def id(self) -> int:
        return self.table.id


TABLE_AND_ROUND: Final = Sql(
    sa.select(
        _TABLES.c.status,
        _TABLES.c.round_count,
        _TABLES.c.created_at,
        _ROUNDS.c.id,
        _ROUNDS.c.number,
        _ROUNDS.c.phase,
        _ROUNDS.c.deadline,
        _ROUNDS.c.event_count,
    )
    .select_from(_TABLES.outerjoin(_ROUNDS, _ROUNDS.c.id == _TABLES.c.current_round_id))
    .where(_TABLES.c.id == sa.bindparam("tid"))
)
"""The table and its current round in one statement (SQLite's head; a table's state)."""


_LOCK: Final = Sql(
    sa.select(_TABLES.c.status, _TABLES.c.round_count, _TABLES.c.created_at)
    .where(_TABLES.c.id == sa.bindparam("tid"))
    .with_for_update()
)
_ROUND: Final = Sql(
    sa.select(
        _ROUNDS.c.id, _ROUNDS.c.number, _ROUNDS.c.phase, _ROUNDS.c.deadline, _ROUNDS.c.event_count
    ).where(
        _ROUNDS.c.id
        == sa.select(_TABLES.c.current_round_id)
        .where(_TABLES.c.id == sa.bindparam("tid"))
        .scalar_subquery()
    )
)
"""The table's current round, read once the table's row is locked (its own snapshot)."""


def lock_ahead(tx: Tx, table_id: int) -> None:
    """Send the table's lock and the read of its round (:func:`lock_head`) with the step's next
    statement (:meth:`Tx.ahead`: PostgreSQL; SQLite's head is one statement, run when asked)."""
    if tx.is_postgres:
        tx.ahead(_LOCK, {"tid": table_id})
        tx.ahead(_ROUND, {"tid": table_id})


def lock_head(tx: Tx, table_id: int) -> Head:
    """The table's row locked for this transaction with its current round: on SQLite in one
    statement (the write transaction holds the whole database from its start); on PostgreSQL
    the round is read after the lock is held, by a statement of its own sent in the same
    message (a row lock that had to wait re-reads the locked row but not the rows joined to
    it, which would be as they were before the other transaction committed; the next
    statement takes a new snapshot, so it reads the round the locked row names now)."""
    if tx.is_sqlite:
        return read_head(tx, table_id)
    locked, found = tx.together((_LOCK, {"tid": table_id}), (_ROUND, {"tid": table_id}))
    if not locked:
        raise NotFound(f"no table {table_id}", code="no-table")
    # no current round: the subquery is NULL and nothing matches
    return _head(tx, table_id, locked[0], found[0] if found else None)


def read_head(tx: Tx, table_id: int) -> Head:
    """The table and its current round as they stand, in one statement and locking nothing: a
    read's (a player's hand), and SQLite's :func:`lock_head` (its write transaction holds the
    whole database from its start)."""
    row = tx.first(TABLE_AND_ROUND, {"tid": table_id})
    if row is None:
        raise NotFound(f"no table {table_id}", code="no-table")
    return _head(tx, table_id, row[:3], row[3:] if row[3] is not None else None)


def _head(tx: Tx, table_id: int, table: Sequence[Any], current: Sequence[Any] | None) -> Head:
    """A :class:`Head` of the table's (status, round count, created at) and its round's (id,
    number, phase, deadline, event count), if it has one."""
    status, count, created_at = table
    config = CONFIGS.get(tx, table_id, float(created_at))
    head = None
    if current is not None:
        rid, number, phase, deadline, events = current
        head = RoundHead(rid, table_id, int(number), phase, deadline, int(events))
    return Head(config, str(status), int(count), head)


def set_status(tx: Tx, table_id: int, status: str) -> None:
    """The table's status (``open``, ``closing``, ``closed``), its row locked by the step
    (:func:`lock_head`)."""
    tx.later(_SET_STATUS, {"tid": table_id, "status": str(status)})


_SET_STATUS: Final = Sql(
    sa.update(_TABLES)
    .where(_TABLES.c.id == sa.bindparam("tid"))
    .values(status=sa.bindparam("status", type_=sa.String))
)


def set_current(tx: Tx, table_id: int, round_id: str | None, round_count: int) -> None:
    """The table's current round (None: none) and how many rounds it has opened."""
    tx.later(_SET_CURRENT, {"tid": table_id, "current": round_id, "count": round_count})


_SET_CURRENT: Final = Sql(
    sa.update(_TABLES)
    .where(_TABLES.c.id == sa.bindparam("tid"))
    .values(
        current_round_id=sa.bindparam("current", type_=sa.String),
        round_count=sa.bindparam("count", type_=sa.Integer),
    )
)
