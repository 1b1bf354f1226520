"""Two house ways side by side, hand by hand (``paigow house-way diff``): for each hand the two
set otherwise (a high or a low hand of another strength), the pair of outcomes (the rule ids)
that set it, counted with the first such hand; over any hands given (reduced decks, samples) or
over every hand by the two compiled tables (only the hands whose settings differ are read).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from paigow.analysis.kernels.keys import key2
from paigow.analysis.kernels.way_program import Arr, _high_key, house_way_program, work_array


@nb.njit(cache=True)
def _count(oa: int, ob: int, counts: Arr, first: Arr, index: int) -> int:
    """Count the pair of outcomes ``(oa, ob)`` (-1: no rule, counted in the last row or column)
    in ``counts``, keeping ``index`` in ``first`` for the pair's first hand; returns the pair's
    flat number."""
    if oa < 0:
        oa = counts.shape[0] - 1
    if ob < 0:
        ob = counts.shape[1] - 1
    counts[oa, ob] += 1
    if first[oa, ob] < 0:
        first[oa, ob] = index
    return int(oa * counts.shape[1] + ob)


@nb.njit(cache=True)
def diff_hands(hands: Arr, prog_a: Arr, prog_b: Arr, lowest: bool, counts: Arr, first: Arr) -> int:
    """For each row of ``hands`` (seven card indices sorted descending) that the programs
    ``prog_a`` and ``prog_b`` set otherwise (the strength of the high or of the low hand), count
    its pair of outcomes in ``counts[a, b]`` and keep its row number in ``first[a, b]`` for the
    first. ``counts`` has a row and a column more than each has outcomes: a hand one of them
    leaves without a rule. Returns the hands set otherwise."""
    wa, wb = work_array(), work_array()
    n = 0
    for h in range(hands.shape[0]):
        s = hands[h]
        ia, ja, oa = house_way_program(s, prog_a, lowest, wa)
        ib, jb, ob = house_way_program(s, prog_b, lowest, wb)
        same = oa >= 0 and ob >= 0 and key2(s[ia], s[ja]) == key2(s[ib], s[jb])
        if same and _high_key(s, ia, ja, lowest) == _high_key(s, ib, jb, lowest):
            continue
        _count(oa, ob, counts, first, h)
        n += 1
    return n


@nb.njit(nogil=True, cache=True)
def diff_slice(
    top: int, prog_a: Arr, prog_b: Arr, lowest: bool, table_a: Arr, table_b: Arr, binom: Arr,
    counts: Arr, first: Arr, copy: Arr, out: Arr,
) -> int:  # fmt: skip
    """For every hand whose highest card is ``top`` and that the compiled tables ``table_a``
    and ``table_b`` (of the programs ``prog_a`` and ``prog_b``) set otherwise: count its pair
    of outcomes in ``counts`` and keep its colex index in ``first`` for the pair's first; where
    ``copy`` holds the pair's flat number, copy its setting from ``table_b`` into ``out`` (a copy
    of ``table_a``; empty when ``copy`` is all zero). Returns the hands set otherwise."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    idx = binom[top, 7]
    wa, wb = work_array(), work_array()
    n = 0
    for f in range(top - 1, 4, -1):
        s[1] = f
        for e in range(f - 1, 3, -1):
            s[2] = e
            for d in range(e - 1, 2, -1):
                s[3] = d
                for c in range(d - 1, 1, -1):
                    s[4] = c
                    for b in range(c - 1, 0, -1):
                        s[5] = b
                        for a in range(b - 1, -1, -1):
                            s[6] = a
                            i = (
                                binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4]
                                + binom[e, 5] + binom[f, 6] + idx
                            )  # fmt: skip
                            k = 3 * i
                            if (
                                table_a[k] == table_b[k]
                                and table_a[k + 1] == table_b[k + 1]
                                and table_a[k + 2] == table_b[k + 2]
                            ):
                                continue
                            oa = house_way_program(s, prog_a, lowest, wa)[2]
                            ob = house_way_program(s, prog_b, lowest, wb)[2]
                            flat = _count(oa, ob, counts, first, i)
                            n += 1
                            if copy[flat]:
                                out[k] = table_b[k]
                                out[k + 1] = table_b[k + 1]
                                out[k + 2] = table_b[k + 2]
    return n
