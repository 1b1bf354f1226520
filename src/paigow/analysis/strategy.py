"""The compiled strategy: the optimal setting of every one of the 154,143,080 seven-card hands
against the dealer's house way (highest EV after commission, a foul losing the wager, ties to
the house way's setting), with the exact counts of it and of the house way's setting, and the
exact edge of the optimal player, all from one computation.

The computation runs once per suit class of player hands (6,972,147 classes; see
:mod:`paigow.analysis.optimal`) in chunks by the hand's two highest cards; each finished chunk's
rows are saved beside a checkpoint, so a killed build resumes. The result is one file in the
cache folder (a JSON header with a checksum, then memory-mapped arrays):

- ``keys``: the classes' canonical hands (colex indices, sorted);
- ``small``: per class, the optimal setting, the house way's setting and rule number, the
  class's size; ``counts``: per class, wins and losses of the optimal and of the house way's
  setting against the C(46, 7) dealer hands;
- ``per_hand``: the optimal setting of every hand, by colex index.

A setting is an index into :data:`paigow.setting.LOW_POSITIONS` over the hand's cards sorted by
index (ascending).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any, Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.cache_folder import held
from paigow.analysis.checkpoint import Checkpoint
from paigow.analysis.compiled import (
    HANDS,
    CacheError,
    checksum,
    identity,
    kernel_params,
    read_header,
)
from paigow.analysis.edge import FULL_DECK_INDICES, EdgeResult
from paigow.analysis.kernels import strategy_classes as KS
from paigow.analysis.optimal import structures
from paigow.analysis.program import compile_way
from paigow.analysis.runner import Runner, TableSpec
from paigow.cards import Card, parse_cards
from paigow.commission import Commission
from paigow.setting import LOW_POSITIONS, Setting

FORMAT_VERSION: Final = 1
MAGIC: Final = b"PAIGOWST"
DATA_OFFSET: Final = 1 << 16
DEALER_HANDS: Final = comb(46, 7)
#: Room for the rule ids of any house way in a run's sums (a house way with more is refused).
N_RULES: Final = 96
ROW_COLS: Final = KS.COLS


# ------------------------------------------------------------------------------ the run
@dataclass(frozen=True)
class StrategyChunk:
    """The player-hand classes whose two highest cards are deck[top], deck[second]."""

    spec: TableSpec
    top: int
    second: int
    num: int
    den: int
    deck: tuple[int, ...] = FULL_DECK_INDICES
    limit: int = 0
    push: str = "none"

    @property
    def key(self) -> str:
        return f"{self.top}:{self.second}"


def chunk_task(chunk: StrategyChunk) -> tuple[str, list[int], K.Arr]:
    """One chunk: its key, its sums and its class rows (uint32)."""
    from paigow.analysis.pushed import dealer_view

    compiled = chunk.spec.open()
    st = structures(chunk.spec, chunk.deck, chunk.deck == FULL_DECK_INDICES, chunk.push)
    t = dealer_view(chunk.spec, chunk.push)
    prog = kernel_params(compiled.way)
    rows, sums = KS.strategy_chunk(
        chunk.top, chunk.second, t.table, K.BINOM, t.rank5, t.rank2, t.five_keys,
        t.two_keys, prog, compiled.wheel.value == "lowest", *st.kernel_args(), chunk.num,
        chunk.den, N_RULES, chunk.limit,
    )  # fmt: skip
    return chunk.key, [int(x) for x in sums], rows.astype(np.uint32)


def chunks_for(
    spec: TableSpec,
    commission: Commission,
    deck: Sequence[int] = FULL_DECK_INDICES,
    limit: int = 0,
    push: str = "none",
) -> list[StrategyChunk]:
    """Every chunk of player hands (by their two highest cards), the largest first."""
    d = tuple(sorted(deck))
    rate = commission.rate
    out = [
        StrategyChunk(spec, top, second, rate.numerator, rate.denominator, d, limit, push)
        for top in range(6, len(d))
        for second in range(5, top)
    ]
    return sorted(out, key=lambda c: comb(c.second, 5), reverse=True)


@dataclass(frozen=True)
class RuleCost:
    """What one house way rule costs against the optimal setting, over every hand it sets."""

    rule: str
    hands: int
    differ: int
    given_up: Fraction  # total EV given up, summed over the hands (units wagered)

    @property
    def per_hand(self) -> Fraction:
        """EV given up per hand the rule sets."""
        return self.given_up / self.hands if self.hands else Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "hands": self.hands,
            "differ": self.differ,
            "ev_given_up": float(self.given_up),
            "ev_given_up_exact": str(self.given_up),
            "ev_given_up_per_hand": float(self.per_hand),
        }


@dataclass
class ClassResults:
    """The classes' rows (sorted by canonical hand) and the run's sums."""

    rows: K.Arr
    sums: list[int]
    deck: tuple[int, ...]
    commission: Commission
    seconds: float

    def edge(self) -> EdgeResult:
        return edge_from_sums(self.sums, self.deck, self.commission, self.seconds)

    rule_ids: tuple[str, ...] = ()

    def rule_costs(self) -> list[RuleCost]:
        return rule_costs(self.sums, self.commission, self.rule_ids, len(self.deck))


def edge_from_sums(
    sums: Sequence[int], deck: Sequence[int], commission: Commission, seconds: float = 0.0
) -> EdgeResult:
    """The optimal player's exact edge from a run's sums (checked to cover every deal)."""
    n = len(deck)
    win, loss, deals, hands = sums[0], sums[1], sums[2], sums[3]
    if hands != comb(n, 7) or deals != comb(n, 7) * comb(n - 7, 7):
        raise AssertionError(f"covered {hands} player hands and {deals} deals")
    return EdgeResult(
        "optimal", deals, win, deals - win - loss, loss, commission, seconds,
        {"deck": n, "classes": sums[4]},
    )  # fmt: skip


def rule_costs(
    sums: Sequence[int], commission: Commission, rule_ids: Sequence[str], n: int = 53
) -> list[RuleCost]:
    """Per rule id (the house way's outcomes, :attr:`Program.outcomes`; the rules sharing an id
    summed), in the order of their first rule: hands set, hands where the optimal setting
    differs, EV given up."""
    rate = commission.rate
    unit = rate.denominator * comb(n - 7, 7)
    by_id: dict[str, list[int]] = {}  # several rules may share an id: one row for it
    for r, rule in enumerate(rule_ids):
        k = KS.HEAD + 3 * r
        got = by_id.setdefault(rule, [0, 0, 0])
        for m in range(3):
            got[m] += sums[k + m]
    return [RuleCost(rule, h, d, Fraction(g, unit)) for rule, (h, d, g) in by_id.items()]


def compute(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    deck: Sequence[int] = FULL_DECK_INDICES,
    work: Path | None = None,
    progress: Callable[[int], None] | None = None,
    stop_after: int | None = None,
    push: str = "none",
) -> ClassResults:
    """Every class's optimal setting and the sums, resuming from ``work`` (a folder holding a
    checkpoint and each finished chunk's rows) when given. ``stop_after`` ends the run after
    that many new chunks, raising :class:`InterruptedError` (to show resuming). ``push``: the
    push rule whose dealer hands push (:mod:`paigow.analysis.pushed`)."""
    rate = commission or Commission()
    d = tuple(sorted(deck))
    started = time.perf_counter()
    structures(spec, d, d == FULL_DECK_INDICES, push)  # built once, before the workers start
    chunks = chunks_for(spec, rate, d, push=push)
    rows: dict[str, K.Arr] = {}
    if work is None:
        work_ck = None
    else:
        work.mkdir(parents=True, exist_ok=True)
        work_ck = Checkpoint(work / "chunks.checkpoint.jsonl")
    done = {} if work_ck is None else work_ck.done
    todo = [c for c in chunks if c.key not in done]
    if stop_after is not None:
        todo = todo[:stop_after]

    def record(result: tuple[str, list[int], K.Arr]) -> None:
        key, sums, r = result
        if work_ck is not None:
            tmp = work / f"{key.replace(':', '_')}.tmp.npy"  # type: ignore[operator]
            np.save(tmp, r)
            os.replace(tmp, work / f"{key.replace(':', '_')}.npy")  # type: ignore[operator]
            work_ck.record(key, sums)
        else:
            done[key] = sums
        rows[key] = r
        if progress is not None:
            progress(1)

    if work_ck is not None:
        with work_ck:
            runner.map(chunk_task, todo, record)
    else:
        runner.map(chunk_task, todo, record)
    if len(done) < len(chunks):
        raise InterruptedError(f"{len(done)} of {len(chunks)} chunks done; run again to resume")
    parts = []
    for c in chunks:
        if c.key not in rows:
            rows[c.key] = np.load(work / f"{c.key.replace(':', '_')}.npy")  # type: ignore[operator]
        parts.append(rows[c.key])
    allrows = np.concatenate(parts) if parts else np.zeros((0, ROW_COLS), dtype=np.uint32)
    allrows = allrows[np.argsort(allrows[:, KS.C_COLEX], kind="stable")]
    total = [sum(v[i] for v in done.values()) for i in range(KS.HEAD + 3 * N_RULES)]
    outcomes = compile_way(spec.open().way).outcomes
    if len(outcomes) > N_RULES:
        raise ValueError(f"a house way with over {N_RULES} rule ids cannot be solved")
    return ClassResults(allrows, total, d, rate, time.perf_counter() - started, outcomes)


def optimal_edge(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    deck: Sequence[int] = FULL_DECK_INDICES,
    checkpoint: Path | None = None,
    progress: Callable[[int], None] | None = None,
    stop_after: int | None = None,
    push: str = "none",
) -> EdgeResult:
    """Exact win/push/loss of the optimal player against the house way over every deal of
    ``deck``: read from the compiled strategy for the full deck when there is one, else computed
    (resuming from the folder beside ``checkpoint``). ``push``: the push rule."""
    rate = commission or Commission()
    if tuple(sorted(deck)) == FULL_DECK_INDICES and checkpoint is None:
        return CompiledStrategy.open(
            spec, rate, build_missing=True, runner=runner, push=push
        ).edge()
    work = None if checkpoint is None else checkpoint.with_name(checkpoint.name + ".rows")
    return compute(spec, runner, rate, deck, work, progress, stop_after, push).edge()


# ------------------------------------------------------------------------------ the file
def _source_digest() -> str:
    """A digest of the kernels that determine a strategy's contents."""
    return K.source_digest(K.STRATEGY_SOURCES)


def strategy_identity(
    spec: TableSpec, commission: Commission, push: str = "none"
) -> dict[str, Any]:
    """What a compiled strategy depends on: the house way's table, the commission, the kernels,
    and the push rule (named only when there is one)."""
    compiled = spec.open()
    out = {
        "format": FORMAT_VERSION,
        "table": identity(compiled.way, compiled.wheel),
        "commission": commission.as_str(),
        "kernels": _source_digest(),
    }
    if push != "none":
        out["push"] = push
    return out


def strategy_path(spec: TableSpec, commission: Commission, push: str = "none") -> Path:
    """Where the compiled strategy lives (beside the compiled house way)."""
    compiled = spec.open()
    ident = strategy_identity(spec, commission, push)
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in compiled.way.name)
    rate = commission.as_str().replace(".", "_").replace("/", "_")
    pushing = f"-{push}" if push != "none" else ""
    return Path(spec.folder) / (
        f"strategy-{safe}-{compiled.wheel.value}-{rate}{pushing}-v{FORMAT_VERSION}-{digest}.bin"
    )


def _layout(n: int) -> dict[str, tuple[int, str, tuple[int, ...]]]:
    """Offsets, dtypes and shapes of the sections for n classes."""
    out: dict[str, tuple[int, str, tuple[int, ...]]] = {}
    pos = DATA_OFFSET
    sections: tuple[tuple[str, str, tuple[int, ...]], ...] = (
        ("keys", "<u4", (n,)),
        ("small", "u1", (n, 4)),
        ("counts", "<u4", (n, 4)),
        ("per_hand", "u1", (HANDS,)),
    )
    for name, dtype, shape in sections:
        out[name] = (pos, dtype, shape)
        pos += int(np.dtype(dtype).itemsize * np.prod(shape))
        pos = (pos + 63) // 64 * 64
    out["end"] = (pos, "u1", (0,))
    return out


def _read_header(path: Path) -> dict[str, Any]:
    return read_header(path, MAGIC, "compiled strategy")


def build(
    spec: TableSpec,
    runner: Runner,
    commission: Commission | None = None,
    path: Path | None = None,
    progress: Callable[[str, int], Callable[[int], None]] | None = None,
    stop_after: int | None = None,
    workers: int = 2,
    push: str = "none",
) -> Path:
    """Compute and write the compiled strategy (resuming a killed build). ``progress(stage,
    total)`` returns an ``advance(n)`` callback per stage ("classes", then "hands"); ``push``:
    the push rule the optimal player plays against."""
    rate = commission or Commission()
    target = path or strategy_path(spec, rate, push)
    work = target.with_name(target.name + ".work")
    started = time.perf_counter()
    chunks = chunks_for(spec, rate, push=push)
    adv = progress("classes", len(chunks)) if progress else None
    result = compute(spec, runner, rate, FULL_DECK_INDICES, work, adv, stop_after, push)
    rows = result.rows
    n = len(rows)
    layout = _layout(n)
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    with partial.open("wb") as f:
        f.truncate(layout["end"][0])
    try:

        def section(name: str) -> K.Arr:
            off, dtype, shape = layout[name]
            arr: K.Arr = np.memmap(partial, dtype=dtype, mode="r+", offset=off, shape=shape)
            return arr

        keys = section("keys")
        keys[:] = rows[:, KS.C_COLEX]
        small = section("small")
        small[:] = rows[:, [KS.C_BEST, KS.C_HW, KS.C_RULE, KS.C_WEIGHT]]
        counts = section("counts")
        counts[:] = rows[:, [KS.C_WB, KS.C_LB, KS.C_WH, KS.C_LH]]
        per_hand = section("per_hand")
        keys64 = np.ascontiguousarray(rows[:, KS.C_COLEX], dtype=np.int64)
        best = np.ascontiguousarray(rows[:, KS.C_BEST], dtype=np.int64)
        adv_h = progress("hands", HANDS) if progress else None

        def fill(top: int) -> int:
            return int(KS.fill_slice(top, per_hand, keys64, best, K.BINOM))

        filled = 0
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for k in pool.map(fill, range(52, 5, -1)):
                if k < 0:
                    raise CacheError("a hand's class is missing from the strategy")
                filled += k
                if adv_h is not None:
                    adv_h(k)
        if filled != HANDS:
            raise CacheError(f"filled {filled} hands, expected {HANDS}")
        for arr in (keys, small, counts, per_hand):
            arr.flush()  # type: ignore[attr-defined]
        edge = result.edge()
        meta = {
            **strategy_identity(spec, rate, push),
            "classes": n,
            "hands": HANDS,
            "layout": {k: [v[0], v[1], list(v[2])] for k, v in layout.items()},
            "sums": result.sums,
            "rule_ids": list(result.rule_ids),
            "edge": edge.to_dict(),
            "checksum": checksum(partial),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_seconds": round(time.perf_counter() - started, 1),
            "compute_seconds": round(result.seconds, 1),
        }
        blob = json.dumps(meta, sort_keys=True).encode()
        with partial.open("r+b") as out:
            out.write(MAGIC + struct.pack("<Q", len(blob)) + blob)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    shutil.rmtree(work, ignore_errors=True)
    return target


@dataclass(frozen=True)
class StrategyAnswer:
    """The compiled strategy's answer for one hand."""

    cards: tuple[Card, ...]
    setting: Setting
    setting_index: int
    house_way: Setting
    house_way_index: int
    rule: str
    ev: Fraction
    house_way_ev: Fraction

    @property
    def ev_given_up(self) -> Fraction:
        return self.ev - self.house_way_ev

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": [c.code for c in self.cards],
            "setting": str(self.setting),
            "high": [c.code for c in self.setting.high],
            "low": [c.code for c in self.setting.low],
            "ev": float(self.ev),
            "house_way": str(self.house_way),
            "house_way_rule": self.rule,
            "house_way_ev": float(self.house_way_ev),
            "ev_given_up": float(self.ev_given_up),
        }


def _setting_of(sorted_cards: Sequence[Card], q: int) -> Setting:
    i, j = LOW_POSITIONS[q]
    high = tuple(c for k, c in enumerate(sorted_cards) if k not in (i, j))
    return Setting(high, (sorted_cards[i], sorted_cards[j]))


@dataclass
class CompiledStrategy:
    """A compiled strategy, memory-mapped read-only."""

    path: Path
    meta: dict[str, Any]
    keys: K.Arr
    small: K.Arr
    counts: K.Arr
    per_hand: K.Arr
    commission: Commission

    @classmethod
    def open(
        cls,
        spec: TableSpec,
        commission: Commission | None = None,
        build_missing: bool = False,
        runner: Runner | None = None,
        progress: Callable[[str, int], Callable[[int], None]] | None = None,
        verify: bool = False,
        push: str = "none",
    ) -> CompiledStrategy:
        """Open the compiled strategy of ``spec`` at ``commission`` under the push rule ``push``
        (building it if missing when ``build_missing``); ``verify`` checks the checksum of the
        data."""
        rate = commission or Commission()
        path = strategy_path(spec, rate, push)
        with held(path):  # one builder at a time; the others wait and open what it built
            if not path.exists():
                if not build_missing:
                    raise CacheError(f"no compiled strategy at {path}: run `paigow strategy build`")
                build(spec, runner or Runner(), rate, path, progress, push=push)
        meta = _read_header(path)
        if meta.get("format") != FORMAT_VERSION or meta.get("kernels") != _source_digest():
            raise CacheError(f"{path} was compiled by another version")
        lay = meta["layout"]
        if path.stat().st_size != lay["end"][0]:
            raise CacheError(f"{path} has the wrong size")
        if verify and checksum(path) != meta["checksum"]:
            raise CacheError(f"{path} is corrupt: its checksum does not match")

        def m(name: str) -> K.Arr:
            off, dtype, shape = lay[name]
            arr: K.Arr = np.memmap(path, dtype=dtype, mode="r", offset=off, shape=tuple(shape))
            return arr

        return cls(path, meta, m("keys"), m("small"), m("counts"), m("per_hand"), rate)

    def edge(self) -> EdgeResult:
        """The optimal player's exact edge (from the same computation)."""
        e = self.meta["edge"]
        return EdgeResult(
            "optimal", e["deals"], e["win"], e["push"], e["loss"], self.commission,
            float(self.meta["compute_seconds"]),
            {"deck": 53, "classes": self.meta["classes"]}
            | ({"push_rule": self.meta["push"]} if "push" in self.meta else {}),
        )  # fmt: skip

    def rule_costs(self) -> list[RuleCost]:
        return rule_costs(self.meta["sums"], self.commission, self.rule_ids)

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The house way's rule ids, by the numbers the rows hold."""
        return tuple(self.meta["rule_ids"])

    def lookup_indices(self, hands: K.Arr) -> K.Arr:
        """For an (n, 7) array of card indices: (n, 7) int64 rows [optimal setting, house way
        setting, rule number, wins and losses of the optimal setting, of the house way's];
        settings index LOW_POSITIONS over each hand sorted ascending."""
        h = np.ascontiguousarray(hands, dtype=np.int64)
        raw = np.empty((len(h), 3), dtype=np.int64)
        KS.lookup_batch(h, self.per_hand, self.keys, self.small, K.BINOM, raw)
        if (raw[:, 1] < 0).any():
            raise CacheError("a hand's class is missing from the compiled strategy")
        out = np.empty((len(h), 7), dtype=np.int64)
        out[:, 0] = raw[:, 0]
        out[:, 1] = raw[:, 2]
        out[:, 2] = self.small[raw[:, 1], 2]
        out[:, 3:] = self.counts[raw[:, 1]]
        return out

    def lookup(self, cards: str | Sequence[Card]) -> StrategyAnswer:
        """The optimal setting of seven cards, its EV, the house way's and the EV it gives up."""
        seven = parse_cards(cards, count=7)
        row = self.lookup_indices(np.array([[c.index for c in seven]]))[0]
        return self.answer(seven, row)

    def answer(self, seven: Sequence[Card], row: K.Arr) -> StrategyAnswer:
        """A :class:`StrategyAnswer` from one row of :meth:`lookup_indices`."""
        ordered = sorted(seven, key=lambda c: c.index)
        pay = 1 - self.commission.rate
        ev = (Fraction(int(row[3])) * pay - int(row[4])) / DEALER_HANDS
        hw_ev = (Fraction(int(row[5])) * pay - int(row[6])) / DEALER_HANDS
        return StrategyAnswer(
            tuple(seven), _setting_of(ordered, int(row[0])), int(row[0]),
            _setting_of(ordered, int(row[1])), int(row[1]), self.rule_ids[int(row[2])], ev, hw_ev,
        )  # fmt: skip
