"""The side wagers' Monte Carlo kernel: the deals of :func:`.montecarlo.simulate_chunk` (same
generator, same shuffle, so a seed gives the main simulation's very rounds), each player's and
dealer's hand counted by its bonus code and the low hand the house way sets from it.

Kept apart from :mod:`.bonus`, so that editing the simulation leaves cached counts valid.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from paigow.analysis.kernels.bonus_hand import bonus_mask, mask_code
from paigow.analysis.kernels.colex import colex7_sorted
from paigow.analysis.kernels.rng import below, seed_state

Arr = npt.NDArray[Any]


@nb.njit(cache=True, nogil=True)
def simulate_bonus_chunk(
    seed: int, rounds: int, table: Arr, binom: Arr, player: Arr, dealer: Arr
) -> int:
    """Deal ``rounds`` rounds of a player's and the dealer's seven cards from a xoshiro256**
    generator seeded with ``seed`` (simulation only) and add each hand to ``player[code, low]``
    or ``dealer[code, low]``: its bonus code and the dense rank of the low hand the compiled
    house way ``table`` sets. Returns the number of rounds."""
    state = seed_state(seed)
    deck = np.arange(53, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    batch = 256
    codes = np.empty(2 * batch, dtype=np.int64)
    index = np.empty(2 * batch, dtype=np.int64)
    done = 0
    while done < rounds:
        n = min(batch, rounds - done)
        for r in range(n):  # the deals first, then the lookups (independent: they overlap)
            for i in range(14):
                j = i + below(state, 53 - i)
                t = deck[i]
                deck[i] = deck[j]
                deck[j] = t
            for who in range(2):
                for k in range(7):
                    hand[k] = deck[7 * who + k]
                codes[2 * r + who] = mask_code(bonus_mask(hand))
                index[2 * r + who] = colex7_sorted(hand, binom)
        for r in range(n):
            player[codes[2 * r], table[3 * index[2 * r] + 2]] += 1
            dealer[codes[2 * r + 1], table[3 * index[2 * r + 1] + 2]] += 1
        done += n
    return rounds
