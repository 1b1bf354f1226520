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
from paigow.analysis.kernels.trigger import MODE_NONE

Arr = npt.NDArray[Any]


@nb.njit(cache=True)
def _scratch(deck: Arr) -> tuple[Arr, Arr, Arr, Arr]:
    """The scratch arrays of :func:`paigow.analysis.kernels.dominance.points_containing`, and
    a placeholder for the push rule's arrays (the dealer's view has the push rule folded in:
    :mod:`paigow.analysis.pushed`)."""
    return (
        np.zeros(1, dtype=np.uint8),
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
    none, rest, f, d = _scratch(deck)
    dummy = np.empty(1, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        hist[:, :] = 0
        points_containing(
            t, k, deck, table, binom, MODE_NONE, none, none, dummy, dummy, dummy, hist, hist,
            True, rest, f, d,
        )  # fmt: skip
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


#: Block sizes of the sorted structures of |T| = 3, 4 and 5: ``cc[cls, j, v]`` counts the hands
#: among class cls's first j * BLOCK (in ascending high rank) with low rank < v, so that a count
#: of the hands below a setting on both ranks reads one row and scans at most half a block.
BLOCK3 = 256
BLOCK4 = 128
BLOCK5 = 128


def block_rows(size: int, block: int) -> int:
    """Rows of block counts for a class of ``size`` hands (edges 0, block, 2 block, ..., size).

    >>> block_rows(1128, 128)
    10
    """
    return -(-size // block) + 1


@nb.njit(cache=True, nogil=True)
def build_sorted(
    reps: Arr,
    k: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    n5: int,
    block: int,
    lw: Arr,
    hv: Arr,
    hc: Arr,
    cc: Arr,
) -> None:
    """For each class (the hands containing reps[i]): its hands in ascending high rank, their
    low ranks into ``lw`` (and their high ranks into ``hv`` unless it is a one-element
    placeholder), hc[i, h] = hands with high rank < h (unless ``hc`` is a placeholder), and the
    block counts ``cc`` (see :data:`BLOCK3`)."""
    m = reps.shape[0]
    size = lw.shape[0] // m
    n2 = cc.shape[2] - 1
    rows = cc.shape[1]
    hs = np.empty(size, dtype=np.int64)
    ls = np.empty(size, dtype=np.int64)
    none, rest, f, d = _scratch(deck)
    dummy = np.empty((1, 1), dtype=np.int64)
    t = np.empty(k, dtype=np.int64)
    cnt = np.zeros(n5 + 1, dtype=np.int64)
    hist = np.zeros(n2, dtype=np.int64)
    for i in range(m):
        for j in range(k):
            t[j] = reps[i, j]
        n = points_containing(
            t, k, deck, table, binom, MODE_NONE, none, none, hs, ls, hs, dummy, dummy, False,
            rest, f, d,
        )  # fmt: skip
        base = i * size
        cnt[:] = 0
        for p in range(n):
            cnt[hs[p] + 1] += 1
        for h in range(n5):
            cnt[h + 1] += cnt[h]
        if hc.shape[1] > 1:
            for h in range(n5 + 1):
                hc[i, h] = cnt[h]
        for p in range(n):  # a stable counting sort by high rank
            x = cnt[hs[p]]
            cnt[hs[p]] += 1
            lw[base + x] = ls[p]
            if hv.shape[0] > 1:
                hv[base + x] = hs[p]
        hist[:] = 0
        done = 0
        for j in range(rows):
            edge = min(j * block, n)
            while done < edge:
                hist[lw[base + done]] += 1
                done += 1
            acc = 0
            cc[i, j, 0] = 0
            for v in range(n2):
                acc += hist[v]
                cc[i, j, v + 1] = acc


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


@nb.njit(cache=True, inline="always")
def _add_sorted(
    cls: int,
    size: int,
    block: int,
    lw: Arr,
    cc: Arr,
    hc: Arr,
    hv: Arr,
    search: bool,
    sign: int,
    ph: Arr,
    pl: Arr,
    sel: Arr,
    nsel: int,
    wins: Arr,
    losses: Arr,
) -> None:
    """Add sign x the dominance counts of the settings against class ``cls`` of a sorted
    structure. The hands below a setting's high rank are the class's first ``pos`` (read from
    ``hc``, or a binary search of ``hv`` when ``search``; the other is a placeholder of the
    same dimensions); of those, the ones below its low rank
    are the nearest block row's count plus or minus a scan of at most half a block."""
    base = cls * size
    last = cc.shape[1] - 1
    for qi in range(nsel):
        q = sel[qi]
        h, low = ph[q], pl[q]
        pos = _bisect(hv, base, base + size, h) if search else np.int64(hc[cls, h])
        j = (pos + (block >> 1)) // block
        if j > last:
            j = last
        edge = min(j * block, size)
        both = np.int64(cc[cls, j, low])
        if edge <= pos:
            for x in range(base + edge, base + pos):
                both += np.int64(lw[x] < low)
        else:
            for x in range(base + pos, base + edge):
                both -= np.int64(lw[x] < low)
        below_l = np.int64(cc[cls, last, low])
        wins[q] += sign * both
        losses[q] += sign * (size - pos - below_l + both)


@nb.njit(cache=True)
def hand_counts(
    p: Arr,
    table: Arr,
    binom: Arr,
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
    ph: Arr,
    pl: Arr,
    sel: Arr,
    nsel: int,
    wins: Arr,
    losses: Arr,
) -> int:
    """Wins and losses of the settings ``sel[:nsel]`` (of the 21, with dense ranks ph, pl) of the
    player hand ``p`` (7 cards ascending) against every dealer hand of ``deck`` disjoint from
    it, into wins and losses (indexed by setting); returns the number of dealer hands. The
    arguments from ``deck`` to ``cc5`` are :meth:`paigow.analysis.optimal.Structures.kernel_args`."""
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
        # the class of T under suit relabelling (|T| <= 5; the empty set is class 0)
        cls = 0 if k == 0 or k > 5 else class_of[k, colex(t, k, binom)]
        if k <= 2:
            c = cum_base[k] + cls
            for qi in range(nsel):
                q = sel[qi]
                h, low = ph[q], pl[q]
                both = np.int64(cum[c, h, low])
                wins[q] += sign * both
                losses[q] += sign * (
                    size - np.int64(cum[c, h, n2]) - np.int64(cum[c, n5, low]) + both
                )
        elif k == 3:
            _add_sorted(
                cls, size, BLOCK3, lw3, cc3, hc3, lw3, False, sign, ph, pl, sel, nsel, wins,
                losses,
            )  # fmt: skip
        elif k == 4:
            _add_sorted(
                cls, size, BLOCK4, lw4, cc4, hc4, lw4, False, sign, ph, pl, sel, nsel, wins,
                losses,
            )  # fmt: skip
        elif k == 5:
            _add_sorted(
                cls, size, BLOCK5, lw5, cc5, cum[0], hv5, True, sign, ph, pl, sel, nsel, wins,
                losses,
            )  # fmt: skip
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
