"""The house way as a program: any file of the rule language (docs/house-way.md#the-rule-language)
compiled by :mod:`paigow.analysis.program` into one int64 array, and read here for seven cards.

``prog`` rows are ``WIDTH`` wide. Row 0: the number of rules and where the rules, the ids, the
candidates, the low specs, the code and the shapes start. A rule's row: its candidates' first
row and count, the mask of allowed high-hand categories, the way to choose and its outcome (the
number of its id); its ids row: the outcome by high-hand category. A hand's shape (its groups of
a rank, :func:`shape_of`) decides many features, so each shape has its own list of the rules
that may hold for it, each with its condition simplified for that shape (no code: it holds). A
condition is postfix code with jumps for ``and`` / ``or``. Each setting returned carries the
outcome number, which :mod:`paigow.analysis.program` maps back to the rule id.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import CAT_SHIFT, JOKER, _popc, is_foul, key2, key5

Arr = npt.NDArray[Any]

WIDTH = 12
# condition code
OP_FLAG, OP_FEAT, OP_CONST, OP_CMP, OP_IN, OP_NOT, OP_JZ, OP_JNZ, OP_LEAVES, OP_TRUE = range(10)
OP_BEST_LOW = 10  # the best low key a spec leaves (-1: none), for a comparison
CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE = range(6)
# low spec slots
SLOT_GROUP, SLOT_SINGLE, SLOT_RANK, SLOT_JOKER, SLOT_NATURAL = 1, 2, 3, 4, 5  # natural: an ace
# choosing
CHOOSE_FIRST, CHOOSE_BEST_LOW, CHOOSE_BEST_HIGH = 0, 1, 2
# feature numbers: flags then numbers (as paigow.house_way.rules.FLAGS and NUMBERS)
F_FIVE, F_SF, F_FLUSH, F_STRAIGHT, F_QUADS, F_FULL, F_TWO_TRIPS, F_TRIPS = range(8)
F_THREE_PAIR, F_TWO_PAIR, F_ONE_PAIR, F_NO_PAIR, F_JOKER = range(8, 13)
F_SINGLE = 13  # single-A .. single-2: 13 flags
N_FLAGS = 26
N_PAIRS, N_THREES, N_FOURS, N_ACES, N_HIGH_PAIR, N_MIDDLE_PAIR, N_LOW_PAIR = range(26, 33)
N_THREE, N_LOW_THREE, N_FOUR, N_SINGLE1 = 33, 34, 35, 36  # single1..single5: 36..40
N_STRAIGHT_HIGH = 41  # the top rank of the highest five ranks in a row (the wheel: 5)
N_FEATURES = 42  # fv[N_FEATURES]: the hand's shape
N_SHAPES = 48


def shape_of(five: int, fours: int, threes: int, pairs: int) -> int:
    """The number of a hand's shape (its groups of five, four, three and two of a rank): a
    rule's row holds the mask of the shapes its condition can hold for, so that the others
    skip it unread."""
    return five * 24 + fours * 12 + threes * 4 + pairs


_I = np.array([i for i in range(7) for j in range(i + 1, 7)], dtype=np.int64)
_J = np.array([j for i in range(7) for j in range(i + 1, 7)], dtype=np.int64)
_PAIR = np.full((7, 7), -1, dtype=np.int64)  # the setting number of low cards at (i, j)
for _k in range(21):
    _PAIR[_I[_k], _J[_k]] = _k


@nb.njit(cache=True, inline="always")
def _rank(c: int) -> int:
    """A card's rank, 2-14 (the joker an ace)."""
    return 14 if c == JOKER else (c >> 2) + 2


@nb.njit(cache=True)
def _high_key(s: Arr, i: int, j: int, lowest_wheel: bool) -> int:
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


# the work array's parts: features at 0 (the shape at N_FEATURES), high keys at HK, the
# settings a low spec fits at OK, the condition stack at STACK, counts at CNT
HK, OK, STACK, CNT = 64, 96, 128, 192
WORK = 256  # the size of a work array


@nb.njit(cache=True)
def _features(s: Arr, w: Arr) -> None:
    """The features of seven cards sorted descending into ``w[0:N_FEATURES + 1]`` (the three
    straight and flush flags -1 where only the settings can tell: :func:`_placements` fills
    them when a condition asks); ``w[CNT]``: the ranks present, as bits."""
    for f in range(N_FEATURES + 1):
        w[f] = 0
    np_, nt, nq = 0, 0, 0
    ns = 0
    p0 = p1 = p2 = 0
    t0 = t1 = 0
    aces = 0
    present = 0
    k = 0
    while k < 7:  # sorted descending, so each rank's cards are a run (the joker with the aces)
        r = _rank(s[k])
        m = k + 1
        while m < 7 and _rank(s[m]) == r:
            m += 1
        c = m - k
        k = m
        present |= 1 << r
        if r == 14:
            aces = c
        if c == 1:
            w[F_SINGLE + 14 - r] = 1
            if ns < 5:
                w[N_SINGLE1 + ns] = r
            ns += 1
        elif c == 2:
            if np_ == 0:
                p0 = r
            elif np_ == 1:
                p1 = r
            else:
                p2 = r
            np_ += 1
        elif c == 3:
            if nt == 0:
                t0 = r
            else:
                t1 = r
            nt += 1
        elif c == 4:
            w[N_FOUR] = r
            nq += 1
    w[CNT] = present
    five = 1 if aces == 5 else 0
    w[N_PAIRS], w[N_THREES], w[N_FOURS], w[N_ACES] = np_, nt, nq, aces
    if np_ > 0:
        w[N_HIGH_PAIR] = p0
        w[N_LOW_PAIR] = p2 if np_ == 3 else (p1 if np_ == 2 else p0)
    if np_ == 3:
        w[N_MIDDLE_PAIR] = p1
    if nt > 0:
        w[N_THREE] = t0
        w[N_LOW_THREE] = t1 if nt == 2 else t0
    w[F_FIVE] = five
    w[F_QUADS] = 1 if nq > 0 else 0
    w[F_FULL] = 1 if nt >= 1 and np_ + nt >= 2 else 0
    w[F_TWO_TRIPS] = 1 if nt == 2 else 0
    w[F_TRIPS] = 1 if nt == 1 and np_ == 0 and nq == 0 else 0
    w[F_THREE_PAIR] = 1 if np_ == 3 else 0
    w[F_TWO_PAIR] = 1 if np_ == 2 and nt == 0 and nq == 0 else 0
    w[F_ONE_PAIR] = 1 if np_ == 1 and nt == 0 and nq == 0 and five == 0 else 0
    w[F_NO_PAIR] = 1 if np_ == 0 and nt == 0 and nq == 0 and five == 0 else 0
    jk = 1 if s[0] == JOKER else 0
    w[F_JOKER] = jk
    # the straight and flush flags from the ranks, where they decide: with no five of a suit
    # (the joker counting with any), a straight is there exactly when five ranks in a row are;
    # with five of a suit and no five ranks in a row, a flush and nothing else. Otherwise the
    # three are -1 until a condition asks (:func:`_placements` reads the 21 settings).
    mask = 0
    s0 = s1 = s2 = s3 = 0
    for k in range(7):
        c = s[k]
        if c != JOKER:
            u = c & 3
            if u == 0:
                s0 += 1
            elif u == 1:
                s1 += 1
            elif u == 2:
                s2 += 1
            else:
                s3 += 1
            mask |= 1 << (c >> 2)
    straight = 0
    for top in range(12, 2, -1):  # the highest straight first (the wheel last: its top is 5)
        win = 0x100F if top == 3 else 0x1F << (top - 4)
        if _popc(mask & win) + jk >= 5:
            straight = 1
            w[N_STRAIGHT_HIGH] = top + 2
            break
    if max(s0, s1, s2, s3) + jk < 5:
        w[F_STRAIGHT] = straight
    elif straight == 0:
        w[F_FLUSH] = 1
    else:
        w[F_SF] = -1
        w[F_FLUSH] = -1
        w[F_STRAIGHT] = -1
    w[N_FEATURES] = five * 24 + nq * 12 + nt * 4 + np_  # the hand's shape (see shape_of)


@nb.njit(cache=True)
def _keys(s: Arr, w: Arr, lowest_wheel: bool) -> None:
    """The high hands' keys of all 21 settings into ``w[HK + k]`` (low cards at ``_I[k]``,
    ``_J[k]``), once per hand."""
    if w[HK] >= 0:
        return
    for k in range(21):
        w[HK + k] = _high_key(s, _I[k], _J[k], lowest_wheel)


@nb.njit(cache=True)
def _placements(s: Arr, w: Arr, lowest_wheel: bool) -> None:
    _keys(s, w, lowest_wheel)
    sf, fl, st = 0, 0, 0
    for k in range(21):
        cat = w[HK + k] >> CAT_SHIFT
        if cat == 8 or cat == 9:
            sf = 1
        elif cat == 5:
            fl = 1
        elif cat == 4:
            st = 1
    w[F_SF], w[F_FLUSH], w[F_STRAIGHT] = sf, fl, st


@nb.njit(cache=True)
def _slot(s: Arr, w: Arr, kind: int, arg: int) -> int:
    """The rank a slot asks for (14: an ace or the joker), or 0 when the hand has none."""
    if kind == SLOT_GROUP:
        return int(w[arg])
    if kind == SLOT_SINGLE:
        return int(w[N_SINGLE1 + arg - 1])
    if kind == SLOT_RANK:
        return arg if (w[CNT] >> arg) & 1 else 0
    if kind == SLOT_NATURAL:  # an ace that is not the joker (the joker, if held, is s[0])
        k = 1 if s[0] == JOKER else 0
        return 14 if s[k] != JOKER and (s[k] >> 2) == 12 else 0
    return 14 if s[0] == JOKER else 0  # the joker


@nb.njit(cache=True, inline="always")
def _fits(c: int, rank: int, kind: int) -> bool:
    if kind == SLOT_NATURAL:
        return c != JOKER and _rank(c) == rank
    return _rank(c) == rank and (kind != SLOT_JOKER or c == JOKER)


@nb.njit(cache=True)
def _spec_matches(s: Arr, w: Arr, prog: Arr, spec: int) -> int:
    """The settings whose low hand fits low spec row ``spec``: their numbers listed from
    ``w[OK]``, and their count."""
    n = prog[spec, 0]
    if n == 0:  # any: every setting (fouls are dropped by the caller)
        for k in range(21):
            w[OK + k] = k
        return 21
    k1 = prog[spec, 1]
    r1 = _slot(s, w, k1, prog[spec, 2])
    if r1 == 0:
        return 0
    count = 0
    if n == 1:
        for k in range(21):
            if _fits(s[_I[k]], r1, k1) or _fits(s[_J[k]], r1, k1):
                w[OK + count] = k
                count += 1
        return count
    k2 = prog[spec, 3]
    r2 = _slot(s, w, k2, prog[spec, 4])
    if r2 == 0:
        return 0
    # the pairs of positions (x < y) holding a card for each slot
    for x in range(7):
        a = s[x]
        f1 = _fits(a, r1, k1)
        f2 = _fits(a, r2, k2)
        if not (f1 or f2):
            continue
        for y in range(x + 1, 7):
            b = s[y]
            if (f1 and _fits(b, r2, k2)) or (f2 and _fits(b, r1, k1)):
                w[OK + count] = _PAIR[x, y]
                count += 1
    return count


@nb.njit(cache=True)
def _condition(s: Arr, w: Arr, prog: Arr, at: int, n: int, lowest: bool) -> bool:
    sp = STACK
    pc = 0
    while pc < n:
        op = prog[at + pc, 0]
        arg = prog[at + pc, 1]
        if op in (OP_FLAG, OP_FEAT):
            if w[arg] < 0:
                _placements(s, w, lowest)
            w[sp] = w[arg]
            sp += 1
        elif op == OP_CONST:
            w[sp] = arg
            sp += 1
        elif op == OP_TRUE:
            w[sp] = 1
            sp += 1
        elif op == OP_CMP:
            b = w[sp - 1]
            a = w[sp - 2]
            sp -= 1
            if arg == CMP_EQ:
                v = a == b
            elif arg == CMP_NE:
                v = a != b
            elif arg == CMP_LT:
                v = a < b
            elif arg == CMP_LE:
                v = a <= b
            elif arg == CMP_GT:
                v = a > b
            else:
                v = a >= b
            w[sp - 1] = 1 if v else 0
        elif op == OP_IN:
            w[sp - 1] = (arg >> w[sp - 1]) & 1
        elif op == OP_NOT:
            w[sp - 1] = 1 if w[sp - 1] == 0 else 0
        elif op == OP_JZ:
            if w[sp - 1] == 0:
                pc = arg
                continue
            sp -= 1
        elif op == OP_JNZ:
            if w[sp - 1] != 0:
                pc = arg
                continue
            sp -= 1
        elif op == OP_LEAVES:
            v = 0
            n_ok = _spec_matches(s, w, prog, arg)
            if n_ok > 0:
                _keys(s, w, lowest)
                cats = prog[at + pc, 2]
                for t in range(n_ok):
                    if (cats >> (w[HK + w[OK + t]] >> CAT_SHIFT)) & 1:
                        v = 1
                        break
            w[sp] = v
            sp += 1
        elif op == OP_BEST_LOW:  # the best low of the spec's placements, fouls left out
            v = -1
            n_ok = _spec_matches(s, w, prog, arg)
            if n_ok > 0:
                _keys(s, w, lowest)
                cats = prog[at + pc, 2]
                for t in range(n_ok):
                    k = w[OK + t]
                    h = w[HK + k]
                    if cats != 0 and ((cats >> (h >> CAT_SHIFT)) & 1) == 0:
                        continue
                    lk = key2(s[_I[k]], s[_J[k]])
                    if lk > v and not is_foul(h, lk):
                        v = lk
            w[sp] = v
            sp += 1
        pc += 1
    return bool(w[STACK] != 0)


@nb.njit(cache=True)
def work_array() -> Arr:
    """A work array for :func:`house_way_program` (one per thread, reused for every hand)."""
    return np.zeros(WORK, dtype=np.int64)


@nb.njit(cache=True)
def house_way_program(s: Arr, prog: Arr, lowest_wheel: bool, work: Arr) -> tuple[int, int, int]:
    """The house way ``prog`` for seven distinct cards ``s`` sorted DEScending by index (the
    joker first): the positions (i < j) of the two low cards and the outcome number; (-1, -1,
    -1) when no rule applies. ``work``: a :func:`work_array`, reused from hand to hand."""
    w = work
    _features(s, w)
    w[HK] = -1
    rules_at, ids_at, shapes_at = prog[0, 1], prog[0, 2], prog[0, 5]
    shape = w[N_FEATURES]
    first, count = prog[shapes_at + shape, 0], prog[shapes_at + shape, 1]
    for e in range(first, first + count):  # the rules that may hold for this shape, in order
        r, code_at, code_n = prog[e, 0], prog[e, 1], prog[e, 2]
        ra = rules_at + r
        if code_n == 1 and prog[code_at, 0] == OP_FLAG:  # one flag: read it here
            f = prog[code_at, 1]
            if w[f] < 0:
                _placements(s, w, lowest_wheel)
            if w[f] == 0:
                continue
        elif code_n > 0 and not _condition(s, w, prog, code_at, code_n, lowest_wheel):
            continue
        cand_at, cand_n, highmask, choose = prog[ra, 2], prog[ra, 3], prog[ra, 4], prog[ra, 5]
        best = -1
        best_a, best_b = -1, -1
        for ci in range(cand_n):
            spec = prog[cand_at + ci, 0]
            n = _spec_matches(s, w, prog, spec)
            if n == 0:
                continue
            is_any = prog[spec, 0] == 0
            need_keys = is_any or highmask != 0 or choose != CHOOSE_FIRST or n > 1
            if need_keys:
                _keys(s, w, lowest_wheel)
            for t in range(n):
                k = w[OK + t]
                lk = key2(s[_I[k]], s[_J[k]])
                h = w[HK + k] if need_keys else 0
                if need_keys:
                    if highmask != 0 and ((highmask >> (h >> CAT_SHIFT)) & 1) == 0:
                        continue
                    if is_any and is_foul(h, lk):
                        continue
                if choose == CHOOSE_BEST_LOW:
                    a, b = lk, h
                else:
                    a, b = h, lk
                if best < 0 or a > best_a or (a == best_a and b > best_b):
                    best, best_a, best_b = k, a, b
            if choose == CHOOSE_FIRST and best >= 0:
                break
        if best < 0:
            continue
        outcome = prog[ra, 6]
        if prog[ra, 7] != 0:  # ids by the high hand kept
            h = w[HK + best] if w[HK] >= 0 else _high_key(s, _I[best], _J[best], lowest_wheel)
            by = prog[ids_at + r, h >> CAT_SHIFT]
            if by >= 0:
                outcome = by
        return _I[best], _J[best], outcome
    return -1, -1, -1
