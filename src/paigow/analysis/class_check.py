"""The check over every hand, class by class (:mod:`paigow.analysis.kernels.rank_classes`): the
hands of one rank multiset, and of one flush pattern, are set alike, so each class is set once
and counted for all its hands. The answer is the sweep's (:func:`paigow.analysis.compiled.sweep`,
every hand one by one, the reference) to the hand: the same counts, and the same first hand of
each problem, in a fraction of a second instead of tens of seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.kernels.rank_classes import survey_classes
from paigow.analysis.program import Program, compile_way
from paigow.analysis.survey import HANDS, Survey
from paigow.analysis.tables import rank_tables
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

EVERY_RANK: Final = (1 << 13) - 1


def survey_arrays(
    program: Program, wheel: Wheel, deck_ranks: int = EVERY_RANK, joker: bool = True
) -> tuple[K.Arr, K.Arr, int]:
    """``program`` over every seven-card hand of a deck (all four suits of the ranks in
    ``deck_ranks``, a bit per rank from the deuce, and the joker if ``joker``): the hands per
    outcome, the stats of :func:`paigow.analysis.kernels.rank_classes.survey_classes` (the
    last: how many classes) and the number of hands."""
    tables = rank_tables(wheel)
    reach = np.zeros(len(program.outcomes), dtype=np.int64)
    stats = np.array([0, -1, 0, -1, -1, -1, -1, 0], dtype=np.int64)
    hands = survey_classes(
        deck_ranks, joker, program.prog, wheel is Wheel.LOWEST, tables.rank5, K.BINOM,
        tables.five_keys, reach, stats,
    )  # fmt: skip
    return reach, stats, int(hands)


def check_classes(
    way: HouseWay, wheel: Wheel = Wheel.SECOND, progress: Callable[[int], None] | None = None
) -> Survey:
    """``way`` over all 154,143,080 hands, class by class: the :class:`Survey` the sweep gives."""
    started = time.perf_counter()
    program = compile_way(way)
    reach, stats, hands = survey_arrays(program, wheel)
    if hands != HANDS:
        raise RuntimeError(f"counted {hands} hands, expected {HANDS}")
    if progress is not None:
        progress(hands)
    return Survey(
        program,
        tuple(int(x) for x in reach),
        int(stats[0]),
        int(stats[1]),
        int(stats[2]),
        int(stats[3]),
        int(stats[4]),
        time.perf_counter() - started,
    )
