"""Side wagers in the Monte Carlo simulation: the rounds of :func:`paigow.analysis.simulate.simulate`
(the same chunks and seeds, so the same deals), each side wager settled on the player's or the
dealer's hand, its mean return and a 95% confidence interval that the exact return
(:mod:`paigow.analysis.bonus_return`) should fall in 95 times in 100.

The simulated hands are counted by signature like the exact counts, so the sample's mean and
variance are the same sums over a few dozen signatures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.bonus_counts import BonusCounts
from paigow.analysis.bonus_return import BonusAnalysis, analyze, decimal
from paigow.analysis.kernels import bonus_hand as KB
from paigow.analysis.kernels.bonus_montecarlo import simulate_bonus_chunk
from paigow.analysis.runner import Runner, TableSpec
from paigow.analysis.simulate import CHUNK_ROUNDS, Z95, chunk_seeds
from paigow.bonus import PayTable, Target


@dataclass(frozen=True)
class BonusSimChunk:
    spec: TableSpec
    seed: int
    rounds: int


def bonus_sim_chunk(chunk: BonusSimChunk) -> tuple[K.Arr, K.Arr]:
    """The player's and the dealer's ``counts[code, low]`` of one chunk."""
    compiled = chunk.spec.open()
    shape = (KB.N_CODES, len(compiled.tables.two_keys))
    player = np.zeros(shape, dtype=np.int64)
    dealer = np.zeros(shape, dtype=np.int64)
    simulate_bonus_chunk(chunk.seed, chunk.rounds, compiled.table, K.BINOM, player, dealer)
    return player, dealer


@dataclass(frozen=True)
class BonusSimResult:
    """One side wager over the simulated rounds: the sample's figures (:attr:`sample`, an
    analysis of the hands dealt) and the 95% confidence interval of its return per unit."""

    sample: BonusAnalysis

    @property
    def rounds(self) -> int:
        return self.sample.hands

    @property
    def mean(self) -> Fraction:
        """The mean return per unit wagered over the rounds (exact)."""
        return self.sample.paid_return

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% confidence interval of the return per unit (normal approximation)."""
        a = self.sample
        second = sum((line.win**2 * line.hands for line in a.lines), Fraction(0))
        second = (second + (a.hands - a.paid_hands)) / a.hands
        var = max(float(second - self.mean**2), 0.0)
        half = Z95 * math.sqrt(var / a.hands)
        return float(self.mean) - half, float(self.mean) + half

    def holds(self, exact: Fraction) -> bool:
        """Whether the interval holds ``exact``."""
        lo, hi = self.ci95
        return lo <= exact <= hi

    def to_dict(self, exact: Fraction | None = None) -> dict[str, Any]:
        lo, hi = self.ci95
        out: dict[str, Any] = {
            "pay_table": self.sample.table.name,
            "rounds": self.rounds,
            "return": float(self.mean),
            "ci95": [lo, hi],
        }
        if exact is not None:
            out |= {"exact": float(exact), "exact_fraction": str(exact), "holds": self.holds(exact)}
        return out

    def line(self, exact: Fraction | None = None) -> str:
        """One line of text."""
        lo, hi = self.ci95
        text = (
            f"side wager {self.sample.table.name}: return {decimal(self.mean)} per unit "
            f"(95% CI {lo:.6f} .. {hi:.6f})"
        )
        if exact is not None:
            held = "holds" if self.holds(exact) else "does NOT hold"
            text += f"; exact {decimal(exact)}, the interval {held} it"
        return text


def simulate_bonus(
    spec: TableSpec,
    rounds: int,
    runner: Runner,
    seed: int,
    tables: Sequence[PayTable],
    progress: Callable[[int], None] | None = None,
) -> list[BonusSimResult]:
    """Settle every table in ``tables`` on the rounds that :func:`~paigow.analysis.simulate.simulate`
    deals for ``seed`` (house-way players), each at its default wager and meter."""
    if rounds <= 0:
        raise ValueError("rounds must be positive")
    n_chunks = -(-rounds // CHUNK_ROUNDS)
    chunks = [
        BonusSimChunk(spec, s, min(CHUNK_ROUNDS, rounds - i * CHUNK_ROUNDS))
        for i, s in enumerate(chunk_seeds(seed, n_chunks))
    ]
    done = (lambda r: progress(int(r[0].sum()))) if progress else None
    results = runner.map(bonus_sim_chunk, chunks, done)
    compiled = spec.open()
    keys = compiled.tables.two_keys
    player = np.sum([r[0] for r in results], axis=0)
    dealer = np.sum([r[1] for r in results], axis=0)
    way, wheel = compiled.way.name, compiled.wheel.value
    hands = {
        "player": BonusCounts.from_array(player, keys, way, wheel),
        "dealer": BonusCounts.from_array(dealer, keys, way, wheel),
    }
    return [
        BonusSimResult(analyze(t, hands["player" if t.target is Target.PLAYER else "dealer"]))
        for t in tables
    ]
