"""Push rules in the exact edge: which dealer hands trigger a push rule, and the inclusion-exclusion
terms of the edge with those hands taken out of the dealer's wins and losses (they push).

A trigger is a property of the dealer's hand alone, so each term's points carry a flag: every
point plays as the player's hand, only the unflagged ones as the dealer's. Two kinds of trigger:
``MODE_LOW`` reads the dealer's dense low rank (the house way's low hand: nine high), ``MODE_HAND``
reads one bit per seven-card hand (a pai gow by top card, from ranks and suits), indexed like the
compiled table. Both are blind to suits' names, so suit classes stay exact.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import next_combination, suit_weight
from paigow.analysis.kernels.table import lookup

Arr = npt.NDArray[Any]

MODE_NONE = 0
MODE_LOW = 1
MODE_HAND = 2
JOKER = 52
ACE_R = 12


@nb.njit(cache=True, inline="always")
def pai_gow_top7(s: Arr) -> int:
    """The top rank index (0 = deuce .. 12 = ace) of a seven-card pai gow, or -1: ``s`` holds
    seven card indices; the joker completes straights and flushes and otherwise is an ace."""
    ranks = 0
    joker = 0
    suits = np.zeros(4, dtype=np.int64)
    for i in range(7):
        c = s[i]
        if c == JOKER:
            joker = 1
            continue
        bit = 1 << (c >> 2)
        if ranks & bit:
            return -1  # a pair
        ranks |= bit
        suits[c & 3] += 1
    if joker and ranks & (1 << ACE_R):
        return -1  # the joker and an ace: a pair of aces
    for u in range(4):
        if suits[u] + joker >= 5:
            return -1  # a flush
    low = (ranks << 1) | ((ranks >> ACE_R) & 1)  # bit 0: the ace as one
    for lo in range(10):  # windows 1-5 .. 10-14 (bit 0 the low ace)
        n = 0
        for j in range(5):
            n += (low >> (lo + j)) & 1
        if n + joker >= 5:
            return -1  # a straight
    if joker:
        return ACE_R
    top = 12
    while not (ranks >> top) & 1:
        top -= 1
    return top


@nb.njit(cache=True, nogil=True)
def pai_gow_bits(top: int, want: int, bits: Arr, binom: Arr) -> int:
    """Set bit k of ``bits`` for every seven-card hand of colex index k whose highest card is
    ``top`` and that is a pai gow of top rank index ``want``. Returns how many were set."""
    s = np.empty(7, dtype=np.int64)
    s[6] = top
    base = binom[top, 7]
    count = 0
    for f in range(5, top):
        s[5] = f
        for e in range(4, f):
            s[4] = e
            for d in range(3, e):
                s[3] = d
                for c in range(2, d):
                    s[2] = c
                    for b in range(1, c):
                        s[1] = b
                        for a in range(b):
                            s[0] = a
                            if pai_gow_top7(s) == want:
                                k = (
                                    base
                                    + binom[a, 1]
                                    + binom[b, 2]
                                    + binom[c, 3]
                                    + binom[d, 4]
                                    + binom[e, 5]
                                    + binom[f, 6]
                                )
                                bits[k >> 3] |= np.uint8(1 << (k & 7))
                                count += 1
    return count


@nb.njit(cache=True, inline="always")
def flagged(mode: int, idx: int, lo: int, bits: Arr, low_trig: Arr) -> int:
    """Whether the hand of colex index ``idx`` (dense low rank ``lo``) triggers the push rule."""
    if mode == MODE_LOW:
        return int(low_trig[lo])
    if mode == MODE_HAND:
        return int((bits[idx >> 3] >> (idx & 7)) & 1)
    return 0


@nb.njit(cache=True)
def points_flagged(
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
    """As :func:`paigow.analysis.kernels.dominance.points_containing`, each point with its
    trigger flag: into ``fl`` (sparse), or (``dense``) every point added to ``hist`` and the
    unflagged ones to ``hist_d``. Returns how many points."""
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
            if not g:
                hist_d[h, lo] += 1
        else:
            hs[0] = h
            ls[0] = lo
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
    q = np.zeros(r + 1, dtype=np.int64)
    q[r] = base
    for j in range(r - 1, -1, -1):
        q[j] = q[j + 1] + d[j, c[j]]
    n = 0
    while True:
        start = c[0]
        stop = c[1] if r > 1 else m
        q1 = q[1]
        for p in range(start, stop):
            idx = q1 + d[0, p]
            h, lo = lookup(table, idx)
            g = flagged(mode, idx, lo, bits, low_trig)
            if dense:
                hist[h, lo] += 1
                if not g:
                    hist_d[h, lo] += 1
            else:
                hs[n] = h
                ls[n] = lo
                fl[n] = g
            n += 1
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
def dominance_hist_masked(hist: Arr, hist_d: Arr) -> tuple[int, int]:
    """Ordered pairs (P, D), P any point of ``hist`` and D any of ``hist_d`` (the unflagged):
    P above D on both ranks (wins), P at or below D on both (losses)."""
    n5, n2 = hist.shape
    col_total = np.zeros(n2, dtype=np.int64)
    for h in range(n5):
        for low in range(n2):
            col_total[low] += hist_d[h, low]
    total = col_total.sum()
    below_low = np.zeros(n2 + 1, dtype=np.int64)
    for low in range(n2):
        below_low[low + 1] = below_low[low] + col_total[low]
    col_cum = np.zeros(n2, dtype=np.int64)
    rows_below = 0
    wins = 0
    losses = 0
    for h in range(n5):
        prefix = 0
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
def dominance_pairs_masked(hs: Arr, ls: Arr, fl: Arr, n: int, n2: int) -> tuple[int, int]:
    """As :func:`dominance_hist_masked` for points in arrays (``fl``: 1 for a flagged point),
    one pass in ascending high rank with a Fenwick tree over the unflagged points' low ranks."""
    order = np.argsort(hs[:n], kind="mergesort")
    low_below = np.zeros(n2 + 1, dtype=np.int64)
    total = 0
    for i in range(n):
        if not fl[i]:
            low_below[ls[i] + 1] += 1
            total += 1
    for v in range(n2):
        low_below[v + 1] += low_below[v]
    bit = np.zeros(n2 + 1, dtype=np.int64)
    wins = 0
    losses = 0
    passed = 0  # unflagged points of a lower high rank
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
            if not fl[order[j]]:
                i = ls[order[j]] + 1
                while i <= n2:
                    bit[i] += 1
                    i += i & -i
                passed += 1
        g = e
    return wins, losses


@nb.njit(cache=True, nogil=True)
def edge_chunk_push(
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
    """As :func:`paigow.analysis.kernels.dominance.edge_chunk`, the dealer's flagged hands
    pushing: [wins, losses, pairs, sets, flagged points] (the last: of the k == 0 term, the
    deck's hands that trigger the rule)."""
    out = np.zeros(5, dtype=np.int64)
    size = 1
    rest_n = len(deck) - k
    for j in range(7 - k):
        size = size * (rest_n - j) // (j + 1)
    dense = size > 2_000_000
    hist = np.zeros((n5, n2) if dense else (1, 1), dtype=np.int64)
    hist_d = np.zeros((n5, n2) if dense else (1, 1), dtype=np.int64)
    hs = np.empty(1 if dense else size, dtype=np.int64)
    ls = np.empty(1 if dense else size, dtype=np.int64)
    fl = np.empty(1 if dense else size, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    rest = np.empty(len(deck), dtype=np.int64)
    f = np.zeros((8, 54), dtype=np.int64)
    d = np.zeros((7, len(deck)), dtype=np.int64)
    if k == 0:
        n = points_flagged(
            t, 0, deck, table, binom, mode, bits, low_trig, hs, ls, fl, hist, hist_d, dense, rest,
            f, d,
        )  # fmt: skip
        if dense:
            w, lo = dominance_hist_masked(hist, hist_d)
            flagged_n = n - hist_d.sum()
        else:
            w, lo = dominance_pairs_masked(hs, ls, fl, n, n2)
            flagged_n = fl[:n].sum()
        out[0], out[1], out[2], out[3], out[4] = w, lo, n * n, 1, flagged_n
        return out
    c = np.arange(k - 1)
    while True:
        for j in range(k - 1):
            t[j] = deck[c[j]]
        t[k - 1] = deck[top]
        weight = suit_weight(t, k)
        if weight:
            if dense:
                hist[:, :] = 0
                hist_d[:, :] = 0
            n = points_flagged(
                t, k, deck, table, binom, mode, bits, low_trig, hs, ls, fl, hist, hist_d, dense,
                rest, f, d,
            )  # fmt: skip
            if dense:
                w, lo = dominance_hist_masked(hist, hist_d)
            else:
                w, lo = dominance_pairs_masked(hs, ls, fl, n, n2)
            out[0] += weight * w
            out[1] += weight * lo
            out[2] += weight * n * n
            out[3] += weight
        if k == 1 or not next_combination(c, k - 1, top):
            break
    return out


@nb.njit(cache=True, nogil=True)
def shift_table(table: Arr, mode: int, bits: Arr, low_trig: Arr, n5: int, out: Arr) -> int:
    """The compiled table with the push rule folded into the dealer's ranks: a hand that
    triggers the rule at (high n5, low 0), every other at (high, low + 1). Against a player's
    setting (high h < n5, low l + 1 >= 1) the first is neither beaten on both hands nor at least
    as good on both, so it pushes; the others compare as before. Returns the hands moved."""
    moved = 0
    for idx in range(len(table) // 3):
        k = 3 * idx
        lo = int(table[k + 2])
        if flagged(mode, idx, lo, bits, low_trig):
            out[k] = n5 & 0xFF
            out[k + 1] = n5 >> 8
            out[k + 2] = 0
            moved += 1
        else:
            out[k] = table[k]
            out[k + 1] = table[k + 1]
            out[k + 2] = lo + 1
    return moved
