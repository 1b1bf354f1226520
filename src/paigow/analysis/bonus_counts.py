"""The bonus hands of all 154,143,080 seven-card hands, counted once and cached beside the
compiled house way: how many hands hold each distinct set of side-wager categories (a
*signature*) together with each low hand the house way sets from them (bets on the dealer may
pay either). Any pay table's exact return is then a sum over a few dozen signatures
(:mod:`paigow.analysis.bonus_return`).

The counts come from the numba kernel :mod:`paigow.analysis.kernels.bonus_hand` (a second
implementation of the bonus hand, checked against :func:`paigow.bonus.bonus_hand` on every hand
of reduced decks) joined with the compiled house way's low hands. The cache file is JSON: the
counts, what they depend on (the kernel's code and the compiled house way's identity) and a
checksum; a missing, corrupt or stale file is rebuilt (under 10 s on two cores).

>>> from paigow.cards import parse_cards
>>> counts = deck_counts(parse_cards("As Ks Qs Js Ts 9s 8s Kh Qh Jk"), HouseWay.load("standard"))
>>> counts.hands, counts.holding()[BonusCategory.ROYAL_MATCH]
(120, 6)
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from math import comb
from pathlib import Path
from typing import Any, Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.compiled import FORMAT_VERSION as TABLE_FORMAT
from paigow.analysis.compiled import (
    HANDS,
    CacheError,
    CompiledHouseWay,
    _locked,
    cache_dir,
    kernel_params,
)
from paigow.analysis.kernels import bonus_hand as KB
from paigow.analysis.tables import rank_tables
from paigow.bonus import BonusCategory, low_hand_category
from paigow.cards import Card
from paigow.house_way import HouseWay
from paigow.ranking import PAIR_FLAG, TWO_CARD_SHIFT, Wheel

FORMAT_VERSION: Final = 2
MAGIC: Final = "paigow-bonus-counts"
KERNEL_SOURCES: Final = ("bonus_hand.py",)


def held_of(code: int) -> frozenset[BonusCategory]:
    """The categories a kernel code stands for.

    >>> sorted(c.value for c in held_of(1 << KB.FLUSH | 1 << KB.STRAIGHT))
    ['flush', 'straight']
    >>> held_of(KB.MADE + 5), held_of(0)
    (frozenset({<BonusCategory.PAI_GOW_NINE: 'pai-gow-nine-high'>}), frozenset())
    """
    mask = KB.code_mask(code)
    return frozenset(BonusCategory(key) for i, key in enumerate(KB.CATEGORY_KEYS) if mask >> i & 1)


def low_category(key: int) -> BonusCategory | None:
    """The low-hand category of a two-card key (None for a pair).

    >>> low_category(9 << TWO_CARD_SHIFT | 4).value, low_category(PAIR_FLAG | 9)
    ('low-nine-high', None)
    """
    if key & PAIR_FLAG:
        return None
    hi, lo = key >> TWO_CARD_SHIFT & 0xF, key & 0xF
    return low_hand_category((Card.from_rank_suit(hi, 0), Card.from_rank_suit(lo, 1)))


@dataclass(frozen=True)
class BonusCounts:
    """Exact counts over every seven-card hand of a deck: ``cells[(held, key)]`` hands hold
    exactly the categories ``held`` (empty: nothing) and are set by the house way with the
    two-card low hand of that key (:attr:`paigow.ranking.TwoCardValue.key`)."""

    hands: int
    cells: Mapping[tuple[frozenset[BonusCategory], int], int]
    house_way: str = ""
    wheel: str = Wheel.SECOND.value
    build_seconds: float = 0.0

    @property
    def signatures(self) -> dict[frozenset[BonusCategory], int]:
        """Hands by the seven-card categories they hold."""
        out: Counter[frozenset[BonusCategory]] = Counter()
        for (held, _), n in self.cells.items():
            out[held] += n
        return dict(out)

    @property
    def low_keys(self) -> dict[int, int]:
        """Hands by the key of the low hand the house way sets."""
        out: Counter[int] = Counter()
        for (_, key), n in self.cells.items():
            out[key] += n
        return dict(out)

    @property
    def dealer_low(self) -> dict[BonusCategory | None, int]:
        """Hands by the category of the dealer's low hand (None: a pair)."""
        out: Counter[BonusCategory | None] = Counter()
        for key, n in self.low_keys.items():
            out[low_category(key)] += n
        return dict(out)

    @property
    def dealer(self) -> dict[frozenset[BonusCategory], int]:
        """Hands by what a bet on the dealer settles on: the seven-card categories held and
        the category of the low hand the house way sets (as :func:`paigow.bonus.held_for`)."""
        out: Counter[frozenset[BonusCategory]] = Counter()
        for (held, key), n in self.cells.items():
            low = low_category(key)
            out[held if low is None else held | {low}] += n
        return dict(out)

    def holding(self) -> dict[BonusCategory, int]:
        """Hands holding each category (a hand counts under every category it holds)."""
        out: Counter[BonusCategory] = Counter()
        for held, n in self.signatures.items():
            for c in held:
                out[c] += n
        return {c: out[c] for c in BonusCategory if c in out}

    @classmethod
    def from_array(
        cls, counts: K.Arr, two_keys: K.Arr, house_way: str, wheel: str, seconds: float = 0.0
    ) -> BonusCounts:
        """From the kernels' ``counts[code, dense low rank]``."""
        codes, lows = np.nonzero(counts)
        return cls(
            hands=int(counts.sum()),
            cells={
                (held_of(int(c)), int(two_keys[r])): int(counts[c, r])
                for c, r in zip(codes, lows, strict=True)
            },
            house_way=house_way,
            wheel=wheel,
            build_seconds=seconds,
        )

    def data(self) -> dict[str, Any]:
        """The counts, JSON-ready (the part the checksum covers)."""
        rows = sorted(
            (len(held), sorted(c.value for c in held), key, n)
            for (held, key), n in self.cells.items()
        )
        return {"hands": self.hands, "cells": [[names, key, n] for _, names, key, n in rows]}

    @classmethod
    def from_data(cls, data: Mapping[str, Any], house_way: str, wheel: str) -> BonusCounts:
        return cls(
            hands=int(data["hands"]),
            cells={
                (frozenset(BonusCategory(v) for v in held), int(key)): int(n)
                for held, key, n in data["cells"]
            },
            house_way=house_way,
            wheel=wheel,
        )


def _digest(data: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def counts_identity(way: HouseWay, wheel: Wheel) -> dict[str, Any]:
    """What the cached counts depend on: the bonus kernel's code and what the compiled house
    way depends on (the house way's parameters, the wheel and the table's kernels' code; the
    rest of :func:`~paigow.analysis.compiled.identity` derives from these)."""
    return {
        "format": FORMAT_VERSION,
        "bonus_kernel": K.source_digest(KERNEL_SOURCES),
        "house_way": way.digest,  # the digest of its rules: its identity
        "wheel": wheel.value,
        "table_kernels": K.source_digest(K.TABLE_SOURCES),
        "table_format": TABLE_FORMAT,
    }


def counts_path(way: HouseWay, wheel: Wheel, folder: Path | None = None) -> Path:
    """Where the bonus counts of ``way`` under ``wheel`` are cached (beside the compiled table)."""
    digest = _digest(counts_identity(way, wheel))[:12]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in way.name)
    return (folder or cache_dir()) / f"bonus-{safe}-{wheel.value}-v{FORMAT_VERSION}-{digest}.json"


def read_counts(path: Path, way: HouseWay, wheel: Wheel) -> BonusCounts:
    """The cached counts at ``path``, checked: identity, checksum and the number of hands.
    Raises :class:`~paigow.analysis.compiled.CacheError` if anything is off."""
    try:
        doc = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise CacheError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise CacheError(f"{path} is not a bonus counts file (damaged JSON)") from None
    if not isinstance(doc, dict) or doc.get("magic") != MAGIC:
        raise CacheError(f"{path} is not a bonus counts file")
    if doc.get("identity") != counts_identity(way, wheel):
        raise CacheError(f"{path} was counted by other code or for another house way")
    data = doc.get("data")
    if not isinstance(data, dict) or _digest(data) != doc.get("checksum"):
        raise CacheError(f"{path} is corrupt: its checksum does not match")
    try:
        counts = BonusCounts.from_data(data, way.name, wheel.value)
    except (KeyError, TypeError, ValueError):
        raise CacheError(f"{path} is damaged") from None
    if counts.hands != HANDS or sum(counts.signatures.values()) != HANDS:
        raise CacheError(f"{path} counts {counts.hands} hands, not {HANDS}")
    seconds = doc.get("build_seconds")
    return BonusCounts(**{**counts.__dict__, "build_seconds": float(seconds or 0)})


def count_all(
    compiled: CompiledHouseWay,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
) -> BonusCounts:
    """Count every seven-card hand's signature and the dealer's low hand (from ``compiled``),
    in slices by the highest card on ``workers`` threads; ``progress(n)`` after each slice."""
    started = time.perf_counter()
    two_keys = compiled.tables.two_keys
    table = compiled.table

    def run(top: int) -> tuple[int, K.Arr]:
        part = np.zeros((KB.N_CODES, len(two_keys)), dtype=np.int64)
        n = int(KB.bonus_slice(top, table, part))
        if progress is not None:
            progress(n)
        return n, part

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(run, range(52, 5, -1)))  # the largest slices first
    total = np.sum([r[1] for r in results], axis=0)
    done = sum(r[0] for r in results)
    if done != HANDS:
        raise CacheError(f"counted {done} hands, expected {HANDS}")
    return BonusCounts.from_array(
        total,
        two_keys,
        compiled.way.name,
        compiled.wheel.value,
        round(time.perf_counter() - started, 1),
    )


def write_counts(path: Path, counts: BonusCounts, way: HouseWay, wheel: Wheel) -> None:
    """Write ``counts`` to ``path`` atomically, with their identity and checksum."""
    data = counts.data()
    doc = {
        "magic": MAGIC,
        "identity": counts_identity(way, wheel),
        "house_way_name": way.name,
        "wheel": wheel.value,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build_seconds": counts.build_seconds,
        "checksum": _digest(data),
        "data": data,
    }
    partial = path.with_name(path.name + f".partial-{os.getpid()}")
    try:
        with partial.open("w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def open_counts(
    way: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    folder: Path | None = None,
    build_missing: bool = True,
    progress: Callable[[int], None] | None = None,
    workers: int = 2,
    compiled: CompiledHouseWay | None = None,
) -> BonusCounts:
    """The cached bonus counts of ``way`` under ``wheel``, counted (from the compiled house way,
    which is opened, or built, if not given) when missing, corrupt or stale and
    ``build_missing``; one process counts at a time. Without ``build_missing`` it never waits:
    :class:`CacheError` at once when they are missing or being counted (a page asking for them
    says "computing" rather than hang until another process is done)."""
    path = counts_path(way, wheel, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not build_missing and not path.exists():
        raise CacheError(f"no bonus counts at {path}: run `paigow bonus analyze`")
    with _locked(path, wait=build_missing):
        if path.exists():
            try:
                return read_counts(path, way, wheel)
            except CacheError:
                if not build_missing:
                    raise
                path.unlink()
        if not build_missing:
            raise CacheError(f"no bonus counts at {path}: run `paigow bonus analyze`")
        if compiled is None:
            compiled = CompiledHouseWay.open(way, wheel, folder, workers=workers)
        counts = count_all(compiled, workers, progress)
        write_counts(path, counts, way, wheel)
        _prune_stale(path)
        return counts


def _prune_stale(keep: Path) -> None:
    """Delete the other bonus counts of the same house way and wheel (older code)."""
    stem = keep.name.rsplit("-", 2)[0]  # bonus-<way>-<wheel>
    for other in keep.parent.glob(f"{stem}-v*-*.json"):
        if other != keep and other.name.rsplit("-", 2)[0] == stem:
            other.unlink(missing_ok=True)
            other.with_name(other.name + ".lock").unlink(missing_ok=True)


def cached_counts(folder: Path | None = None) -> list[Path]:
    """Bonus counts files in the cache folder."""
    base = folder or cache_dir()
    return sorted(base.glob("bonus-*.json")) if base.exists() else []


@cache
def _params(way: HouseWay) -> K.Arr:
    return kernel_params(way)


def deck_counts(deck: Sequence[Card], way: HouseWay, wheel: Wheel = Wheel.SECOND) -> BonusCounts:
    """The same counts over every seven-card hand of a reduced deck (the house way set by its
    kernel, not read from a compiled table): for tests and small experiments.

    >>> from paigow.cards import parse_cards
    >>> deck_counts(parse_cards("As Ks Qs Js Ts 9s 8s"), HouseWay.load("standard")).signatures
    ... # doctest: +ELLIPSIS
    {frozenset({...SEVEN_CARD_STRAIGHT_FLUSH...}): 1}
    """
    idx = np.array(sorted({c.index for c in deck}), dtype=np.int64)
    if len(idx) != len(deck) or len(idx) < 7:
        raise ValueError("a deck needs at least seven distinct cards")
    tables = rank_tables(wheel)
    prog = _params(way)
    counts = np.zeros((KB.N_CODES, len(tables.two_keys)), dtype=np.int64)
    n = int(KB.deck_counts(idx, counts, prog, wheel is Wheel.LOWEST, tables.rank2))
    assert n == comb(len(idx), 7)
    return BonusCounts.from_array(counts, tables.two_keys, way.name, wheel.value)
