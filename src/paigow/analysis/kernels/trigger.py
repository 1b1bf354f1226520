"""Push rules as the kernels read them: which dealer hands trigger a push rule
(docs/rulebook.md#push-rules), and the compiled table with that trigger folded in.

A trigger is a property of the dealer's hand alone. Two kinds: ``MODE_LOW`` reads the dealer's
dense low rank (the house way's low hand: nine high), ``MODE_HAND`` reads one bit per seven-card
hand (a pai gow by top card, from ranks and suits), indexed like the compiled table;
``MODE_NONE``: no push rule. Both are blind to suits' names, so suit classes stay exact.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import ACE_R, JOKER

Arr = npt.NDArray[Any]

MODE_NONE = 0
MODE_LOW = 1
MODE_HAND = 2


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
