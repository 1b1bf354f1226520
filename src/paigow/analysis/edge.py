"""The exact house edge: win, push and loss over every (player, dealer) deal of disjoint
seven-card hands, 154,143,080 x 53,524,680 = 8,250,459,031,214,400 of them.

Method (inclusion-exclusion). For a set of cards T let A_T be the hands that contain T. Summing
an outcome over pairs (P, D) in A_T x A_T with sign (-1)^|T| over all T counts every disjoint pair
once and every other pair zero times (the signs over the subsets of a non-empty P & D cancel).
Within A_T only the two settings' dense ranks matter, so each term is a two-dimensional dominance
count (wins: the player's hands both higher; losses: both lower or equal, copies going to the
banker). Suit relabelling leaves every count unchanged (the house way is blind to suits), so
one T per class is enough, weighted by the class's size.

A push rule (docs/rulebook.md#push-rules) takes the dealer hands that trigger it out of the
dealer's side of every term: those deals push (:mod:`paigow.analysis.kernels.trigger`).

The run is split into chunks (the size of T, and its highest card); each finished chunk is
appended to a checkpoint file, and an interrupted run resumes where it stopped. A checkpoint, and
a result :func:`save_result` keeps, are keyed by the digest of the code that counts them
(:func:`paigow.analysis.kernels.edge_digest`): after an edit of that code neither is reused.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from paigow.analysis import checkpoint
from paigow.analysis import kernels as K
from paigow.analysis.checkpoint import Checkpoint
from paigow.analysis.compiled import cache_dir, identity
from paigow.analysis.kernels import trigger as KT
from paigow.analysis.runner import Runner, TableSpec
from paigow.cards import Card
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ruleset import PushRule
from paigow.variants import is_nine_high_low

FULL_DECK_INDICES = tuple(range(53))
#: The push rule's arrays without one (the kernels do not read them).
NO_MASK = np.zeros(1, dtype=np.uint8)


@dataclass(frozen=True)
class EdgeChunk:
    spec: TableSpec
    k: int
    top: int
    deck: tuple[int, ...] = FULL_DECK_INDICES
    push: str = PushRule.NONE.value

    @property
    def key(self) -> str:
        return f"{self.k}:{self.top}"


@lru_cache(maxsize=2)
def push_mask(spec: TableSpec, push: str) -> tuple[int, np.ndarray, np.ndarray]:
    """The trigger of a push rule as the kernels read it: (mode, one bit per seven-card hand,
    a flag per dense low rank). A pai gow by top card takes one pass over every hand (a few
    seconds), once per process."""
    rule = PushRule(push)
    compiled = spec.open()
    n2 = len(compiled.tables.two_keys)
    low_trig = np.zeros(n2, dtype=np.uint8)
    bits = np.zeros(1, dtype=np.uint8)
    if rule is PushRule.NONE:
        return KT.MODE_NONE, bits, low_trig
    if rule is PushRule.NINE_HIGH_LOW:
        for a in range(53):
            for b in range(a + 1, 53):
                if is_nine_high_low((Card(a), Card(b))):
                    low_trig[compiled.tables.rank2[a, b]] = 1
        return KT.MODE_LOW, bits, low_trig
    want = 10 if rule is PushRule.QUEEN_HIGH_PAI_GOW else 12  # rank index: queen, ace
    bits = np.zeros((comb(53, 7) + 7) // 8, dtype=np.uint8)
    for top in range(6, 53):
        KT.pai_gow_bits(top, want, bits, K.BINOM)
    return KT.MODE_HAND, bits, low_trig


def edge_chunk(chunk: EdgeChunk) -> tuple[str, list[int]]:
    """One chunk's weighted sums [wins, losses, pairs, sets] (a push rule's: and the deck's hands
    that trigger it)."""
    compiled = chunk.spec.open()
    deck = np.array(chunk.deck, dtype=np.int64)
    pushing = chunk.push != PushRule.NONE.value
    if pushing:
        mode, bits, low_trig = push_mask(chunk.spec, chunk.push)
    else:
        mode, bits, low_trig = KT.MODE_NONE, NO_MASK, NO_MASK
    out = K.edge_chunk(
        chunk.k,
        chunk.top,
        deck,
        compiled.table,
        K.BINOM,
        len(compiled.tables.five_keys),
        len(compiled.tables.two_keys),
        mode,
        bits,
        low_trig,
    )
    return chunk.key, [int(x) for x in (out if pushing else out[:4])]


def chunks_for(
    spec: TableSpec, deck: Sequence[int] = FULL_DECK_INDICES, push: PushRule = PushRule.NONE
) -> list[EdgeChunk]:
    """Every chunk of the house-way-against-house-way edge, the largest first."""
    d = tuple(sorted(deck))
    return [EdgeChunk(spec, k, top, d, push.value) for k, top in _positions(len(d))]


def _positions(n: int) -> list[tuple[int, int]]:
    """Every chunk of a deck of ``n`` cards as (k, top), the largest first."""
    out = [(0, 0)] + [(k, top) for k in range(1, 7) for top in range(k - 1, n)]

    def work(c: tuple[int, int]) -> int:
        k, top = c
        if k == 0:
            return comb(n, 7)
        return comb(top, k - 1) * comb(n - k, 7 - k) // 24 + 1

    return sorted(out, key=work, reverse=True)


@dataclass(frozen=True)
class EdgeResult:
    """Exact counts over every deal, and the house edge at a commission rate."""

    player: str
    deals: int
    win: int
    push: int
    loss: int
    commission: Commission
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pushed_by_rule(self) -> int:
        """The deals the push rule pushed (included in :attr:`push`)."""
        return int(self.extra.get("pushed_by_rule", 0))

    @property
    def house_edge(self) -> Fraction:
        """The house's expected gain per unit wagered, per hand."""
        return (self.loss - Fraction(self.win) * (1 - self.commission.rate)) / self.deals

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "deals": self.deals,
            "win": self.win,
            "push": self.push,
            "loss": self.loss,
            "commission": self.commission.as_str(),
            "house_edge": float(self.house_edge),
            "house_edge_exact": str(self.house_edge),
            "seconds": round(self.seconds, 3),
            **self.extra,
        }


def checkpoint_path(
    spec: TableSpec, player: str, deck: Sequence[int], push: PushRule = PushRule.NONE
) -> Path:
    """Where a run's finished chunks are kept (beside the compiled tables): named by the
    table, the player, the deck, the push rule and the digest of the code that counts them."""
    compiled = spec.open()
    ident = identity(compiled.way, compiled.wheel)
    parts: list[Any] = [ident, player, sorted(deck), K.edge_digest(player)]
    if push is not PushRule.NONE:
        parts.append(push.value)
    return checkpoint.checkpoint_path(spec.folder, f"edge-{player}", parts)


def house_way_edge(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    deck: Sequence[int] = FULL_DECK_INDICES,
    checkpoint: Path | None = None,
    progress: Callable[[int], None] | None = None,
    stop_after: int | None = None,
    push: PushRule = PushRule.NONE,
) -> EdgeResult:
    """Exact win/push/loss of the house way against the house way over every deal of ``deck``
    (default the full 53 cards), under the push rule ``push``. ``stop_after`` ends the run after
    that many new chunks (to show resuming); the result is then None-like: raises
    :class:`InterruptedError`."""
    started = time.perf_counter()
    path = checkpoint or checkpoint_path(spec, "house-way", deck, push)
    with Checkpoint(path) as ck:
        done = ck.done
        todo = [c for c in chunks_for(spec, deck, push) if c.key not in done]
        if stop_after is not None:
            todo = todo[:stop_after]

        def record(result: tuple[str, list[int]]) -> None:
            ck.record(*result)
            if progress is not None:
                progress(1)

        runner.map(edge_chunk, todo, record)
    if stop_after is not None and len(done) < len(chunks_for(spec, deck)):
        raise InterruptedError(f"stopped after {stop_after} chunks; {len(done)} done")
    return _result(done, len(deck), push, commission, time.perf_counter() - started)


def _result(
    done: Mapping[str, Sequence[int]],
    n: int,
    push: PushRule,
    commission: Commission | None,
    seconds: float,
) -> EdgeResult:
    """The house-way player's result from every chunk's sums (inclusion-exclusion over the card
    sets the two hands share), checked: each card set counted once, every deal once."""
    totals = [0, 0, 0]
    sets_by_k = [0] * 8
    flagged = done.get("0:0", [0, 0, 0, 0, 0])[4] if push is not PushRule.NONE else 0
    for key, sums in done.items():
        k = int(key.split(":")[0])
        sign = -1 if k % 2 else 1
        totals[0] += sign * sums[0]
        totals[1] += sign * sums[1]
        totals[2] += sign * sums[2]
        sets_by_k[k] += sums[3]
    # |T| = 7: each hand paired with itself, a loss (a copy on both hands), never a win; a push
    # when the hand triggers the push rule.
    totals[1] -= comb(n, 7) - flagged
    totals[2] -= comb(n, 7)
    sets_by_k[7] = comb(n, 7)
    deals = comb(n, 7) * comb(n - 7, 7)
    for k in range(8):
        if sets_by_k[k] != comb(n, k):
            raise AssertionError(f"{sets_by_k[k]} card sets of size {k}, expected {comb(n, k)}")
    if totals[2] != deals:
        raise AssertionError(f"inclusion-exclusion counted {totals[2]} deals, expected {deals}")
    win, loss = totals[0], totals[1]
    extra: dict[str, Any] = {"deck": n, "chunks": len(done)}
    if push is not PushRule.NONE:
        extra["push_rule"] = push.value
        extra["pushed_by_rule"] = flagged * comb(n - 7, 7)
    return EdgeResult(
        "house-way",
        deals,
        win,
        deals - win - loss,
        loss,
        commission or Commission(),
        seconds,
        extra,
    )


def table_edge(
    table: np.ndarray,
    n_five: int,
    n_two: int,
    workers: int = 2,
    commission: Commission | None = None,
) -> EdgeResult:
    """The house-way player's exact result over every deal of the full deck for a dealer's
    table held in memory (the layout of :class:`~paigow.analysis.compiled.CompiledHouseWay`),
    the player setting by the same table; no push rule, no checkpoint (about as long as
    :func:`house_way_edge`). For tables that are no house way's own: one house way's settings
    with another's in some hands (``paigow report house-ways``)."""
    from concurrent.futures import ThreadPoolExecutor

    started = time.perf_counter()
    deck = np.array(FULL_DECK_INDICES, dtype=np.int64)

    def run(chunk: tuple[int, int]) -> tuple[str, list[int]]:
        k, top = chunk
        out = K.edge_chunk(
            k, top, deck, table, K.BINOM, n_five, n_two, KT.MODE_NONE, NO_MASK, NO_MASK
        )
        return f"{k}:{top}", [int(x) for x in out[:4]]

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        done = dict(pool.map(run, _positions(53)))
    return _result(done, 53, PushRule.NONE, commission, time.perf_counter() - started)


def save_result(spec: TableSpec, result: EdgeResult) -> Path:
    """Keep a finished result beside the compiled tables, where ``paigow report`` and the floor
    find it, with the digest of the code that counted it (``code``): a reader takes it only
    while that code is unchanged (:func:`is_current`)."""
    compiled = spec.open()
    data = {
        **result.to_dict(),
        "house_way": compiled.way.to_dict(),
        "wheel": compiled.wheel.value,
        "table": compiled.path.name,
        "code": K.edge_digest(result.player),
    }
    path = Path(spec.folder) if spec.folder else cache_dir()
    push = str(result.extra.get("push_rule") or "none")  # a push rule's beside the plain ones
    out = path / saved_name(compiled.way, compiled.wheel.value, result.player, push)
    out.write_text(json.dumps(data, indent=2))
    return out


def saved_name(way: HouseWay, wheel: str, player: str, push: str = "none") -> str:
    """The file name of a saved result: the house way's name and digest (two files with one
    name never share figures), the wheel, the player and the push rule.

    >>> saved_name(HouseWay.preset("standard"), "second", "house-way")
    'edge-standard-d01f7c7bc9b60335-second-house-way.json'
    """
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in way.name)
    suffix = "" if push == "none" else f"-{push}"
    return f"edge-{safe}-{way.digest}-{wheel}-{player}{suffix}.json"


def is_current(data: Mapping[str, Any]) -> bool:
    """Whether a saved result (what :func:`save_result` wrote) was counted by the code there is
    now: its ``code`` is the digest of its player's counting code (one without it is stale).

    >>> is_current({"player": "house-way", "code": K.edge_digest("house-way")})
    True
    >>> is_current({"player": "house-way"}), is_current({"player": "dealer", "code": "x"})
    (False, False)
    """
    player = data.get("player")
    return (
        isinstance(player, str)
        and player in K.EDGE_SOURCES
        and data.get("code") == K.edge_digest(player)
    )
