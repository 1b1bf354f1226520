"""The optimal player's kernels: the exact wins and losses of all 21 settings of a player hand
against every disjoint dealer hand, by inclusion-exclusion over precomputed dominance structures
(see :mod:`paigow.analysis.optimal`)."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import colex
from paigow.analysis.kernels.dominance import points_containing
from paigow.analysis.kernels.table import lookup

Arr = npt.NDArray[Any]


@nb.njit(cache=True)
def _scratch(deck: Arr) -> tuple[Arr, Arr, Arr]:
    """The scratch arrays of :func:`paigow.analysis.kernels.dominance.points_containing`."""
    return (
        np.empty(len(deck), dtype=np.int64),
        np.zeros((8, 54), dtype=np.int64),
        np.zeros((7, len(deck)), dtype=np.int64),
    )


@nb.njit(cache=True, nogil=True)
def build_cum(reps: Arr, k: int, deck: Arr, table: Arr, binom: Arr, cum: Arr) -> None:
    """cum[i, h, l] = hands containing reps[i] with high rank < h and low rank < l."""
    n5 = cum.shape[1] - 1
    n2 = cum.shape[2] - 1
    hist = np.zeros((n5, n2), dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty(1, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        hist[:, :] = 0
        points_containing(t, k, deck, table, binom, dummy, dummy, hist, True, rest, f, d)
        col = np.zeros(n2, dtype=np.int64)
        for h in range(n5 + 1):
            acc = 0
            cum[i, h, 0] = 0
            for low in range(n2):
                acc += col[low]
                cum[i, h, low + 1] = acc
            if h < n5:
                for low in range(n2):
                    col[low] += hist[h, low]


@nb.njit(cache=True, nogil=True)
def build_grouped(
    reps: Arr,
    k: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    n5: int,
    n2: int,
    hvals: Arr,
    offsets: Arr,
    hcum: Arr,
) -> None:
    """For each class: its hands' high ranks grouped by low rank (each group sorted), the
    groups' offsets, and hcum[i, h] = hands with high rank < h."""
    size = hvals.shape[0] // reps.shape[0]
    hs = np.empty(size, dtype=np.int64)
    ls = np.empty(size, dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty((1, 1), dtype=np.int64)
    t = np.empty(k, dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        n = points_containing(t, k, deck, table, binom, hs, ls, dummy, False, rest, f, d)
        base = i * size
        # group by low rank (counting sort), then sort each group's high ranks
        start = np.zeros(n2 + 1, dtype=np.int64)
        for p in range(n):
            start[ls[p] + 1] += 1
        for v in range(n2):
            start[v + 1] += start[v]
        pos = start.copy()
        buf = np.empty(n, dtype=np.int64)
        for p in range(n):
            buf[pos[ls[p]]] = hs[p]
            pos[ls[p]] += 1
        for v in range(n2):
            buf[start[v] : start[v + 1]].sort()
        for p in range(n):
            hvals[base + p] = buf[p]
        for v in range(n2 + 1):
            offsets[i, v] = base + start[v]
        cnt = np.zeros(n5 + 1, dtype=np.int64)
        for p in range(n):
            cnt[hs[p] + 1] += 1
        for h in range(n5):
            cnt[h + 1] += cnt[h]
        for h in range(n5 + 1):
            hcum[i, h] = cnt[h]


@nb.njit(cache=True, nogil=True)
def build_points(reps: Arr, k: int, deck: Arr, table: Arr, binom: Arr, ph: Arr, pl: Arr) -> None:
    """Each class's hands as (high, low) lists, one after another."""
    size = ph.shape[0] // reps.shape[0]
    hs = np.empty(size, dtype=np.int64)
    ls = np.empty(size, dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty((1, 1), dtype=np.int64)
    t = np.empty(k, dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        n = points_containing(t, k, deck, table, binom, hs, ls, dummy, False, rest, f, d)
        for p in range(n):
            ph[i * size + p] = hs[p]
            pl[i * size + p] = ls[p]


#: Coarse indices into the grouped high ranks of |T| = 3 and 4: ``idx[cls, v, b]`` is where the
#: high ranks >= b * STEP start in class cls's group of low rank v, so that a count needs a
#: binary search over a few entries only.
STEP3 = 64
STEP4 = 256


@nb.njit(cache=True, nogil=True)
def build_index(hvals: Arr, offsets: Arr, step: int, idx: Arr) -> None:
    """Fill ``idx[cls, v, b]`` (see :data:`STEP3`) from grouped, sorted high ranks."""
    nb_ = idx.shape[2] - 1
    for cls in range(offsets.shape[0]):
        for v in range(offsets.shape[1] - 1):
            lo, hi = offsets[cls, v], offsets[cls, v + 1]
            p = lo
            for b in range(nb_):
                while p < hi and hvals[p] < b * step:
                    p += 1
                idx[cls, v, b] = p
            idx[cls, v, nb_] = hi


@nb.njit(cache=True, inline="always")
def _bisect(a: Arr, lo: int, hi: int, x: int) -> int:
    """Number of values < x in the sorted a[lo:hi]."""
    start = lo
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo - start


@nb.njit(cache=True)
def hand_counts(
    p: Arr,
    deck: Arr,
    table: Arr,
    binom: Arr,
    rank5: Arr,
    rank2: Arr,
    class_of: Arr,
    cum_base: Arr,
    cum: Arr,
    hv3: Arr,
    off3: Arr,
    hc3: Arr,
    idx3: Arr,
    hv4: Arr,
    off4: Arr,
    hc4: Arr,
    idx4: Arr,
    p5h: Arr,
    p5l: Arr,
    size5: int,
    ph: Arr,
    pl: Arr,
    sel: Arr,
    nsel: int,
    wins: Arr,
    losses: Arr,
) -> int:
    """Wins and losses of the settings ``sel[:nsel]`` (of the 21, with dense ranks ph, pl) of the
    player hand ``p`` (7 cards ascending) against every dealer hand of ``deck`` disjoint from
    it, into wins and losses (indexed by setting); returns the number of dealer hands."""
    n2 = cum.shape[2] - 1
    n5 = cum.shape[1] - 1
    for qi in range(nsel):
        wins[sel[qi]] = 0
        losses[sel[qi]] = 0
    t = np.empty(7, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    nd = len(deck)
    for mask in range(128):
        k = 0
        for q in range(7):
            if (mask >> q) & 1:
                t[k] = p[q]
                k += 1
        sign = -1 if k % 2 else 1
        size = 1
        for j in range(7 - k):
            size = size * (nd - k - j) // (j + 1)
        if k <= 2:
            cls = 0 if k == 0 else class_of[k, colex(t, k, binom)]
            c = cum_base[k] + cls
            for qi in range(nsel):
                q = sel[qi]
                h, low = ph[q], pl[q]
                both = np.int64(cum[c, h, low])
                wins[q] += sign * both
                losses[q] += sign * (
                    size - np.int64(cum[c, h, n2]) - np.int64(cum[c, n5, low]) + both
                )
        elif k <= 4:
            cls = class_of[k, colex(t, k, binom)]
            hv = hv3 if k == 3 else hv4
            off = off3 if k == 3 else off4
            hc = hc3 if k == 3 else hc4
            idx = idx3 if k == 3 else idx4
            step = STEP3 if k == 3 else STEP4
            for qi in range(nsel):
                q = sel[qi]
                h, low = ph[q], pl[q]
                below_h = np.int64(hc[cls, h])
                b = h // step
                both = np.int64(0)
                if 2 * low <= n2:
                    for v in range(low):
                        lo_i = idx[cls, v, b]
                        both += lo_i - off[cls, v] + _bisect(hv, lo_i, idx[cls, v, b + 1], h)
                else:  # fewer groups above: all below h, less those with low rank >= low
                    both = below_h
                    for v in range(low, n2):
                        lo_i = idx[cls, v, b]
                        both -= lo_i - off[cls, v] + _bisect(hv, lo_i, idx[cls, v, b + 1], h)
                below_l = off[cls, low] - off[cls, 0]
                wins[q] += sign * both
                losses[q] += sign * (size - below_h - below_l + both)
        elif k == 5:
            cls = class_of[k, colex(t, k, binom)]
            base = cls * size5
            for qi in range(nsel):
                q = sel[qi]
                h, low = ph[q], pl[q]
                w = 0
                lo_ = 0
                for x in range(base, base + size5):  # branch-free: the outcomes are random
                    a = p5h[x] < h
                    b = p5l[x] < low
                    w += np.int64(a & b)  # type: ignore[assignment]
                    lo_ += np.int64(not (a | b))  # type: ignore[assignment]
                wins[q] += sign * w
                losses[q] += sign * lo_
        else:
            # |T| = 6 or 7: the hands containing T, straight from the table
            for x in deck:
                if k == 7:
                    if x != deck[0]:
                        continue
                    for j in range(7):
                        hand[j] = t[j]
                else:
                    inside = False
                    for j in range(6):
                        if t[j] == x:
                            inside = True
                    if inside:
                        continue
                    m = 0
                    placed = False
                    for j in range(6):
                        if not placed and x < t[j]:
                            hand[m] = x
                            m += 1
                            placed = True
                        hand[m] = t[j]
                        m += 1
                    if not placed:
                        hand[6] = x
                dh, dl = lookup(table, colex(hand, 7, binom))
                for qi in range(nsel):
                    q = sel[qi]
                    if ph[q] > dh and pl[q] > dl:
                        wins[q] += sign
                    elif ph[q] <= dh and pl[q] <= dl:
                        losses[q] += sign
    total = 1
    for j in range(7):
        total = total * (nd - 7 - j) // (j + 1)
    return total
