"""House ways side by side (``paigow report house-ways``): for each, the exact house edge and push
rate of the house-way player against the dealer's house way, the optimal player's edge and what
the house way costs the player against it (where its strategy is compiled), and the rules where
it sets hands differently from a base house way: the hands each such rule sets otherwise, and
what that rule gives up against the optimal player.
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
from paigow.analysis.compiled import HANDS
from paigow.analysis.edge import EdgeResult, house_way_edge
from paigow.analysis.program import compile_way
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


@dataclass(frozen=True)
class RuleDifference:
    """A rule id of a house way that sets hands otherwise than the base house way does."""

    rule: str
    hands: int  # hands this rule sets, of all 154,143,080
    differ: int  # of them, hands the base sets otherwise
    given_up: Fraction | None  # the house edge this rule's hands give up to the optimal player

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "hands": self.hands,
            "differ": self.differ,
            "given_up": None if self.given_up is None else float(self.given_up),
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


def differences(
    spec: TableSpec, base: TableSpec, workers: int = 2
) -> tuple[int, dict[str, int], dict[str, int]]:
    """The hands ``spec``'s house way sets otherwise than ``base``'s (both compiled): their
    number, and by the rule id of ``spec`` that sets them; with the hands each id sets."""
    mine, theirs = spec.open(), base.open()
    program = compile_way(mine.way)
    lowest = mine.wheel is Wheel.LOWEST
    counts = np.zeros((53, len(program.outcomes)), dtype=np.int64)

    def run(top: int) -> int:
        return int(
            K.differ_slice(
                top, program.prog, lowest, mine.table, theirs.table, K.BINOM, counts[top]
            )
        )

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        total = sum(pool.map(run, range(52, 5, -1)))
    by: dict[str, int] = {}
    for rid, n in zip(program.outcomes, counts.sum(axis=0), strict=True):
        by[rid] = by.get(rid, 0) + int(n)
    reach = mine.meta.get("reach", {})
    return total, by, {str(k): int(v) for k, v in reach.items()}


def compare(
    ways: Sequence[HouseWay],
    base: HouseWay,
    wheel: Wheel,
    commission: Commission,
    runner: Runner,
    folder: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[HouseWayFigures]:
    """Each house way's figures beside ``base`` (compiled, and their exact edges counted, where
    missing: a minute or so each; the optimal player's edge only where its strategy is
    compiled, ``paigow strategy build --house-way NAME``)."""
    from paigow.analysis.strategy import CompiledStrategy

    base_spec = TableSpec.of(base, wheel, folder)
    out = []
    for way in ways:
        spec = TableSpec.of(way, wheel, folder)
        if progress is not None:
            progress(way.name)
        spec.open()
        edge = house_way_edge(spec, runner, commission)
        optimal = costs = None
        try:
            strat = CompiledStrategy.open(spec, commission)
            optimal = strat.edge()
            costs = {c.rule: c for c in strat.rule_costs()}
        except PaigowError:
            pass
        differ, by, reach = differences(spec, base_spec, runner.workers)
        rules = tuple(
            RuleDifference(
                rid, reach.get(rid, 0), n, None if costs is None else costs[rid].given_up / HANDS
            )
            for rid, n in by.items()
            if n
        )
        out.append(HouseWayFigures(way, edge, optimal, differ, rules))
    return out


__all__ = ["HANDS", "HouseWayFigures", "RuleDifference", "compare", "differences"]
