"""The compiled house way: agreement with the core, integrity, the cache."""

from __future__ import annotations

import itertools
import random
import shutil
from math import comb
from pathlib import Path

import pytest

from paigow.analysis.compiled import (
    FILE_SIZE,
    HANDS,
    CacheError,
    CompiledHouseWay,
    cache_path,
    read_header,
    verify,
)
from paigow.cards import FULL_DECK, Card
from paigow.house_way import HouseWay
from paigow.ranking import Wheel


def _check(compiled: CompiledHouseWay, cards: list[Card]) -> None:
    hi, lo = compiled.dealer_ranks(cards)
    core = compiled.way.set_hand(cards, compiled.wheel).setting.value(compiled.wheel)
    assert int(compiled.tables.five_keys[hi]) == core.high.key, [c.code for c in cards]
    assert int(compiled.tables.two_keys[lo]) == core.low.key, [c.code for c in cards]


def test_size_and_header(compiled: CompiledHouseWay) -> None:
    assert HANDS == comb(53, 7) == 154_143_080
    assert compiled.path.stat().st_size == FILE_SIZE <= 600_000_000
    meta = read_header(compiled.path)
    assert meta["hands"] == HANDS and meta["wheel"] == "second"
    assert meta["house_way"] == HouseWay.preset("standard").to_dict()


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_agrees_with_core_on_random_hands(compiled: CompiledHouseWay) -> None:
    rnd = random.Random(2024)
    for _ in range(15_000):
        _check(compiled, rnd.sample(FULL_DECK, 7))


@pytest.mark.parametrize(
    "ranks",
    [
        "AAAAKK",  # five aces with kings (plus the joker)
        "KKKKQQJ",  # quads with a pair beside
        "7777A92",  # quads, keep if ace
        "QQQ9922",  # three of a kind and two pairs
        "AKQJT92",  # straight, flush and straight-flush candidates
        "5432A99",  # wheel with a pair
    ],
)
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_agrees_with_core_on_whole_rank_patterns(compiled: CompiledHouseWay, ranks: str) -> None:
    """Every hand of a rank pattern, every suit combination (with the joker where it has six
    ranks), against the core."""
    by_rank: dict[str, list[Card]] = {}
    for c in FULL_DECK[:52]:
        by_rank.setdefault(c.code[0], []).append(c)
    need = dict.fromkeys(ranks, 0)
    for ch in ranks:
        need[ch] += 1
    pools = [list(itertools.combinations(by_rank[r], n)) for r, n in need.items()]
    count = 0
    for combo in itertools.product(*pools):
        cards = [c for group in combo for c in group]
        if len(cards) == 6:
            cards.append(FULL_DECK[52])
        _check(compiled, cards)
        count += 1
    assert count > 0


@pytest.mark.slow  # seconds: copies and checks the whole table (460 MB) twice
def test_corrupt_file_is_detected_and_rebuilt(
    compiled: CompiledHouseWay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flipped byte fails the checksum; opening the table then builds it again. The build is
    the one the session's table came from (the compiled fixture), so here it is stood in for by
    a copy of that table, and the test sees that ``open`` asked for it and checks what it got."""
    from paigow.analysis import compiled as C

    way = HouseWay.preset("standard")
    copy = cache_path(way, Wheel.SECOND, tmp_path)
    shutil.copyfile(compiled.path, copy)
    verify(copy, way, Wheel.SECOND)  # an intact copy verifies
    with copy.open("r+b") as f:
        f.seek(FILE_SIZE // 2)
        byte = f.read(1)
        f.seek(FILE_SIZE // 2)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(CacheError, match="checksum"):
        verify(copy)
    with pytest.raises(CacheError, match="checksum"):
        CompiledHouseWay.open(way, Wheel.SECOND, tmp_path, build_missing=False)
    built: list[Path] = []

    def build(way: HouseWay, wheel: Wheel, path: Path, **_: object) -> Path:
        assert not path.exists()  # the corrupt file was removed first
        built.append(path)
        shutil.copyfile(compiled.path, path)
        return path

    monkeypatch.setattr(C, "build", build)
    rebuilt = CompiledHouseWay.open(way, Wheel.SECOND, tmp_path)  # detects and rebuilds
    assert built == [copy]
    assert read_header(rebuilt.path)["checksum"] == read_header(compiled.path)["checksum"]
    verify(rebuilt.path, way, Wheel.SECOND)


def test_truncated_or_foreign_files_are_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "houseway-x.bin"
    bogus.write_bytes(b"not a table")
    with pytest.raises(CacheError, match="not a compiled house way"):
        read_header(bogus)
    way = HouseWay.preset("foxwoods")
    with pytest.raises(CacheError, match="paigow cache build"):
        CompiledHouseWay.open(way, Wheel.SECOND, tmp_path, build_missing=False)


def test_cache_path_depends_on_parameters_and_wheel() -> None:
    std, fox = HouseWay.preset("standard"), HouseWay.preset("foxwoods")
    paths = {
        cache_path(std, Wheel.SECOND),
        cache_path(std, Wheel.LOWEST),
        cache_path(fox, Wheel.SECOND),
        cache_path(fox, Wheel.LOWEST),
    }
    assert len(paths) == 4
    renamed = HouseWay.from_dict({**std.to_dict(), "name": "standard"})
    assert cache_path(renamed, Wheel.SECOND) == cache_path(std, Wheel.SECOND)


def test_stale_tables_of_the_same_house_way_are_pruned(
    compiled: CompiledHouseWay, tmp_path: Path
) -> None:
    from paigow.analysis.compiled import prune_stale

    keep = tmp_path / compiled.path.name
    stale = tmp_path / "houseway-standard-second-v1-000000000000.bin"
    other = tmp_path / "houseway-foxwoods-second-v1-111111111111.bin"
    header = compiled.path.open("rb").read(1 << 16)
    keep.write_bytes(header)
    stale.write_bytes(header)
    fox = header.replace(b'"name": "standard"', b'"name": "foxwood1"')
    other.write_bytes(fox)
    assert prune_stale(keep) == [stale]
    assert keep.exists() and other.exists() and not stale.exists()
