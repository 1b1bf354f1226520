"""The bonus hand of seven cards as a numba kernel: every side-wager category the cards hold, as
a bitmask, and its count over all 154,143,080 hands joined with the dealer's low hand.

A second implementation, written from the rule book (docs/rules.md, side wagers), independent of
:func:`paigow.bonus.hand.bonus_hand` (the tests compare the two on every hand of reduced decks).
Bit ``i`` of a mask is :data:`CATEGORY_KEYS` ``[i]`` (the pay-table key of the category, in the
declared best-first order). A hand holds every category its cards make: a royal flush also
holds a straight flush, a flush and a straight; four of a kind holds three of a kind; pai gow by
top card only when nothing else is held and the cards hold no pair.

A **code** packs a mask into a small integer for counting: the mask itself when it holds a
made hand (below 2048), ``2048 + i`` for the pai gow of top card ``i`` (ace 0 .. nine 5), and 0
for nothing.

>>> from paigow.cards import parse_cards
>>> idx = np.array([c.index for c in parse_cards("Jk Ks Qs Js Ts Kh Qh")])
>>> [CATEGORY_KEYS[i] for i in range(N_CATEGORIES) if bonus_mask(idx) >> i & 1]
['royal-match', 'royal-flush', 'straight-flush', 'flush', 'straight']
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import next_combination
from paigow.analysis.kernels.way_program import house_way_program, work_array

Arr = npt.NDArray[Any]

JOKER = 52
ACE = 12  # rank index (rank - 2) of the ace
KING, QUEEN = 11, 10

CATEGORY_KEYS = (
    "seven-card-straight-flush",
    "royal-match",
    "wild-seven-card-straight-flush",
    "five-aces",
    "royal-flush",
    "straight-flush",
    "four-of-a-kind",
    "full-house",
    "flush",
    "three-of-a-kind",
    "straight",
    "pai-gow-ace-high",
    "pai-gow-king-high",
    "pai-gow-queen-high",
    "pai-gow-jack-high",
    "pai-gow-ten-high",
    "pai-gow-nine-high",
)
"""The pay-table key of each bit of a mask."""

(
    SEVEN_SF,
    ROYAL_MATCH,
    WILD_SEVEN_SF,
    FIVE_ACES,
    ROYAL,
    SF,
    QUADS,
    FULL_HOUSE,
    FLUSH,
    TRIPS,
    STRAIGHT,
    PAI_GOW,  # the first pai gow bit (ace-high); king-high is PAI_GOW + 1, ..., nine-high + 5
) = range(12)
N_CATEGORIES = len(CATEGORY_KEYS)
MADE = 1 << PAI_GOW  # codes below this are masks of made hands
N_CODES = MADE + 6

ROYAL_RANKS = 0x1F00  # T J Q K A
SEVEN_WINDOWS = np.array([0x103F] + [0x7F << (t - 6) for t in range(6, 13)], dtype=np.int64)
"""The rank masks of the eight 7-card sequences, A-2-3-4-5-6-7 (the ace low) to 8-...-A."""
FIVE_WINDOWS = np.array([0x100F] + [0x1F << (t - 4) for t in range(4, 13)], dtype=np.int64)
"""The rank masks of the ten 5-card sequences, A-2-3-4-5 to T-J-Q-K-A."""


@nb.njit(cache=True, inline="always")
def _popc(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@nb.njit(cache=True, inline="always")
def _suit_bits(m: int, jk: int, others_kq: bool) -> int:
    """The straight-flush kinds one suit's rank mask ``m`` makes (with the joker if ``jk``);
    ``others_kq``: another suit holds a natural king and queen."""
    n = _popc(m)
    if n + jk < 5:
        return 0
    bits = 1 << FLUSH
    for w in FIVE_WINDOWS:
        if _popc(m & w) + jk >= 5:
            bits |= (1 << SF) | (1 << STRAIGHT)
    if _popc(m & ROYAL_RANKS) + jk >= 5:
        bits |= 1 << ROYAL
        if others_kq:
            bits |= 1 << ROYAL_MATCH
    for w in SEVEN_WINDOWS:
        if jk == 0 and m == w:
            bits |= 1 << SEVEN_SF
        if jk == 1 and n == 6 and m & ~w == 0:
            bits |= 1 << WILD_SEVEN_SF
    return bits


@nb.njit(cache=True, inline="always")
def _kq(m: int) -> bool:
    return (m >> KING) & 1 == 1 and (m >> QUEEN) & 1 == 1


@nb.njit(cache=True)
def bonus_mask(s: Arr) -> int:
    """The mask of the categories seven distinct cards (indices, joker 52) hold."""
    m0 = m1 = m2 = m3 = 0  # each suit's ranks
    counts = 0  # three bits per rank
    ranks = 0
    jk = 0
    for k in range(7):
        c = s[k]
        if c == JOKER:
            jk = 1
            continue
        r = c >> 2
        bit = 1 << r
        st = c & 3
        if st == 0:
            m0 |= bit
        elif st == 1:
            m1 |= bit
        elif st == 2:
            m2 |= bit
        else:
            m3 |= bit
        counts += 1 << (3 * r)
        ranks |= bit
    counts += jk << (3 * ACE)  # otherwise the joker counts as an ace
    bits = (
        _suit_bits(m0, jk, _kq(m1) or _kq(m2) or _kq(m3))
        | _suit_bits(m1, jk, _kq(m0) or _kq(m2) or _kq(m3))
        | _suit_bits(m2, jk, _kq(m0) or _kq(m1) or _kq(m3))
        | _suit_bits(m3, jk, _kq(m0) or _kq(m1) or _kq(m2))
    )
    for w in FIVE_WINDOWS:
        if _popc(ranks & w) + jk >= 5:
            bits |= 1 << STRAIGHT
    trips = 0
    pairs = 0
    for r in range(13):
        n = (counts >> (3 * r)) & 7
        if n >= 2:
            pairs += 1
            if n >= 3:
                trips += 1
                if n >= 4:
                    bits |= 1 << QUADS
                    if n == 5:
                        bits |= 1 << FIVE_ACES
    if trips:
        bits |= 1 << TRIPS
        if pairs >= 2:
            bits |= 1 << FULL_HOUSE
    if bits == 0 and pairs == 0:
        top = ACE
        while not jk and not (ranks >> top) & 1:
            top -= 1
        bits = 1 << (PAI_GOW + ACE - top)
    return bits


@nb.njit(cache=True, inline="always")
def mask_code(mask: int) -> int:
    """The code of a mask (see the module's docstring)."""
    if mask == 0:
        return 0
    if mask < MADE:
        return mask
    return MADE + _low_bit(mask) - PAI_GOW


@nb.njit(cache=True, inline="always")
def _low_bit(x: int) -> int:
    b = 0
    while not (x >> b) & 1:
        b += 1
    return b


def code_mask(code: int) -> int:
    """The mask of a code (the inverse of :func:`mask_code`).

    >>> [code_mask(int(mask_code(m))) == m for m in (0, 1 << FLUSH | 1 << STRAIGHT, 1 << 16)]
    [True, True, True]
    """
    return code if code < MADE else 1 << (PAI_GOW + code - MADE)


@nb.njit(cache=True)
def bonus_codes(hands: Arr) -> Arr:
    """The codes of an (n, 7) array of seven-card hands."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = mask_code(bonus_mask(hands[i]))
    return out


@nb.njit(cache=True, nogil=True)
def bonus_slice(top: int, table: Arr, counts: Arr) -> int:
    """Add to ``counts[code, low]`` every seven-card hand whose highest card is ``top``: its
    code and the dense rank of the dealer's low hand that the compiled house way ``table``
    (three bytes per hand by colex index, :mod:`.table`) holds for it. Returns the number of
    hands."""
    s = np.empty(7, dtype=np.int64)
    s[6] = top
    binom = _BINOM
    base = binom[top, 7]
    n = 0
    for f in range(5, top):
        s[5] = f
        kf = base + binom[f, 6]
        for e in range(4, f):
            s[4] = e
            ke = kf + binom[e, 5]
            for d in range(3, e):
                s[3] = d
                kd = ke + binom[d, 4]
                for c in range(2, d):
                    s[2] = c
                    kc = kd + binom[c, 3]
                    for b in range(1, c):
                        s[1] = b
                        kb = kc + binom[b, 2]
                        for a in range(b):
                            s[0] = a
                            code = mask_code(bonus_mask(s))
                            counts[code, table[3 * (kb + a) + 2]] += 1
                            n += 1
    return n


@nb.njit(cache=True)
def deck_counts(deck: Arr, counts: Arr, prog: Arr, lowest_wheel: bool, rank2: Arr) -> int:
    """Add to ``counts[code, low]`` every seven-card hand of ``deck`` (card indices, distinct):
    its code and the dense rank of the low hand the house way ``prog`` (its program,
    :func:`paigow.analysis.program.compile_way`) sets. Returns the number of
    hands. The reduced decks' counterpart of :func:`bonus_slice`."""
    c = np.arange(7)
    s = np.empty(7, dtype=np.int64)
    d = np.empty(7, dtype=np.int64)
    work = work_array()
    n = 0
    while True:
        for k in range(7):
            s[k] = deck[c[k]]
        code = mask_code(bonus_mask(s))
        d[:] = np.sort(s)[::-1]
        i, j, _ = house_way_program(d, prog, lowest_wheel, work)
        counts[code, rank2[d[i], d[j]]] += 1
        n += 1
        if not next_combination(c, 7, len(deck)):
            break
    return n


def _binomials() -> Arr:
    b = np.zeros((54, 8), dtype=np.int64)
    for i in range(54):
        b[i, 0] = 1
        for j in range(1, min(i, 7) + 1):
            b[i, j] = b[i - 1, j - 1] + (b[i - 1, j] if j <= i - 1 else 0)
    return b


_BINOM = _binomials()
