"""Five-card and two-card keys, and the best five of seven, as numba kernels over card indices.

Cards are the core's indices (``(rank - 2) * 4 + suit``, joker 52). Five-card keys are the same
integers as :attr:`paigow.ranking.HandValue.key`, two-card keys as
:attr:`paigow.ranking.TwoCardValue.key` (the layout constants come from :mod:`paigow.ranking`).

>>> from paigow.cards import parse_cards
>>> from paigow.ranking import evaluate_five
>>> cards = [c.index for c in parse_cards("Jk Kh Qh Jh Th")]
>>> key5(*cards, False) == evaluate_five(parse_cards("Jk Kh Qh Jh Th")).key
True
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import colex5
from paigow.ranking import CATEGORY_SHIFT, FIELD_BITS, PAIR_FLAG, TWO_CARD_SHIFT, Category

Arr = npt.NDArray[Any]

JOKER = 52
ACE_R = 12  # rank index (rank - 2) of the ace
CAT_SHIFT = CATEGORY_SHIFT
TOP_SHIFT = CATEGORY_SHIFT - FIELD_BITS  # the first tie-break field
FIELD_MASK = (1 << FIELD_BITS) - 1

HIGH_CARD, ONE_PAIR, TWO_PAIR = (
    int(Category.HIGH_CARD),
    int(Category.ONE_PAIR),
    int(Category.TWO_PAIR),
)
TRIPS, STRAIGHT, FLUSH = int(Category.THREE_OF_A_KIND), int(Category.STRAIGHT), int(Category.FLUSH)
FULL_HOUSE, QUADS = int(Category.FULL_HOUSE), int(Category.FOUR_OF_A_KIND)
STRAIGHT_FLUSH, ROYAL_FLUSH = int(Category.STRAIGHT_FLUSH), int(Category.ROYAL_FLUSH)
FIVE_ACES = int(Category.FIVE_ACES)


@nb.njit(cache=True, inline="always")
def _popc(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@nb.njit(cache=True, inline="always")
def _straight_field(top: int, lowest_wheel: bool) -> int:
    if top == 3:
        return 10 if lowest_wheel else 27
    return 2 * (top + 2)


def _straight_tops() -> Arr:
    """STRAIGHT_TOP[wheel, wild, mask]: the top rank index of the best straight a 13-bit rank mask
    makes (with one wild card if ``wild``), 3 for the wheel; -1 if none. wheel 0 = second,
    1 = lowest."""
    out = np.full((2, 2, 1 << 13), -1, dtype=np.int64)
    for lowest in (0, 1):
        for wild in (0, 1):
            for mask in range(1 << 13):
                if bin(mask).count("1") != (4 if wild else 5):
                    continue
                best, best_field = -1, -1
                for top in range(12, 2, -1):
                    w = 0x100F if top == 3 else 0x1F << (top - 4)
                    if mask & ~w == 0:
                        field = (10 if lowest else 27) if top == 3 else 2 * (top + 2)
                        if field > best_field:
                            best, best_field = top, field
                out[lowest, wild, mask] = best
    return out


STRAIGHT_TOP = _straight_tops()


LOW_BIT = np.array([(m & -m).bit_length() - 1 for m in range(1 << 13)], dtype=np.int64)
"""LOW_BIT[mask]: the index of the lowest set bit of a 13-bit mask (-1 for 0)."""


@nb.njit(cache=True)
def key5(c0: int, c1: int, c2: int, c3: int, c4: int, lowest_wheel: bool) -> int:
    """The five-card key of :func:`paigow.ranking.evaluate_five` (distinct cards)."""
    counts = 0  # 3 bits per rank index
    mask = 0
    suits = 0
    joker = 0
    for c in (c0, c1, c2, c3, c4):
        if c == JOKER:
            joker = 1
        else:
            r = c >> 2
            counts += 1 << (3 * r)
            mask |= 1 << r
            suits |= 1 << (c & 3)
    flush = (suits & (suits - 1)) == 0
    top = STRAIGHT_TOP[1 if lowest_wheel else 0, joker, mask]
    if top >= 0:
        if flush:
            if top == 12:
                return ROYAL_FLUSH << CAT_SHIFT | (28 << TOP_SHIFT)
            return STRAIGHT_FLUSH << CAT_SHIFT | (_straight_field(top, lowest_wheel) << TOP_SHIFT)
        return STRAIGHT << CAT_SHIFT | (_straight_field(top, lowest_wheel) << TOP_SHIFT)
    if flush:
        if joker:
            for r in range(12, -1, -1):
                if not (mask >> r) & 1:
                    mask |= 1 << r
                    break
        key = FLUSH
        for r in range(12, -1, -1):
            if (mask >> r) & 1:
                key = (key << FIELD_BITS) | (2 * (r + 2))
        return key
    if joker:
        counts += 1 << (3 * ACE_R)
        mask |= 1 << ACE_R
    # fields by count then rank, both descending: one accumulator per count, filled from the
    # lowest rank up, each new (higher) rank in front
    a4 = a3 = a2 = a1 = 0
    n4 = n3 = n2 = n1 = 0
    m = mask
    while m:
        r = LOW_BIT[m]
        m &= m - 1
        c = (counts >> (3 * r)) & 7
        f = 2 * (r + 2)
        if c == 1:
            a1 |= f << (FIELD_BITS * n1)
            n1 += 1
        elif c == 2:
            a2 |= f << (FIELD_BITS * n2)
            n2 += 1
        elif c == 3:
            a3 |= f << (FIELD_BITS * n3)
            n3 += 1
        elif c == 4:
            a4 |= f << (FIELD_BITS * n4)
            n4 += 1
        else:
            return FIVE_ACES << CAT_SHIFT | (28 << TOP_SHIFT)
    key = (((a4 << (FIELD_BITS * n3) | a3) << (FIELD_BITS * n2) | a2) << (FIELD_BITS * n1)) | a1
    groups = n4 + n3 + n2 + n1
    key <<= FIELD_BITS * (5 - groups)
    if n4:
        cat = QUADS
    elif n3:
        cat = FULL_HOUSE if n2 else TRIPS
    elif n2 == 2:
        cat = TWO_PAIR
    elif n2 == 1:
        cat = ONE_PAIR
    else:
        cat = HIGH_CARD
    return (cat << CAT_SHIFT) | key


@nb.njit(cache=True, inline="always")
def key2(a: int, b: int) -> int:
    """The two-card key of :func:`paigow.ranking.evaluate_two` (the joker is an ace)."""
    ra = 14 if a == JOKER else (a >> 2) + 2
    rb = 14 if b == JOKER else (b >> 2) + 2
    if ra == rb:
        return PAIR_FLAG | ra
    if ra > rb:
        return (ra << TWO_CARD_SHIFT) | rb
    return (rb << TWO_CARD_SHIFT) | ra


@nb.njit(cache=True, parallel=False)
def key5_batch(hands: Arr, lowest_wheel: bool) -> Arr:
    """Keys of an (n, 5) array of hands."""
    n = hands.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = key5(hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3], hands[i, 4], lowest_wheel)
    return out


@nb.njit(cache=True)
def key2_batch(hands: Arr) -> Arr:
    """Keys of an (n, 2) array of hands."""
    n = hands.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = key2(hands[i, 0], hands[i, 1])
    return out


@nb.njit(cache=True)
def all_five_card_keys(lowest_wheel: bool) -> Arr:
    """Keys of all C(53, 5) hands, in colex order."""
    out = np.empty(2869685, dtype=np.int64)
    i = 0
    for e in range(4, 53):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        out[i] = key5(a, b, c, d, e, lowest_wheel)
                        i += 1
    return out


@nb.njit(cache=True)
def rank5_batch(hands: Arr, table: Arr, binom: Arr) -> Arr:
    """Dense ranks of an (n, 5) array of hands by table lookup (any card order)."""
    n = hands.shape[0]
    out = np.empty(n, dtype=np.uint16)
    s = np.empty(5, dtype=np.int64)
    for i in range(n):
        for j in range(5):
            s[j] = hands[i, j]
        # insertion sort of five
        for j in range(1, 5):
            v = s[j]
            k = j - 1
            while k >= 0 and s[k] > v:
                s[k + 1] = s[k]
                k -= 1
            s[k + 1] = v
        out[i] = table[colex5(s[0], s[1], s[2], s[3], s[4], binom)]
    return out


_FIVE = np.array(
    [[k for k in range(7) if k not in (i, j)] for i in range(7) for j in range(i + 1, 7)],
    dtype=np.int64,
)


@nb.njit(cache=True)
def best7_key(s: Arr, lowest_wheel: bool) -> int:
    """The key of the best five-card hand among seven distinct cards ``s`` (any order)."""
    best = 0
    for r in range(21):
        v = key5(
            s[_FIVE[r, 0]],
            s[_FIVE[r, 1]],
            s[_FIVE[r, 2]],
            s[_FIVE[r, 3]],
            s[_FIVE[r, 4]],
            lowest_wheel,
        )
        best = max(best, v)
    return best


@nb.njit(cache=True)
def best7_batch(hands: Arr, lowest_wheel: bool) -> Arr:
    """Keys of the best five-card hands of an (n, 7) array of seven-card hands."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = best7_key(hands[i], lowest_wheel)
    return out


@nb.njit(cache=True, inline="always")
def _window(top: int) -> int:
    return 0x100F if top == 3 else 0x1F << (top - 4)


@nb.njit(cache=True)
def best7_category(s: Arr) -> int:
    """The category of the best five-card hand among seven distinct cards, computed directly
    from rank counts and suit masks (the joker read as an ace, or as the card that completes a
    straight or flush). Agrees with ``best7_key(s) >> CAT_SHIFT`` (checked by the tests)."""
    suit_mask = np.zeros(4, dtype=np.int64)
    counts = 0  # 3 bits per rank index
    mask = 0
    jk = 0
    for k in range(7):
        c = s[k]
        if c == JOKER:
            jk = 1
        else:
            r = c >> 2
            suit_mask[c & 3] |= 1 << r
            mask |= 1 << r
            counts += 1 << (3 * r)
    aces = ((counts >> (3 * ACE_R)) & 7) + jk
    if aces == 5:
        return FIVE_ACES
    best = HIGH_CARD
    for suit in range(4):
        m = suit_mask[suit]
        if _popc(m) + jk < 5:
            continue
        best = FLUSH
        if _popc(m & 0x1F00) + jk >= 5:
            return ROYAL_FLUSH
        for top in range(3, 12):
            if _popc(m & _window(top)) + jk >= 5:
                best = STRAIGHT_FLUSH
    if best == STRAIGHT_FLUSH:
        return best
    n2 = 0
    n3 = 0
    n4 = 0
    for r in range(13):
        c = (counts >> (3 * r)) & 7
        if r == ACE_R:
            c = aces
        if c >= 4:
            n4 += 1
        elif c == 3:
            n3 += 1
        elif c == 2:
            n2 += 1
    if n4:
        return QUADS
    if n3 >= 2 or (n3 == 1 and n2 >= 1):
        return FULL_HOUSE
    if best == FLUSH:
        return FLUSH
    for top in range(3, 13):
        if _popc(mask & _window(top)) + jk >= 5:
            return STRAIGHT
    if n3:
        return TRIPS
    if n2 >= 2:
        return TWO_PAIR
    if n2:
        return ONE_PAIR
    return HIGH_CARD


@nb.njit(cache=True, nogil=True)
def stats_slice(top: int, categories: Arr) -> int:
    """Add to ``categories[c]`` the best-hand category of every seven-card hand whose highest
    card is ``top``. Returns the number of hands."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    count = 0
    for f in range(top - 1, 4, -1):
        s[1] = f
        for e in range(f - 1, 3, -1):
            s[2] = e
            for d in range(e - 1, 2, -1):
                s[3] = d
                for c in range(d - 1, 1, -1):
                    s[4] = c
                    for b in range(c - 1, 0, -1):
                        s[5] = b
                        for a in range(b - 1, -1, -1):
                            s[6] = a
                            categories[best7_category(s)] += 1
                            count += 1
    return count


@nb.njit(cache=True)
def is_foul(high_key: int, low_key: int) -> bool:
    """The core's foul rule on keys: the low hand outranks the high hand."""
    cat = high_key >> CAT_SHIFT
    if cat > 1:
        return False
    low_pair = low_key >= PAIR_FLAG
    if cat == 1:
        if not low_pair:
            return False
        return (low_key & 0xFF) > ((high_key >> TOP_SHIFT) & FIELD_MASK) // 2
    if low_pair:
        return True
    lh = (low_key >> TWO_CARD_SHIFT) & 0xF
    ll = low_key & 0xF
    r1 = ((high_key >> TOP_SHIFT) & FIELD_MASK) // 2
    r2 = ((high_key >> (TOP_SHIFT - FIELD_BITS)) & FIELD_MASK) // 2
    return lh > r1 or (lh == r1 and ll > r2)
