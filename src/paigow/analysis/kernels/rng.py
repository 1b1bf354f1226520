"""Random numbers for simulation only (never at a table): xoshiro256** seeded by splitmix64,
and exact bounded integers.

>>> a, b = seed_state(7), seed_state(7)
>>> [below(a, 53) for _ in range(3)] == [below(b, 53) for _ in range(3)]
True
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[Any]


@nb.njit(cache=True, inline="always")
def next_u64(state: Arr) -> Any:
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
def below(state: Arr, m: int) -> int:
    """A uniform integer in [0, m) (Lemire's multiply-shift with rejection: exact)."""
    mm = np.uint64(m)
    threshold = (np.uint64(1 << 32) - mm) % mm
    while True:
        r = next_u64(state) >> np.uint64(32)
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
