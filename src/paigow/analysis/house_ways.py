"""House ways side by side (``paigow report house-ways``): for each, the exact house edge and push
rate of the house-way player against the dealer's house way, the optimal player's edge and what
the house way costs the player against it (where its strategy is compiled), and the rule ids
where it sets hands otherwise than a base house way: the hands each sets otherwise, and what
that difference alone is worth to the house (the exact edge of the base with only that rule's
hands set this house way's way, less the base's own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import HANDS, CompiledHouseWay
from paigow.analysis.edge import EdgeResult, house_way_edge, table_edge
from paigow.analysis.program import Program, compile_way
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


@dataclass(frozen=True)
class RuleDifference:
    """A rule id of a house way that sets hands otherwise than the base house way does."""

    rule: str
    hands: int  # hands this rule id sets, of all 154,143,080
    differ: int  # of them, hands the base sets otherwise
    worth: (
        Fraction | None
    )  # to the house: the base's edge with only these hands changed, less its own
    given_up: Fraction | None  # the edge these hands give up to the optimal player (per hand dealt)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "hands": self.hands,
            "differ": self.differ,
            "worth_to_house": None if self.worth is None else float(self.worth),
            "worth_to_house_exact": None if self.worth is None else str(self.worth),
            "given_up_to_optimal": None if self.given_up is None else float(self.given_up),
        }


@dataclass(frozen=True)
class HouseWayFigures:
    """One house way's exact figures beside the base."""

    way: HouseWay
    edge: EdgeResult  # the house-way player against the dealer's house way
    optimal: EdgeResult | None  # the optimal player against it (None: strategy not compiled)
    differ: int  # hands set otherwise than the base sets them
    rules: tuple[RuleDifference, ...]

    @property
    def push_rate(self) -> Fraction:
        return Fraction(self.edge.push, self.edge.deals)

    @property
    def cost(self) -> Fraction | None:
        """What setting by the house way costs the player against the optimal player (the house
        edge of the house-way player less the optimal player's)."""
        if self.optimal is None:
            return None
        return self.edge.house_edge - self.optimal.house_edge

    def to_dict(self) -> dict[str, Any]:
        return {
            "house_way": self.way.name,
            "title": self.way.title,
            "source": self.way.source,
            "rules": len(self.way.rules),
            "house_edge": float(self.edge.house_edge),
            "house_edge_exact": str(self.edge.house_edge),
            "push_rate": float(self.push_rate),
            "optimal_edge": None if self.optimal is None else float(self.optimal.house_edge),
            "cost": None if self.cost is None else float(self.cost),
            "hands_set_otherwise": self.differ,
            "differences": [r.to_dict() for r in self.rules],
        }


def _differ(
    program: Program,
    mine: CompiledHouseWay,
    theirs: CompiledHouseWay,
    workers: int,
    copy: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Hands set otherwise, by outcome of ``program``; where ``copy[outcome]``, the hand's
    setting copied from ``mine`` into ``out``."""
    lowest = mine.wheel is Wheel.LOWEST
    n = len(program.outcomes)
    counts = np.zeros((53, n), dtype=np.int64)
    flags = np.zeros(n, dtype=np.uint8) if copy is None else copy
    target = np.zeros(0, dtype=np.uint8) if out is None else out

    def run(top: int) -> int:
        return int(
            K.differ_slice(
                top, program.prog, lowest, mine.table, theirs.table, K.BINOM, counts[top],
                flags, target,
            )
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(run, range(52, 5, -1)))
    by_outcome: np.ndarray = counts.sum(axis=0)
    return by_outcome


def differences(
    spec: TableSpec, base: TableSpec, workers: int = 2
) -> tuple[int, dict[str, int], dict[str, int]]:
    """The hands ``spec``'s house way sets otherwise than ``base``'s (both compiled): their
    number, and by the rule id of ``spec`` that sets them; with the hands each id sets."""
    mine, theirs = spec.open(), base.open()
    program = compile_way(mine.way)
    by_outcome = _differ(program, mine, theirs, workers)
    by: dict[str, int] = {}
    for rid, n in zip(program.outcomes, by_outcome, strict=True):
        by[rid] = by.get(rid, 0) + int(n)
    reach = mine.meta.get("reach", {})
    return int(by_outcome.sum()), by, {str(k): int(v) for k, v in reach.items()}


def worth_to_house(
    spec: TableSpec,
    base: TableSpec,
    rule_ids: Sequence[str],
    workers: int = 2,
    commission: Commission | None = None,
    base_edge: EdgeResult | None = None,
) -> dict[str, Fraction]:
    """For each rule id of ``spec``'s house way: the exact house edge of the base house way with
    only the hands that id sets set as ``spec`` sets them (for the dealer and the house-way
    player alike), less the base's own edge; a table of 462 MB in memory, one exact edge each."""
    mine, theirs = spec.open(), base.open()
    program = compile_way(mine.way)
    n5, n2 = len(theirs.tables.five_keys), len(theirs.tables.two_keys)
    own = base_edge or table_edge(np.asarray(theirs.table), n5, n2, workers, commission)
    hybrid = np.array(theirs.table)
    out: dict[str, Fraction] = {}
    for rid in rule_ids:
        copy = np.array([o == rid for o in program.outcomes], dtype=np.uint8)
        _differ(program, mine, theirs, workers, copy, hybrid)
        result = table_edge(hybrid, n5, n2, workers, commission)
        out[rid] = result.house_edge - own.house_edge
        hybrid[:] = theirs.table
    return out


def compare(
    ways: Sequence[HouseWay],
    base: HouseWay,
    wheel: Wheel,
    commission: Commission,
    runner: Runner,
    folder: Path | None = None,
    progress: Callable[[str], None] | None = None,
    worth: bool = True,
) -> list[HouseWayFigures]:
    """Each house way's figures beside ``base`` (compiled, and their exact edges counted, where
    missing: about half a minute each; with ``worth``, an exact edge for each rule id that sets
    hands otherwise; the optimal player's edge only where its strategy is compiled, ``paigow
    strategy build --house-way NAME``)."""
    from paigow.analysis.strategy import CompiledStrategy

    base_spec = TableSpec.of(base, wheel, folder)
    base_spec.open()
    base_edge = house_way_edge(base_spec, runner, commission)
    out = []
    for way in ways:
        spec = TableSpec.of(way, wheel, folder)
        if progress is not None:
            progress(way.name)
        spec.open()
        edge = base_edge if way == base else house_way_edge(spec, runner, commission)
        optimal = costs = None
        try:
            strat = CompiledStrategy.open(spec, commission)
            optimal = strat.edge()
            costs = {c.rule: c for c in strat.rule_costs()}
        except PaigowError:
            pass
        differ, by, reach = differences(spec, base_spec, runner.workers)
        changed = [rid for rid, n in by.items() if n]
        worths: dict[str, Fraction] = {}
        if worth and changed:
            if progress is not None:
                progress(f"{way.name}: {len(changed)} rules differ")
            worths = worth_to_house(spec, base_spec, changed, runner.workers, commission, base_edge)
        rules = tuple(
            RuleDifference(
                rid,
                reach.get(rid, 0),
                by[rid],
                worths.get(rid),
                None if costs is None or rid not in costs else costs[rid].given_up / HANDS,
            )
            for rid in changed
        )
        out.append(HouseWayFigures(way, edge, optimal, differ, rules))
    return out


__all__ = [
    "HANDS",
    "HouseWayFigures",
    "RuleDifference",
    "compare",
    "differences",
    "worth_to_house",
]
