"""The compiled house way: the dealer's setting for every one of the C(53, 7) = 154,143,080
seven-card hands, as (dense high rank, dense low rank), indexed by the hand's colex index.

Stored in a user cache folder, one file per (house way's rules, wheel, format), with a
checksum of the data; memory-mapped read-only. A missing or corrupt file is (re)built.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from paigow.analysis import kernels as K
from paigow.analysis.cache_folder import cache_dir as cache_dir
from paigow.analysis.class_check import check_classes
from paigow.analysis.program import compile_way
from paigow.analysis.survey import HANDS as HANDS
from paigow.analysis.survey import Survey as Survey
from paigow.analysis.survey import hand_text as hand_text
from paigow.analysis.tables import RankTables, rank_tables
from paigow.cards import Card
from paigow.errors import HouseWayError, PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

FORMAT_VERSION: Final = 1
MAGIC: Final = b"PAIGOWHW"
DATA_OFFSET: Final = 1 << 16
FILE_SIZE: Final = DATA_OFFSET + 3 * HANDS
CHUNK: Final = 1 << 24


class CacheError(PaigowError):
    """A compiled house way file that is missing, corrupt or of another version."""


def kernel_params(way: HouseWay) -> K.Arr:
    """The house way as the kernels read it: its program (:mod:`paigow.analysis.program`)."""
    return compile_way(way).prog


def run_slices(
    way: HouseWay,
    wheel: Wheel,
    table: K.Arr,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
    stop_early: bool = False,
) -> Survey:
    """Run the house way over every hand (writing ``table`` unless it is empty); with
    ``stop_early``, the slices of the lowest cards first, ending at the first slice with a
    hand unset or set into a foul."""
    started = time.perf_counter()
    program = compile_way(way)
    tables = rank_tables(wheel)
    lowest = wheel is Wheel.LOWEST
    n_out = len(program.outcomes)
    reach = np.zeros((53, n_out), dtype=np.int64)
    stats = np.zeros((53, 5), dtype=np.int64)
    stats[:, [1, 3, 4]] = -1

    def run(top: int) -> int:
        return int(
            K.build_slice(
                top, table, program.prog, lowest, tables.rank5, tables.rank2, K.BINOM,
                tables.five_keys, reach[top], stats[top],
            )
        )  # fmt: skip

    # The smallest slice first, alone (it compiles the kernel on a first run), then the
    # largest first (the lowest first to stop early); progress as each slice ends.
    done = run(6)
    if progress is not None:
        progress(done)
    order = range(7, 53) if stop_early else range(52, 6, -1)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(run, top) for top in order]
        for future in futures if stop_early else as_completed(futures):
            n = future.result()
            done += n
            if progress is not None:
                progress(n)
            if stop_early and (stats[:, 0].sum() or stats[:, 2].sum()):
                for f in futures:
                    f.cancel()
                break
        for f in futures:  # the running ones finish before their arrays are read
            if not f.cancelled():
                f.result()
    if not stop_early and done != HANDS:
        raise CacheError(f"ran {done} hands, expected {HANDS}")

    def first(col: int) -> tuple[int, int]:
        rows = [t for t in range(53) if stats[t, col] >= 0]
        return (int(stats[rows[0], col]), rows[0]) if rows else (-1, -1)

    first_unset, _ = first(1)
    first_foul, top = first(3)
    return Survey(
        program,
        tuple(int(x) for x in reach.sum(axis=0)),
        int(stats[:, 0].sum()),
        first_unset,
        int(stats[:, 2].sum()),
        first_foul,
        int(stats[top, 4]) if top >= 0 else -1,
        time.perf_counter() - started,
    )


def sweep(
    way: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
    stop_early: bool = False,
) -> Survey:
    """Run ``way`` over all 154,143,080 hands one by one without writing a table: the reference
    that :func:`check` answers as, in tens of seconds; with ``stop_early``, only until a slice
    shows a hand no rule sets or one set into a foul."""
    return run_slices(way, wheel, np.zeros(0, dtype=np.uint8), workers, progress, stop_early)


def check(
    way: HouseWay, wheel: Wheel = Wheel.SECOND, progress: Callable[[int], None] | None = None
) -> Survey:
    """The :class:`Survey` of ``way`` over all 154,143,080 hands (its problems, if any, in
    :meth:`Survey.problems`), :func:`sweep`'s to the hand, class by class in about a second
    (:mod:`paigow.analysis.class_check`)."""
    return check_classes(way, wheel, progress)


def _checked_path(way: HouseWay, wheel: Wheel) -> Path:  # by the rules' and kernels' digests
    kernels = K.source_digest((*K.TABLE_SOURCES, "rank_classes.py"))
    key = json.dumps([way.digest, wheel.value, kernels]).encode()
    return cache_dir() / f"checked-{hashlib.sha256(key).hexdigest()[:24]}.json"


def remembered(way: HouseWay, wheel: Wheel = Wheel.SECOND) -> dict[str, Any] | None:
    """An earlier check's answer for these rules and kernels (``problems``; ``by_rule``)."""
    try:
        data = json.loads(_checked_path(way, wheel).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("problems"), list) else None


def remember(way: HouseWay, wheel: Wheel, survey: Survey) -> None:
    """Keep a check's answer (:func:`remembered` reads it)."""
    saved = _checked_path(way, wheel)
    data: dict[str, Any] = {"house_way": way.name, "problems": survey.problems()}
    if survey.complete:
        data |= {"by_rule": survey.by_rule(), "seconds": round(survey.seconds, 1)}
    saved.parent.mkdir(parents=True, exist_ok=True)
    partial = saved.with_name(saved.name + f".{os.getpid()}")
    partial.write_text(json.dumps(data), "utf-8")
    partial.replace(saved)


def validate(way: HouseWay, wheel: Wheel = Wheel.SECOND) -> list[str]:
    """The problems of a house way for a table (none for a fit one: :meth:`Survey.problems`),
    checked once per house way and wheel (:func:`remembered`)."""
    known = remembered(way, wheel)
    if known is not None:
        return [str(p) for p in known["problems"]]
    survey = check(way, wheel)
    remember(way, wheel, survey)
    return survey.problems()


def identity(way: HouseWay, wheel: Wheel) -> dict[str, Any]:
    """What a compiled table depends on: the house way's parameters, the wheel and the format."""
    tables = rank_tables(wheel)
    return {
        "format": FORMAT_VERSION,
        "house_way": way.to_dict(),
        "wheel": wheel.value,
        "hands": HANDS,
        "five_keys": hashlib.sha256(tables.five_keys.tobytes()).hexdigest()[:16],
        "kernels": _kernel_digest(),
    }


def _kernel_digest() -> str:
    """A digest of the code that determines a table's contents (keys, the house way, the
    layout): a table compiled by other code is rebuilt; other kernels can change freely."""
    return K.source_digest(K.TABLE_SOURCES)


def cache_path(way: HouseWay, wheel: Wheel, folder: Path | None = None) -> Path:
    """Where the compiled table of ``way`` under ``wheel`` lives."""
    ident = identity(way, wheel)
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in way.name)
    return (folder or cache_dir()) / f"houseway-{safe}-{wheel.value}-v{FORMAT_VERSION}-{digest}.bin"


def checksum(path: Path) -> str:
    """The blake2b digest of a cache file's data (everything after its header)."""
    h = hashlib.blake2b(digest_size=32)
    with path.open("rb") as f:
        f.seek(DATA_OFFSET)
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def read_header(
    path: Path, magic: bytes = MAGIC, kind: str = "compiled house way"
) -> dict[str, Any]:
    """The metadata of a cache file (a compiled table, or with ``magic`` and ``kind`` another
    file of the same layout); raises :class:`CacheError`."""
    try:
        with path.open("rb") as f:
            head = f.read(16)
            blob = f.read(DATA_OFFSET - 16)
    except OSError as exc:
        raise CacheError(f"cannot read {path}: {exc.strerror}") from None
    if len(head) != 16 or head[:8] != magic:
        raise CacheError(f"{path} is not a {kind} file")
    (length,) = struct.unpack("<Q", head[8:])
    try:
        if not 0 < length <= len(blob):
            raise ValueError
        meta = json.loads(blob[:length])
        if not isinstance(meta, dict):
            raise ValueError
    except ValueError:
        raise CacheError(f"{path} has a damaged header") from None
    return meta


@contextmanager
def _locked(path: Path, wait: bool = True) -> Iterator[None]:
    """A lock beside ``path`` (one builder at a time); not ``wait``: CacheError if it is held."""
    with path.with_name(path.name + ".lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CacheError(f"{path} is being built by another process") from None
        yield  # released when the file closes, an error or not


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _file_state(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def verify(path: Path, way: HouseWay | None = None, wheel: Wheel | None = None) -> dict[str, Any]:
    """Check a file fully: header, identity (if ``way`` and ``wheel`` are given), size and the
    checksum of the data. Returns the metadata; raises :class:`CacheError` if anything is off."""
    meta = read_header(path)
    if meta.get("format") != FORMAT_VERSION:
        raise CacheError(f"{path} is format {meta.get('format')}, not {FORMAT_VERSION}")
    if way is not None and wheel is not None:
        ident = identity(way, wheel)
        if any(meta.get(k) != v for k, v in ident.items()):
            raise CacheError(f"{path} was compiled for another house way, wheel or evaluator")
    if path.stat().st_size != FILE_SIZE:
        raise CacheError(f"{path} has {path.stat().st_size} bytes, not {FILE_SIZE}")
    if checksum(path) != meta.get("checksum"):
        raise CacheError(f"{path} is corrupt: its checksum does not match")
    _stamp_path(path).write_text(_file_state(path))
    return meta


def build(
    way: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    path: Path | None = None,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Compile the house way for every seven-card hand into ``path`` (default: the cache).

    ``progress(n)`` is called with the number of hands done after each slice.
    """
    target = path or cache_path(way, wheel)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    tables = rank_tables(wheel)
    started = time.perf_counter()
    with partial.open("wb") as f:
        f.truncate(FILE_SIZE)
    try:
        table = np.memmap(
            partial, dtype=np.uint8, mode="r+", offset=DATA_OFFSET, shape=(3 * HANDS,)
        )
        survey = run_slices(way, wheel, table, workers, progress)
        problems = survey.problems()
        if survey.unset or survey.fouls:
            raise HouseWayError("; ".join(p for p in problems if "unreachable" not in p))
        table.flush()
        meta = {
            **identity(way, wheel),
            "checksum": checksum(partial),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_seconds": round(time.perf_counter() - started, 1),
            "five_ranks": len(tables.five_keys),
            "two_ranks": len(tables.two_keys),
            "reach": survey.reach_by_id(),
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
    _stamp_path(target).write_text(_file_state(target))
    return target


@dataclass
class CompiledHouseWay:
    """A compiled house way, memory-mapped read-only.

    ``table[3 i : 3 i + 3]``: the dense rank of the dealer's high hand (two bytes, little-endian)
    and of the low hand (one byte) for the hand whose colex index is ``i``.
    """

    path: Path
    way: HouseWay
    wheel: Wheel
    meta: dict[str, Any]
    table: K.Arr
    tables: RankTables

    @classmethod
    def open(
        cls,
        way: HouseWay,
        wheel: Wheel = Wheel.SECOND,
        folder: Path | None = None,
        build_missing: bool = True,
        progress: Callable[[int], None] | None = None,
        workers: int = 2,
    ) -> CompiledHouseWay:
        """Open the compiled table, building it if missing (or corrupt) when ``build_missing``.

        A full checksum is run when the file is new to this machine or changed since it was
        last verified; otherwise only the header and size are checked.
        """
        path = cache_path(way, wheel, folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path):
            meta = cls._ensure(path, way, wheel, build_missing, progress, workers)
        table = np.memmap(path, dtype=np.uint8, mode="r", offset=DATA_OFFSET, shape=(3 * HANDS,))
        return cls(path, way, wheel, meta, table, rank_tables(wheel))

    @staticmethod
    def _ensure(
        path: Path,
        way: HouseWay,
        wheel: Wheel,
        build_missing: bool,
        progress: Callable[[int], None] | None,
        workers: int,
    ) -> dict[str, Any]:
        if path.exists():
            stamp = _stamp_path(path)
            try:
                if stamp.exists() and stamp.read_text() == _file_state(path):
                    meta = read_header(path)
                    if path.stat().st_size != FILE_SIZE:
                        raise CacheError(f"{path} has the wrong size")
                else:
                    meta = verify(path, way, wheel)
            except CacheError:
                if not build_missing:
                    raise
                path.unlink()
                stamp.unlink(missing_ok=True)
        if not path.exists():
            if not build_missing:
                raise CacheError(f"no compiled house way at {path}: run `paigow cache build`")
            build(way, wheel, path, workers=workers, progress=progress)
            meta = read_header(path)
            prune_stale(path)
        return meta

    def index_of(self, cards: Sequence[Card]) -> int:
        """The colex index of seven cards."""
        idx = sorted(c.index for c in cards)
        return sum(int(K.BINOM[c, i + 1]) for i, c in enumerate(idx))

    def dealer_ranks(self, cards: Sequence[Card]) -> tuple[int, int]:
        """The dense (high, low) ranks of the house way's setting of seven cards."""
        k = 3 * self.index_of(cards)
        return int(self.table[k]) | int(self.table[k + 1]) << 8, int(self.table[k + 2])


def prune_stale(keep: Path) -> list[Path]:
    """Delete the other compiled tables of the same house way and wheel (made by another version
    of the kernels or format): each is 462 MB and would never be read again."""
    try:
        mine = read_header(keep)
    except CacheError:
        return []
    removed = []
    for path in cached_files(keep.parent):
        if path == keep:
            continue
        try:
            meta = read_header(path)
        except CacheError:
            continue
        if all(meta.get(k) == mine.get(k) for k in ("house_way", "wheel")):
            path.unlink(missing_ok=True)
            _stamp_path(path).unlink(missing_ok=True)
            path.with_name(path.name + ".lock").unlink(missing_ok=True)
            removed.append(path)
    return removed


def cached_files(folder: Path | None = None) -> list[Path]:
    """Compiled house way files in the cache folder."""
    base = folder or cache_dir()
    return sorted(base.glob("houseway-*.bin")) if base.exists() else []
