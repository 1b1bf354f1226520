"""Monte Carlo: rounds dealt at random, player and dealer both on the house way (or one fixed
player hand against random dealer hands), read from the compiled house way.

Simulation uses a seeded generator (xoshiro256**, never at a table). The rounds are split into
chunks of a fixed size, each with its own seed derived from the run's seed, so a run is
reproducible for a given seed whatever the number of workers.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.edge import push_mask
from paigow.analysis.kernels.montecarlo import simulate_face_up_chunk
from paigow.analysis.runner import Runner, TableSpec
from paigow.cards import Card
from paigow.commission import Commission
from paigow.ruleset import PushRule

CHUNK_ROUNDS: Final = 1 << 20
Z95: Final = 1.959963984540054


@dataclass(frozen=True)
class SimChunk:
    spec: TableSpec
    seed: int
    rounds: int
    fixed: tuple[int, ...] = ()
    optimal: str = ""  # the commission of the compiled strategy the player follows, if any
    push: str = PushRule.NONE.value
    face_up: bool = False  # the player sets best against the dealer's setting shown face up


@lru_cache(maxsize=2)
def _strategy(spec: TableSpec, commission: str, push: str = PushRule.NONE.value) -> Any:
    from paigow.analysis.strategy import CompiledStrategy

    return CompiledStrategy.open(spec, Commission(commission), push=push)


def simulate_chunk(chunk: SimChunk) -> K.Arr:
    """[wins, pushes, losses, pushes by the rule] of one chunk."""
    compiled = chunk.spec.open()
    mode, bits, low_trig = push_mask(chunk.spec, chunk.push)
    if chunk.face_up:
        t = compiled.tables
        face_up: K.Arr = simulate_face_up_chunk(
            chunk.seed,
            chunk.rounds,
            compiled.table,
            t.rank5,
            t.rank2,
            t.five_keys,
            t.two_keys,
            K.BINOM,
            mode,
            bits,
            low_trig,
        )
        return face_up
    if chunk.optimal:
        strat = _strategy(chunk.spec, chunk.optimal, chunk.push)
        t = compiled.tables
        result: K.Arr = K.simulate_optimal_chunk(
            chunk.seed,
            chunk.rounds,
            compiled.table,
            strat.per_hand,
            t.rank5,
            t.rank2,
            K.BINOM,
            mode,
            bits,
            low_trig,
        )
        return result
    fixed = np.array(chunk.fixed, dtype=np.int64)
    fh = fl = 0
    if len(chunk.fixed) == 7:
        way = compiled.way.set_hand([Card(i) for i in chunk.fixed], compiled.wheel).setting
        fh = compiled.tables.rank5_of(way.high)
        fl = compiled.tables.rank2_of(way.low)
    out: K.Arr = K.simulate_chunk(
        chunk.seed, chunk.rounds, compiled.table, K.BINOM, fixed, fh, fl, mode, bits, low_trig
    )
    return out


def chunk_seeds(seed: int, n: int) -> list[int]:
    """Independent 63-bit seeds for ``n`` chunks (numpy SeedSequence)."""
    children = np.random.SeedSequence(seed).spawn(n)
    return [int(c.generate_state(1, dtype=np.uint64)[0]) & ((1 << 63) - 1) for c in children]


@dataclass(frozen=True)
class SimResult:
    """Counts and the house edge with a 95% confidence interval."""

    rounds: int
    win: int
    push: int
    loss: int
    commission: Commission
    seed: int
    workers: int
    seconds: float
    player_hand: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ev(self) -> float:
        """The player's mean result per unit wagered."""
        return float((Fraction(self.win) * (1 - self.commission.rate) - self.loss) / self.rounds)

    @property
    def house_edge(self) -> float:
        return -self.ev

    @property
    def ci95(self) -> tuple[float, float]:
        """95% confidence interval of the house edge per hand (normal approximation)."""
        pay = 1 - float(self.commission.rate)
        second = (self.win * pay * pay + self.loss) / self.rounds
        var = max(second - self.ev**2, 0.0)
        half = Z95 * math.sqrt(var / self.rounds)
        return (self.house_edge - half, self.house_edge + half)

    @property
    def house_edge_resolved(self) -> float:
        """House edge per resolved (non-push) hand."""
        resolved = self.win + self.loss
        return self.house_edge * self.rounds / resolved if resolved else 0.0

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.ci95
        return {
            "rounds": self.rounds,
            "win": self.win,
            "push": self.push,
            "loss": self.loss,
            "win_rate": self.win / self.rounds,
            "push_rate": self.push / self.rounds,
            "loss_rate": self.loss / self.rounds,
            "house_edge": self.house_edge,
            "ci95": [lo, hi],
            "house_edge_resolved": self.house_edge_resolved,
            "commission": self.commission.as_str(),
            "seed": self.seed,
            "workers": self.workers,
            "player_hand": list(self.player_hand) if self.player_hand else None,
            "rounds_per_second": self.rounds_per_second,
            **self.extra,
        }


def simulate(
    spec: TableSpec,
    rounds: int,
    runner: Runner,
    seed: int | None = None,
    commission: Commission | None = None,
    player_hand: Sequence[Card] | None = None,
    progress: Callable[[int], None] | None = None,
    player: str = "house-way",
    push: PushRule = PushRule.NONE,
) -> SimResult:
    """Simulate ``rounds`` rounds (see the module docstring); ``player="optimal"`` plays the
    compiled strategy at this commission (which must have been built), ``player="face-up"``
    the best setting against the dealer's setting shown face up; ``push``: the dealer hands
    that trigger this push rule push."""
    if player not in ("house-way", "optimal", "face-up"):
        raise ValueError(f"player is house-way, optimal or face-up, not {player!r}")
    if player != "house-way" and player_hand:
        raise ValueError("a fixed player hand is played by the house way")
    if rounds <= 0:
        raise ValueError("rounds must be positive")
    if seed is None:
        seed = secrets.randbits(63)
    n_chunks = -(-rounds // CHUNK_ROUNDS)
    seeds = chunk_seeds(seed, n_chunks)
    fixed = tuple(sorted(c.index for c in player_hand)) if player_hand else ()
    optimal = (commission or Commission()).as_str() if player == "optimal" else ""
    chunks = [
        SimChunk(
            spec,
            s,
            min(CHUNK_ROUNDS, rounds - i * CHUNK_ROUNDS),
            fixed,
            optimal,
            push.value,
            player == "face-up",
        )
        for i, s in enumerate(seeds)
    ]
    spec.open()  # build or verify the table before the clock starts
    push_mask(spec, push.value)
    if optimal:
        _strategy(spec, optimal, push.value)
    started = time.perf_counter()
    results = runner.map(
        simulate_chunk, chunks, (lambda r: progress(int(r[:3].sum()))) if progress else None
    )
    seconds = time.perf_counter() - started
    total = np.sum(results, axis=0)
    return SimResult(
        rounds=rounds,
        win=int(total[0]),
        push=int(total[1]),
        loss=int(total[2]),
        commission=commission or Commission(),
        seed=seed,
        workers=runner.workers,
        seconds=seconds,
        player_hand=tuple(c.code for c in player_hand) if player_hand else None,
        extra={"player": player}
        if push is PushRule.NONE
        else {"player": player, "push_rule": push.value, "pushed_by_rule": int(total[3])},
    )
