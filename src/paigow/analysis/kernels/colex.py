"""Colex utilities: the combinatorial index of a set of cards, combinations, suit classes.

Hands of k cards are indexed combinatorially (colex): sorted ascending ``c0 < c1 < ... < ck-1``,
``index = C(c0, 1) + C(c1, 2) + ... + C(ck-1, k)``; all C(53, k) hands get 0 .. C(53, k) - 1.

>>> int(BINOM[53, 7])
154143080
>>> colex(np.array([0, 1, 2, 3, 4, 5, 6]), 7, BINOM), colex5(48, 49, 50, 51, 52, BINOM)
(0, 2869684)
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[Any]
JOKER = 52


def binomials(n: int = 54, k: int = 8) -> Arr:
    """``B[n, k] = C(n, k)`` for small n, k (0 where k > n)."""
    b = np.zeros((n, k), dtype=np.int64)
    for i in range(n):
        b[i, 0] = 1
        for j in range(1, min(i, k - 1) + 1):
            b[i, j] = b[i - 1, j - 1] + (b[i - 1, j] if j <= i - 1 else 0)
    return b


BINOM = binomials()


@nb.njit(cache=True)
def colex5(a: int, b: int, c: int, d: int, e: int, binom: Arr) -> int:
    """Colex index of five cards given in ascending order."""
    return int(binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4] + binom[e, 5])


@nb.njit(cache=True)
def colex(cards: Arr, n: int, binom: Arr) -> int:
    """Colex index of ``cards[:n]`` (ascending)."""
    idx = 0
    for i in range(n):
        idx += binom[cards[i], i + 1]
    return idx


@nb.njit(cache=True, inline="always")
def colex7_sorted(h: Arr, binom: Arr) -> int:
    """Sort seven cards ascending in place and return their colex index."""
    for j in range(1, 7):
        v = h[j]
        k = j - 1
        while k >= 0 and h[k] > v:
            h[k + 1] = h[k]
            k -= 1
        h[k + 1] = v
    idx = 0
    for j in range(7):
        idx += binom[h[j], j + 1]
    return idx


@nb.njit(cache=True, inline="always")
def next_combination(c: Arr, r: int, m: int) -> bool:
    """Advance the r-combination ``c`` of range(m) in lexicographic order; False at the end."""
    i = r - 1
    while i >= 0 and c[i] == m - r + i:
        i -= 1
    if i < 0:
        return False
    c[i] += 1
    for j in range(i + 1, r):
        c[j] = c[j - 1] + 1
    return True


@nb.njit(cache=True)
def suit_weight(cards: Arr, n: int) -> int:
    """The number of sets that suit relabelling maps ``cards[:n]`` to, if it is the canonical one
    of them (its suits' rank masks in non-increasing order: clubs >= diamonds >= hearts >=
    spades); 0 if it is not canonical."""
    m = np.zeros(4, dtype=np.int64)
    for i in range(n):
        c = cards[i]
        if c != JOKER:
            m[c & 3] |= 1 << (c >> 2)
    if not (m[0] >= m[1] and m[1] >= m[2] and m[2] >= m[3]):
        return 0
    stab = 1
    run = 1
    for i in range(1, 4):
        if m[i] == m[i - 1]:
            run += 1
            stab *= run
        else:
            run = 1
    return 24 // stab


@nb.njit(cache=True)
def canonical(cards: Arr, n: int, out: Arr) -> None:
    """The canonical image of ``cards[:n]`` under suit relabelling (suit masks in
    non-increasing order), ascending, into ``out``."""
    m = np.zeros(4, dtype=np.int64)
    for i in range(n):
        c = cards[i]
        if c != JOKER:
            m[c & 3] |= 1 << (c >> 2)
    order = np.argsort(-m, kind="mergesort")  # suits by mask, largest first (stable)
    new_suit = np.empty(4, dtype=np.int64)
    for rank in range(4):
        new_suit[order[rank]] = rank
    for i in range(n):
        c = cards[i]
        out[i] = c if c == JOKER else (c & ~3) | new_suit[c & 3]
    out[:n].sort()


@nb.njit(cache=True)
def subset_classes(deck: Arr, k: int, binom: Arr, class_of: Arr) -> Arr:
    """Number the suit classes of the k-subsets of ``deck``: ``class_of[colex(T)]`` for every
    k-subset T; returns the canonical representatives (one row each)."""
    n = len(deck)
    c = np.arange(k)
    t = np.empty(k, dtype=np.int64)
    reps: list[Arr] = []
    while True:
        for i in range(k):
            t[i] = deck[c[i]]
        if suit_weight(t, k):
            class_of[colex(t, k, binom)] = len(reps)
            reps.append(t.copy())
        if not next_combination(c, k, n):
            break
    c = np.arange(k)
    canon = np.empty(k, dtype=np.int64)
    while True:
        for i in range(k):
            t[i] = deck[c[i]]
        canonical(t, k, canon)
        class_of[colex(t, k, binom)] = class_of[colex(canon, k, binom)]
        if not next_combination(c, k, n):
            break
    out = np.empty((len(reps), k), dtype=np.int64)
    for i in range(len(reps)):
        out[i] = reps[i]
    return out


@nb.njit(cache=True)
def count_classes(deck: Arr, k: int) -> int:
    """The number of suit classes of k-card subsets of ``deck`` (one canonical set each)."""
    c = np.arange(k)
    t = np.empty(k, dtype=np.int64)
    n = 0
    while True:
        for i in range(k):
            t[i] = deck[c[i]]
        if suit_weight(t, k):
            n += 1
        if not next_combination(c, k, len(deck)):
            break
    return n
