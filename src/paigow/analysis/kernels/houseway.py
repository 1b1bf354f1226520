"""The first format's fixed rules as a numba kernel (the reference the rule language's
translation of that format is checked against on every hand): the dealer's setting of seven card
indices, with the number of the rule that made it (its position in
:data:`paigow.house_way.legacy.RULE_IDS`).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import (
    ACE_R,
    CAT_SHIFT,
    FLUSH,
    JOKER,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    _popc,
    key2,
    key5,
)
from paigow.house_way.legacy import RULE_IDS, Action, LegacyParams

Arr = npt.NDArray[Any]

# Actions of a house way parameter (as paigow.house_way.Action), in parameter arrays.
KEEP, SPLIT, KEEP_IF_ACE, KEEP_IF_KING = 0, 1, 2, 3
_ACTIONS = {
    Action.KEEP: KEEP,
    Action.SPLIT: SPLIT,
    Action.KEEP_IF_ACE: KEEP_IF_ACE,
    Action.KEEP_IF_KING: KEEP_IF_KING,
}
_CLASSES = {"low": 0, "middle": 1, "high": 2}


def legacy_arrays(params: LegacyParams) -> tuple[Arr, Arr]:
    """A first-format file's parameters as :func:`house_way7`'s arrays (two pair by the
    pairs' classes, four of a kind by class)."""
    tp = np.full((4, 4), SPLIT, dtype=np.int64)
    for key, action in params.two_pair.items():
        hi, lo = key.split("_")
        tp[_CLASSES[hi], _CLASSES[lo]] = _ACTIONS[action]
    quads = np.array([_ACTIONS[params.quads[c]] for c in ("low", "middle", "high")], dtype=np.int64)
    return tp, quads


R_FIVE_KINGS = RULE_IDS.index("five-aces.kings")
R_FIVE_SPLIT = RULE_IDS.index("five-aces.split")
R_SF = RULE_IDS.index("straight-flush")
R_Q_PAIR = RULE_IDS.index("quads.pair-low")
R_Q_KEEP = RULE_IDS.index("quads.keep")
R_Q_KEEP_ACE = RULE_IDS.index("quads.keep-ace")
R_Q_KEEP_KING = RULE_IDS.index("quads.keep-king")
R_Q_SPLIT = RULE_IDS.index("quads.split")
R_TWO_SETS = RULE_IDS.index("trips.two-sets")
R_FH_TWO = RULE_IDS.index("full-house.two-pairs")
R_FH_DEUCES = RULE_IDS.index("full-house.deuces")
R_FH_SPLIT = RULE_IDS.index("full-house.split")
R_FLUSH = RULE_IDS.index("flush")
R_STRAIGHT = RULE_IDS.index("straight")
R_THREE_PAIR = RULE_IDS.index("three-pair")
R_TRIPS = RULE_IDS.index("trips")
R_TRIPS_ACES = RULE_IDS.index("trips.aces")
R_TP_SPLIT = RULE_IDS.index("two-pair.split")
R_TP_ACE = RULE_IDS.index("two-pair.keep-ace")
R_TP_KING = RULE_IDS.index("two-pair.keep-king")
R_TP_KEEP = RULE_IDS.index("two-pair.keep")
R_ONE_PAIR = RULE_IDS.index("one-pair")
R_PAI_GOW = RULE_IDS.index("pai-gow")


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
            cat = hk >> CAT_SHIFT
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
