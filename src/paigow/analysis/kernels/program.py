"""The house way as a program: any file of the rule language (docs/house-way.md#the-rule-language)
compiled by :mod:`paigow.analysis.program` into one int64 array, and read here for seven cards.

``prog`` rows are ``WIDTH`` wide. Row 0: the number of rules and where the rules, the ids, the
candidates, the low specs and the code start. A rule's row: where its condition's code starts,
its candidates' first row and count, the mask of allowed high-hand categories, the way to choose
and its outcome (the number of its id); its ids row: the outcome by high-hand category. A
condition is postfix code with jumps for ``and`` / ``or``. Each setting it returns carries the
outcome number, which :mod:`paigow.analysis.program` maps back to the rule id.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.keys import ACE_R, CAT_SHIFT, JOKER, _popc, is_foul, key2, key5

Arr = npt.NDArray[Any]

WIDTH = 12
# condition code
OP_FLAG, OP_FEAT, OP_CONST, OP_CMP, OP_IN, OP_NOT, OP_JZ, OP_JNZ, OP_LEAVES, OP_TRUE = range(10)
CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE = range(6)
# low spec slots
SLOT_GROUP, SLOT_SINGLE, SLOT_RANK, SLOT_JOKER = 1, 2, 3, 4
# choosing
CHOOSE_FIRST, CHOOSE_BEST_LOW, CHOOSE_BEST_HIGH = 0, 1, 2
# feature numbers: flags then numbers (as paigow.house_way_rules.FLAGS and NUMBERS)
F_FIVE, F_SF, F_FLUSH, F_STRAIGHT, F_QUADS, F_FULL, F_TWO_TRIPS, F_TRIPS = range(8)
F_THREE_PAIR, F_TWO_PAIR, F_ONE_PAIR, F_NO_PAIR, F_JOKER = range(8, 13)
F_SINGLE = 13  # single-A .. single-2: 13 flags
N_FLAGS = 26
N_PAIRS, N_THREES, N_FOURS, N_ACES, N_HIGH_PAIR, N_MIDDLE_PAIR, N_LOW_PAIR = range(26, 33)
N_THREE, N_LOW_THREE, N_FOUR, N_SINGLE1 = 33, 34, 35, 36  # single1..single5: 36..40
N_FEATURES = 41

_I = np.array([i for i in range(7) for j in range(i + 1, 7)], dtype=np.int64)
_J = np.array([j for i in range(7) for j in range(i + 1, 7)], dtype=np.int64)


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


@nb.njit(cache=True)
def _features(s: Arr, fv: Arr, scratch: Arr) -> None:
    """The features of seven cards sorted descending (the three placement flags left at -1:
    :func:`_placements` fills them when a condition asks)."""
    cnt = scratch[0:15]
    suit_cnt = scratch[15:19]
    pairs = scratch[19:22]
    threes = scratch[22:24]
    cnt[:] = 0
    suit_cnt[:] = 0
    for k in range(7):
        cnt[_rank(s[k])] += 1
    fv[:] = 0
    np_, nt, nq = 0, 0, 0
    ns = 0
    for r in range(14, 1, -1):
        c = cnt[r]
        if c == 1:
            fv[F_SINGLE + 14 - r] = 1
            if ns < 5:
                fv[N_SINGLE1 + ns] = r
            ns += 1
        elif c == 2:
            pairs[np_] = r
            np_ += 1
        elif c == 3:
            threes[nt] = r
            nt += 1
        elif c == 4:
            fv[N_FOUR] = r
            nq += 1
    five = cnt[14] == 5
    fv[N_PAIRS], fv[N_THREES], fv[N_FOURS], fv[N_ACES] = np_, nt, nq, cnt[14]
    if np_ > 0:
        fv[N_HIGH_PAIR] = pairs[0]
        fv[N_LOW_PAIR] = pairs[np_ - 1]
    if np_ == 3:
        fv[N_MIDDLE_PAIR] = pairs[1]
    if nt > 0:
        fv[N_THREE] = threes[0]
        fv[N_LOW_THREE] = threes[nt - 1]
    fv[F_FIVE] = 1 if five else 0
    fv[F_QUADS] = 1 if nq > 0 else 0
    fv[F_FULL] = 1 if nt >= 1 and np_ + nt >= 2 else 0
    fv[F_TWO_TRIPS] = 1 if nt == 2 else 0
    fv[F_TRIPS] = 1 if nt == 1 and np_ == 0 and nq == 0 else 0
    fv[F_THREE_PAIR] = 1 if np_ == 3 else 0
    fv[F_TWO_PAIR] = 1 if np_ == 2 and nt == 0 and nq == 0 else 0
    fv[F_ONE_PAIR] = 1 if np_ == 1 and nt == 0 and nq == 0 else 0
    fv[F_NO_PAIR] = 1 if np_ == 0 and nt == 0 and nq == 0 and not five else 0
    fv[F_JOKER] = 1 if s[0] == JOKER else 0
    # straight and flush flags: known to be false without the enumeration when no five cards
    # could make one
    mask = 0
    jk = 1 if s[0] == JOKER else 0
    for k in range(7):
        if s[k] != JOKER:
            suit_cnt[s[k] & 3] += 1
            mask |= 1 << (s[k] >> 2)
    maybe = max(suit_cnt[0], suit_cnt[1], suit_cnt[2], suit_cnt[3]) + jk >= 5
    if not maybe:
        for top in range(3, 13):
            w = 0x100F if top == 3 else 0x1F << (top - 4)
            if _popc(mask & w) + jk >= 5:
                maybe = True
                break
    if maybe:
        fv[F_SF] = -1
        fv[F_FLUSH] = -1
        fv[F_STRAIGHT] = -1


@nb.njit(cache=True)
def _keys(s: Arr, hk: Arr, lowest_wheel: bool) -> None:
    """The high hands' keys of all 21 settings (``hk[k]``: low cards at ``_I[k]``, ``_J[k]``)."""
    if hk[0] >= 0:
        return
    for k in range(21):
        hk[k] = _high_key(s, _I[k], _J[k], lowest_wheel)


@nb.njit(cache=True)
def _placements(s: Arr, fv: Arr, hk: Arr, lowest_wheel: bool) -> None:
    _keys(s, hk, lowest_wheel)
    sf, fl, st = 0, 0, 0
    for k in range(21):
        cat = hk[k] >> CAT_SHIFT
        if cat == 8 or cat == 9:
            sf = 1
        elif cat == 5:
            fl = 1
        elif cat == 4:
            st = 1
    fv[F_SF], fv[F_FLUSH], fv[F_STRAIGHT] = sf, fl, st


@nb.njit(cache=True)
def _slot(s: Arr, fv: Arr, kind: int, arg: int) -> int:
    """The rank a slot asks for (14: an ace or the joker), or 0 when the hand has none."""
    if kind == SLOT_GROUP:
        return fv[arg]
    if kind == SLOT_SINGLE:
        return fv[N_SINGLE1 + arg - 1]
    if kind == SLOT_RANK:
        for k in range(7):
            if _rank(s[k]) == arg:
                return arg
        return 0
    return 14 if s[0] == JOKER else 0  # the joker


@nb.njit(cache=True, inline="always")
def _fits(c: int, rank: int, kind: int) -> bool:
    return _rank(c) == rank and (kind != SLOT_JOKER or c == JOKER)


@nb.njit(cache=True)
def _spec_matches(s: Arr, fv: Arr, prog: Arr, spec: int, ok: Arr) -> int:
    """Mark in ``ok`` the settings whose low hand fits low spec number ``spec``; their count."""
    row = prog[spec]
    n = row[0]
    ok[:] = 0
    if n == 0:  # any: every setting (fouls are dropped by the caller)
        ok[:] = 1
        return 21
    k1, a1 = row[1], row[2]
    r1 = _slot(s, fv, k1, a1)
    if r1 == 0:
        return 0
    count = 0
    if n == 1:
        for k in range(21):
            if _fits(s[_I[k]], r1, k1) or _fits(s[_J[k]], r1, k1):
                ok[k] = 1
                count += 1
        return count
    k2, a2 = row[3], row[4]
    r2 = _slot(s, fv, k2, a2)
    if r2 == 0:
        return 0
    for k in range(21):
        a, b = s[_I[k]], s[_J[k]]
        if (_fits(a, r1, k1) and _fits(b, r2, k2)) or (_fits(a, r2, k2) and _fits(b, r1, k1)):
            ok[k] = 1
            count += 1
    return count


@nb.njit(cache=True)
def _condition(
    s: Arr, fv: Arr, hk: Arr, prog: Arr, at: int, n: int, stack: Arr, ok: Arr, lowest: bool
) -> bool:
    sp = 0
    pc = 0
    while pc < n:
        row = prog[at + pc]
        op = row[0]
        if op == OP_FLAG or op == OP_FEAT:
            f = row[1]
            if fv[f] < 0:
                _placements(s, fv, hk, lowest)
            stack[sp] = fv[f]
            sp += 1
        elif op == OP_CONST:
            stack[sp] = row[1]
            sp += 1
        elif op == OP_TRUE:
            stack[sp] = 1
            sp += 1
        elif op == OP_CMP:
            b = stack[sp - 1]
            a = stack[sp - 2]
            sp -= 1
            c = row[1]
            if c == CMP_EQ:
                v = a == b
            elif c == CMP_NE:
                v = a != b
            elif c == CMP_LT:
                v = a < b
            elif c == CMP_LE:
                v = a <= b
            elif c == CMP_GT:
                v = a > b
            else:
                v = a >= b
            stack[sp - 1] = 1 if v else 0
        elif op == OP_IN:
            stack[sp - 1] = (row[1] >> stack[sp - 1]) & 1
        elif op == OP_NOT:
            stack[sp - 1] = 1 if stack[sp - 1] == 0 else 0
        elif op == OP_JZ:
            if stack[sp - 1] == 0:
                pc = row[1]
                continue
            sp -= 1
        elif op == OP_JNZ:
            if stack[sp - 1] != 0:
                pc = row[1]
                continue
            sp -= 1
        elif op == OP_LEAVES:
            v = 0
            if _spec_matches(s, fv, prog, row[1], ok) > 0:
                _keys(s, hk, lowest)
                for k in range(21):
                    if ok[k] and (row[2] >> (hk[k] >> CAT_SHIFT)) & 1:
                        v = 1
                        break
            stack[sp] = v
            sp += 1
        pc += 1
    return stack[0] != 0


WORK = 256  # the size of a work array


@nb.njit(cache=True)
def work_array() -> Arr:
    """A work array for :func:`house_way_program` (one per thread, reused for every hand)."""
    return np.zeros(WORK, dtype=np.int64)


@nb.njit(cache=True)
def house_way_program(s: Arr, prog: Arr, lowest_wheel: bool, work: Arr) -> tuple[int, int, int]:
    """The house way ``prog`` for seven distinct cards ``s`` sorted DEScending by index (the
    joker first): the positions (i < j) of the two low cards and the outcome number; (-1, -1,
    -1) when no rule applies. ``work``: a :func:`work_array`, reused from hand to hand."""
    fv = work[0:N_FEATURES]
    hk = work[64:85]
    ok = work[96:117]
    stack = work[128:192]
    _features(s, fv, work[192:224])
    hk[:] = -1
    head = prog[0]
    n_rules, rules_at, ids_at = head[0], head[1], head[2]
    for r in range(n_rules):
        rule = prog[rules_at + r]
        if not _condition(s, fv, hk, prog, rule[0], rule[1], stack, ok, lowest_wheel):
            continue
        cand_at, cand_n, highmask, choose = rule[2], rule[3], rule[4], rule[5]
        best = -1
        best_a, best_b = -1, -1
        for ci in range(cand_n):
            spec = prog[cand_at + ci, 0]
            n = _spec_matches(s, fv, prog, spec, ok)
            if n == 0:
                continue
            is_any = prog[spec, 0] == 0
            need_keys = is_any or highmask != 0 or choose != CHOOSE_FIRST or n > 1
            if need_keys:
                _keys(s, hk, lowest_wheel)
            for k in range(21):
                if not ok[k]:
                    continue
                lk = key2(s[_I[k]], s[_J[k]])
                h = hk[k] if need_keys else 0
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
        outcome = rule[6]
        if rule[7] != 0:  # ids by the high hand kept
            h = hk[best] if hk[best] >= 0 else _high_key(s, _I[best], _J[best], lowest_wheel)
            by = prog[ids_at + r, h >> CAT_SHIFT]
            if by >= 0:
                outcome = by
        return _I[best], _J[best], outcome
    return -1, -1, -1
