"""Monte Carlo kernels: rounds dealt from a seeded generator and settled from compiled tables."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.colex import colex5, colex7_sorted
from paigow.analysis.kernels.keys import is_foul
from paigow.analysis.kernels.rng import below, seed_state
from paigow.analysis.kernels.strategy_classes import setting_ranks
from paigow.analysis.kernels.table import lookup
from paigow.analysis.kernels.trigger import flagged
from paigow.setting import LOW_POSITIONS

LOW_I = np.array([i for i, _ in LOW_POSITIONS], dtype=np.int64)
LOW_J = np.array([j for _, j in LOW_POSITIONS], dtype=np.int64)

Arr = npt.NDArray[Any]


@nb.njit(cache=True, nogil=True)
def simulate_chunk(
    seed: int,
    rounds: int,
    table: Arr,
    binom: Arr,
    fixed: Arr,
    fixed_hi: int,
    fixed_lo: int,
    mode: int,
    bits: Arr,
    low_trig: Arr,
) -> Arr:
    """Deal ``rounds`` rounds from a xoshiro256** generator seeded with ``seed`` (simulation
    only): player and dealer both on the house way, or (when ``fixed`` holds seven cards) the
    player on those cards, with the given dense ranks, against random dealer hands of the other
    cards; a dealer hand that triggers the push rule (``mode``, ``bits``, ``low_trig``: as
    :func:`paigow.analysis.kernels.trigger.flagged` reads them) pushes. Returns [wins, pushes,
    losses, pushes by the rule]."""
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
    out = np.zeros(4, dtype=np.int64)
    done = 0
    while done < rounds:
        n = min(batch, rounds - done)
        for r in range(n):
            for i in range(draw):
                j = i + below(state, n_deck - i)
                t = deck[i]
                deck[i] = deck[j]
                deck[j] = t
            off = 0
            if player:
                for k in range(7):
                    hand[k] = deck[k]
                pidx[r] = colex7_sorted(hand, binom)
                off = 7
            for k in range(7):
                hand[k] = deck[off + k]
            didx[r] = colex7_sorted(hand, binom)
        for r in range(n):
            if player:
                ph, pl = lookup(table, pidx[r])
            else:
                ph, pl = fixed_hi, fixed_lo
            dh, dl = lookup(table, didx[r])
            if flagged(mode, didx[r], dl, bits, low_trig):
                out[1] += 1
                out[3] += 1
            elif ph > dh and pl > dl:
                out[0] += 1
            elif ph <= dh and pl <= dl:
                out[2] += 1
            else:
                out[1] += 1
        done += n
    return out


@nb.njit(cache=True, nogil=True)
def simulate_optimal_chunk(
    seed: int,
    rounds: int,
    table: Arr,
    per_hand: Arr,
    rank5: Arr,
    rank2: Arr,
    binom: Arr,
    mode: int,
    bits: Arr,
    low_trig: Arr,
) -> Arr:
    """Deal ``rounds`` rounds (simulation only): the player on the compiled strategy
    (``per_hand``), the dealer on the house way, a dealer hand that triggers the push rule
    pushing. Returns [wins, pushes, losses, pushes by the rule].

    Rounds go in batches: first every deal and its table indices, then the lookups (independent
    of each other, so the memory system overlaps them), then the settlement."""
    state = seed_state(seed)
    deck = np.arange(53, dtype=np.int64)
    batch = 256
    hands = np.empty((batch, 7), dtype=np.int64)
    pidx = np.empty(batch, dtype=np.int64)
    didx = np.empty(batch, dtype=np.int64)
    qs = np.empty(batch, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)
    done = 0
    while done < rounds:
        n = min(batch, rounds - done)
        for r in range(n):
            for i in range(14):
                j = i + below(state, 53 - i)
                t = deck[i]
                deck[i] = deck[j]
                deck[j] = t
            for k in range(7):
                hands[r, k] = deck[k]
            pidx[r] = colex7_sorted(hands[r], binom)
            for k in range(7):
                hand[k] = deck[7 + k]
            didx[r] = colex7_sorted(hand, binom)
        for r in range(n):
            qs[r] = per_hand[pidx[r]]
        for r in range(n):
            q = qs[r]
            i, j = LOW_I[q], LOW_J[q]
            h = hands[r]
            a = b = c = d = e = 0
            m = 0
            for k in range(7):
                if k != i and k != j:
                    if m == 0:
                        a = h[k]
                    elif m == 1:
                        b = h[k]
                    elif m == 2:
                        c = h[k]
                    elif m == 3:
                        d = h[k]
                    else:
                        e = h[k]
                    m += 1
            ph = np.int64(rank5[colex5(a, b, c, d, e, binom)])
            pl = np.int64(rank2[h[i], h[j]])
            dh, dl = lookup(table, didx[r])
            if flagged(mode, didx[r], dl, bits, low_trig):  # the optimal player never fouls
                out[1] += 1
                out[3] += 1
            elif ph > dh and pl > dl:
                out[0] += 1
            elif ph <= dh and pl <= dl:
                out[2] += 1
            else:
                out[1] += 1
        done += n
    return out


@nb.njit(cache=True, nogil=True)
def simulate_face_up_chunk(
    seed: int,
    rounds: int,
    table: Arr,
    rank5: Arr,
    rank2: Arr,
    five_keys: Arr,
    two_keys: Arr,
    binom: Arr,
    mode: int,
    bits: Arr,
    low_trig: Arr,
) -> Arr:
    """Deal ``rounds`` rounds (simulation only): the dealer on the house way, face up, and the
    player on the setting that does best against it (every outcome is certain: a win if a
    setting that is not a foul beats both dealer's hands, else a push if one beats either, else
    a loss); a dealer hand that triggers the push rule pushes. Returns [wins, pushes, losses,
    pushes by the rule]."""
    state = seed_state(seed)
    deck = np.arange(53, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    p = np.empty(7, dtype=np.int64)
    ph = np.empty(21, dtype=np.int64)
    pl = np.empty(21, dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)
    for _ in range(rounds):
        for i in range(14):
            j = i + below(state, 53 - i)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        for k in range(7):
            p[k] = deck[k]
            hand[k] = deck[7 + k]
        didx = colex7_sorted(hand, binom)
        colex7_sorted(p, binom)
        dh, dl = lookup(table, didx)
        if flagged(mode, didx, dl, bits, low_trig):
            out[1] += 1
            out[3] += 1
            continue
        setting_ranks(p, binom, rank5, rank2, ph, pl)
        best = 0
        for q in range(21):
            if is_foul(five_keys[ph[q]], two_keys[pl[q]]):
                continue
            wins = (ph[q] > dh) + (pl[q] > dl)
            if wins > best:
                best = wins
        out[2 - best] += 1
    return out
