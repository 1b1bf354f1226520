"""The floor's statistics: the exact theoretical hold of a table's ruleset, the band its hands
allow, and the rule that flags a table. Pure: no database, no I/O.

**Figures** (integer cents, running totals kept in ``floor_tables`` by
:mod:`paigow.service.floor.totals`, updated in the same transaction as each settlement or void, so
reading the floor never scans rounds): rounds and hands (settled wagers) played, handle (the sum
of settled wagers), player wins (what the bank paid on winning wagers, before commission), player
losses (wagers the bank took), commission, house result ``= losses - wins + commission`` and the
actual hold ``= result / handle``.

**Theoretical hold** of a table's ruleset for house-way play: from the exact counts of house way
against house way over all 8,250,459,031,214,400 deals (:mod:`paigow.analysis.edge`; they depend on
the house way, the wheel and the push rule only: a push rule's counts are the exact ones of
:func:`paigow.analysis.edge.house_way_edge` with it, the deals it pushes among the pushes), at
the table's commission rate ``c``: with ``pW, pP, pL`` the
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
**flagged** when, after at least ``floor_flag_min_hands`` hands (default 100), its hold lies
outside ``mu +- 3.290527`` times this bound (the 99.9% band, never narrower than the truth): a
possible malfunction or cheating. Both bands use the normal approximation to the sum of many
hands (rounds are independent: each has a fresh shuffle). Players who set their hands otherwise
than the house way move the expected hold: fouls and poor settings up, better settings down (the
optimal player's edge, shown when known, is its floor).

The exact counts of a (house way, wheel) not analysed yet are computed in the background (see
:class:`paigow.service.floor.edges.EdgeWorker`) and cached in ``floor_edges``; until then the
table shows ``computing``.

>>> band = Band.of(Fraction(2358120164000604, 8250459031214400), Fraction(3427552624666108, 8250459031214400), Fraction(1, 20))
>>> band.mean_text()[:10], band.sigma.quantize(Decimal("0.000001"))
('0.02721934', Decimal('0.745623'))
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, Final, Protocol

from paigow.commission import Commission
from paigow.service.store.step import EndedTable

Z95: Final = Decimal("1.959963984540054")
Z999: Final = Decimal("3.290526731491926")
DEC: Final = Context(prec=40)
PLACES: Final = Decimal("0.00000001")


def as_decimal(x: Fraction) -> Decimal:
    """An exact fraction as a decimal (40 significant digits).

    >>> as_decimal(Fraction(1, 8))
    Decimal('0.125')
    """
    return DEC.divide(Decimal(x.numerator), Decimal(x.denominator))


def hold_text(x: Fraction) -> dict[str, str]:
    """An exact hold as a fraction and as a decimal string (8 places).

    >>> hold_text(Fraction(1, 8))
    {'exact': '1/8', 'decimal': '0.12500000'}
    """
    return {"exact": str(x), "decimal": str(as_decimal(x).quantize(PLACES))}


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
        return as_decimal(self.variance).sqrt(DEC)

    def mean_text(self) -> str:
        return str(as_decimal(self.mean).quantize(PLACES))

    def half_width(self, z: Decimal, sum_sq: int, handle: int) -> Decimal:
        """``z sigma sqrt(sum_sq) / handle``."""
        if handle <= 0:
            return Decimal("Infinity")
        return DEC.divide(
            DEC.multiply(DEC.multiply(z, self.sigma), Decimal(sum_sq).sqrt(DEC)), Decimal(handle)
        )

    def interval(self, z: Decimal, sum_sq: int, handle: int) -> tuple[Decimal, Decimal]:
        w = self.half_width(z, sum_sq, handle)
        m = as_decimal(self.mean)
        return m - w, m + w


def decimal_text(x: Decimal) -> str:
    """A decimal to 8 places (``Infinity`` for an unbounded band).

    >>> decimal_text(Decimal(1) / 3), decimal_text(Decimal("Infinity"))
    ('0.33333333', 'Infinity')
    """
    return str(x.quantize(PLACES)) if x.is_finite() else "Infinity"


# ------------------------------------------------------------------------------ ruleset identity
def edge_ident(house_way: Mapping[str, Any], wheel: str, push: str = "none") -> str:
    """The identity of the exact counts a table needs: its house way's parameters, wheel and
    push rule (a table without one keeps the identity it had before push rules existed).

    >>> len(edge_ident({"name": "standard"}, "second"))
    32
    >>> edge_ident({"name": "standard"}, "second") == edge_ident({"name": "standard"}, "second", "none")
    True
    >>> edge_ident({"name": "standard"}, "second") == edge_ident({"name": "standard"}, "second", "nine-high-low")
    False
    """
    key: dict[str, Any] = {"house_way": house_way, "wheel": wheel}
    if push != "none":
        key["push"] = push
    text = json.dumps(key, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


TableLike = EndedTable
"""What the floor reads of a table: its id, ruleset and house way (a
:class:`~paigow.service.store.db.GameTable` row, or the configuration a round's step caches): the
store's :class:`~paigow.service.store.step.EndedTable`, one protocol for both."""


def table_push(table: TableLike) -> str:
    """The table's push rule (a :class:`paigow.ruleset.PushRule` value; ``none`` without one)."""
    return str(table.ruleset.get("push", "none"))


def table_ident(table: TableLike) -> str:
    return edge_ident(table.house_way, str(table.ruleset["wheel"]), table_push(table))


# ------------------------------------------------------------------------------ the band and the flag
class EdgeLike(Protocol):
    """What :func:`band_for` reads of a ruleset's exact counts (a
    :class:`~paigow.service.store.floor_models.FloorEdge` row)."""

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


class TotalsLike(Protocol):
    """What the flag reads of a table's running totals (a
    :class:`~paigow.service.store.floor_models.FloorTable` row or
    :class:`~paigow.service.floor.totals.Totals`)."""

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
    table: TableLike, row: TotalsLike, band: Band | None, min_hands: int
) -> tuple[bool, dict[str, Any]] | None:
    """Whether the table's flag must change (outside its 99.9% band after ``min_hands`` hands,
    the ``floor_flag_min_hands`` setting, or back inside), with the figures to record; None: no
    change (or the theoretical hold is not known yet)."""
    if band is None or row.handle <= 0:
        return None
    lo, hi = band.interval(Z999, row.round_sq, row.handle)
    hold = Fraction(result_of(row), row.handle)
    outside = row.hands >= min_hands and not lo <= as_decimal(hold) <= hi
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
        "band_999": [decimal_text(lo), decimal_text(hi)],
        "commission": table.ruleset["commission"],
    }
    return outside, figures
