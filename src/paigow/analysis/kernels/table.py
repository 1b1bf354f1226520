"""Building the compiled house way: three bytes per seven-card hand (the dense ranks of the
dealer's high and low hands), indexed by the hand's colex index; and reading it back.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import is_foul, key2
from paigow.analysis.kernels.way_program import house_way_program, work_array

Arr = npt.NDArray[Any]


@nb.njit(cache=True)
def dense_setting(
    s: Arr,
    prog: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
    work: Arr,
) -> tuple[int, int, int]:
    """House way of seven cards sorted descending -> (dense high rank, dense low rank, rule);
    (-1, -1, -1) where no rule of ``prog`` applies. ``work``: a work array
    (:func:`paigow.analysis.kernels.way_program.work_array`)."""
    i, j, rule = house_way_program(s, prog, lowest_wheel, work)
    if rule < 0:
        return -1, -1, -1
    idx = 0
    n = 1
    for k in range(6, -1, -1):  # ascending order for the colex index
        if k != i and k != j:
            idx += binom[s[k], n]
            n += 1
    return rank5[idx], rank2[s[i], s[j]], rule


@nb.njit(cache=True, nogil=True)
def build_slice(
    top: int,
    table: Arr,
    prog: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
    five_keys: Arr,
    reach: Arr,
    stats: Arr,
) -> int:
    """Set every seven-card hand whose highest card is ``top`` (their colex indices are
    C(top, 7) .. C(top + 1, 7) - 1) by the house way ``prog``: where ``table`` is not empty, its
    three bytes (the dense high rank, little-endian, and the dense low rank); ``reach[outcome]``
    counts the hands each outcome set; ``stats``: hands no rule set and the first of them, hands
    set into a foul, the first of them and its outcome (-1 where none). Returns the number of
    hands."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    idx = binom[top, 7]
    count = 0
    write = table.shape[0] > 0
    work = work_array()
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
                            k = (
                                binom[a, 1]
                                + binom[b, 2]
                                + binom[c, 3]
                                + binom[d, 4]
                                + binom[e, 5]
                                + binom[f, 6]
                                + idx
                            )
                            count += 1
                            i, j, out = house_way_program(s, prog, lowest_wheel, work)
                            if out < 0:
                                stats[0] += 1
                                if stats[1] < 0:
                                    stats[1] = k
                                continue
                            reach[out] += 1
                            hi = 0
                            n = 1
                            for m in range(6, -1, -1):
                                if m != i and m != j:
                                    hi += binom[s[m], n]
                                    n += 1
                            h = rank5[hi]
                            if is_foul(five_keys[h], key2(s[i], s[j])):
                                stats[2] += 1
                                if stats[3] < 0:
                                    stats[3] = k
                                    stats[4] = out
                            if write:
                                low = rank2[s[i], s[j]]
                                table[3 * k] = h & 0xFF
                                table[3 * k + 1] = h >> 8
                                table[3 * k + 2] = low
    return count


@nb.njit(cache=True, inline="always")
def lookup(table: Arr, idx: int) -> tuple[Any, Any]:
    """The dense (high, low) ranks stored for the hand of colex index ``idx``."""
    k = 3 * idx
    return table[k] | (np.int64(table[k + 1]) << 8), np.int64(table[k + 2])


@nb.njit(cache=True, nogil=True)
def differ_slice(
    top: int,
    prog: Arr,
    lowest_wheel: bool,
    table: Arr,
    base: Arr,
    binom: Arr,
    counts: Arr,
    copy: Arr,
    out: Arr,
) -> int:
    """For every hand whose highest card is ``top``: where the compiled ``table`` (set by the
    house way ``prog``) and the compiled ``base`` hold different settings, count the hand in
    ``counts[outcome]``, the outcome ``prog`` gives it; and where ``copy[outcome]`` is set,
    copy the hand's setting from ``table`` into ``out`` (a copy of ``base``: the base with those
    rules' hands set as ``table`` sets them; ``out`` may be empty when ``copy`` is all zero).
    Returns the hands that differ."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    idx = binom[top, 7]
    work = work_array()
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
                            k = 3 * (
                                binom[a, 1]
                                + binom[b, 2]
                                + binom[c, 3]
                                + binom[d, 4]
                                + binom[e, 5]
                                + binom[f, 6]
                                + idx
                            )
                            if (
                                table[k] == base[k]
                                and table[k + 1] == base[k + 1]
                                and table[k + 2] == base[k + 2]
                            ):
                                continue
                            _, _, got = house_way_program(s, prog, lowest_wheel, work)
                            counts[got] += 1
                            n += 1
                            if copy[got]:
                                out[k] = table[k]
                                out[k + 1] = table[k + 1]
                                out[k + 2] = table[k + 2]
    return n
