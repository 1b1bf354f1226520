"""The floor's side wagers: per table and per side wager, the handle, what the wagers returned,
the Envy paid and the house's result, beside the **exact theoretical hold** of the offer's pay
table and its band.

**Theoretical hold** of a side wager: ``1 - R`` with ``R`` the pay table's exact return per unit
wagered over every hand (:func:`paigow.analysis.bonus_return.analyze`, from the exact bonus counts
of the table's house way, :func:`paigow.analysis.bonus_counts.open_counts`, counted in the background
once and cached on disk beside the house way), at the offer's smallest wager and, for a
progressive, at the bank's meter now. Envy (paid on *other* players' hands, so its value depends
on who sits at the table) is outside it: shown as its own figure, and the hold compared with the
band is the pay table's own, ``(handle - returned) / handle``.

**Variance** per unit wagered from the exact pay distribution: the house gains ``+1`` on a hand
the table does not pay and ``-v_c`` (the win per unit) on a hand paid as category ``c``, so
``sigma^2 = p_0 + sum p_c v_c^2 - mu^2``. The bands are those of the main wager
(:mod:`paigow.service.floor.hold`): ``mu +- z sigma sqrt(sum w^2) / sum w``; bets on the dealer's
hand settle every spot on the same seven cards, so their band takes each round's total wager
(``sum W_r^2``), never narrower than the truth.

>>> t = Theory.of([(Fraction(1, 10), Fraction(5))], Fraction(9, 10))  # pays 5 to 1 one time in 10
>>> t.hold, t.band.variance
(Fraction(2, 5), Fraction(81, 25))
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.bonus.paytable import PayTable, Target
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import Ruleset, SideWagerOffer
from paigow.service.floor.hold import Z95, Band, as_decimal, decimal_text, hold_text
from paigow.service.store.bonus_models import meter_totals
from paigow.service.store.floor_models import FloorSideTotal

log = logging.getLogger("paigow.service.floor.side_holds")


@dataclass(frozen=True)
class Theory:
    """A side wager's exact hold and the distribution of the house's gain per unit wagered."""

    hold: Fraction
    band: Band
    paid_return: Fraction

    @classmethod
    def of(cls, paid: Iterable[tuple[Fraction, Fraction]], p_lose: Fraction) -> Theory:
        """From each paid category's (probability, win per unit) and the probability of a hand
        the table does not pay."""
        lines = list(paid)
        mean = p_lose - sum((p * v for p, v in lines), Fraction(0))
        second = p_lose + sum((p * v * v for p, v in lines), Fraction(0))
        return cls(mean, Band(mean, second - mean * mean), -mean)


_theories: dict[tuple[str, int, int | None, int], Theory] = {}
_MAX_THEORIES = 4096


def theory_from_counts(
    table: PayTable, counts: Any, wager: int, meter: int | None = None
) -> Theory:
    """The exact hold of ``table`` at ``wager`` cents (and ``meter``) from the bonus counts
    (kept: the floor asks for the same ones at every look)."""
    key = (json.dumps(table.to_dict(), sort_keys=True), wager, meter, id(counts))
    with _counts_lock:
        hit = _theories.get(key)
    if hit is not None:
        return hit
    theory = _theory(table, counts, wager, meter)
    with _counts_lock:
        if len(_theories) >= _MAX_THEORIES:
            _theories.clear()
        _theories[key] = theory
    return theory


def _theory(table: PayTable, counts: Any, wager: int, meter: int | None) -> Theory:
    from paigow.analysis.bonus_return import analyze

    a = analyze(table, counts, wager=wager, meter=meter)
    paid = [(Fraction(line.hands, a.hands), line.win) for line in a.lines if line.hands]
    return Theory.of(paid, Fraction(a.hands - a.paid_hands, a.hands))


# ------------------------------------------------------------------------------ the bonus counts
_counts: dict[tuple[str, str], Any] = {}
_counts_lock = threading.Lock()


def cached_counts(way: HouseWay, wheel: str) -> Any | None:
    """The bonus counts of ``way`` under ``wheel`` if they are on disk (read once per process),
    else None (then :func:`paigow.service.floor.edges.EdgeWorker.ensure_bonus` counts them)."""
    from paigow.analysis.bonus_counts import counts_path, open_counts

    key = (way.digest, wheel)  # a house way is known by the digest of its rules
    with _counts_lock:
        if key in _counts:
            return _counts[key]
    key = (str(counts_path(way, Wheel(wheel))), wheel)
    with _counts_lock:
        if key in _counts:
            return _counts[key]
    try:
        counts = open_counts(way, Wheel(wheel), build_missing=False)
    except Exception:  # missing or stale: counted in the background
        return None
    with _counts_lock:
        _counts[key] = _counts[(way.digest, wheel)] = counts
    return counts


# ------------------------------------------------------------------------------ the figures
@dataclass
class SideTotals:
    """A side wager's figures at one table (integer cents)."""

    wagers: int = 0
    handle: int = 0
    returned: int = 0
    envy_paid: int = 0
    handle_sq: int = 0
    round_sq: int = 0

    @property
    def result(self) -> int:
        """The house's result: wagers less what they returned and the Envy paid."""
        return self.handle - self.returned - self.envy_paid

    @property
    def own_result(self) -> int:
        """The pay table's own result (Envy apart): what the band is about."""
        return self.handle - self.returned


def side_totals(session: Session, table_ids: Iterable[int]) -> dict[int, dict[str, SideTotals]]:
    """The tables' running totals by wager name (``floor_side_totals``: one indexed read, never
    a scan of rounds)."""
    ids = list(table_ids)
    out: dict[int, dict[str, SideTotals]] = {}
    if not ids:
        return out
    q = sa.select(FloorSideTotal).where(FloorSideTotal.table_id.in_(ids))
    for r in session.execute(q).scalars():
        out.setdefault(int(r.table_id), {})[str(r.name)] = SideTotals(
            r.wagers, r.handle, r.returned, r.envy, r.handle_sq, r.round_sq
        )
    return out


def meters(session: Session) -> dict[str, int]:
    """Every progressive bank's meter now (cents)."""
    return {str(b): int(m) for b, m, _v in session.execute(meter_totals())}


_offers: dict[str, tuple[SideWagerOffer, ...]] = {}


def offers_of(ruleset: Mapping[str, Any]) -> tuple[SideWagerOffer, ...]:
    """A table's side-wager offers from its recorded ruleset (parsed once per process)."""
    if not ruleset.get("side_wagers"):
        return ()
    key = json.dumps(ruleset["side_wagers"], sort_keys=True)
    found = _offers.get(key)
    if found is None:
        if len(_offers) > 1024:
            _offers.clear()
        found = _offers[key] = Ruleset.from_dict(dict(ruleset)).side_wagers
    return found


def side_figures(
    offer: SideWagerOffer,
    totals: SideTotals | None,
    way: HouseWay,
    wheel: str,
    meter_now: Mapping[str, int],
) -> dict[str, Any]:
    """One side wager's line on the floor: figures, actual hold, theoretical hold and band
    (``theoretical.status``: ``ready``, or ``computing`` while the bonus counts are counted)."""
    t = totals or SideTotals()
    table = offer.table
    meter = meter_now.get(offer.bank) if offer.bank is not None else None
    out: dict[str, Any] = {
        "name": offer.name,
        "title": table.title,
        "paytable": table.name,
        "target": table.target.value,
        "bank": offer.bank,
        "meter": meter,
        "wagers": t.wagers,
        "handle": t.handle,
        "returned": t.returned,
        "envy_paid": t.envy_paid,
        "house_result": t.result,
        "actual_hold": hold_text(Fraction(t.own_result, t.handle)) if t.handle else None,
        "band_95": None,
    }
    counts = cached_counts(way, wheel)
    if counts is None:
        out["theoretical"] = {"status": "computing"}
        return out
    try:
        theory = theory_from_counts(table, counts, offer.min_wager, meter)
    except Exception as exc:  # a pay table the analysis cannot take: said, never a 500
        log.warning("theoretical hold of %s: %s", offer.name, exc)
        out["theoretical"] = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
        return out
    out["theoretical"] = {
        "status": "ready",
        "hold": hold_text(theory.hold),
        "return": hold_text(1 - theory.hold),
        "sigma_per_unit": decimal_text(theory.band.sigma),
        "at_wager": offer.min_wager,
        "at_meter": meter,
    }
    if t.handle:
        sq = t.round_sq if table.target is not Target.PLAYER else t.handle_sq
        lo, hi = theory.band.interval(Z95, sq, t.handle)
        out["band_95"] = [decimal_text(lo), decimal_text(hi)]
        out["inside_95"] = bool(lo <= as_decimal(Fraction(t.own_result, t.handle)) <= hi)
    return out


# ------------------------------------------------------------------------------ posted returns
_analyses: dict[tuple[str, int, int | None, int], Any] = {}


def offer_returns(
    offers: Iterable[SideWagerOffer], way: HouseWay, wheel: str, meter_now: Mapping[str, int]
) -> list[dict[str, Any]] | None:
    """Each offer's exact return per unit wagered, as a practice table posts it beside the pay
    table: at the offer's smallest wager (and a progressive's meter now), with Envy's value per
    other player and a progressive's break-even meter; None while the house way's bonus counts
    are not on disk (:meth:`paigow.service.floor.edges.EdgeWorker.ensure_bonus` counts them).
    Each analysis is made once (milliseconds from the counts) and kept."""
    from paigow.analysis.bonus_return import analyze

    counts = cached_counts(way, wheel)
    if counts is None:
        return None
    out = []
    for offer in offers:
        meter = meter_now.get(offer.bank) if offer.bank is not None else None
        key = (
            json.dumps(offer.table.to_dict(), sort_keys=True),
            offer.min_wager,
            meter,
            id(counts),
        )
        with _counts_lock:
            a = _analyses.get(key)
        if a is None:
            a = analyze(offer.table, counts, wager=offer.min_wager, meter=meter)
            with _counts_lock:
                if len(_analyses) >= _MAX_THEORIES:
                    _analyses.clear()
                _analyses[key] = a
        line: dict[str, Any] = {
            "name": offer.name,
            "paytable": offer.table.name,
            "at_wager": offer.min_wager,
            "at_meter": meter,
            "return": hold_text(a.paid_return),
            "house_edge": hold_text(-a.paid_return),
            "envy_per_other": None,
            "break_even_meter": None,
        }
        if a.envy_per_other is not None:
            line["envy_per_other"] = hold_text(a.envy_per_other)
        if a.break_even is not None:
            line["break_even_meter"] = int(-(-a.break_even // 1))
        out.append(line)
    return out
