"""Hand frequencies over all C(53, 7) = 154,143,080 seven-card hands: the best five-card hand by
category, and the dealer's high and low hands under the house way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import HANDS
from paigow.analysis.runner import Runner, TableSpec
from paigow.ranking import Category, TwoCardValue


@dataclass(frozen=True)
class StatsChunk:
    spec: TableSpec
    top: int


def stats_chunk(chunk: StatsChunk) -> tuple[int, K.Arr, K.Arr, K.Arr]:
    """One slice (hands whose highest card is ``top``): best-hand categories, and the dealer's
    dense high and low ranks from the compiled table."""
    compiled = chunk.spec.open()
    cats = np.zeros(11, dtype=np.int64)
    n = int(K.stats_slice(chunk.top, cats))
    start, stop = comb(chunk.top, 7), comb(chunk.top + 1, 7)
    part = np.asarray(compiled.table[3 * start : 3 * stop]).reshape(-1, 3)
    hi = part[:, 0].astype(np.int64) | (part[:, 1].astype(np.int64) << 8)
    high = np.bincount(hi, minlength=len(compiled.tables.five_keys))
    low = np.bincount(part[:, 2], minlength=len(compiled.tables.two_keys))
    return n, cats, high, low


@dataclass(frozen=True)
class HandStats:
    """Exact counts over every seven-card hand."""

    total: int
    categories: dict[str, int]
    dealer_high: dict[str, int]
    dealer_low: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "categories": self.categories,
            "dealer_high": self.dealer_high,
            "dealer_low": self.dealer_low,
        }


def _two_card_name(key: int) -> str:
    if key >> 8:
        return TwoCardValue(key, Category.ONE_PAIR, (key & 0xFF,)).name
    return TwoCardValue(key, Category.HIGH_CARD, (key >> 4, key & 0xF)).name


def compute_stats(
    spec: TableSpec, runner: Runner, progress: Callable[[int], None] | None = None
) -> HandStats:
    """Category counts of the best hand of every seven-card hand, and the dealer's settings."""
    chunks = [StatsChunk(spec, top) for top in range(52, 5, -1)]
    results = runner.map(stats_chunk, chunks, (lambda r: progress(r[0])) if progress else None)
    total = sum(r[0] for r in results)
    if total != HANDS:
        raise AssertionError(f"counted {total} hands, expected {HANDS}")
    cats = sum((r[1] for r in results[1:]), results[0][1])
    high = sum((r[2] for r in results[1:]), results[0][2])
    low = sum((r[3] for r in results[1:]), results[0][3])
    compiled = spec.open()
    five_keys, two_keys = compiled.tables.five_keys, compiled.tables.two_keys
    by_cat = np.zeros(11, dtype=np.int64)
    np.add.at(by_cat, (five_keys >> 25).astype(np.int64), high)
    order = list(reversed(Category))
    return HandStats(
        total=total,
        categories={c.label: int(cats[c]) for c in order},
        dealer_high={c.label: int(by_cat[c]) for c in order},
        dealer_low={
            _two_card_name(int(two_keys[i])): int(low[i]) for i in range(len(two_keys) - 1, -1, -1)
        },
    )
