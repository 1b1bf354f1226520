"""Dense hand ranks: every five-card and two-card hand value numbered 0, 1, 2, ... in order.

A dense rank keeps the order and the copies of the core's hand keys in a small integer, so the
compiled house way can store each setting in three bytes.

>>> t = rank_tables("second")
>>> len(t.five_keys), len(t.two_keys)
(7463, 91)
>>> from paigow.cards import parse_cards
>>> from paigow.ranking import evaluate_five
>>> hand = parse_cards("As Ad Ac Ah Jk")
>>> int(t.five_keys[t.rank5_of(hand)]) == evaluate_five(hand).key
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from paigow.analysis.kernels import BINOM, Arr, all_five_card_keys, key2
from paigow.cards import Card
from paigow.ranking import Wheel


@dataclass(frozen=True)
class RankTables:
    """``rank5[colex index of five cards]`` and ``rank2[card, card]`` hold dense ranks;
    ``five_keys[rank]`` and ``two_keys[rank]`` map them back to the core's keys."""

    wheel: Wheel
    rank5: Arr
    five_keys: Arr
    rank2: Arr
    two_keys: Arr

    def rank5_of(self, cards: Sequence[Card]) -> int:
        """Dense rank of a five-card hand."""
        idx = sorted(c.index for c in cards)
        return int(self.rank5[sum(int(BINOM[c, i + 1]) for i, c in enumerate(idx))])

    def rank2_of(self, cards: Sequence[Card]) -> int:
        """Dense rank of a two-card hand."""
        a, b = cards
        return int(self.rank2[a.index, b.index])


@cache
def rank_tables(wheel: Wheel | str = Wheel.SECOND) -> RankTables:
    """The dense rank tables for a wheel setting (built in a fraction of a second)."""
    w = Wheel(wheel)
    keys = all_five_card_keys(w is Wheel.LOWEST)
    five_keys = np.unique(keys)
    rank5 = np.searchsorted(five_keys, keys).astype(np.uint16)
    k2 = np.zeros((53, 53), dtype=np.int64)
    for a in range(53):
        for b in range(53):
            if a != b:
                k2[a, b] = key2(a, b)
    two_keys = np.unique(k2[k2 > 0])
    rank2 = np.where(k2 > 0, np.searchsorted(two_keys, k2), 0).astype(np.uint8)
    for arr in (rank5, five_keys, rank2, two_keys):
        arr.setflags(write=False)
    return RankTables(w, rank5, five_keys, rank2, two_keys)
