"""The optimal player's exact edge: every player hand set to maximise its own EV against the
dealer's house way, summed over every deal.

For a player hand P, each of its 21 settings s wins against the dealer hands D (disjoint from P)
that it beats on both hands, and loses against those that beat or copy it on both. By
inclusion-exclusion over the 128 subsets T of P,
    #{D disjoint from P: ...} = sum_T (-1)^|T| #{D containing T: ...},
and each term is a dominance count of the point s = (high rank, low rank) against the hands that
contain T. Those are precomputed once per class of T under suit relabelling:
  |T| <= 2  dense cumulative tables (O(1) a query);
  |T| = 3, 4  each class's hands grouped by low rank, high ranks sorted (binary searches), with a
            cumulative count by high rank;
  |T| = 5  each class's 1,128 hands as a list;
  |T| = 6, 7  read from the compiled table directly.
Player hands are taken one per suit class (about 6.5 million), weighted by the class's size.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import identity
from paigow.analysis.edge import FULL_DECK_INDICES, EdgeResult, _read_checkpoint
from paigow.analysis.kernels import Arr
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission

STRUCTURES_VERSION = 1


# ------------------------------------------------------------------------------ kernels
@nb.njit(cache=True)
def _colex(cards: Arr, n: int, binom: Arr) -> int:
    idx = 0
    for i in range(n):
        idx += binom[cards[i], i + 1]
    return idx


@nb.njit(cache=True)
def _canonical(cards: Arr, n: int, out: Arr) -> None:
    """The canonical image of ``cards[:n]`` under suit relabelling (suit masks in
    non-increasing order), ascending, into ``out``."""
    m = np.zeros(4, dtype=np.int64)
    for i in range(n):
        c = cards[i]
        if c != K.JOKER:
            m[c & 3] |= 1 << (c >> 2)
    order = np.argsort(-m, kind="mergesort")  # suits by mask, largest first (stable)
    new_suit = np.empty(4, dtype=np.int64)
    for rank in range(4):
        new_suit[order[rank]] = rank
    for i in range(n):
        c = cards[i]
        out[i] = c if c == K.JOKER else (c & ~3) | new_suit[c & 3]
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
        if K.suit_weight(t, k):
            class_of[_colex(t, k, binom)] = len(reps)
            reps.append(t.copy())
        if not K._next_combination(c, k, n):
            break
    c = np.arange(k)
    canon = np.empty(k, dtype=np.int64)
    while True:
        for i in range(k):
            t[i] = deck[c[i]]
        _canonical(t, k, canon)
        class_of[_colex(t, k, binom)] = class_of[_colex(canon, k, binom)]
        if not K._next_combination(c, k, n):
            break
    out = np.empty((len(reps), k), dtype=np.int64)
    for i in range(len(reps)):
        out[i] = reps[i]
    return out


@nb.njit(cache=True)
def _scratch(deck: Arr) -> tuple[Arr, Arr, Arr]:
    """The scratch arrays of :func:`paigow.analysis.kernels._points_containing`."""
    return (
        np.empty(len(deck), dtype=np.int64),
        np.zeros((8, 54), dtype=np.int64),
        np.zeros((7, len(deck)), dtype=np.int64),
    )


@nb.njit(cache=True, nogil=True)
def build_cum(reps: Arr, k: int, deck: Arr, table: Arr, binom: Arr, cum: Arr) -> None:
    """cum[i, h, l] = hands containing reps[i] with high rank < h and low rank < l."""
    n5 = cum.shape[1] - 1
    n2 = cum.shape[2] - 1
    hist = np.zeros((n5, n2), dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty(1, dtype=np.int64)
    t = np.empty(max(k, 1), dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        hist[:, :] = 0
        K._points_containing(t, k, deck, table, binom, dummy, dummy, hist, True, rest, f, d)
        col = np.zeros(n2, dtype=np.int64)
        for h in range(n5 + 1):
            acc = 0
            cum[i, h, 0] = 0
            for low in range(n2):
                acc += col[low]
                cum[i, h, low + 1] = acc
            if h < n5:
                for low in range(n2):
                    col[low] += hist[h, low]


@nb.njit(cache=True, nogil=True)
def build_grouped(
    reps: Arr,
    k: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    n5: int,
    n2: int,
    hvals: Arr,
    offsets: Arr,
    hcum: Arr,
) -> None:
    """For each class: its hands' high ranks grouped by low rank (each group sorted), the
    groups' offsets, and hcum[i, h] = hands with high rank < h."""
    size = hvals.shape[0] // reps.shape[0]
    hs = np.empty(size, dtype=np.int64)
    ls = np.empty(size, dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty((1, 1), dtype=np.int64)
    t = np.empty(k, dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        n = K._points_containing(t, k, deck, table, binom, hs, ls, dummy, False, rest, f, d)
        base = i * size
        # group by low rank (counting sort), then sort each group's high ranks
        start = np.zeros(n2 + 1, dtype=np.int64)
        for p in range(n):
            start[ls[p] + 1] += 1
        for v in range(n2):
            start[v + 1] += start[v]
        pos = start.copy()
        buf = np.empty(n, dtype=np.int64)
        for p in range(n):
            buf[pos[ls[p]]] = hs[p]
            pos[ls[p]] += 1
        for v in range(n2):
            buf[start[v] : start[v + 1]].sort()
        for p in range(n):
            hvals[base + p] = buf[p]
        for v in range(n2 + 1):
            offsets[i, v] = base + start[v]
        cnt = np.zeros(n5 + 1, dtype=np.int64)
        for p in range(n):
            cnt[hs[p] + 1] += 1
        for h in range(n5):
            cnt[h + 1] += cnt[h]
        for h in range(n5 + 1):
            hcum[i, h] = cnt[h]


@nb.njit(cache=True, nogil=True)
def build_points(reps: Arr, k: int, deck: Arr, table: Arr, binom: Arr, ph: Arr, pl: Arr) -> None:
    """Each class's hands as (high, low) lists, one after another."""
    size = ph.shape[0] // reps.shape[0]
    hs = np.empty(size, dtype=np.int64)
    ls = np.empty(size, dtype=np.int64)
    rest, f, d = _scratch(deck)
    dummy = np.empty((1, 1), dtype=np.int64)
    t = np.empty(k, dtype=np.int64)
    for i in range(reps.shape[0]):
        for j in range(k):
            t[j] = reps[i, j]
        n = K._points_containing(t, k, deck, table, binom, hs, ls, dummy, False, rest, f, d)
        for p in range(n):
            ph[i * size + p] = hs[p]
            pl[i * size + p] = ls[p]


@nb.njit(cache=True)
def is_foul(high_key: int, low_key: int) -> bool:
    """The core's foul rule on keys: the low hand outranks the high hand."""
    cat = high_key >> 25
    if cat > 1:
        return False
    low_pair = (low_key >> 8) == 1
    if cat == 1:
        if not low_pair:
            return False
        return (low_key & 0xFF) > ((high_key >> 20) & 31) // 2
    if low_pair:
        return True
    lh = (low_key >> 4) & 0xF
    ll = low_key & 0xF
    r1 = ((high_key >> 20) & 31) // 2
    r2 = ((high_key >> 15) & 31) // 2
    return lh > r1 or (lh == r1 and ll > r2)


@nb.njit(cache=True, inline="always")
def _bisect(a: Arr, lo: int, hi: int, x: int) -> int:
    """Number of values < x in the sorted a[lo:hi]."""
    start = lo
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo - start


@nb.njit(cache=True)
def hand_counts(
    p: Arr,
    deck: Arr,
    table: Arr,
    binom: Arr,
    rank5: Arr,
    rank2: Arr,
    class_of: Arr,
    cum_base: Arr,
    cum: Arr,
    hv3: Arr,
    off3: Arr,
    hc3: Arr,
    hv4: Arr,
    off4: Arr,
    hc4: Arr,
    p5h: Arr,
    p5l: Arr,
    size5: int,
    ph: Arr,
    pl: Arr,
    wins: Arr,
    losses: Arr,
) -> int:
    """Wins and losses of the 21 settings of the player hand ``p`` (7 cards ascending) against
    every dealer hand of ``deck`` disjoint from it; fills ph, pl (the settings' dense ranks),
    wins, losses; returns the number of dealer hands."""
    n2 = cum.shape[2] - 1
    n5 = cum.shape[1] - 1
    s = 0
    hand5 = np.empty(5, dtype=np.int64)
    for i in range(7):
        for j in range(i + 1, 7):
            m = 0
            for q in range(7):
                if q != i and q != j:
                    hand5[m] = p[q]
                    m += 1
            ph[s] = rank5[K.colex5(hand5[0], hand5[1], hand5[2], hand5[3], hand5[4], binom)]
            pl[s] = rank2[p[i], p[j]]
            wins[s] = 0
            losses[s] = 0
            s += 1
    t = np.empty(7, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    nd = len(deck)
    for mask in range(128):
        k = 0
        for q in range(7):
            if (mask >> q) & 1:
                t[k] = p[q]
                k += 1
        sign = -1 if k % 2 else 1
        size = 1
        for j in range(7 - k):
            size = size * (nd - k - j) // (j + 1)
        if k <= 2:
            cls = 0 if k == 0 else class_of[k, _colex(t, k, binom)]
            c = cum_base[k] + cls
            for q in range(21):
                h, low = ph[q], pl[q]
                both = np.int64(cum[c, h, low])
                wins[q] += sign * both
                losses[q] += sign * (
                    size - np.int64(cum[c, h, n2]) - np.int64(cum[c, n5, low]) + both
                )
        elif k <= 4:
            cls = class_of[k, _colex(t, k, binom)]
            hv = hv3 if k == 3 else hv4
            off = off3 if k == 3 else off4
            hc = hc3 if k == 3 else hc4
            for q in range(21):
                h, low = ph[q], pl[q]
                both = np.int64(0)
                for v in range(low):
                    both += _bisect(hv, off[cls, v], off[cls, v + 1], h)
                below_h = np.int64(hc[cls, h])
                below_l = off[cls, low] - off[cls, 0]
                wins[q] += sign * both
                losses[q] += sign * (size - below_h - below_l + both)
        elif k == 5:
            cls = class_of[k, _colex(t, k, binom)]
            base = cls * size5
            for q in range(21):
                h, low = ph[q], pl[q]
                w = 0
                lo_ = 0
                for x in range(base, base + size5):
                    dh, dl = np.int64(p5h[x]), np.int64(p5l[x])
                    if h > dh and low > dl:
                        w += 1
                    elif h <= dh and low <= dl:
                        lo_ += 1
                wins[q] += sign * w
                losses[q] += sign * lo_
        else:
            # |T| = 6 or 7: the hands containing T, straight from the table
            for x in deck:
                if k == 7:
                    if x != deck[0]:
                        continue
                    for j in range(7):
                        hand[j] = t[j]
                else:
                    inside = False
                    for j in range(6):
                        if t[j] == x:
                            inside = True
                    if inside:
                        continue
                    m = 0
                    placed = False
                    for j in range(6):
                        if not placed and x < t[j]:
                            hand[m] = x
                            m += 1
                            placed = True
                        hand[m] = t[j]
                        m += 1
                    if not placed:
                        hand[6] = x
                dh, dl = K._lookup(table, _colex(hand, 7, binom))
                for q in range(21):
                    if ph[q] > dh and pl[q] > dl:
                        wins[q] += sign
                    elif ph[q] <= dh and pl[q] <= dl:
                        losses[q] += sign
    total = 1
    for j in range(7):
        total = total * (nd - 7 - j) // (j + 1)
    return total


@nb.njit(cache=True)
def best_setting(
    p: Arr,
    ph: Arr,
    pl: Arr,
    wins: Arr,
    losses: Arr,
    total: int,
    num: int,
    den: int,
    five_keys: Arr,
    two_keys: Arr,
    hw_h: int,
    hw_l: int,
) -> int:
    """The index of the setting with the highest EV (fouls lose everything); ties go to the
    house way's setting, then to the first. Fouls get wins 0 and losses ``total``."""
    best = -1
    best_ev = np.int64(0)
    best_hw = False
    for q in range(21):
        if is_foul(five_keys[ph[q]], two_keys[pl[q]]):
            wins[q] = 0
            losses[q] = total
        ev = wins[q] * (den - num) - losses[q] * den
        hw = ph[q] == hw_h and pl[q] == hw_l
        if best < 0 or ev > best_ev or (ev == best_ev and hw and not best_hw):
            best, best_ev, best_hw = q, ev, hw
    return best


@nb.njit(cache=True, nogil=True)
def optimal_chunk(
    top: int,
    second: int,
    deck: Arr,
    table: Arr,
    binom: Arr,
    rank5: Arr,
    rank2: Arr,
    five_keys: Arr,
    two_keys: Arr,
    class_of: Arr,
    cum_base: Arr,
    cum: Arr,
    hv3: Arr,
    off3: Arr,
    hc3: Arr,
    hv4: Arr,
    off4: Arr,
    hc4: Arr,
    p5h: Arr,
    p5l: Arr,
    size5: int,
    num: int,
    den: int,
    limit: int,
) -> Arr:
    """Sum over the canonical player hands whose two highest cards are deck[top], deck[second]
    (at most ``limit`` of them if limit > 0) of weight x (wins, losses, dealer hands) of their
    best setting. Returns [wins, losses, deals, hands, classes]."""
    out = np.zeros(5, dtype=np.int64)
    p = np.empty(7, dtype=np.int64)
    ph = np.empty(21, dtype=np.int64)
    pl = np.empty(21, dtype=np.int64)
    wins = np.empty(21, dtype=np.int64)
    losses = np.empty(21, dtype=np.int64)
    c = np.arange(5)
    if second < 5:
        return out
    while True:
        for j in range(5):
            p[j] = deck[c[j]]
        p[5] = deck[second]
        p[6] = deck[top]
        weight = K.suit_weight(p, 7)
        if weight:
            total = hand_counts(
                p,
                deck,
                table,
                binom,
                rank5,
                rank2,
                class_of,
                cum_base,
                cum,
                hv3,
                off3,
                hc3,
                hv4,
                off4,
                hc4,
                p5h,
                p5l,
                size5,
                ph,
                pl,
                wins,
                losses,
            )
            hw_h, hw_l = K._lookup(table, _colex(p, 7, binom))
            b = best_setting(
                p, ph, pl, wins, losses, total, num, den, five_keys, two_keys, hw_h, hw_l
            )
            out[0] += weight * wins[b]
            out[1] += weight * losses[b]
            out[2] += weight * total
            out[3] += weight
            out[4] += 1
            if limit > 0 and out[4] >= limit:
                break
        if not K._next_combination(c, 5, second):
            break
    return out


# ------------------------------------------------------------------------------ structures
@dataclass
class Structures:
    """The precomputed dominance structures for a deck (see the module docstring)."""

    deck: Arr
    class_of: Arr  # (8, C(53, 5)) int32; class_of[k, colex(T)]
    cum_base: Arr  # (3,) first cum index of k = 0, 1, 2
    cum: Arr  # (classes of k <= 2, n5 + 1, n2 + 1) uint32
    hv3: Arr
    off3: Arr
    hc3: Arr
    hv4: Arr
    off4: Arr
    hc4: Arr
    p5h: Arr
    p5l: Arr
    size5: int


def build_structures(
    spec: TableSpec, deck: Sequence[int], folder: Path | None = None
) -> Structures:
    """Build (or load from ``folder``) the structures for ``deck``."""
    compiled = spec.open()
    d = np.array(sorted(deck), dtype=np.int64)
    n5, n2 = len(compiled.tables.five_keys), len(compiled.tables.two_keys)
    if folder is not None and (folder / "done").exists():
        return _load(folder, d)
    class_of = np.full((8, comb(53, 5)), -1, dtype=np.int32)
    reps: dict[int, Arr] = {0: np.zeros((1, 0), dtype=np.int64)}
    for k in range(1, 6):
        row = np.full(comb(53, 5), -1, dtype=np.int64)
        reps[k] = subset_classes(d, k, K.BINOM, row)
        class_of[k] = row
    n = len(d)
    counts = [len(reps[0]), len(reps[1]), len(reps[2])]
    cum_base = np.array([0, counts[0], counts[0] + counts[1]], dtype=np.int64)
    arrays: dict[str, Arr] = {}

    def alloc(name: str, shape: tuple[int, ...], dtype: Any) -> Arr:
        if folder is None:
            arr: Arr = np.zeros(shape, dtype=dtype)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            arr = np.lib.format.open_memmap(
                folder / f"{name}.npy", mode="w+", dtype=dtype, shape=shape
            )
        arrays[name] = arr
        return arr

    cum = alloc("cum", (sum(counts), n5 + 1, n2 + 1), np.uint32)
    for k in range(3):
        part = cum[cum_base[k] : cum_base[k] + counts[k]]
        build_cum(
            reps[k] if k else np.zeros((1, 1), dtype=np.int64), k, d, compiled.table, K.BINOM, part
        )
    grouped = {}
    for k in (3, 4):
        size = comb(n - k, 7 - k)
        m = len(reps[k])
        hv = alloc(f"hv{k}", (m * size,), np.uint16)
        off = alloc(f"off{k}", (m, n2 + 1), np.int64)
        hc = alloc(f"hc{k}", (m, n5 + 1), np.uint32)
        build_grouped(reps[k], k, d, compiled.table, K.BINOM, n5, n2, hv, off, hc)
        grouped[k] = (hv, off, hc)
    size5 = comb(n - 5, 2)
    p5h = alloc("p5h", (len(reps[5]) * size5,), np.uint16)
    p5l = alloc("p5l", (len(reps[5]) * size5,), np.uint8)
    build_points(reps[5], 5, d, compiled.table, K.BINOM, p5h, p5l)
    if folder is not None:
        np.save(folder / "class_of.npy", class_of)
        np.save(folder / "cum_base.npy", cum_base)
        np.save(folder / "deck.npy", d)
        for arr in arrays.values():
            if isinstance(arr, np.memmap):
                arr.flush()
        (folder / "done").write_text(json.dumps({"version": STRUCTURES_VERSION}))
        return _load(folder, d)
    return Structures(d, class_of, cum_base, cum, *grouped[3], *grouped[4], p5h, p5l, size5)


def _load(folder: Path, deck: Arr) -> Structures:
    def m(name: str) -> Arr:
        arr: Arr = np.load(folder / f"{name}.npy", mmap_mode="r")
        return arr

    n = len(deck)
    return Structures(
        deck,
        m("class_of"),
        m("cum_base"),
        m("cum"),
        m("hv3"),
        m("off3"),
        m("hc3"),
        m("hv4"),
        m("off4"),
        m("hc4"),
        m("p5h"),
        m("p5l"),
        comb(n - 5, 2),
    )


def structures_folder(spec: TableSpec, deck: Sequence[int]) -> Path:
    """Where the structures of a deck are kept (beside the compiled tables)."""
    from hashlib import sha256

    compiled = spec.open()
    ident = identity(compiled.way, compiled.wheel)
    key = json.dumps([ident, sorted(deck), STRUCTURES_VERSION], sort_keys=True)
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in compiled.way.name)
    return (
        Path(spec.folder)
        / f"optimal-{safe}-{compiled.wheel.value}-{sha256(key.encode()).hexdigest()[:12]}"
    )


@lru_cache(maxsize=2)
def _structures(spec: TableSpec, deck: tuple[int, ...], persist: bool) -> Structures:
    if not persist:
        return build_structures(spec, deck, None)
    folder = structures_folder(spec, deck)
    prefix = folder.name.rsplit("-", 1)[0] + "-"
    for stale in folder.parent.glob(prefix + "*"):  # made by other versions: 3 GB each
        if stale != folder and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return build_structures(spec, deck, folder)


# ------------------------------------------------------------------------------ the run
@dataclass(frozen=True)
class OptimalChunk:
    spec: TableSpec
    top: int
    second: int
    num: int
    den: int
    deck: tuple[int, ...] = FULL_DECK_INDICES
    limit: int = 0

    @property
    def key(self) -> str:
        return f"{self.top}:{self.second}"


def optimal_chunk_task(chunk: OptimalChunk) -> tuple[str, list[int]]:
    """One chunk of player hands: [wins, losses, deals, hands, classes]."""
    compiled = chunk.spec.open()
    st = _structures(chunk.spec, chunk.deck, chunk.deck == FULL_DECK_INDICES)
    t = compiled.tables
    out = optimal_chunk(
        chunk.top,
        chunk.second,
        st.deck,
        compiled.table,
        K.BINOM,
        t.rank5,
        t.rank2,
        t.five_keys,
        t.two_keys,
        st.class_of,
        st.cum_base,
        st.cum,
        st.hv3,
        st.off3,
        st.hc3,
        st.hv4,
        st.off4,
        st.hc4,
        st.p5h,
        st.p5l,
        st.size5,
        chunk.num,
        chunk.den,
        chunk.limit,
    )
    return chunk.key, [int(x) for x in out]


def chunks_for(
    spec: TableSpec, commission: Commission, deck: Sequence[int] = FULL_DECK_INDICES, limit: int = 0
) -> list[OptimalChunk]:
    """Every chunk of player hands (by their two highest cards), the largest first."""
    d = tuple(sorted(deck))
    rate = commission.rate
    out = [
        OptimalChunk(spec, top, second, rate.numerator, rate.denominator, d, limit)
        for top in range(6, len(d))
        for second in range(5, top)
    ]
    return sorted(out, key=lambda c: comb(c.second, 5), reverse=True)


def checkpoint_path(
    spec: TableSpec, commission: Commission, deck: Sequence[int] = FULL_DECK_INDICES
) -> Path:
    from hashlib import sha256

    compiled = spec.open()
    ident = identity(compiled.way, compiled.wheel)
    key = json.dumps([ident, sorted(deck), commission.as_str()], sort_keys=True)
    return (
        Path(spec.folder) / f"edge-optimal-{sha256(key.encode()).hexdigest()[:12]}.checkpoint.jsonl"
    )


def optimal_edge(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    deck: Sequence[int] = FULL_DECK_INDICES,
    checkpoint: Path | None = None,
    progress_bar: Callable[[str, int], AbstractContextManager[Callable[[int], None]]] | None = None,
    stop_after: int | None = None,
) -> EdgeResult:
    """Exact win/push/loss of the optimal player against the house way over every deal of
    ``deck``. Resumes from ``checkpoint``; ``stop_after`` ends after that many new chunks
    (raising :class:`InterruptedError`), to show resuming."""
    rate = commission or Commission()
    started = time.perf_counter()
    persist = tuple(sorted(deck)) == FULL_DECK_INDICES
    _structures(spec, tuple(sorted(deck)), persist)  # build once here before the workers start
    path = checkpoint or checkpoint_path(spec, rate, deck)
    done = _read_checkpoint(path)
    chunks = chunks_for(spec, rate, deck)
    todo = [c for c in chunks if c.key not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as log:

        def run(advance: Callable[[int], None] | None) -> None:
            def record(result: tuple[str, list[int]]) -> None:
                key, sums = result
                log.write(json.dumps({"chunk": key, "sums": sums}) + "\n")
                log.flush()
                done[key] = sums
                if advance is not None:
                    advance(1)

            runner.map(optimal_chunk_task, todo, record)

        if progress_bar is not None:
            with progress_bar("optimal player", len(todo)) as advance:
                run(advance)
        else:
            run(None)
    if len(done) < len(chunks):
        raise InterruptedError(f"{len(done)} of {len(chunks)} chunks done; run again to resume")
    n = len(deck)
    win = sum(v[0] for v in done.values())
    loss = sum(v[1] for v in done.values())
    deals = sum(v[2] for v in done.values())
    hands = sum(v[3] for v in done.values())
    if hands != comb(n, 7) or deals != comb(n, 7) * comb(n - 7, 7):
        raise AssertionError(f"covered {hands} player hands and {deals} deals")
    return EdgeResult(
        "optimal",
        deals,
        win,
        deals - win - loss,
        loss,
        rate,
        time.perf_counter() - started,
        {"deck": n, "chunks": len(done), "classes": sum(v[4] for v in done.values())},
    )


def iter_sample(
    spec: TableSpec, commission: Commission, per_chunk: int, chunks: int, seed: int = 1
) -> Iterator[OptimalChunk]:
    """A random sample of chunks, each limited to ``per_chunk`` player-hand classes (for
    measuring the rate)."""
    rng = np.random.default_rng(seed)
    allc = chunks_for(spec, commission, limit=per_chunk)
    for i in rng.choice(len(allc), size=min(chunks, len(allc)), replace=False):
        yield allc[int(i)]


@nb.njit(cache=True)
def count_classes(deck: Arr, k: int) -> int:
    """The number of suit classes of k-card subsets of ``deck`` (one canonical set each)."""
    c = np.arange(k)
    t = np.empty(k, dtype=np.int64)
    n = 0
    while True:
        for i in range(k):
            t[i] = deck[c[i]]
        if K.suit_weight(t, k):
            n += 1
        if not K._next_combination(c, k, len(deck)):
            break
    return n
