"""Building the compiled house way: three bytes per seven-card hand (the dense ranks of the
dealer's high and low hands), indexed by the hand's colex index; and reading it back.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.houseway import house_way7

Arr = npt.NDArray[Any]


@nb.njit(cache=True)
def dense_setting(
    s: Arr,
    tp: Arr,
    quads: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
) -> tuple[int, int, int]:
    """House way of seven cards sorted descending -> (dense high rank, dense low rank, rule)."""
    i, j, rule = house_way7(s, tp, quads, lowest_wheel)
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
    tp: Arr,
    quads: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
) -> int:
    """Fill the compiled house way for every seven-card hand whose highest card is ``top``
    (their colex indices are C(top, 7) .. C(top + 1, 7) - 1): three bytes per hand, the dense
    high rank (little-endian) and the dense low rank. Returns the number of hands."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    idx = binom[top, 7]
    count = 0
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
                            h, low, _ = dense_setting(
                                s, tp, quads, lowest_wheel, rank5, rank2, binom
                            )
                            table[3 * k] = h & 0xFF
                            table[3 * k + 1] = h >> 8
                            table[3 * k + 2] = low
                            count += 1
    return count


@nb.njit(cache=True, inline="always")
def lookup(table: Arr, idx: int) -> tuple[Any, Any]:
    """The dense (high, low) ranks stored for the hand of colex index ``idx``."""
    k = 3 * idx
    return table[k] | (np.int64(table[k + 1]) << 8), np.int64(table[k + 2])
