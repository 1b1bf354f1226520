"""The floor's running totals of each table (``floor_tables``) and the chart's points
(``floor_points``), written in the transaction of each settlement or void from what the game
wrote of the round's end (:func:`project`, the process's projector:
:class:`paigow.service.store.step.RoundEnded`), and the table's flag
(set or cleared, audited, when its hold leaves or re-enters its 99.9% band: see
:mod:`paigow.service.floor.hold`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.service.books.audit import record
from paigow.service.floor.hold import TableLike, band_for, flag_change, result_of, table_ident
from paigow.service.store.bus import Kind, notify
from paigow.service.store.db import now
from paigow.service.store.floor_models import FloorEdge, FloorPoint, FloorSideTotal, FloorTable
from paigow.service.store.statements import Sql
from paigow.service.store.step import RoundEnded
from paigow.service.store.unit import Tx

SYSTEM: Final = "floor"
"""The actor of the floor's audit records."""


@dataclass
class Totals:
    """A table's running totals as a settlement reads and changes them (a ``floor_tables``
    row)."""

    rounds: int = 0
    hands: int = 0
    handle: int = 0
    handle_sq: int = 0
    round_sq: int = 0
    player_wins: int = 0
    player_losses: int = 0
    commission: int = 0
    voided_rounds: int = 0
    voided_returned: int = 0
    flagged: bool = False
    flag: Any = None


@dataclass(frozen=True)
class _Edge:
    status: str
    deals: int | None
    win: int | None
    push: int | None


_FT: Final = cast(sa.Table, FloorTable.__table__)
_FP: Final = cast(sa.Table, FloorPoint.__table__)
_FE: Final = cast(sa.Table, FloorEdge.__table__)
_COUNTS: Final = tuple(f.name for f in fields(Totals) if f.name not in ("flagged", "flag"))
_GET_TOTALS: Final = Sql(
    sa.select(*(_FT.c[n] for n in (*_COUNTS, "flagged"))).where(
        _FT.c.table_id == sa.bindparam("tid")
    )
)
_NEW_TOTALS: Final = Sql(
    sa.insert(_FT).values(
        {
            "table_id": sa.bindparam("tid"),
            **{n: sa.bindparam(n, type_=_FT.c[n].type) for n in _COUNTS},
            "flagged": sa.bindparam("flagged", type_=sa.Boolean),
            "flag": sa.bindparam("flag", type_=sa.JSON),
            "updated_at": sa.bindparam("at", type_=sa.Float),
        }
    )
)
_SET_TOTALS: Final = Sql(
    sa.update(_FT)
    .where(_FT.c.table_id == sa.bindparam("tid"))
    .values(
        {
            **{n: sa.bindparam(f"v_{n}", type_=_FT.c[n].type) for n in _COUNTS},
            "updated_at": sa.bindparam("at", type_=sa.Float),
        }
    )
)
_SET_FLAG: Final = Sql(
    sa.update(_FT)
    .where(_FT.c.table_id == sa.bindparam("tid"))
    .values(
        flagged=sa.bindparam("v_flagged", type_=sa.Boolean),
        flag=sa.bindparam("v_flag", type_=sa.JSON),
    )
)
_ADD_POINT: Final = Sql(
    sa.insert(_FP).values(
        {
            n: sa.bindparam(n, type_=_FP.c[n].type)
            for n in ("table_id", "seq", "hands", "handle", "handle_sq", "round_sq", "result")
        }
    )
)
_GET_EDGE: Final = Sql(
    sa.select(_FE.c.status, _FE.c.deals, _FE.c.win, _FE.c.push).where(
        _FE.c.ident == sa.bindparam("i")
    )
)
_READY: dict[tuple[str, str], _Edge] = {}
"""Exact counts known (by database engine and ruleset identity): they never change once ready."""


def _edge(tx: Tx, ident: str) -> _Edge | None:
    key = (tx.database, ident)
    hit = _READY.get(key)
    if hit is not None:
        return hit
    row = tx.first(_GET_EDGE, {"i": ident})
    if row is None:
        return None
    edge = _Edge(str(row[0]), row[1], row[2], row[3])
    if edge.status == "ready":
        if len(_READY) > 1000:
            _READY.clear()
        _READY[key] = edge
    return edge


def _totals(tx: Tx, table_id: int) -> Totals | None:
    row = tx.first(_GET_TOTALS, {"tid": table_id})
    if row is None:
        return None
    counts = {n: int(v) for n, v in zip(_COUNTS, row[:-1], strict=True)}
    return Totals(**counts, flagged=bool(row[-1]))


def _save(tx: Tx, table_id: int, totals: Totals, new: bool) -> None:
    """Write the table's running totals (its first: a new row)."""
    if new:
        values = {n: getattr(totals, n) for n in _COUNTS}
        tx.later(
            _NEW_TOTALS, {"tid": table_id, **values, "flagged": False, "flag": None, "at": now()}
        )
        return
    tx.later(
        _SET_TOTALS,
        {"tid": table_id, "at": now(), **{f"v_{n}": getattr(totals, n) for n in _COUNTS}},
    )


def project(tx: Tx, ended: Sequence[RoundEnded]) -> None:
    """The floor's projector (:class:`paigow.service.store.step.Projector`): each round the
    step ended (settled or voided, in order) added to its table's running totals, in the
    step's transaction (the table's row is locked) before its deferred writes."""
    for end in ended:
        if end.returned is not None:
            record_void(tx, end.table, end.returned)
            continue
        record_settlement(tx, end.table, end.hands)
        if end.side:  # and by side wager
            record_side_settlement(tx, end.table.id, end.side, end.envy)


def record_settlement(tx: Tx, table: TableLike, results: Mapping[int, Any]) -> None:
    """Add a settled round (``results``: spot -> :class:`paigow.settlement.Settlement`) to its
    table's running totals and the chart; flag the table when it leaves its 99.9% band. Called in
    the settlement's transaction (the table's row is locked)."""
    found = _totals(tx, table.id)
    row = found or Totals()
    total = 0
    for r in results.values():
        row.hands += 1
        row.handle += r.wager
        row.handle_sq += r.wager * r.wager
        total += r.wager
        if r.returned == 0:
            row.player_losses += r.wager
        else:
            row.player_wins += r.win
            row.commission += r.commission
    row.rounds += 1
    row.round_sq += total * total
    _save(tx, table.id, row, new=found is None)
    tx.later(
        _ADD_POINT,
        {
            "table_id": table.id,
            "seq": row.rounds,
            "hands": row.hands,
            "handle": row.handle,
            "handle_sq": row.handle_sq,
            "round_sq": row.round_sq,
            "result": result_of(row),
        },
    )
    band = band_for(_edge(tx, table_ident(table)), table.ruleset["commission"])
    change = flag_change(table, row, band, tx.config.floor_flag_min_hands)
    if change is not None:
        outside, figures = change
        tx.later(
            _SET_FLAG,
            {
                "tid": table.id,
                "v_flagged": outside,
                "v_flag": {**figures, "at": now()} if outside else None,
            },
        )
        record(
            tx.session,
            SYSTEM,
            "floor-flag" if outside else "floor-flag-cleared",
            f"table:{table.id}",
            figures,
        )
        notify(tx, table.id, Kind.TABLE)


def record_void(tx: Tx, table: TableLike, returned: int) -> None:
    """Add a voided round and the wagers it returned (in the void's transaction)."""
    found = _totals(tx, table.id)
    row = found or Totals()
    row.voided_rounds += 1
    row.voided_returned += returned
    _save(tx, table.id, row, new=found is None)


def check_flag(session: Session, table: TableLike, row: FloorTable, min_hands: int) -> bool | None:
    """Set or clear the table's flag on its ORM row (audited either way; ``min_hands``: the
    ``floor_flag_min_hands`` setting). None when the theoretical hold is not known yet."""
    band = band_for(session.get(FloorEdge, table_ident(table)), table.ruleset["commission"])
    if band is None or row.handle <= 0:
        return None
    change = flag_change(table, row, band, min_hands)
    if change is None:
        return bool(row.flagged)
    outside, figures = change
    row.flagged = outside
    if outside:
        row.flag = {**figures, "at": now()}
    record(
        session,
        SYSTEM,
        "floor-flag" if outside else "floor-flag-cleared",
        f"table:{table.id}",
        figures,
    )
    return outside


# ------------------------------------------------------------------------------ side wagers
_FS: Final = cast(sa.Table, FloorSideTotal.__table__)
_SIDE_COUNTS: Final = ("wagers", "handle", "handle_sq", "round_sq", "returned", "envy")
_GET_SIDE: Final = Sql(
    sa.select(_FS.c.name, *(_FS.c[n] for n in _SIDE_COUNTS)).where(
        _FS.c.table_id == sa.bindparam("tid")
    )
)
_NEW_SIDE: Final = Sql(
    sa.insert(_FS).values(
        {
            "table_id": sa.bindparam("tid"),
            "name": sa.bindparam("name"),
            **{n: sa.bindparam(n, type_=_FS.c[n].type) for n in _SIDE_COUNTS},
            "updated_at": sa.bindparam("at", type_=sa.Float),
        }
    )
)
_SET_SIDE: Final = Sql(
    sa.update(_FS)
    .where(_FS.c.table_id == sa.bindparam("tid"), _FS.c.name == sa.bindparam("v_name"))
    .values(
        {
            **{n: sa.bindparam(f"v_{n}", type_=_FS.c[n].type) for n in _SIDE_COUNTS},
            "updated_at": sa.bindparam("at", type_=sa.Float),
        }
    )
)


def side_round_totals(
    settled: Mapping[tuple[int, str], Any], envy: Mapping[tuple[int, str], Any]
) -> dict[str, dict[str, int]]:
    """One round's side wagers by name (``settled``: (spot, name) -> an event with ``wager`` and
    ``returned``; ``envy``: (spot, name) -> an event with ``amount``), as the totals add them.

    >>> from types import SimpleNamespace as E
    >>> side_round_totals({(1, "f"): E(wager=500, returned=0), (2, "f"): E(wager=300, returned=900)},
    ...                   {(1, "f"): E(amount=25)})["f"]
    {'wagers': 2, 'handle': 800, 'handle_sq': 340000, 'round_sq': 640000, 'returned': 900, 'envy': 25}
    """
    out: dict[str, dict[str, int]] = {}
    for (_spot, name), ev in settled.items():
        f = out.setdefault(name, dict.fromkeys(_SIDE_COUNTS, 0))
        f["wagers"] += 1
        f["handle"] += int(ev.wager)
        f["handle_sq"] += int(ev.wager) ** 2
        f["returned"] += int(ev.returned)
    for (_spot, name), ev in envy.items():
        out.setdefault(name, dict.fromkeys(_SIDE_COUNTS, 0))["envy"] += int(ev.amount)
    for f in out.values():
        f["round_sq"] = f["handle"] ** 2
    return out


def record_side_settlement(
    tx: Tx,
    table_id: int,
    settled: Mapping[tuple[int, str], Any],
    envy: Mapping[tuple[int, str], Any],
) -> None:
    """Add a round's settled side wagers to the table's running totals by wager type (in the
    settlement's transaction: the table's row is locked)."""
    add = side_round_totals(settled, envy)
    if not add:
        return
    now_ = now()
    have = {str(r[0]): r[1:] for r in tx.run(_GET_SIDE, {"tid": table_id})}
    for name, f in sorted(add.items()):
        old = have.get(name)
        if old is None:
            tx.later(_NEW_SIDE, {"tid": table_id, "name": name, **f, "at": now_})
            continue
        new = {f"v_{n}": int(v) + f[n] for n, v in zip(_SIDE_COUNTS, old, strict=True)}
        tx.later(_SET_SIDE, {"tid": table_id, "v_name": name, **new, "at": now_})
