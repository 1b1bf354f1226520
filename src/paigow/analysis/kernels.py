"""Numba kernels: batch hand evaluation and the house way over numpy arrays of card indices.

Cards are the core's indices (``(rank - 2) * 4 + suit``, joker 52). Five-card keys are the same
integers as :attr:`paigow.ranking.HandValue.key`; two-card keys as
:attr:`paigow.ranking.TwoCardValue.key`; the house way picks a setting of the same strength as
:class:`paigow.house_way.HouseWay` (checked by the tests against the core).

Hands of k cards are indexed combinatorially (colex): sorted ascending ``c0 < c1 < ... < ck-1``,
``index = C(c0, 1) + C(c1, 2) + ... + C(ck-1, k)``; all C(53, k) hands get 0 .. C(53, k) - 1.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[Any]

JOKER = 52
ACE_R = 12  # rank index (rank - 2) of the ace

# Category numbers, as paigow.ranking.Category.
HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH = 0, 1, 2, 3, 4, 5
FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL_FLUSH, FIVE_ACES = 6, 7, 8, 9, 10

# Actions of a house way parameter (as paigow.house_way.Action), in parameter arrays.
KEEP, SPLIT, KEEP_IF_ACE, KEEP_IF_KING = 0, 1, 2, 3

# Rule ids of the house way, as small integers (RULE_IDS[i] is the core's id).
RULE_IDS = (
    "five-aces.kings",
    "five-aces.split",
    "straight-flush",
    "quads.pair-low",
    "quads.keep",
    "quads.keep-ace",
    "quads.keep-king",
    "quads.split",
    "trips.two-sets",
    "full-house.two-pairs",
    "full-house.deuces",
    "full-house.split",
    "flush",
    "straight",
    "three-pair",
    "trips",
    "trips.aces",
    "two-pair.split",
    "two-pair.keep-ace",
    "two-pair.keep-king",
    "two-pair.keep",
    "one-pair",
    "pai-gow",
)
R_FIVE_KINGS, R_FIVE_SPLIT, R_SF, R_Q_PAIR, R_Q_KEEP, R_Q_KEEP_ACE, R_Q_KEEP_KING = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
)
R_Q_SPLIT, R_TWO_SETS, R_FH_TWO, R_FH_DEUCES, R_FH_SPLIT, R_FLUSH, R_STRAIGHT = (
    7,
    8,
    9,
    10,
    11,
    12,
    13,
)
R_THREE_PAIR, R_TRIPS, R_TRIPS_ACES, R_TP_SPLIT, R_TP_ACE, R_TP_KING, R_TP_KEEP = (
    14,
    15,
    16,
    17,
    18,
    19,
    20,
)
R_ONE_PAIR, R_PAI_GOW = 21, 22


def binomials(n: int = 54, k: int = 8) -> Arr:
    """``B[n, k] = C(n, k)`` for small n, k (0 where k > n)."""
    b = np.zeros((n, k), dtype=np.int64)
    for i in range(n):
        b[i, 0] = 1
        for j in range(1, min(i, k - 1) + 1):
            b[i, j] = b[i - 1, j - 1] + (b[i - 1, j] if j <= i - 1 else 0)
    return b


BINOM = binomials()


# ------------------------------------------------------------------------------ five cards
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


@nb.njit(cache=True)
def _straight_top_ordered(mask: int, wild: bool, lowest_wheel: bool) -> int:
    """Best straight top under the wheel setting (-1 if none)."""
    need = 4 if wild else 5
    if _popc(mask) != need:
        return -1
    best = -1
    best_field = -1
    for top in range(12, 2, -1):
        w = 0x100F if top == 3 else 0x1F << (top - 4)
        if (mask & ~w) == 0:
            f = _straight_field(top, lowest_wheel)
            if f > best_field:
                best_field = f
                best = top
    return best


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
                return ROYAL_FLUSH << 25 | (28 << 20)
            return STRAIGHT_FLUSH << 25 | (_straight_field(top, lowest_wheel) << 20)
        return STRAIGHT << 25 | (_straight_field(top, lowest_wheel) << 20)
    if flush:
        if joker:
            for r in range(12, -1, -1):
                if not (mask >> r) & 1:
                    mask |= 1 << r
                    break
        key = FLUSH
        for r in range(12, -1, -1):
            if (mask >> r) & 1:
                key = (key << 5) | (2 * (r + 2))
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
            a1 |= f << (5 * n1)
            n1 += 1
        elif c == 2:
            a2 |= f << (5 * n2)
            n2 += 1
        elif c == 3:
            a3 |= f << (5 * n3)
            n3 += 1
        elif c == 4:
            a4 |= f << (5 * n4)
            n4 += 1
        else:
            return FIVE_ACES << 25 | (28 << 20)
    key = (((a4 << (5 * n3) | a3) << (5 * n2) | a2) << (5 * n1)) | a1
    groups = n4 + n3 + n2 + n1
    key <<= 5 * (5 - groups)
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
    return (cat << 25) | key


@nb.njit(cache=True, inline="always")
def key2(a: int, b: int) -> int:
    """The two-card key of :func:`paigow.ranking.evaluate_two` (the joker is an ace)."""
    ra = 14 if a == JOKER else (a >> 2) + 2
    rb = 14 if b == JOKER else (b >> 2) + 2
    if ra == rb:
        return (1 << 8) | ra
    if ra > rb:
        return (ra << 4) | rb
    return (rb << 4) | ra


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
def colex5(a: int, b: int, c: int, d: int, e: int, binom: Arr) -> int:
    """Colex index of five cards given in ascending order."""
    return int(binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4] + binom[e, 5])


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


# ------------------------------------------------------------------------------ the house way
@nb.njit(cache=True, inline="always")
def _rank_index(c: int) -> int:
    return ACE_R if c == JOKER else c >> 2


@nb.njit(cache=True, inline="always")
def _pair_class(r: int) -> int:
    """0 low (2-6), 1 middle (7-T), 2 high (J-K), 3 aces; r is a rank index."""
    if r == ACE_R:
        return 3
    if r >= 9:
        return 2
    return 1 if r >= 5 else 0


@nb.njit(cache=True, inline="always")
def _quads_class(r: int) -> int:
    if r >= 9:
        return 2
    return 1 if r >= 5 else 0


@nb.njit(cache=True)
def _best_placement(s: Arr, want_sf: bool, lowest_wheel: bool) -> tuple[int, int, int]:
    """Among the 21 settings of ``s`` (sorted descending) whose high hand is a straight flush or
    royal flush (``want_sf``), or else a straight or flush: the best low, then the best high.
    Returns (i, j, high category) of the low positions, or (-1, -1, -1)."""
    best_i, best_j, best_cat = -1, -1, -1
    best_low, best_high = -1, -1
    h = np.empty(5, dtype=np.int64)
    for i in range(7):
        for j in range(i + 1, 7):
            n = 0
            for k in range(7):
                if k != i and k != j:
                    h[n] = s[k]
                    n += 1
            hk = key5(h[0], h[1], h[2], h[3], h[4], lowest_wheel)
            cat = hk >> 25
            ok = cat in (STRAIGHT_FLUSH, ROYAL_FLUSH) if want_sf else cat in (STRAIGHT, FLUSH)
            if not ok:
                continue
            lk = key2(s[i], s[j])
            if lk > best_low or (lk == best_low and hk > best_high):
                best_low, best_high, best_i, best_j, best_cat = lk, hk, i, j, cat
    return best_i, best_j, best_cat


@nb.njit(cache=True)
def house_way7(s: Arr, tp: Arr, quads: Arr, lowest_wheel: bool) -> tuple[int, int, int]:
    """The house way for seven distinct cards ``s`` sorted DEScending by index (the joker first).

    ``tp[hi_class, lo_class]`` and ``quads[class]`` hold the preset's actions. Returns the
    positions (i < j) in ``s`` of the two low cards and the rule number (see RULE_IDS).
    """
    cnt = np.zeros(13, dtype=np.int64)
    start = np.full(13, -1, dtype=np.int64)
    suit_cnt = np.zeros(4, dtype=np.int64)
    mask = 0
    joker = s[0] == JOKER
    for k in range(7):
        r = _rank_index(s[k])
        if start[r] < 0:
            start[r] = k
        cnt[r] += 1
        if s[k] != JOKER:
            suit_cnt[s[k] & 3] += 1
            mask |= 1 << (s[k] >> 2)
    jk = 1 if joker else 0
    flush_possible = suit_cnt.max() + jk >= 5
    straight_possible = False
    for top in range(3, 13):
        w = 0x100F if top == 3 else 0x1F << (top - 4)
        if _popc(mask & w) + jk >= 5:
            straight_possible = True
            break
    n_pairs = 0
    n_trips = 0
    quad_r = -1
    pair1 = -1  # highest pair rank
    pair2 = -1
    trip1 = -1
    for r in range(12, -1, -1):
        c = cnt[r]
        if c == 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r
            n_pairs += 1
        elif c == 3:
            if trip1 < 0:
                trip1 = r
            n_trips += 1
        elif c == 4:
            quad_r = r
    # singletons, highest first (positions)
    singles = np.empty(7, dtype=np.int64)
    n_single = 0
    for r in range(12, -1, -1):
        if cnt[r] == 1:
            singles[n_single] = start[r]
            n_single += 1

    # 1. five aces
    if cnt[ACE_R] == 5:
        if cnt[11] == 2:
            return start[11], start[11] + 1, R_FIVE_KINGS
        a = start[ACE_R] + 1  # the naturals follow the joker
        return a, a + 1, R_FIVE_SPLIT
    # 2. straight flush
    if flush_possible:
        i, j, cat = _best_placement(s, True, lowest_wheel)
        if i >= 0:
            return i, j, R_SF
    # 3. four of a kind
    if quad_r >= 0:
        beside = -1
        for r in range(12, -1, -1):
            if r != quad_r and cnt[r] >= 2:
                beside = r
                break
        if beside >= 0:
            return _pair_of(s, beside, start, cnt, R_Q_PAIR, lowest_wheel)
        action = quads[_quads_class(quad_r)]
        if _keep(action, cnt):
            rule = (
                R_Q_KEEP
                if action == KEEP
                else (R_Q_KEEP_ACE if action == KEEP_IF_ACE else R_Q_KEEP_KING)
            )
            return _ordered(singles[0], singles[1], rule)
        return _pair_of(s, quad_r, start, cnt, R_Q_SPLIT, lowest_wheel)
    # 4. two sets of three
    if n_trips == 2:
        return _pair_of(s, trip1, start, cnt, R_TWO_SETS, lowest_wheel)
    # 5. full house
    if n_trips == 1 and n_pairs >= 1:
        if n_pairs == 2:
            return start[pair1], start[pair1] + 1, R_FH_TWO
        if pair1 == 0 and cnt[ACE_R] == 1 and cnt[11] == 1:
            return _ordered(start[ACE_R], start[11], R_FH_DEUCES)
        return start[pair1], start[pair1] + 1, R_FH_SPLIT
    # 6. flush or straight
    if n_pairs < 2 and (flush_possible or straight_possible):
        i, j, cat = _best_placement(s, False, lowest_wheel)
        if i >= 0:
            return i, j, R_FLUSH if cat == FLUSH else R_STRAIGHT
    # 7. three pair
    if n_pairs == 3:
        return start[pair1], start[pair1] + 1, R_THREE_PAIR
    # 8. three of a kind
    if n_trips == 1:
        if trip1 == ACE_R:
            best_a, best = -1, -1
            for a in range(start[ACE_R], start[ACE_R] + 3):
                i, j = (a, singles[0]) if a < singles[0] else (singles[0], a)
                k = _high_key(s, i, j, lowest_wheel)
                if k > best:
                    best, best_a = k, a
            return _ordered(best_a, singles[0], R_TRIPS_ACES)
        return _ordered(singles[0], singles[1], R_TRIPS)
    # 9. two pair
    if n_pairs == 2:
        if pair1 == ACE_R:
            return start[pair2], start[pair2] + 1, R_TP_SPLIT
        action = tp[_pair_class(pair1), _pair_class(pair2)]
        if _keep(action, cnt):
            rule = (
                R_TP_KEEP if action == KEEP else (R_TP_ACE if action == KEEP_IF_ACE else R_TP_KING)
            )
            return _ordered(singles[0], singles[1], rule)
        return start[pair2], start[pair2] + 1, R_TP_SPLIT
    # 10. one pair
    if n_pairs == 1:
        return _ordered(singles[0], singles[1], R_ONE_PAIR)
    # 11. no pair
    return 1, 2, R_PAI_GOW


@nb.njit(cache=True)
def _high_key(s: Arr, i: int, j: int, lowest_wheel: bool) -> int:
    """Key of the high hand of ``s`` without positions i and j."""
    h0 = h1 = h2 = h3 = h4 = 0
    n = 0
    for k in range(7):
        if k != i and k != j:
            if n == 0:
                h0 = s[k]
            elif n == 1:
                h1 = s[k]
            elif n == 2:
                h2 = s[k]
            elif n == 3:
                h3 = s[k]
            else:
                h4 = s[k]
            n += 1
    return key5(h0, h1, h2, h3, h4, lowest_wheel)


@nb.njit(cache=True)
def _pair_of(
    s: Arr, r: int, start: Arr, cnt: Arr, rule: int, lowest_wheel: bool
) -> tuple[int, int, int]:
    """Two cards of rank r's group go low: the choice with the strongest high hand (the first of
    equals), as the core's ``_HandReader.pair_of``."""
    a = start[r]
    g = cnt[r]
    if g == 2:
        return a, a + 1, rule
    best_i, best_j, best = -1, -1, -1
    for i in range(a, a + g):
        for j in range(i + 1, a + g):
            k = _high_key(s, i, j, lowest_wheel)
            if k > best:
                best, best_i, best_j = k, i, j
    return best_i, best_j, rule


@nb.njit(cache=True, inline="always")
def _ordered(i: int, j: int, rule: int) -> tuple[int, int, int]:
    return (i, j, rule) if i < j else (j, i, rule)


@nb.njit(cache=True, inline="always")
def _keep(action: int, cnt: Arr) -> bool:
    """Whether a keep/split parameter keeps, given the singletons (counts of 1)."""
    if action == KEEP:
        return True
    if action == SPLIT:
        return False
    if cnt[ACE_R] == 1:
        return True
    return action == KEEP_IF_KING and cnt[11] == 1


# ------------------------------------------------------------------------------ dense ranks
@nb.njit(cache=True)
def dense_setting(
    s: Arr,
    tp: Arr,
    quads: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
) -> tuple[int, int, int]:
    """House way of seven cards sorted descending -> (dense high rank, dense low rank, rule)."""
    i, j, rule = house_way7(s, tp, quads, lowest_wheel)
    idx = 0
    n = 1
    for k in range(6, -1, -1):  # ascending order for the colex index
        if k != i and k != j:
            idx += binom[s[k], n]
            n += 1
    return rank5[idx], rank2[s[i], s[j]], rule


@nb.njit(cache=True, nogil=True)
def build_slice(
    top: int,
    table: Arr,
    tp: Arr,
    quads: Arr,
    lowest_wheel: bool,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
) -> int:
    """Fill the compiled house way for every seven-card hand whose highest card is ``top``
    (their colex indices are C(top, 7) .. C(top + 1, 7) - 1): three bytes per hand, the dense
    high rank (little-endian) and the dense low rank. Returns the number of hands."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    idx = binom[top, 7]
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
                            k = (
                                binom[a, 1]
                                + binom[b, 2]
                                + binom[c, 3]
                                + binom[d, 4]
                                + binom[e, 5]
                                + binom[f, 6]
                                + idx
                            )
                            h, low, _ = dense_setting(
                                s, tp, quads, lowest_wheel, rank5, rank2, binom
                            )
                            table[3 * k] = h & 0xFF
                            table[3 * k + 1] = h >> 8
                            table[3 * k + 2] = low
                            count += 1
    return count


# ------------------------------------------------------------------------------ exact analysis
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


# ------------------------------------------------------------------------------ best of seven
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
    straight or flush). Agrees with ``best7_key(s) >> 25`` (checked by the tests)."""
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


# ------------------------------------------------------------------------------ Monte Carlo
@nb.njit(cache=True, inline="always")
def _colex7_sorted(h: Arr, binom: Arr) -> int:
    # insertion sort ascending, then the colex index
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
def _next(state: Arr) -> Any:
    """xoshiro256** step on a 4-word state."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    x = s1 * np.uint64(5)
    result = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@nb.njit(cache=True, inline="always")
def _below(state: Arr, m: int) -> int:
    """A uniform integer in [0, m) (Lemire's multiply-shift with rejection: exact)."""
    mm = np.uint64(m)
    threshold = (np.uint64(1 << 32) - mm) % mm
    while True:
        r = _next(state) >> np.uint64(32)
        prod = r * mm
        if (prod & np.uint64(0xFFFFFFFF)) >= threshold:
            return int(prod >> np.uint64(32))


@nb.njit(cache=True)
def seed_state(seed: int) -> Arr:
    """A xoshiro256** state from a 64-bit seed, expanded by splitmix64."""
    state = np.empty(4, dtype=np.uint64)
    z = np.uint64(seed)
    for i in range(4):
        z += np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state[i] = x ^ (x >> np.uint64(31))
    return state


@nb.njit(cache=True, inline="always")
def _lookup(table: Arr, idx: int) -> tuple[Any, Any]:
    k = 3 * idx
    return table[k] | (np.int64(table[k + 1]) << 8), np.int64(table[k + 2])


@nb.njit(cache=True, nogil=True)
def simulate_chunk(
    seed: int, rounds: int, table: Arr, binom: Arr, fixed: Arr, fixed_hi: int, fixed_lo: int
) -> Arr:
    """Deal ``rounds`` rounds from a xoshiro256** generator seeded with ``seed`` (simulation
    only): player and dealer both on the house way, or (when ``fixed`` holds seven cards) the
    player on those cards, with the given dense ranks, against random dealer hands of the other
    cards. Returns [wins, pushes, losses]."""
    state = seed_state(seed)
    deck = np.arange(53, dtype=np.int64)
    n_deck = 53
    if fixed.shape[0] == 7:
        n_deck = 0
        for c in range(53):
            used = False
            for k in range(7):
                if fixed[k] == c:
                    used = True
            if not used:
                deck[n_deck] = c
                n_deck += 1
    player = fixed.shape[0] != 7
    draw = 14 if player else 7
    batch = 256
    pidx = np.zeros(batch, dtype=np.int64)
    didx = np.zeros(batch, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    done = 0
    while done < rounds:
        n = min(batch, rounds - done)
        for r in range(n):
            for i in range(draw):
                j = i + _below(state, n_deck - i)
                t = deck[i]
                deck[i] = deck[j]
                deck[j] = t
            off = 0
            if player:
                for k in range(7):
                    hand[k] = deck[k]
                pidx[r] = _colex7_sorted(hand, binom)
                off = 7
            for k in range(7):
                hand[k] = deck[off + k]
            didx[r] = _colex7_sorted(hand, binom)
        for r in range(n):
            if player:
                ph, pl = _lookup(table, pidx[r])
            else:
                ph, pl = fixed_hi, fixed_lo
            dh, dl = _lookup(table, didx[r])
            if ph > dh and pl > dl:
                out[0] += 1
            elif ph <= dh and pl <= dl:
                out[2] += 1
            else:
                out[1] += 1
        done += n
    return out


# ------------------------------------------------------------------------------ exact edge
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


@nb.njit(cache=True, inline="always")
def _next_combination(c: Arr, r: int, m: int) -> bool:
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
def _points_containing(
    t: Arr,
    k: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    hs: Arr,
    ls: Arr,
    hist: Arr,
    dense: bool,
    rest: Arr,
    f: Arr,
    d: Arr,
) -> int:
    """(high, low) dense ranks of every seven-card hand of ``deck`` that contains the k cards
    ``t`` (ascending): into the arrays hs, ls, or (``dense``) added to ``hist[high, low]``.
    Returns how many hands.

    The other r = 7 - k cards s_0 < ... < s_r-1 run over the rest of the deck in colex order, so
    the hands' table indices increase (the table is read forwards). The union's colex index
    splits into a constant and one term per s_j: s_j sits at position j + #(t < s_j), and a card
    u of t between s_j-1 and s_j at its index in t plus j; summing by parts,
    index = sum_u C(u, i_u + r + 1) + sum_j [C(s_j, j + #(t < s_j) + 1) + F_j(s_j) - F_j+1(s_j)]
    where F_j(x) = sum over u in t below x of C(u, i_u + j + 1). ``rest`` (len(deck)), ``f``
    (8 x 54) and ``d`` (7 x len(deck)) are scratch arrays."""
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
        h, lo = _lookup(table, base)
        if dense:
            hist[h, lo] += 1
        else:
            hs[0] = h
            ls[0] = lo
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
            h, lo = _lookup(table, q1 + d[0, p])
            if dense:
                hist[h, lo] += 1
            else:
                hs[n] = h
                ls[n] = lo
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
def dominance_hist(hist: Arr) -> tuple[int, int]:
    """As :func:`dominance_pairs`, for points given as a dense histogram ``hist[high, low]``."""
    n5, n2 = hist.shape
    col_total = np.zeros(n2, dtype=np.int64)
    for h in range(n5):
        for low in range(n2):
            col_total[low] += hist[h, low]
    total = col_total.sum()
    below_low = np.zeros(n2 + 1, dtype=np.int64)  # points with low < l, any high
    for low in range(n2):
        below_low[low + 1] = below_low[low] + col_total[low]
    col_cum = np.zeros(n2, dtype=np.int64)  # points with high < h, by low
    rows_below = 0
    wins = 0
    losses = 0
    for h in range(n5):
        prefix = 0  # points with high < h and low < l
        row = 0
        for low in range(n2):
            x = hist[h, low]
            if x:
                wins += x * prefix
                losses += x * (total - rows_below - below_low[low] + prefix)
            prefix += col_cum[low]
            row += x
        for low in range(n2):
            col_cum[low] += hist[h, low]
        rows_below += row
    return wins, losses


@nb.njit(cache=True)
def dominance_pairs(
    hs: Arr, ls: Arr, n: int, n5: int, n2: int, count: Arr, order: Arr
) -> tuple[int, int]:
    """For the points (hs[i], ls[i]), i < n: ordered pairs (P, D) with P above D on both ranks
    (wins of P), and with P at or below D on both (losses of P; D = P included). ``count``
    (n5 + 1) and ``order`` (n) are scratch arrays.

    One pass in ascending high rank with a Fenwick tree over the low ranks of the points already
    passed (strictly lower high rank): wins of P = those with a lower low rank, q; losses of
    P = n - #(high < P's) - #(low < P's) + q."""
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
    for i in range(n):
        low_below[ls[i] + 1] += 1
    for v in range(n2):
        low_below[v + 1] += low_below[v]
    bit = np.zeros(n2 + 1, dtype=np.int64)
    wins = 0
    losses = 0
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
            losses += n - g - low_below[v] + s
        for j in range(g, e):
            i = ls[order[j]] + 1
            while i <= n2:
                bit[i] += 1
                i += i & -i
        g = e
    return wins, losses


@nb.njit(cache=True, nogil=True)
def edge_chunk(k: int, top: int, deck: Arr, table: Arr, binom: Arr, n5: int, n2: int) -> Arr:
    """The inclusion-exclusion terms of size ``k`` for the card sets T whose highest card is
    ``deck[top]`` (all k-subsets of ``deck`` when k == 0): sums over canonical T (weighted by
    the number of suit relabellings) of the ordered (player, dealer) pairs of hands containing T
    that the player wins, loses, and in all. Returns [wins, losses, pairs, sets]."""
    out = np.zeros(4, dtype=np.int64)
    size = 1
    rest_n = len(deck) - k
    for j in range(7 - k):  # C(rest_n, 7 - k)
        size = size * (rest_n - j) // (j + 1)
    dense = size > 2_000_000  # many hands: a dense histogram beats sorting them
    hist = np.zeros((n5, n2) if dense else (1, 1), dtype=np.int64)
    hs = np.empty(1 if dense else size, dtype=np.int64)
    ls = np.empty(1 if dense else size, dtype=np.int64)
    order = np.empty(1 if dense else size, dtype=np.int64)
    count = np.zeros(n5 + 1, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    rest = np.empty(len(deck), dtype=np.int64)
    f = np.zeros((8, 54), dtype=np.int64)
    d = np.zeros((7, len(deck)), dtype=np.int64)
    if k == 0:
        n = _points_containing(t, 0, deck, table, binom, hs, ls, hist, dense, rest, f, d)
        if dense:
            w, lo = dominance_hist(hist)
        else:
            w, lo = dominance_pairs(hs, ls, n, n5, n2, count, order)
        out[0], out[1], out[2], out[3] = w, lo, n * n, 1
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
            n = _points_containing(t, k, deck, table, binom, hs, ls, hist, dense, rest, f, d)
            if dense:
                w, lo = dominance_hist(hist)
            else:
                w, lo = dominance_pairs(hs, ls, n, n5, n2, count, order)
            out[0] += weight * w
            out[1] += weight * lo
            out[2] += weight * n * n
            out[3] += weight
        if k == 1 or not _next_combination(c, k - 1, top):
            break
    return out
