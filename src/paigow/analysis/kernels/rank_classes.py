"""The house way over classes of hands: every seven-card hand of a deck, without setting each.

The program (:mod:`.program`) reads a hand's ranks (the joker apart) and its suits only for
flushes: five cards of one suit, the joker counting with any, and at most one suit of seven
cards can hold them. So two hands with the same ranks are set alike (the same rule, the same
strength of high and low hand, a foul alike) when neither can make a flush, or when both can and
hold the same ranks in their flush suit: a card-for-card match keeping each card's rank, the
joker and whether it is of the flush suit keeps every five-card and two-card key. A **class** is
a rank multiset with the joker or not, and the ranks it holds in its flush suit (none: no flush).
Each class is set once, by its representative, and counts for all its hands.

Its representative is the hand of the class that the sweep over every hand
(:func:`.table.build_slice`: the slices of the highest card ascending, each slice's hands in
colex order descending) meets first, so that the first hand of a kind (no rule, a foul) is the
sweep's own. :func:`sweep_order` is that order as one number.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import JOKER, _popc, is_foul, key2
from paigow.analysis.kernels.way_program import house_way_program, work_array

Arr = npt.NDArray[Any]

ORDER_BITS = 28  # C(53, 7) < 2**28: a sweep order is the top card, then the colex index reversed


def _masks_by_preference() -> tuple[Arr, Arr]:
    """The suit sets (4-bit masks) of each size, in the order the sweep prefers them: ``LATER``
    for a rank below the hand's top card (the larger suits first: colex descending), ``TOP`` for
    the top card's rank (the lowest highest suit first, then the larger others)."""
    later = np.full((5, 6), -1, dtype=np.int64)
    top = np.full((5, 6), -1, dtype=np.int64)
    for size in range(5):
        masks = [m for m in range(16) if bin(m).count("1") == size]
        for n, m in enumerate(sorted(masks, reverse=True)):
            later[size, n] = m
        for n, m in enumerate(sorted(masks, key=lambda m: (m.bit_length(), -m))):
            top[size, n] = m
    return later, top


LATER, TOP = _masks_by_preference()


@nb.njit(cache=True, inline="always")
def sweep_order(s: Arr, binom: Arr) -> int:
    """Where the sweep meets seven cards sorted descending (the lower, the sooner)."""
    idx = 0
    for k in range(7):
        idx += binom[s[k], 7 - k]
    return int((s[0] << ORDER_BITS) | ((1 << ORDER_BITS) - 1 - idx))


@nb.njit(cache=True)
def _first_hand(
    ranks: Arr, counts: Arr, nd: int, jk: int, flush: int, suit: int, s: Arr, binom: Arr
) -> int:
    """The class's hand the sweep meets first, into ``s`` (descending), and its sweep order; -1
    if the class has no hand. ``ranks[:nd]``: its ranks, descending, each held ``counts[r]``
    times; ``flush``: a bit per position in ``ranks`` for the ranks held in the flush suit
    ``suit``, or -1 for no flush (then no suit may hold ``5 - jk`` cards)."""
    limit = 5 - jk
    opt = np.full(8, -1, dtype=np.int64)
    chosen = np.zeros(8, dtype=np.int64)
    held = np.zeros((8, 4), dtype=np.int64)  # cards of each suit before position p
    p = 0
    while p >= 0:
        if p == nd:
            break
        opt[p] += 1
        m = counts[ranks[p]]
        if opt[p] >= 6:
            opt[p] = -1
            p -= 1
            continue
        mask = TOP[m, opt[p]] if p == 0 and jk == 0 else LATER[m, opt[p]]
        if mask < 0:
            opt[p] = -1
            p -= 1
            continue
        ok = True
        if flush >= 0:
            ok = ((mask >> suit) & 1) == ((flush >> p) & 1)
        else:
            for u in range(4):
                held[p + 1, u] = held[p, u] + ((mask >> u) & 1)
                if held[p + 1, u] >= limit:
                    ok = False
        if ok:
            chosen[p] = mask
            p += 1
            if p < nd:
                opt[p] = -1
    if p < 0:
        return -1
    n = 0
    if jk:
        s[0] = JOKER
        n = 1
    for q in range(nd):
        for u in range(3, -1, -1):
            if (chosen[q] >> u) & 1:
                s[n] = 4 * ranks[q] + u
                n += 1
    return sweep_order(s, binom)


@nb.njit(cache=True)
def _set_class(
    s: Arr,
    weight: int,
    prog: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    binom: Arr,
    five_keys: Arr,
    work: Arr,
    reach: Arr,
    stats: Arr,
) -> None:
    """Set the representative ``s`` and count its class's ``weight`` hands as
    :func:`.table.build_slice` counts each hand (``stats[5]``, ``stats[6]``: the sweep orders
    of the first hand with no rule and of the first set into a foul)."""
    order = sweep_order(s, binom)
    index = (1 << ORDER_BITS) - 1 - (order & ((1 << ORDER_BITS) - 1))
    i, j, out = house_way_program(s, prog, lowest_wheel, work)
    if out < 0:
        stats[0] += weight
        if stats[5] < 0 or order < stats[5]:
            stats[1], stats[5] = index, order
        return
    reach[out] += weight
    hi = 0
    n = 1
    for m in range(6, -1, -1):
        if m != i and m != j:
            hi += binom[s[m], n]
            n += 1
    if is_foul(five_keys[rank5[hi]], key2(s[i], s[j])):
        stats[2] += weight
        if stats[6] < 0 or order < stats[6]:
            stats[3], stats[4], stats[6] = index, out, order


@nb.njit(cache=True)
def survey_classes(
    deck_ranks: int,
    joker: bool,
    prog: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    binom: Arr,
    five_keys: Arr,
    reach: Arr,
    stats: Arr,
) -> int:
    """Every seven-card hand of the deck of all four suits of the ranks in ``deck_ranks`` (a bit
    per rank index, 0 = deuce) and the joker if ``joker``, set by ``prog`` class by class.
    ``reach[outcome]``: the hands each outcome set; ``stats``: the hands no rule set, the first
    of them (colex index), the hands set into a foul, the first of them and its outcome (-1
    where none), then two sweep orders (:func:`_set_class`) and the number of classes. Returns
    the number of hands counted."""
    work = work_array()
    s = np.empty(7, dtype=np.int64)
    best = np.empty(7, dtype=np.int64)
    allowed = np.empty(13, dtype=np.int64)
    nr = 0
    for r in range(12, -1, -1):  # descending, so each multiset's ranks come out descending
        if (deck_ranks >> r) & 1:
            allowed[nr] = r
            nr += 1
    counts = np.zeros(13, dtype=np.int64)
    ranks = np.empty(7, dtype=np.int64)
    seq = np.zeros(7, dtype=np.int64)
    hands = 0
    for jk in range(2 if joker else 1):
        n = 7 - jk
        if nr == 0:
            continue
        for k in range(n):
            seq[k] = 0
        while True:  # each multiset: positions in ``allowed``, non-decreasing
            counts[:] = 0
            for k in range(n):
                counts[allowed[seq[k]]] += 1
            nd = 0
            fit = True
            for k in range(n):
                r = allowed[seq[k]]
                if k == 0 or seq[k] != seq[k - 1]:
                    ranks[nd] = r
                    nd += 1
                if counts[r] > 4:
                    fit = False
            if fit:
                hands += _multiset(
                    ranks, counts, nd, jk, prog, lowest_wheel, rank5, binom, five_keys, work,
                    reach, stats, s, best,
                )  # fmt: skip
            k = n - 1
            while k >= 0 and seq[k] == nr - 1:
                k -= 1
            if k < 0:
                break
            seq[k] += 1
            for m in range(k + 1, n):
                seq[m] = seq[k]
    return hands


@nb.njit(cache=True)
def _multiset(
    ranks: Arr,
    counts: Arr,
    nd: int,
    jk: int,
    prog: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    binom: Arr,
    five_keys: Arr,
    work: Arr,
    reach: Arr,
    stats: Arr,
    s: Arr,
    best: Arr,
) -> int:
    """The classes of one rank multiset (``ranks[:nd]`` descending, ``counts`` by rank), each set
    and counted (:func:`_set_class`); returns their hands."""
    every = 1
    for q in range(nd):
        every *= binom[4, counts[ranks[q]]]
    limit = 5 - jk
    flushes = 0
    if nd >= limit:
        for fl in range(1 << nd):
            if _popc(fl) < limit:
                continue
            size = 4
            for q in range(nd):
                m = counts[ranks[q]]
                size *= binom[3, m - 1] if (fl >> q) & 1 else binom[3, m]
            if size == 0:
                continue
            first = -1
            for suit in range(4):
                order = _first_hand(ranks, counts, nd, jk, fl, suit, s, binom)
                if order >= 0 and (first < 0 or order < first):
                    first = order
                    best[:] = s
            flushes += size
            stats[7] += 1
            _set_class(best, size, prog, lowest_wheel, rank5, binom, five_keys, work, reach, stats)
    rest = every - flushes
    if rest > 0:
        _first_hand(ranks, counts, nd, jk, -1, 0, s, binom)
        stats[7] += 1
        _set_class(s, rest, prog, lowest_wheel, rank5, binom, five_keys, work, reach, stats)
    return every
