"""The operator's floor: each open table's figures against the exact theoretical hold of its
ruleset, with the band its hands allow.

**Figures** (integer cents, running totals kept in :class:`FloorTable`, updated in the same
transaction as each settlement or void, so reading the floor never scans rounds): rounds and
hands (settled wagers) played, handle (the sum of settled wagers), player wins (what the bank paid
on winning wagers, before commission), player losses (wagers the bank took), commission, house
result ``= losses - wins + commission`` and the actual hold ``= result / handle``.

**Theoretical hold** of a table's ruleset for house-way play: from the exact counts of house way
against house way over all 8,250,459,031,214,400 deals (:mod:`paigow.analysis.edge`; they depend on
the house way and the wheel only), at the table's commission rate ``c``: with ``pW, pP, pL`` the
exact win, push and loss probabilities, the house's gain per unit wagered on one hand is ``X = +1``
(loss), ``0`` (push) or ``-(1 - c)`` (win), so

    mean  mu      = pL - pW (1 - c)                      (the house edge, an exact fraction)
    var   sigma^2 = pL + pW (1 - c)^2 - mu^2

**Band.** After hands with wagers ``w_i`` the hold is ``sum(w_i X_i) / sum(w_i)``. Were the hands
independent its standard deviation would be ``sigma sqrt(sum w_i^2) / sum w_i`` (``sigma /
sqrt(n)`` for equal wagers): the **95% band** shown is ``mu +- 1.959964`` times that. Hands of one
round share the dealer's hand, so they are positively correlated; by Cauchy-Schwarz their
round's sum has a standard deviation at most ``sigma W_r`` (``W_r`` the round's total wager), so
``sigma sqrt(sum W_r^2) / sum w_i`` bounds the hold's spread whatever the correlation. A table is
**flagged** when, after at least ``PAIGOW_FLOOR_FLAG_MIN_HANDS`` hands (default 100), its hold lies
outside ``mu +- 3.290527`` times this bound (the 99.9% band, never narrower than the truth): a
possible malfunction or cheating. Both bands use the normal approximation to the sum of many
hands (rounds are independent: each has a fresh shuffle). Players who set their hands otherwise
than the house way move the expected hold: fouls and poor settings up, better settings down (the
optimal player's edge, shown when known, is its floor).

The exact counts of a (house way, wheel) not analysed yet are computed in the background (see
:class:`EdgeWorker`) and cached in ``floor_edges``; until then the table shows ``computing``.

>>> band = Band.of(Fraction(2358120164000604, 8250459031214400), Fraction(3427552624666108, 8250459031214400), Fraction(1, 20))
>>> band.mean_text()[:10], band.sigma.quantize(Decimal("0.000001"))
('0.02721934', Decimal('0.745623'))
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, fields
from decimal import Context, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Final, Protocol, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.commission import Commission
from paigow.service.books.audit import record
from paigow.service.orphans import exit_with_parent
from paigow.service.statuses import TableStatus
from paigow.service.store.bus import notify
from paigow.service.store.db import Database, GameTable, Seat, User, now
from paigow.service.store.floor_models import FloorEdge, FloorPoint, FloorTable
from paigow.service.store.sql import Sql, Tx

log = logging.getLogger("paigow.service.floor.stats")

Z95: Final = Decimal("1.959963984540054")
Z999: Final = Decimal("3.290526731491926")
DEC: Final = Context(prec=40)
PLACES: Final = Decimal("0.00000001")
SYSTEM: Final = "floor"
RETRY_FAILED_S: Final = 600.0
"""A failed computation of an exact edge is tried again by a floor view this much later."""


def flag_min_hands() -> int:
    """Hands a table must have played before it can be flagged (``PAIGOW_FLOOR_FLAG_MIN_HANDS``)."""
    return int(os.environ.get("PAIGOW_FLOOR_FLAG_MIN_HANDS", "100"))


def _dec(x: Fraction) -> Decimal:
    return DEC.divide(Decimal(x.numerator), Decimal(x.denominator))


def hold_text(x: Fraction) -> dict[str, str]:
    """An exact hold as a fraction and as a decimal string (8 places).

    >>> hold_text(Fraction(1, 8))
    {'exact': '1/8', 'decimal': '0.12500000'}
    """
    return {"exact": str(x), "decimal": str(_dec(x).quantize(PLACES))}


@dataclass(frozen=True)
class Band:
    """The per-hand distribution of the house's gain per unit wagered (house-way play)."""

    mean: Fraction
    variance: Fraction

    @classmethod
    def of(cls, p_win: Fraction, p_push: Fraction, rate: Fraction) -> Band:
        p_loss = 1 - p_win - p_push
        mean = p_loss - p_win * (1 - rate)
        second = p_loss + p_win * (1 - rate) ** 2
        return cls(mean, second - mean * mean)

    @property
    def sigma(self) -> Decimal:
        return _dec(self.variance).sqrt(DEC)

    def mean_text(self) -> str:
        return str(_dec(self.mean).quantize(PLACES))

    def half_width(self, z: Decimal, sum_sq: int, handle: int) -> Decimal:
        """``z sigma sqrt(sum_sq) / handle``."""
        if handle <= 0:
            return Decimal("Infinity")
        return DEC.divide(
            DEC.multiply(DEC.multiply(z, self.sigma), Decimal(sum_sq).sqrt(DEC)), Decimal(handle)
        )

    def interval(self, z: Decimal, sum_sq: int, handle: int) -> tuple[Decimal, Decimal]:
        w = self.half_width(z, sum_sq, handle)
        m = _dec(self.mean)
        return m - w, m + w


def _q(x: Decimal) -> str:
    return str(x.quantize(PLACES)) if x.is_finite() else "Infinity"


# ------------------------------------------------------------------------------ ruleset identity
def edge_ident(house_way: Mapping[str, Any], wheel: str) -> str:
    """The identity of the exact counts a table needs: its house way's parameters and wheel.

    >>> len(edge_ident({"name": "standard"}, "second"))
    32
    """
    text = json.dumps({"house_way": house_way, "wheel": wheel}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class TableLike(Protocol):
    """What the floor reads of a table: its id, ruleset and house way (a :class:`GameTable`
    row, or the configuration a round's step caches)."""

    @property
    def id(self) -> int: ...
    @property
    def ruleset(self) -> Any: ...
    @property
    def house_way(self) -> Any: ...


def table_ident(table: TableLike) -> str:
    return edge_ident(table.house_way, str(table.ruleset["wheel"]))


# ------------------------------------------------------------------------------ settlement hooks
class EdgeLike(Protocol):
    """What :func:`band_for` reads of a ruleset's exact counts (a :class:`FloorEdge` row)."""

    @property
    def status(self) -> str: ...
    @property
    def deals(self) -> int | None: ...
    @property
    def win(self) -> int | None: ...
    @property
    def push(self) -> int | None: ...


def band_for(edge: EdgeLike | None, commission: str) -> Band | None:
    """The band of a ruleset at ``commission`` once its exact counts are known."""
    if edge is None or edge.status != "ready" or not edge.deals:
        return None
    rate = Commission(commission).rate
    return Band.of(Fraction(edge.win or 0, edge.deals), Fraction(edge.push or 0, edge.deals), rate)


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
_READY: dict[tuple[Any, str], _Edge] = {}
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
    change = flag_change(
        table, row, band_for(_edge(tx, table_ident(table)), table.ruleset["commission"])
    )
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
        notify(tx, table.id, "table")


def record_void(tx: Tx, table: TableLike, returned: int) -> None:
    """Add a voided round and the wagers it returned (in the void's transaction)."""
    found = _totals(tx, table.id)
    row = found or Totals()
    row.voided_rounds += 1
    row.voided_returned += returned
    _save(tx, table.id, row, new=found is None)


class TotalsLike(Protocol):
    """What the flag reads of a table's running totals (a :class:`FloorTable` row or
    :class:`Totals`)."""

    rounds: int
    hands: int
    handle: int
    round_sq: int
    player_wins: int
    player_losses: int
    commission: int
    flagged: bool


def result_of(row: TotalsLike) -> int:
    """The house's result at a table: losses taken, less wins paid, plus commission."""
    return row.player_losses - row.player_wins + row.commission


def flag_change(
    table: TableLike, row: TotalsLike, band: Band | None
) -> tuple[bool, dict[str, Any]] | None:
    """Whether the table's flag must change (outside its 99.9% band after enough hands, or back
    inside), with the figures to record; None: no change (or the theoretical hold is not known
    yet)."""
    if band is None or row.handle <= 0:
        return None
    lo, hi = band.interval(Z999, row.round_sq, row.handle)
    hold = Fraction(result_of(row), row.handle)
    outside = row.hands >= flag_min_hands() and not lo <= _dec(hold) <= hi
    if outside == row.flagged:
        return None
    figures = {
        "table_id": table.id,
        "rounds": row.rounds,
        "hands": row.hands,
        "handle": row.handle,
        "house_result": result_of(row),
        "actual_hold": hold_text(hold),
        "theoretical_hold": hold_text(band.mean),
        "band_999": [_q(lo), _q(hi)],
        "commission": table.ruleset["commission"],
    }
    return outside, figures


def check_flag(session: Session, table: TableLike, row: FloorTable) -> bool | None:
    """Set or clear the table's flag on its ORM row (audited either way). None when the
    theoretical hold is not known yet."""
    band = band_for(session.get(FloorEdge, table_ident(table)), table.ruleset["commission"])
    if band is None or row.handle <= 0:
        return None
    change = flag_change(table, row, band)
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


# ------------------------------------------------------------------------------ the view
def _table_figures(
    t: GameTable, row: FloorTable | None, edge: FloorEdge | None, players: Sequence[str]
) -> dict[str, Any]:
    rounds = hands = handle = wins = losses = commission = voided = returned = 0
    handle_sq = round_sq = 0
    flagged, flag = False, None
    if row is not None:
        rounds, hands, handle = row.rounds, row.hands, row.handle
        wins, losses, commission = row.player_wins, row.player_losses, row.commission
        voided, returned = row.voided_rounds, row.voided_returned
        handle_sq, round_sq = row.handle_sq, row.round_sq
        flagged, flag = row.flagged, row.flag
    result = losses - wins + commission
    out: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "mode": t.mode,
        "house_way": t.house_way["name"],
        "wheel": t.ruleset["wheel"],
        "commission": t.ruleset["commission"],
        "commission_posted": str(Commission(t.ruleset["commission"])),
        "players": list(players),
        "rounds": rounds,
        "hands": hands,
        "handle": handle,
        "player_wins": wins,
        "player_losses": losses,
        "commission_taken": commission,
        "house_result": result,
        "voided_rounds": voided,
        "voided_returned": returned,
        "actual_hold": hold_text(Fraction(result, handle)) if handle else None,
        "flagged": flagged,
        "flag": flag if flagged else None,
    }
    band = band_for(edge, t.ruleset["commission"])
    if band is None:
        out["theoretical"] = {
            "status": "failed" if edge is not None and edge.status == "failed" else "computing",
            "error": edge.error if edge is not None else None,
        }
        out["band_95"] = out["band_999"] = None
        out["inside_95"] = None
        return out
    out["theoretical"] = {
        "status": "ready",
        "house_way_hold": hold_text(band.mean),
        "sigma_per_hand": _q(band.sigma),
        "optimal_hold": _optimal(edge, t.ruleset["commission"]),
    }
    if handle:
        lo95, hi95 = band.interval(Z95, handle_sq, handle)
        lo999, hi999 = band.interval(Z999, round_sq, handle)
        out["band_95"] = [_q(lo95), _q(hi95)]
        out["band_999"] = [_q(lo999), _q(hi999)]
        out["inside_95"] = bool(lo95 <= _dec(Fraction(result, handle)) <= hi95)
    else:
        out["band_95"] = out["band_999"] = None
        out["inside_95"] = None
    return out


def _optimal(edge: FloorEdge | None, commission: str) -> dict[str, str] | None:
    if edge is None or not edge.optimal:
        return None
    rate = str(Commission(commission).rate)
    found = edge.optimal.get(rate)
    if not found:
        return None
    return hold_text(Fraction(found))


def floor_view(session: Session, include_closed: bool = False) -> dict[str, Any]:
    """Every open (or closing) table's figures, and the totals: a handful of indexed reads.
    ``include_closed``: closed tables too."""
    q = (
        sa.select(GameTable, FloorTable)
        .outerjoin(FloorTable, FloorTable.table_id == GameTable.id)
        .order_by(GameTable.id)
    )
    if not include_closed:
        q = q.where(GameTable.status != TableStatus.CLOSED)
    tables = list(session.execute(q).all())
    players: dict[int, list[str]] = {}
    for table_id, _spot, name in session.execute(
        sa.select(Seat.table_id, Seat.spot, User.username)
        .join(User, User.id == Seat.user_id)
        .join(GameTable, GameTable.id == Seat.table_id)
        .where(GameTable.status != TableStatus.CLOSED)
        .order_by(Seat.table_id, Seat.spot)
    ):
        players.setdefault(table_id, []).append(name)
    edges = {e.ident: e for e in session.execute(sa.select(FloorEdge)).scalars()}
    out_tables = []
    missing: dict[str, tuple[dict[str, Any], str]] = {}
    for t, row in tables:
        ident = table_ident(t)
        edge = edges.get(ident)
        if edge is None or edge.status != "ready":
            missing[ident] = (dict(t.house_way), str(t.ruleset["wheel"]))
        out_tables.append(_table_figures(t, row, edge, players.get(t.id, [])))
    totals: dict[str, Any] = {
        k: sum(int(x[k]) for x in out_tables)
        for k in (
            "rounds",
            "hands",
            "handle",
            "player_wins",
            "player_losses",
            "commission_taken",
            "house_result",
            "voided_rounds",
            "voided_returned",
        )
    }
    totals["actual_hold"] = (
        hold_text(Fraction(totals["house_result"], totals["handle"])) if totals["handle"] else None
    )
    return {
        "at": now(),
        "tables": out_tables,
        "totals": totals,
        "flagged": [x["id"] for x in out_tables if x["flagged"]],
        "flag_min_hands": flag_min_hands(),
        "_missing_edges": missing,
    }


def chart(session: Session, table: GameTable, max_points: int = 240) -> dict[str, Any]:
    """Actual hold against hands played after each settled round (at most ``max_points``
    evenly spaced rounds, the latest always included) with both bands at each point."""
    row = session.get(FloorTable, table.id)
    count = row.rounds if row is not None else 0
    step = max(1, -(-count // max_points))
    q = sa.select(FloorPoint).where(FloorPoint.table_id == table.id)
    if step > 1:
        q = q.where(sa.or_(FloorPoint.seq % step == 0, FloorPoint.seq == count))
    points = session.execute(q.order_by(FloorPoint.seq)).scalars().all()
    band = band_for(session.get(FloorEdge, table_ident(table)), table.ruleset["commission"])
    out = []
    for p in points:
        item: dict[str, Any] = {
            "round": p.seq,
            "hands": p.hands,
            "handle": p.handle,
            "result": p.result,
            "hold": _q(_dec(Fraction(p.result, p.handle))) if p.handle else None,
        }
        if band is not None and p.handle:
            item["band_95"] = [_q(x) for x in band.interval(Z95, p.handle_sq, p.handle)]
            item["band_999"] = [_q(x) for x in band.interval(Z999, p.round_sq, p.handle)]
        out.append(item)
    return {
        "table_id": table.id,
        "name": table.name,
        "theoretical": None if band is None else hold_text(band.mean),
        "points": out,
        "flagged": bool(row.flagged) if row is not None else False,
    }


# ------------------------------------------------------------------------------ the background edge
def compute_edge_counts(house_way_json: str, wheel: str, workers: int = 2) -> dict[str, Any]:
    """In a worker process: compile the house way if needed and count house way against house
    way over every deal exactly (:func:`paigow.analysis.edge.house_way_edge`); add the optimal
    player's saved edges (by commission rate) when ``paigow edge --player optimal`` left them."""
    from paigow.analysis import edge as E
    from paigow.analysis.compiled import cache_dir
    from paigow.analysis.runner import Runner, TableSpec
    from paigow.house_way import HouseWay
    from paigow.ranking import Wheel

    way = HouseWay.from_dict(json.loads(house_way_json))
    spec = TableSpec.of(way, Wheel(wheel))
    spec.open()
    result = E.house_way_edge(spec, Runner(workers=workers))
    return {
        "deals": result.deals,
        "win": result.win,
        "push": result.push,
        "loss": result.loss,
        "optimal": saved_optimal(cache_dir(), way.to_dict(), wheel),
    }


def saved_optimal(folder: Path, house_way: Mapping[str, Any], wheel: str) -> dict[str, str] | None:
    """The optimal player's exact edge by commission rate, from the result ``paigow edge
    --player optimal`` saved in ``folder`` for this house way and wheel (None if there is none)."""
    saved = folder / f"edge-{house_way.get('name')}-{wheel}-optimal.json"
    if not saved.exists():
        return None
    try:
        data = json.loads(saved.read_text())
        if data.get("house_way") != dict(house_way) or data.get("wheel") != wheel:
            return None
        return {str(Commission(data["commission"]).rate): str(Fraction(data["house_edge_exact"]))}
    except (ValueError, KeyError, TypeError, ArithmeticError):
        return None


class EdgeWorker:
    """Runs :func:`compute_edge_counts` in one worker process (``spawn``: never on the event loop,
    never in a request's thread) and stores the result in ``floor_edges``. One per server
    process; a ruleset already being computed here is not submitted twice."""

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._running: dict[str, Future[dict[str, Any]]] = {}

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
        return self._pool

    def running(self, ident: str) -> bool:
        with self._lock:
            return ident in self._running

    def ensure(self, db: Database, missing: Mapping[str, tuple[dict[str, Any], str]]) -> None:
        """Start computing every ruleset of ``missing`` not computed yet nor running here (one
        that failed, again after :data:`RETRY_FAILED_S`)."""
        for ident, (way, wheel) in missing.items():
            with self._lock:
                if ident in self._running:
                    continue
                with db.write() as s:
                    edge = s.get(FloorEdge, ident)
                    if edge is not None and edge.status == "ready":
                        continue
                    if (
                        edge is not None
                        and edge.status == "failed"
                        and now() - (edge.finished_at or 0.0) < RETRY_FAILED_S
                    ):
                        continue
                    if edge is not None:
                        edge.status, edge.error = "computing", None
                    if edge is None:
                        s.add(
                            FloorEdge(
                                ident=ident,
                                house_way=way,
                                wheel=wheel,
                                status="computing",
                                started_at=now(),
                            )
                        )
                    else:
                        edge.started_at = now()
                fut = self._executor().submit(
                    compute_edge_counts, json.dumps(way, sort_keys=True), wheel, self.workers
                )
                self._running[ident] = fut
            fut.add_done_callback(functools.partial(self._done, db, ident))

    def _done(self, db: Database, ident: str, fut: Future[dict[str, Any]]) -> None:
        try:
            try:
                counts = fut.result()
                error = None
            except Exception as exc:  # the worker failed: shown, and retried on demand
                counts, error = None, f"{type(exc).__name__}: {exc}"
                log.warning("exact edge %s failed: %s", ident, error)
            with db.write() as s:
                edge = s.get(FloorEdge, ident)
                if edge is None:
                    return
                if counts is None:
                    edge.status, edge.error, edge.finished_at = "failed", error, now()
                    return
                store_counts(s, ident, edge.house_way, edge.wheel, counts)
        except Exception:
            log.exception("storing the exact edge %s", ident)
        finally:
            with self._lock:
                self._running.pop(ident, None)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def store_counts(
    session: Session,
    ident: str,
    house_way: Mapping[str, Any],
    wheel: str,
    counts: Mapping[str, Any],
) -> None:
    """Keep the exact counts of a ruleset (from :func:`compute_edge_counts`) and re-check the
    flags of its tables."""
    edge = session.get(FloorEdge, ident)
    if edge is None:
        edge = FloorEdge(ident=ident, house_way=dict(house_way), wheel=wheel, started_at=now())
        session.add(edge)
    edge.status, edge.error, edge.finished_at = "ready", None, now()
    edge.deals, edge.win = int(counts["deals"]), int(counts["win"])
    edge.push, edge.loss = int(counts["push"]), int(counts["loss"])
    edge.optimal = counts.get("optimal")
    session.flush()
    _recheck(session, ident)


def _recheck(session: Session, ident: str) -> None:
    """Flags of every open table of a ruleset whose exact edge has just become known."""
    for t, row in session.execute(
        sa.select(GameTable, FloorTable)
        .join(FloorTable, FloorTable.table_id == GameTable.id)
        .where(GameTable.status != TableStatus.CLOSED)
    ).all():
        if table_ident(t) == ident:
            check_flag(session, t, row)


_worker: EdgeWorker | None = None
_worker_lock = threading.Lock()


def edge_worker() -> EdgeWorker:
    """This process's :class:`EdgeWorker`."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = EdgeWorker()
        return _worker


def wait_for_edges(db: Database, timeout: float = 300.0) -> None:
    """Block until no ruleset is computing here (tests, the CLI)."""
    deadline = time.monotonic() + timeout
    w = edge_worker()
    while time.monotonic() < deadline:
        with w._lock:
            if not w._running:
                return
        time.sleep(0.1)
    raise TimeoutError("the exact edges are still computing")
