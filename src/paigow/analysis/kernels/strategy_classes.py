"""The compiled strategy's kernels: the optimal setting of every player-hand class (with the
exact counts of it and of the house way's setting), the per-hand table filled from the classes,
lookups, and the Monte Carlo of the optimal player.

A setting is named by its index q into :data:`paigow.setting.LOW_POSITIONS`: the low hand holds
the cards at positions LOW_POSITIONS[q] of the hand's seven cards sorted by index, ascending.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import (
    colex,
    colex5,
    colex7_sorted,
    next_combination,
    suit_weight,
)
from paigow.analysis.kernels.keys import JOKER, is_foul
from paigow.analysis.kernels.optimal_counts import hand_counts
from paigow.analysis.kernels.way_program import house_way_program, work_array
from paigow.setting import LOW_POSITIONS

Arr = npt.NDArray[Any]

LOW_I = np.array([i for i, _ in LOW_POSITIONS], dtype=np.int64)
LOW_J = np.array([j for _, j in LOW_POSITIONS], dtype=np.int64)
Q_OF = np.full((7, 7), -1, dtype=np.int64)
for _q, (_i, _j) in enumerate(LOW_POSITIONS):
    Q_OF[_i, _j] = Q_OF[_j, _i] = _q

#: Columns of a class row (int64): the canonical hand's colex index, the optimal setting, the
#: house way's setting and rule number, the class's size, then wins and losses of the optimal
#: setting and of the house way's.
COLS = 9
C_COLEX, C_BEST, C_HW, C_RULE, C_WEIGHT, C_WB, C_LB, C_WH, C_LH = range(COLS)
#: Sums of a chunk: [wins, losses, deals, hands, classes] of the optimal player (weighted by
#: class size), then for each rule number: [hands, hands where the optimal setting differs, EV
#: given up x den x dealer hands].
HEAD = 5


@nb.njit(cache=True)
def setting_ranks(p: Arr, binom: Arr, rank5: Arr, rank2: Arr, ph: Arr, pl: Arr) -> None:
    """The dense (high, low) ranks of the 21 settings of ``p`` (seven cards ascending)."""
    hand5 = np.empty(5, dtype=np.int64)
    for q in range(21):
        i, j = LOW_I[q], LOW_J[q]
        m = 0
        for k in range(7):
            if k != i and k != j:
                hand5[m] = p[k]
                m += 1
        ph[q] = rank5[colex5(hand5[0], hand5[1], hand5[2], hand5[3], hand5[4], binom)]
        pl[q] = rank2[p[i], p[j]]


@nb.njit(cache=True)
def candidates(ph: Arr, pl: Arr, five_keys: Arr, two_keys: Arr, hw: int, sel: Arr) -> int:
    """The settings worth counting, into ``sel``: the house way's, and every setting that is not a
    foul and that no other non-foul setting matches or beats on both ranks (one of each pair of
    equal ranks: the house way's, else the first). A setting beaten on both ranks wins no more
    and loses no less, so the optimum is among these. Returns how many."""
    foul = np.zeros(21, dtype=np.bool_)
    for q in range(21):
        foul[q] = is_foul(five_keys[ph[q]], two_keys[pl[q]])
    n = 0
    for q in range(21):
        if q != hw:
            if foul[q]:
                continue
            keep = True
            for r in range(21):
                if r == q or foul[r] or ph[r] < ph[q] or pl[r] < pl[q]:
                    continue
                if ph[r] != ph[q] or pl[r] != pl[q]:
                    keep = False  # strictly better on one rank, as good on the other
                    break
                if r == hw or r < q:
                    keep = False  # equal ranks: keep the house way's, else the first
                    break
            if not keep:
                continue
        sel[n] = q
        n += 1
    return n


@nb.njit(cache=True)
def best_of(sel: Arr, nsel: int, wins: Arr, losses: Arr, num: int, den: int, hw: int) -> int:
    """The setting of highest EV (wins x (den - num) - losses x den); ties go to the house way's
    setting, then to the first."""
    best = -1
    best_ev = np.int64(0)
    for qi in range(nsel):
        q = sel[qi]
        ev = wins[q] * (den - num) - losses[q] * den
        if best < 0 or ev > best_ev or (ev == best_ev and q == hw):
            best, best_ev = q, ev
    return best


@nb.njit(cache=True)
def house_way_setting(p: Arr, prog: Arr, lowest_wheel: bool, work: Arr) -> tuple[int, int]:
    """The house way's setting (index q) and rule number for ``p`` (seven cards ascending)."""
    s = np.empty(7, dtype=np.int64)
    for k in range(7):
        s[k] = p[6 - k]
    i, j, rule = house_way_program(s, prog, lowest_wheel, work)
    return Q_OF[6 - i, 6 - j], rule


@nb.njit(cache=True, inline="always")
def chunk_hand(c: Arr, top: int, second: int, deck: Arr, p: Arr) -> int:
    """A chunk's player hand (the hands whose two highest cards are deck[top] and deck[second],
    their five others deck[c[0]] < ... < deck[c[4]], ``c`` run by
    :func:`paigow.analysis.kernels.colex.next_combination` below ``second``), into ``p``
    ascending. Returns the size of its suit class (0 unless it is its class's canonical hand)."""
    for j in range(5):
        p[j] = deck[c[j]]
    p[5] = deck[second]
    p[6] = deck[top]
    return suit_weight(p, 7)


@nb.njit(cache=True)
def count_chunk_classes(top: int, second: int, deck: Arr) -> int:
    """How many canonical player hands have deck[top], deck[second] as their two highest cards."""
    if second < 5:
        return 0
    p = np.empty(7, dtype=np.int64)
    c = np.arange(5)
    n = 0
    while True:
        if chunk_hand(c, top, second, deck, p):
            n += 1
        if not next_combination(c, 5, second):
            break
    return n


@nb.njit(cache=True, nogil=True)
def strategy_chunk(
    top: int,
    second: int,
    table: Arr,
    binom: Arr,
    rank5: Arr,
    rank2: Arr,
    five_keys: Arr,
    two_keys: Arr,
    prog: Arr,
    lowest_wheel: bool,
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
    num: int,
    den: int,
    n_rules: int,
    limit: int,
) -> tuple[Arr, Arr]:
    """The optimal setting of every canonical player hand whose two highest cards are deck[top]
    and deck[second] (the first ``limit`` of them if limit > 0). Returns (rows, sums): one row
    per class (columns :data:`COLS`), and the chunk's sums (:data:`HEAD`, then per rule). The
    arguments from ``deck`` to ``cc5`` are
    :meth:`paigow.analysis.optimal.Structures.kernel_args`."""
    n = count_chunk_classes(top, second, deck)
    if limit > 0:
        n = min(n, limit)
    rows = np.zeros((n, COLS), dtype=np.int64)
    sums = np.zeros(HEAD + 3 * n_rules, dtype=np.int64)
    if n == 0:
        return rows, sums
    p = np.empty(7, dtype=np.int64)
    work = work_array()
    ph = np.empty(21, dtype=np.int64)
    pl = np.empty(21, dtype=np.int64)
    sel = np.empty(21, dtype=np.int64)
    wins = np.zeros(21, dtype=np.int64)
    losses = np.zeros(21, dtype=np.int64)
    c = np.arange(5)
    r = 0
    while r < n:
        weight = chunk_hand(c, top, second, deck, p)
        if weight:
            setting_ranks(p, binom, rank5, rank2, ph, pl)
            hw, rule = house_way_setting(p, prog, lowest_wheel, work)
            nsel = candidates(ph, pl, five_keys, two_keys, hw, sel)
            total = hand_counts(
                p, table, binom, deck, class_of, cum_base, cum, lw3, cc3, hc3, lw4, cc4, hc4,
                hv5, lw5, cc5, ph, pl, sel, nsel, wins, losses,
            )  # fmt: skip
            b = best_of(sel, nsel, wins, losses, num, den, hw)
            rows[r, C_COLEX] = colex(p, 7, binom)
            rows[r, C_BEST] = b
            rows[r, C_HW] = hw
            rows[r, C_RULE] = rule
            rows[r, C_WEIGHT] = weight
            rows[r, C_WB] = wins[b]
            rows[r, C_LB] = losses[b]
            rows[r, C_WH] = wins[hw]
            rows[r, C_LH] = losses[hw]
            sums[0] += weight * wins[b]
            sums[1] += weight * losses[b]
            sums[2] += weight * total
            sums[3] += weight
            sums[4] += 1
            k = HEAD + 3 * rule
            sums[k] += weight
            if b != hw:
                sums[k + 1] += weight
                gain = (wins[b] - wins[hw]) * (den - num) - (losses[b] - losses[hw]) * den
                sums[k + 2] += weight * gain
            r += 1
        if not next_combination(c, 5, second):
            break
    return rows, sums


@nb.njit(cache=True, inline="always")
def _canonical_map(p: Arr, out: Arr, new_suit: Arr) -> None:
    """The canonical image of seven cards (suits relabelled so that their rank masks do not
    increase), ascending, into ``out``; ``new_suit[old]`` the relabelling."""
    m = np.zeros(4, dtype=np.int64)
    for i in range(7):
        c = p[i]
        if c != JOKER:
            m[c & 3] |= 1 << (c >> 2)
    order = np.arange(4)
    for i in range(1, 4):  # stable insertion sort of the suits by mask, largest first
        v = order[i]
        k = i - 1
        while k >= 0 and m[order[k]] < m[v]:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = v
    for rank in range(4):
        new_suit[order[rank]] = rank
    for i in range(7):
        c = p[i]
        out[i] = c if c == JOKER else (c & ~3) | new_suit[c & 3]
    for i in range(1, 7):
        v = out[i]
        k = i - 1
        while k >= 0 and out[k] > v:
            out[k + 1] = out[k]
            k -= 1
        out[k + 1] = v


@nb.njit(cache=True)
def find_class(keys: Arr, x: int) -> int:
    """The position of ``x`` in the sorted ``keys`` (-1 if absent)."""
    lo, hi = 0, len(keys)
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(keys) and keys[lo] == x else -1


@nb.njit(cache=True)
def class_of_hand(p: Arr, keys: Arr, binom: Arr, canon: Arr, new_suit: Arr) -> int:
    """The class (row of the sorted class keys) of seven cards ascending; fills ``canon`` with
    the canonical hand and ``new_suit`` with the relabelling."""
    _canonical_map(p, canon, new_suit)
    return find_class(keys, colex(canon, 7, binom))


@nb.njit(cache=True, inline="always")
def map_setting(p: Arr, canon: Arr, new_suit: Arr, q: int) -> int:
    """The setting of ``p`` that is the image of the canonical hand's setting q."""
    old_suit = np.empty(4, dtype=np.int64)
    for s in range(4):
        old_suit[new_suit[s]] = s
    pos = np.empty(2, dtype=np.int64)
    for t in range(2):
        c = canon[LOW_I[q] if t == 0 else LOW_J[q]]
        orig = c if c == JOKER else (c & ~3) | old_suit[c & 3]
        for k in range(7):
            if p[k] == orig:
                pos[t] = k
    return Q_OF[pos[0], pos[1]]  # type: ignore[no-any-return]


@nb.njit(cache=True, nogil=True)
def fill_slice(top: int, out: Arr, keys: Arr, best: Arr, binom: Arr) -> int:
    """Write the optimal setting of every seven-card hand whose highest card is ``top`` into
    ``out[colex index]``, from the classes (sorted ``keys``, their ``best`` settings). Returns
    the number of hands (-1 if a hand's class is missing)."""
    p = np.empty(7, dtype=np.int64)
    canon = np.empty(7, dtype=np.int64)
    new_suit = np.empty(4, dtype=np.int64)
    p[6] = top
    count = 0
    base6 = binom[top, 7]
    for f in range(5, top):
        p[5] = f
        for e in range(4, f):
            p[4] = e
            for d in range(3, e):
                p[3] = d
                for c in range(2, d):
                    p[2] = c
                    for b in range(1, c):
                        p[1] = b
                        for a in range(b):
                            p[0] = a
                            cls = class_of_hand(p, keys, binom, canon, new_suit)
                            if cls < 0:
                                return -1
                            idx = (
                                binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4]
                                + binom[e, 5] + binom[f, 6] + base6
                            )  # fmt: skip
                            out[idx] = map_setting(p, canon, new_suit, best[cls])
                            count += 1
    return count


@nb.njit(cache=True)
def lookup_batch(hands: Arr, per_hand: Arr, keys: Arr, rows: Arr, binom: Arr, out: Arr) -> None:
    """For each hand (n, 7) of card indices (any order): out[i] = [setting, class row, house way
    setting] with settings relative to the hand sorted ascending; class row -1 if unknown.
    ``rows[cls, 1]`` holds each class's house way setting."""
    p = np.empty(7, dtype=np.int64)
    canon = np.empty(7, dtype=np.int64)
    new_suit = np.empty(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for k in range(7):
            p[k] = hands[i, k]
        idx = colex7_sorted(p, binom)
        cls = class_of_hand(p, keys, binom, canon, new_suit)
        out[i, 0] = per_hand[idx]
        out[i, 1] = cls
        out[i, 2] = map_setting(p, canon, new_suit, rows[cls, 1]) if cls >= 0 else -1
