"""The face-up player's exact counts: each player hand set best against the dealer's setting
shown face up, against every disjoint dealer hand (see :mod:`paigow.analysis.faceup`)."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import next_combination
from paigow.analysis.kernels.keys import is_foul
from paigow.analysis.kernels.optimal_counts import hand_counts
from paigow.analysis.kernels.strategy_classes import chunk_hand, setting_ranks

Arr = npt.NDArray[Any]


@nb.njit(cache=True)
def staircase(xs: Arr, ys: Arr, m: int, fh: Arr, fl: Arr) -> int:
    """The points among (xs[i], ys[i]), i < m, that no other matches or beats on both
    coordinates (one of equal points), into fh, fl in ascending x (so descending y); returns
    how many."""
    order = np.argsort(-(xs[:m] * 1024 + ys[:m]))  # x descending, then y descending
    best = -1
    f = 0
    for i in range(m):
        q = order[i]
        if ys[q] > best:
            fh[f] = xs[q]
            fl[f] = ys[q]
            best = ys[q]
            f += 1
    for i in range(f // 2):  # ascending x
        fh[i], fh[f - 1 - i] = fh[f - 1 - i], fh[i]
        fl[i], fl[f - 1 - i] = fl[f - 1 - i], fl[i]
    return f


@nb.njit(cache=True, nogil=True)
def face_up_chunk(
    top: int,
    second: int,
    table: Arr,
    binom: Arr,
    rank5: Arr,
    rank2: Arr,
    five_keys: Arr,
    two_keys: Arr,
    deck: Arr,
    class_of: Arr,
    cum_base: Arr,
    cum: Arr,
    lw3: Arr,
    cc3: Arr,
    hc3: Arr,
    lw4: Arr,
    cc4: Arr,
    hc4: Arr,
    hv5: Arr,
    lw5: Arr,
    cc5: Arr,
) -> Arr:
    """Sums over the canonical player hands whose two highest cards are deck[top] and
    deck[second], weighted by class size: [wins, losses, deals, hands].

    Against a dealer hand D shown face up the player wins when some setting that is not a foul
    beats D on both hands: D lies in the union of the open lower-left quadrants of the settings,
    a staircase of the undominated ones (x_1 < ... < x_f, y_1 > ... > y_f), whose count is
    sum_i Q(x_i, y_i) - Q(x_i, y_i+1), Q(x, y) the dealer hands below x and below y. The player
    loses when every setting loses both hands: D at or above (max x, max y). Both are dominance
    counts of :func:`paigow.analysis.kernels.optimal_counts.hand_counts` at these points."""
    out = np.zeros(4, dtype=np.int64)
    p = np.empty(7, dtype=np.int64)
    ph = np.empty(21, dtype=np.int64)
    pl = np.empty(21, dtype=np.int64)
    xs = np.empty(21, dtype=np.int64)
    ys = np.empty(21, dtype=np.int64)
    fh = np.empty(21, dtype=np.int64)
    fl = np.empty(21, dtype=np.int64)
    vh = np.empty(64, dtype=np.int64)
    vl = np.empty(64, dtype=np.int64)
    sel = np.arange(64)
    wins = np.zeros(64, dtype=np.int64)
    losses = np.zeros(64, dtype=np.int64)
    c = np.arange(5)
    while True:
        weight = chunk_hand(c, top, second, deck, p)
        if weight:
            setting_ranks(p, binom, rank5, rank2, ph, pl)
            m = 0
            hmax = 0
            lmax = 0
            for q in range(21):
                if not is_foul(five_keys[ph[q]], two_keys[pl[q]]):
                    xs[m] = ph[q]
                    ys[m] = pl[q]
                    hmax = max(hmax, ph[q])
                    lmax = max(lmax, pl[q])
                    m += 1
            f = staircase(xs, ys, m, fh, fl)
            n = 0
            for i in range(f):
                vh[n] = fh[i]
                vl[n] = fl[i]
                n += 1
            for i in range(f - 1):
                vh[n] = fh[i]
                vl[n] = fl[i + 1]
                n += 1
            vh[n] = hmax
            vl[n] = lmax
            n += 1
            total = hand_counts(
                p, table, binom, deck, class_of, cum_base, cum, lw3, cc3, hc3, lw4, cc4, hc4,
                hv5, lw5, cc5, vh, vl, sel, n, wins, losses,
            )  # fmt: skip
            w = 0
            for i in range(f):
                w += wins[i]
            for i in range(f - 1):
                w -= wins[f + i]
            out[0] += weight * w
            out[1] += weight * losses[n - 1]
            out[2] += weight * total
            out[3] += weight
        if not next_combination(c, 5, second):
            break
    return out
