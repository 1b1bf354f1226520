"""Numba kernels of the analysis engine, one module per idea:

- :mod:`.keys`: five-card and two-card keys, the best five of seven, the foul rule on keys;
- :mod:`.program`: any house way of the rule language, compiled to a program and read over card
  indices, with outcome numbers; :mod:`.houseway`: the first format's fixed rules (kept to check
  that the presets rewritten in the language set every hand as before);
- :mod:`.table`: building and reading the compiled house way;
- :mod:`.rank_classes`: the house way over classes of hands (a rank multiset and the ranks in
  its flush suit), set once each, for the check over every hand;
- :mod:`.diff`: two house ways hand by hand, by the pair of rule ids that set a hand otherwise
  (imported as a submodule);
- :mod:`.dominance`: dominance counting (dealer histograms, exact-edge terms, a push rule's
  triggering dealer hands taken out);
- :mod:`.trigger`: push rules' triggers, and the table with one folded in;
- :mod:`.rng` and :mod:`.montecarlo`: random numbers and the simulation kernels;
- :mod:`.colex`: colex indices, combinations and suit classes;
- :mod:`.optimal` and :mod:`.strategy`: the optimal player;
- :mod:`.bonus` and :mod:`.bonus_sim`: the side wagers' bonus hand, counted over every hand and
  in the simulation (imported as submodules; cached counts depend on :mod:`.bonus` alone);
- :mod:`.numba_cache`: numba's own cache of compiled kernels, by the digest of their sources.

A compiled table depends only on :mod:`.keys`, :mod:`.program`, :mod:`.table` and :mod:`.colex`,
with the house way's compiler (:mod:`paigow.analysis.program`) and the reading of its rules
(:mod:`paigow.house_way.words`, :mod:`paigow.house_way.conditions`,
:mod:`paigow.house_way.rules`) (:data:`TABLE_SOURCES`): editing the others leaves compiled
tables valid. A saved exact edge, and
the checkpoints of its run, are keyed by the digest of the code that counts it, per player
(:data:`EDGE_SOURCES`, :func:`edge_digest`).
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

from paigow.analysis.kernels import numba_cache  # noqa: F401  (first: numba's cache folder)
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
from paigow.analysis.kernels.houseway import (
    KEEP,
    KEEP_IF_ACE,
    KEEP_IF_KING,
    SPLIT,
    house_way7,
    legacy_arrays,
)
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
from paigow.analysis.kernels.table import build_slice, dense_setting, differ_slice, lookup

#: The modules whose source determines a compiled table's contents (its identity), and a
#: compiled strategy's.
TABLE_SOURCES = (
    "colex.py",
    "keys.py",
    "way_program.py",
    "table.py",
    "paigow/analysis/program.py",  # the compiler of a house way's rules
    "paigow/house_way/words.py",  # what the rules' words mean
    "paigow/house_way/conditions.py",
    "paigow/house_way/rules.py",
)
STRATEGY_SOURCES = (
    *TABLE_SOURCES,
    "dominance.py",
    "optimal_counts.py",
    "strategy_classes.py",
    "trigger.py",
)

#: The Python modules outside this package that decide every exact edge: the chunking and
#: summing of the runs, the result's record (:mod:`paigow.analysis.edge`), and the push rules'
#: triggers (:func:`paigow.analysis.edge.push_mask` reads :mod:`paigow.variants`). A name with a
#: "/" is a path from the folder holding the ``paigow`` package.
_EDGE_PYTHON = ("paigow/analysis/edge.py", "paigow/variants.py")
#: The modules whose source decides each player's exact edge (its saved result and the
#: checkpoints of its run are keyed by their digest, :func:`edge_digest`): the kernels that count
#: it, with those they import, and the Python modules around them. The compiled table it reads
#: is named by its own identity (:data:`TABLE_SOURCES` among it), and the card model under that
#: by the table's five-card keys.
EDGE_SOURCES: dict[str, tuple[str, ...]] = {
    "house-way": (*TABLE_SOURCES, "dominance.py", "trigger.py", *_EDGE_PYTHON),
    "optimal": (
        *STRATEGY_SOURCES,
        *_EDGE_PYTHON,
        "paigow/analysis/optimal.py",
        "paigow/analysis/pushed.py",
        "paigow/analysis/strategy.py",
    ),
    "face-up": (
        *STRATEGY_SOURCES,
        "faceup_counts.py",
        *_EDGE_PYTHON,
        "paigow/analysis/optimal.py",
        "paigow/analysis/pushed.py",
        "paigow/analysis/faceup.py",
    ),
}


def _source_file(name: str) -> Path:
    """A module named in a sources tuple: of this package, or (a name with a "/") a path from
    the folder holding the ``paigow`` package."""
    here = Path(__file__)
    return here.parents[3] / name if "/" in name else here.parent / name


@cache
def source_digest(names: tuple[str, ...]) -> str:
    """A digest of what the named modules compute (of this package, or a path from the folder
    holding ``paigow``): their syntax trees without docstrings, so that formatting, comments
    and docstrings leave compiled files valid. Computed once per process.

    >>> source_digest(TABLE_SOURCES) == source_digest(TABLE_SOURCES)
    True
    """
    h = hashlib.sha256()
    for name in names:
        tree = ast.parse(_source_file(name).read_text())
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


def edge_digest(player: str) -> str:
    """The digest of the code that decides ``player``'s exact edge ("house-way", "optimal" or
    "face-up"): the ``code`` of its saved result, and part of its checkpoints' identity.

    >>> edge_digest("house-way") != edge_digest("optimal")
    True
    """
    return source_digest(EDGE_SOURCES[player])


__all__ = [
    "ACE_R",
    "BINOM",
    "EDGE_SOURCES",
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
    "differ_slice",
    "dominance_counts",
    "dominance_hist",
    "dominance_pairs",
    "edge_chunk",
    "edge_digest",
    "house_way7",
    "is_foul",
    "key2",
    "key2_batch",
    "key5",
    "key5_batch",
    "legacy_arrays",
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
