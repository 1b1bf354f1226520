"""Dominance counting: how many dealer hands a setting beats on both hands, or loses to, from
histograms and point lists of dense (high, low) ranks; and the inclusion-exclusion terms of the
exact edge, under a push rule too: the dealer's hands that trigger it
(:mod:`paigow.analysis.kernels.trigger`) are taken out of the dealer's side of every term (those
deals push). Every point plays as the player's hand, only the unflagged ones as the dealer's.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import next_combination, suit_weight
from paigow.analysis.kernels.table import lookup
from paigow.analysis.kernels.trigger import MODE_NONE, flagged

Arr = npt.NDArray[Any]


@nb.njit(cache=True, nogil=True)
def dealer_histogram(rem: Arr, tops: Arr, table: Arr, hist: Arr, binom: Arr) -> int:
    """Add to ``hist[high rank, low rank]`` the compiled house way of every seven-card hand made
    of the cards ``rem`` (ascending) whose highest card is ``rem[t]`` for t in ``tops``.
    Returns the number of hands counted."""
    count = 0
    for t in tops:
        s6 = binom[rem[t], 7]
        for f in range(5, t):
            s5 = s6 + binom[rem[f], 6]
            for e in range(4, f):
                s4 = s5 + binom[rem[e], 5]
                for d in range(3, e):
                    s3 = s4 + binom[rem[d], 4]
                    for c in range(2, d):
                        s2 = s3 + binom[rem[c], 3]
                        for b in range(1, c):
                            s1 = s2 + binom[rem[b], 2]
                            for a in range(b):
                                k = 3 * (s1 + binom[rem[a], 1])
                                hist[table[k] | (np.int64(table[k + 1]) << 8), table[k + 2]] += 1
                            count += b
    return count


@nb.njit(cache=True)
def dominance_counts(hist: Arr, ph: Arr, pl: Arr) -> tuple[Arr, Arr]:
    """For settings with dense ranks (ph[i], pl[i]): how many hands of ``hist`` they beat on both
    hands (wins) and how many beat or copy them on both (losses; copies go to the banker)."""
    n5, n2 = hist.shape
    cum = np.zeros((n5 + 1, n2 + 1), dtype=np.int64)  # cum[h, l] = count(hi < h, lo < l)
    for h in range(n5):
        row = 0
        for low in range(n2):
            row += hist[h, low]
            cum[h + 1, low + 1] = cum[h, low + 1] + row
    total = cum[n5, n2]
    wins = np.empty(len(ph), dtype=np.int64)
    losses = np.empty(len(ph), dtype=np.int64)
    for i in range(len(ph)):
        h, low = ph[i], pl[i]
        wins[i] = cum[h, low]
        below_h = cum[h, n2]
        below_l = cum[n5, low]
        losses[i] = total - below_h - below_l + cum[h, low]
    return wins, losses


@nb.njit(cache=True)
def points_containing(
    t: Arr,
    k: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    mode: int,
    bits: Arr,
    low_trig: Arr,
    hs: Arr,
    ls: Arr,
    fl: Arr,
    hist: Arr,
    hist_d: Arr,
    dense: bool,
    rest: Arr,
    f: Arr,
    d: Arr,
) -> int:
    """(high, low) dense ranks of every seven-card hand of ``deck`` that contains the k cards
    ``t`` (ascending): into the arrays hs, ls, or (``dense``) added to ``hist[high, low]``.
    Under a push rule (``mode``, ``bits``, ``low_trig``: as
    :func:`paigow.analysis.kernels.trigger.flagged` reads them; ``MODE_NONE``: none, and
    ``fl``, ``hist_d`` are not touched) each point also carries its trigger flag: into ``fl``
    (sparse), or (``dense``) the unflagged points added to ``hist_d`` as well. Returns how many
    hands.

    The other r = 7 - k cards s_0 < ... < s_r-1 run over the rest of the deck in colex order, so
    the hands' table indices increase (the table is read forwards). The union's colex index
    splits into a constant and one term per s_j: s_j sits at position j + #(t < s_j), and a card
    u of t between s_j-1 and s_j at its index in t plus j; summing by parts,
    index = sum_u C(u, i_u + r + 1) + sum_j [C(s_j, j + #(t < s_j) + 1) + F_j(s_j) - F_j+1(s_j)]
    where F_j(x) = sum over u in t below x of C(u, i_u + j + 1). ``rest`` (len(deck)), ``f``
    (8 x 54) and ``d`` (7 x len(deck)) are scratch arrays."""
    masked = mode != MODE_NONE
    m = 0
    for c in deck:
        inside = False
        for i in range(k):
            if t[i] == c:
                inside = True
        if not inside:
            rest[m] = c
            m += 1
    r = 7 - k
    base = 0
    for i in range(k):
        base += binom[t[i], i + r + 1]
    if r == 0:
        h, lo = lookup(table, base)
        g = flagged(mode, base, lo, bits, low_trig)
        if dense:
            hist[h, lo] += 1
            if masked and not g:
                hist_d[h, lo] += 1
        else:
            hs[0] = h
            ls[0] = lo
            if masked:
                fl[0] = g
        return 1
    for j in range(r + 1):
        acc = 0
        a = 0
        for x in range(54):
            f[j, x] = acc
            if a < k and t[a] == x:
                acc += binom[x, a + j + 1]
                a += 1
    for p in range(m):
        x = rest[p]
        below = 0
        for i in range(k):
            if t[i] < x:
                below += 1
        for j in range(r):
            d[j, p] = binom[x, j + below + 1] + f[j, x] - f[j + 1, x]
    c = np.arange(r)
    q = np.zeros(r + 1, dtype=np.int64)  # q[j] = sum of the terms of levels j..r-1
    q[r] = base
    for j in range(r - 1, -1, -1):
        q[j] = q[j + 1] + d[j, c[j]]
    n = 0
    while True:
        # innermost level 0 runs fastest
        start = c[0]
        stop = c[1] if r > 1 else m
        q1 = q[1]
        for p in range(start, stop):
            idx = q1 + d[0, p]
            h, lo = lookup(table, idx)
            if dense:
                hist[h, lo] += 1
                if masked and not flagged(mode, idx, lo, bits, low_trig):
                    hist_d[h, lo] += 1
            else:
                hs[n] = h
                ls[n] = lo
                if masked:
                    fl[n] = flagged(mode, idx, lo, bits, low_trig)
            n += 1
        # next colex combination above level 0
        i = 1
        while i < r and c[i] + 1 == (c[i + 1] if i + 1 < r else m):
            i += 1
        if i >= r:
            break
        c[i] += 1
        for j in range(i):
            c[j] = j
        for j in range(i, -1, -1):
            q[j] = q[j + 1] + d[j, c[j]]
    return n


@nb.njit(cache=True)
def dominance_hist(hist: Arr, hist_d: Arr) -> tuple[int, int]:
    """As :func:`dominance_pairs`, for points given as dense histograms: P any point of
    ``hist``, D any of ``hist_d`` (the unflagged ones; ``hist`` itself without a push rule)."""
    n5, n2 = hist.shape
    col_total = np.zeros(n2, dtype=np.int64)
    for h in range(n5):
        for low in range(n2):
            col_total[low] += hist_d[h, low]
    total = col_total.sum()
    below_low = np.zeros(n2 + 1, dtype=np.int64)  # dealer points with low < l, any high
    for low in range(n2):
        below_low[low + 1] = below_low[low] + col_total[low]
    col_cum = np.zeros(n2, dtype=np.int64)  # dealer points with high < h, by low
    rows_below = 0
    wins = 0
    losses = 0
    for h in range(n5):
        prefix = 0  # dealer points with high < h and low < l
        row = 0
        for low in range(n2):
            x = hist[h, low]
            if x:
                wins += x * prefix
                losses += x * (total - rows_below - below_low[low] + prefix)
            prefix += col_cum[low]
            row += hist_d[h, low]
        for low in range(n2):
            col_cum[low] += hist_d[h, low]
        rows_below += row
    return wins, losses


@nb.njit(cache=True)
def dominance_pairs(
    hs: Arr, ls: Arr, fl: Arr, masked: bool, n: int, n5: int, n2: int, count: Arr, order: Arr
) -> tuple[int, int]:
    """For the points (hs[i], ls[i]), i < n: ordered pairs (P, D) with P above D on both ranks
    (wins of P), and with P at or below D on both (losses of P; D = P included); P any point,
    D any point not flagged (``fl[i]`` 1: flagged; read only when ``masked``). ``count``
    (n5 + 1) and ``order`` (n) are scratch arrays.

    One pass in ascending high rank with a Fenwick tree over the low ranks of the dealer points
    already passed (strictly lower high rank): wins of P = those with a lower low rank, q;
    losses of P = #D - #(D of high < P's) - #(D of low < P's) + q."""
    if n < 256:
        srt = np.argsort(hs[:n])
        for i in range(n):
            order[i] = srt[i]
    else:
        count[:] = 0
        for i in range(n):
            count[hs[i] + 1] += 1
        for h in range(n5):
            count[h + 1] += count[h]
        for i in range(n):
            order[count[hs[i]]] = i
            count[hs[i]] += 1
    low_below = np.zeros(n2 + 1, dtype=np.int64)
    total = 0
    for i in range(n):
        if not masked or not fl[i]:
            low_below[ls[i] + 1] += 1
            total += 1
    for v in range(n2):
        low_below[v + 1] += low_below[v]
    bit = np.zeros(n2 + 1, dtype=np.int64)
    wins = 0
    losses = 0
    passed = 0  # dealer points of a lower high rank
    g = 0
    while g < n:
        h = hs[order[g]]
        e = g
        while e < n and hs[order[e]] == h:
            e += 1
        for j in range(g, e):
            v = ls[order[j]]
            i = v
            s = 0
            while i > 0:
                s += bit[i]
                i -= i & -i
            wins += s
            losses += total - passed - low_below[v] + s
        for j in range(g, e):
            if not masked or not fl[order[j]]:
                i = ls[order[j]] + 1
                while i <= n2:
                    bit[i] += 1
                    i += i & -i
                passed += 1
        g = e
    return wins, losses


@nb.njit(cache=True, nogil=True)
def edge_chunk(
    k: int,
    top: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    n5: int,
    n2: int,
    mode: int,
    bits: Arr,
    low_trig: Arr,
) -> Arr:
    """The inclusion-exclusion terms of size ``k`` for the card sets T whose highest card is
    ``deck[top]`` (all k-subsets of ``deck`` when k == 0): sums over canonical T (weighted by
    the number of suit relabellings) of the ordered (player, dealer) pairs of hands containing T
    that the player wins, loses, and in all, the dealer's hands that trigger the push rule
    (``mode``, ``bits``, ``low_trig``: see :func:`points_containing`) pushing. Returns [wins,
    losses, pairs, sets, flagged points] (the last: of the k == 0 term, the deck's hands that
    trigger the rule)."""
    out = np.zeros(5, dtype=np.int64)
    masked = mode != MODE_NONE
    size = 1
    rest_n = len(deck) - k
    for j in range(7 - k):  # C(rest_n, 7 - k)
        size = size * (rest_n - j) // (j + 1)
    dense = size > 2_000_000  # many hands: a dense histogram beats sorting them
    hist = np.zeros((n5, n2) if dense else (1, 1), dtype=np.int64)
    # the dealer's points: without a push rule every point, ``hist`` itself
    hist_d = np.zeros((n5, n2), dtype=np.int64) if dense and masked else hist
    hs = np.empty(1 if dense else size, dtype=np.int64)
    ls = np.empty(1 if dense else size, dtype=np.int64)
    fl = np.zeros(size if masked and not dense else 1, dtype=np.int64)
    order = np.empty(1 if dense else size, dtype=np.int64)
    count = np.zeros(n5 + 1, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    rest = np.empty(len(deck), dtype=np.int64)
    f = np.zeros((8, 54), dtype=np.int64)
    d = np.zeros((7, len(deck)), dtype=np.int64)
    c = np.arange(max(k - 1, 0))
    while True:
        for j in range(k - 1):
            t[j] = deck[c[j]]
        if k > 0:
            t[k - 1] = deck[top]
        weight = suit_weight(t, k) if k > 0 else 1
        if weight:
            if dense:
                hist[:, :] = 0
                if masked:
                    hist_d[:, :] = 0
            n = points_containing(
                t, k, deck, table, binom, mode, bits, low_trig, hs, ls, fl, hist, hist_d, dense,
                rest, f, d,
            )  # fmt: skip
            if dense:
                w, lo = dominance_hist(hist, hist_d)
            else:
                w, lo = dominance_pairs(hs, ls, fl, masked, n, n5, n2, count, order)
            out[0] += weight * w
            out[1] += weight * lo
            out[2] += weight * n * n
            out[3] += weight
            if k == 0 and masked:
                out[4] = n - hist_d.sum() if dense else fl[:n].sum()
        if k <= 1 or not next_combination(c, k - 1, top):
            break
    return out
