"""Numba kernels of the analysis engine, one module per idea:

- :mod:`.keys`: five-card and two-card keys, the best five of seven, the foul rule on keys;
- :mod:`.houseway`: the house way over card indices, with rule numbers;
- :mod:`.table`: building and reading the compiled house way;
- :mod:`.dominance`: dominance counting (dealer histograms, exact-edge terms, a push rule's
  triggering dealer hands taken out);
- :mod:`.trigger`: push rules' triggers, and the table with one folded in;
- :mod:`.rng` and :mod:`.montecarlo`: random numbers and the simulation kernels;
- :mod:`.colex`: colex indices, combinations and suit classes;
- :mod:`.optimal` and :mod:`.strategy`: the optimal player;
- :mod:`.bonus` and :mod:`.bonus_sim`: the side wagers' bonus hand, counted over every hand and
  in the simulation (imported as submodules; cached counts depend on :mod:`.bonus` alone).

A compiled table depends only on :mod:`.keys`, :mod:`.houseway`, :mod:`.table` and :mod:`.colex`
(:data:`TABLE_SOURCES`): editing the others leaves compiled tables valid.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

from paigow.analysis.kernels.colex import (
    BINOM,
    Arr,
    binomials,
    canonical,
    colex,
    colex5,
    colex7_sorted,
    count_classes,
    next_combination,
    subset_classes,
    suit_weight,
)
from paigow.analysis.kernels.dominance import (
    dealer_histogram,
    dominance_counts,
    dominance_hist,
    dominance_pairs,
    edge_chunk,
    points_containing,
)
from paigow.analysis.kernels.houseway import KEEP, KEEP_IF_ACE, KEEP_IF_KING, SPLIT, house_way7
from paigow.analysis.kernels.keys import (
    ACE_R,
    JOKER,
    all_five_card_keys,
    best7_batch,
    best7_category,
    best7_key,
    is_foul,
    key2,
    key2_batch,
    key5,
    key5_batch,
    rank5_batch,
    stats_slice,
)
from paigow.analysis.kernels.montecarlo import simulate_chunk, simulate_optimal_chunk
from paigow.analysis.kernels.rng import below, seed_state
from paigow.analysis.kernels.table import build_slice, dense_setting, lookup

#: The modules whose source determines a compiled table's contents (its identity), and a
#: compiled strategy's.
TABLE_SOURCES = ("colex.py", "keys.py", "houseway.py", "table.py")
STRATEGY_SOURCES = (*TABLE_SOURCES, "dominance.py", "optimal.py", "strategy.py", "trigger.py")


@cache
def source_digest(names: tuple[str, ...]) -> str:
    """A digest of what the named modules of this package compute: their syntax trees without
    docstrings, so that formatting, comments and docstrings leave compiled files valid.

    >>> source_digest(TABLE_SOURCES) == source_digest(TABLE_SOURCES)
    True
    """
    h = hashlib.sha256()
    for name in names:
        tree = ast.parse((Path(__file__).parent / name).read_text())
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(body, list)
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body[0] = ast.Pass()
        h.update(name.encode() + b"\0" + ast.dump(tree).encode())
    return h.hexdigest()[:16]


__all__ = [
    "ACE_R",
    "BINOM",
    "JOKER",
    "KEEP",
    "KEEP_IF_ACE",
    "KEEP_IF_KING",
    "SPLIT",
    "STRATEGY_SOURCES",
    "TABLE_SOURCES",
    "Arr",
    "all_five_card_keys",
    "below",
    "best7_batch",
    "best7_category",
    "best7_key",
    "binomials",
    "build_slice",
    "canonical",
    "colex",
    "colex5",
    "colex7_sorted",
    "count_classes",
    "dealer_histogram",
    "dense_setting",
    "dominance_counts",
    "dominance_hist",
    "dominance_pairs",
    "edge_chunk",
    "house_way7",
    "is_foul",
    "key2",
    "key2_batch",
    "key5",
    "key5_batch",
    "lookup",
    "next_combination",
    "points_containing",
    "rank5_batch",
    "seed_state",
    "simulate_chunk",
    "simulate_optimal_chunk",
    "source_digest",
    "stats_slice",
    "subset_classes",
    "suit_weight",
]
