"""The face-up player's exact edge: the dealer's seven cards are shown face up and set by the
house way before the player sets (docs/rulebook.md#face-up), so the player knows each setting's
result for certain and plays the best: a win if a setting wins, else a push if one does, else a
loss. Summed over every deal like the optimal player's edge (:mod:`paigow.analysis.optimal`): by
suit class of player hands, inclusion-exclusion over the subsets of the hand against the same
dominance structures; the wins against a dealer hand are a staircase of quadrants, the losses one
quadrant (:func:`paigow.analysis.kernels.faceup_counts.face_up_chunk`). A push rule is folded into the
dealer's hands (:mod:`paigow.analysis.pushed`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np

from paigow.analysis import checkpoint
from paigow.analysis import kernels as K
from paigow.analysis.checkpoint import Checkpoint
from paigow.analysis.compiled import identity
from paigow.analysis.edge import FULL_DECK_INDICES, EdgeResult
from paigow.analysis.kernels.faceup_counts import face_up_chunk
from paigow.analysis.optimal import structures
from paigow.analysis.pushed import dealer_view
from paigow.analysis.runner import Runner, TableSpec
from paigow.commission import Commission
from paigow.ruleset import PushRule


@dataclass(frozen=True)
class FaceUpChunk:
    """The player-hand classes whose two highest cards are deck[top], deck[second]."""

    spec: TableSpec
    top: int
    second: int
    deck: tuple[int, ...] = FULL_DECK_INDICES
    push: str = PushRule.NONE.value

    @property
    def key(self) -> str:
        return f"{self.top}:{self.second}"


def chunk_task(chunk: FaceUpChunk) -> tuple[str, list[int]]:
    """One chunk's sums [wins, losses, deals, hands]."""
    st = structures(chunk.spec, chunk.deck, chunk.deck == FULL_DECK_INDICES, chunk.push)
    v = dealer_view(chunk.spec, chunk.push)
    out = face_up_chunk(
        chunk.top, chunk.second, v.table, K.BINOM, v.rank5, v.rank2, v.five_keys, v.two_keys,
        *st.kernel_args(),
    )  # fmt: skip
    return chunk.key, [int(x) for x in out]


def chunks_for(
    spec: TableSpec, deck: Sequence[int] = FULL_DECK_INDICES, push: PushRule = PushRule.NONE
) -> list[FaceUpChunk]:
    """Every chunk of player hands, the largest first."""
    d = tuple(sorted(deck))
    out = [
        FaceUpChunk(spec, top, second, d, push.value)
        for top in range(6, len(d))
        for second in range(5, top)
    ]
    return sorted(out, key=lambda c: comb(c.second, 5), reverse=True)


def checkpoint_path(spec: TableSpec, deck: Sequence[int], push: PushRule) -> Path:
    """Where a run's finished chunks are kept (beside the compiled tables): named by the
    table, the deck, the push rule and the digest of the code that counts them."""
    compiled = spec.open()
    parts = [
        identity(compiled.way, compiled.wheel),
        "face-up",
        sorted(deck),
        push.value,
        K.edge_digest("face-up"),
    ]
    return checkpoint.checkpoint_path(spec.folder, "edge-face-up", parts)


def face_up_edge(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    deck: Sequence[int] = FULL_DECK_INDICES,
    push: PushRule = PushRule.NONE,
    checkpoint: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> EdgeResult:
    """Exact win/push/loss of the face-up player (each hand set best against the dealer's
    exposed setting) over every deal of ``deck``, under the push rule ``push``."""
    started = time.perf_counter()
    d = tuple(sorted(deck))
    structures(spec, d, d == FULL_DECK_INDICES, push.value)  # built before the workers start
    chunks = chunks_for(spec, d, push)
    path = checkpoint or checkpoint_path(spec, d, push)
    with Checkpoint(path) as ck:
        done = ck.done
        todo = [c for c in chunks if c.key not in done]

        def record(result: tuple[str, list[int]]) -> None:
            ck.record(*result)
            if progress is not None:
                progress(1)

        runner.map(chunk_task, todo, record)
    sums = np.array([done[c.key] for c in chunks], dtype=object).sum(axis=0)
    win, loss, deals_counted, hands = (int(x) for x in sums)
    n = len(d)
    deals = comb(n, 7) * comb(n - 7, 7)
    if hands != comb(n, 7) or deals_counted != deals:
        raise AssertionError(f"counted {hands} hands and {deals_counted} deals, expected {deals}")
    extra = {"deck": n, "chunks": len(done)}
    if push is not PushRule.NONE:
        extra["push_rule"] = push.value  # type: ignore[assignment]
    return EdgeResult(
        "face-up",
        deals,
        win,
        deals - win - loss,
        loss,
        commission or Commission(),
        time.perf_counter() - started,
        extra,
    )
