"""The optimal player's exact edge: every player hand set to maximise its own EV against the
dealer's house way, summed over every deal.

For a player hand P, each of its 21 settings s wins against the dealer hands D (disjoint from P)
that it beats on both hands, and loses against those that beat or copy it on both. By
inclusion-exclusion over the 128 subsets T of P,
    #{D disjoint from P: ...} = sum_T (-1)^|T| #{D containing T: ...},
and each term is a dominance count of the point s = (high rank, low rank) against the hands that
contain T. Those are precomputed once per class of T under suit relabelling:
  |T| <= 2  dense cumulative tables (O(1) a query);
  |T| = 3, 4, 5  each class's hands sorted by high rank: their low ranks, counts of the hands
            below each low rank at every block boundary, and where each high rank starts
            (|T| = 3, 4: a table; |T| = 5, 1,128 hands a class: a binary search of their high
            ranks), so that a query reads a block row and scans at most half a block;
  |T| = 6, 7  read from the compiled table directly.
Player hands are taken one per suit class (6,972,147 of them), weighted by the class's size.
The run itself (every class's optimal setting, and the exact edge from the same computation)
is :mod:`paigow.analysis.strategy`; the kernels are :mod:`paigow.analysis.kernels.optimal_counts`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import identity
from paigow.analysis.kernels import Arr
from paigow.analysis.kernels.optimal_counts import (
    BLOCK3,
    BLOCK4,
    BLOCK5,
    block_rows,
    build_cum,
    build_sorted,
)
from paigow.analysis.runner import TableSpec

STRUCTURES_VERSION = 3

#: The structures as the kernels take them: deck, class_of, cum_base, cum, lw3, cc3, hc3, lw4,
#: cc4, hc4, hv5, lw5, cc5.
KernelArgs = tuple[Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr, Arr]


# ------------------------------------------------------------------------------ structures
@dataclass
class Structures:
    """The precomputed dominance structures for a deck (see the module docstring)."""

    deck: Arr
    class_of: Arr  # (8, C(53, 5)) int32; class_of[k, colex(T)]
    cum_base: Arr  # (3,) first cum index of k = 0, 1, 2
    cum: Arr  # (classes of k <= 2, n5 + 1, n2 + 1) uint32
    lw3: Arr  # (classes * C(n - 3, 4),) uint8: low ranks, each class's hands by high rank
    cc3: Arr  # (classes, block rows, n2 + 1) uint32: block counts (BLOCK3)
    hc3: Arr  # (classes, n5 + 1) uint32: hands with high rank < h
    lw4: Arr
    cc4: Arr  # uint16
    hc4: Arr  # uint16
    hv5: Arr  # (classes * C(n - 5, 2),) uint16: high ranks, ascending in each class
    lw5: Arr
    cc5: Arr  # uint16

    def kernel_args(self) -> KernelArgs:
        """The structures in the order :func:`paigow.analysis.kernels.optimal_counts.hand_counts`
        takes them (from ``deck`` to ``cc5``)."""
        return (
            self.deck, self.class_of, self.cum_base, self.cum, self.lw3, self.cc3, self.hc3,
            self.lw4, self.cc4, self.hc4, self.hv5, self.lw5, self.cc5,
        )  # fmt: skip


def build_structures(
    spec: TableSpec, deck: Sequence[int], folder: Path | None = None, push: str = "none"
) -> Structures:
    """Build (or load from ``folder``) the structures for ``deck``, of the dealer's hands as
    :func:`paigow.analysis.pushed.dealer_view` shows them under the push rule ``push``."""
    from paigow.analysis.pushed import dealer_view

    view = dealer_view(spec, push)
    table = view.table
    d = np.array(sorted(deck), dtype=np.int64)
    n5, n2 = view.n5, view.n2
    if folder is not None and (folder / "done").exists():
        return _load(folder, d)
    class_of = np.full((8, comb(53, 5)), -1, dtype=np.int32)
    reps: dict[int, Arr] = {0: np.zeros((1, 0), dtype=np.int64)}
    for k in range(1, 6):
        row = np.full(comb(53, 5), -1, dtype=np.int64)
        reps[k] = K.subset_classes(d, k, K.BINOM, row)
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
        build_cum(reps[k] if k else np.zeros((1, 1), dtype=np.int64), k, d, table, K.BINOM, part)
    sorted_: dict[int, tuple[Arr, Arr, Arr, Arr]] = {}
    none = np.zeros(1, dtype=np.uint16)
    for k, block in ((3, BLOCK3), (4, BLOCK4), (5, BLOCK5)):
        size = comb(n - k, 7 - k)
        m = len(reps[k])
        count = np.uint32 if size > 0xFFFF else np.uint16
        lw = alloc(f"lw{k}", (m * size,), np.uint8)
        hv = alloc("hv5", (m * size,), np.uint16) if k == 5 else none
        hc = alloc(f"hc{k}", (m, n5 + 1), count) if k < 5 else none.reshape(1, 1)
        cc = alloc(f"cc{k}", (m, block_rows(size, block), n2 + 1), count)
        build_sorted(reps[k], k, d, table, K.BINOM, n5, block, lw, hv, hc, cc)
        sorted_[k] = (lw, cc, hc, hv)
    if folder is not None:
        np.save(folder / "class_of.npy", class_of)
        np.save(folder / "cum_base.npy", cum_base)
        np.save(folder / "deck.npy", d)
        for arr in arrays.values():
            if isinstance(arr, np.memmap):
                arr.flush()
        (folder / "done").write_text(json.dumps({"version": STRUCTURES_VERSION}))
        return _load(folder, d)
    (lw3, cc3, hc3, _), (lw4, cc4, hc4, _), (lw5, cc5, _, hv5) = (sorted_[k] for k in (3, 4, 5))
    return Structures(d, class_of, cum_base, cum, lw3, cc3, hc3, lw4, cc4, hc4, hv5, lw5, cc5)


def _load(folder: Path, deck: Arr) -> Structures:
    def m(name: str) -> Arr:
        arr: Arr = np.load(folder / f"{name}.npy", mmap_mode="r")
        return arr

    names = ("cum", "lw3", "cc3", "hc3", "lw4", "cc4", "hc4", "hv5", "lw5", "cc5")
    return Structures(deck, m("class_of"), m("cum_base"), *(m(name) for name in names))


def structures_folder(spec: TableSpec, deck: Sequence[int], push: str = "none") -> Path:
    """Where the structures of a deck are kept (beside the compiled tables); a push rule's apart
    (their names never share the plain ones' prefix, so that pruning one spares the others)."""
    from hashlib import sha256

    compiled = spec.open()
    ident = identity(compiled.way, compiled.wheel)
    parts: list[Any] = [ident, sorted(deck), STRUCTURES_VERSION]
    head = "optimal"
    if push != "none":
        parts.append(push)
        head = f"optimalpush-{push}"
    key = json.dumps(parts, sort_keys=True)
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in compiled.way.name)
    return (
        Path(spec.folder)
        / f"{head}-{safe}-{compiled.wheel.value}-{sha256(key.encode()).hexdigest()[:12]}"
    )


@lru_cache(maxsize=2)
def structures(
    spec: TableSpec, deck: tuple[int, ...], persist: bool, push: str = "none"
) -> Structures:
    """The structures of ``deck`` (kept on disk beside the tables when ``persist``) under the
    push rule ``push``, built once per process."""
    if not persist:
        return build_structures(spec, deck, None, push)
    folder = structures_folder(spec, deck, push)
    prefix = folder.name.rsplit("-", 1)[0] + "-"
    for stale in folder.parent.glob(prefix + "*"):  # made by other versions: 3 GB each
        if stale != folder and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return build_structures(spec, deck, folder, push)
