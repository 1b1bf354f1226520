"""The house way (docs/house-way.md): its worked examples, hand-worked examples for every rule id,
an independent reading of the rules compared on random hands, invariants, and operator presets."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.errors import HouseWayError
from paigow.house_way import RULE_IDS, HouseWay, legacy_params
from paigow.ranking import Category, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting

# ---------------------------------------------------------------- the rule book's files

ROOT = Path(__file__).resolve().parents[1]
TSV = ROOT / "tests" / "data" / "house_way_examples.tsv"
HOUSE_WAY_DOC = ROOT / "docs" / "house-way.md"


def _tsv_rows() -> list[tuple[int, str, str, str, str, str]]:
    rows = []
    for lineno, line in enumerate(TSV.read_text("utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        preset, seven, high, low, rule = line.split("\t")
        rows.append((lineno, preset, seven, high, low, rule))
    return rows


TSV_ROWS = _tsv_rows()

PRESETS = {name: HouseWay.preset(name) for name in ("standard", "foxwoods")}

TWO_PAIR_KEYS = ("high_high", "high_middle", "high_low", "middle_middle", "middle_low", "low_low")
ALL_KEEP: dict[str, Any] = {
    "name": "all-keep",
    "two_pair": dict.fromkeys(TWO_PAIR_KEYS, "keep"),
    "quads": {"low": "keep", "middle": "keep", "high": "keep"},
}
MIXED: dict[str, Any] = {
    "name": "mixed",
    "two_pair": {
        "high_high": "keep-if-ace",
        "high_middle": "keep-if-king",
        "high_low": "keep",
        "middle_middle": "split",
        "middle_low": "keep-if-ace",
        "low_low": "keep",
    },
    "quads": {"low": "split", "middle": "keep-if-king", "high": "keep-if-ace"},
}
WAYS = {
    **PRESETS,
    "all-keep": HouseWay.from_dict(ALL_KEEP),
    "mixed": HouseWay.from_dict(MIXED),
}
#: The first format's parameters each way was written with (the rewritten presets' included):
#: the independent reading below takes these.
PARAMS: dict[str, dict[str, Any]] = {
    "standard": legacy_params("standard"),
    "foxwoods": legacy_params("foxwoods"),
    "all-keep": ALL_KEEP,
    "mixed": MIXED,
}


def strength(
    high: Sequence[Card], low: Sequence[Card], wheel: Wheel = Wheel.SECOND
) -> tuple[int, int]:
    return evaluate_five(high, wheel).key, evaluate_two(low).key


def check(way: HouseWay, seven: str, high: str, low: str, rule: str) -> None:
    cards = parse_cards(seven, count=7)
    want_high, want_low = parse_cards(high, count=5), parse_cards(low, count=2)
    assert set(want_high) | set(want_low) == set(cards), "bad example"
    got = way.set_hand(cards)
    assert got.rule == rule, f"{seven}: rule {got.rule}, expected {rule}"
    assert strength(got.setting.high, got.setting.low) == strength(want_high, want_low), (
        f"{seven}: got {got.setting}, expected {high} / {low}"
    )
    assert set(got.setting.cards) == set(cards)
    assert not got.setting.is_foul


# ---------------------------------------------------------------- house_way_examples.tsv


def test_tsv_has_the_240_examples_for_both_presets() -> None:
    assert len(TSV_ROWS) == 240
    assert {r[1] for r in TSV_ROWS} == {"standard", "foxwoods"}


@pytest.mark.parametrize(
    ("lineno", "preset", "seven", "high", "low", "rule"),
    TSV_ROWS,
    ids=[f"L{r[0]}-{r[1]}-{r[5]}" for r in TSV_ROWS],
)
def test_tsv_example(lineno: int, preset: str, seven: str, high: str, low: str, rule: str) -> None:
    check(PRESETS[preset], seven, high, low, rule)


# ---------------------------------------------------------------- docs/house-way.md worked examples

WORKED = [
    ("Jk As Ad Ac Ah Kd Ks", "Jk As Ad Ac Ah", "Kd Ks", "five-aces.kings"),
    ("Qs Qh 9c 9d 5s 3h 2c", "Qs Qh 5s 3h 2c", "9c 9d", "two-pair.split"),
    ("6s 6h 4c 4d Ks 8h 2c", "6s 6h 4c 4d 2c", "Ks 8h", "two-pair.keep-king"),
    ("Th Tc 8s 8d As 9h 3c", "Th Tc 8s 8d 3c", "As 9h", "two-pair.keep-ace"),
    ("9s 8s 7d 6h 5c Kd 2h", "9s 8s 7d 6h 5c", "Kd 2h", "straight"),
    ("Kh Kd Kc 7s 7d Qh 3c", "Kh Kd Kc Qh 3c", "7s 7d", "full-house.split"),
    ("Ac Ad Jk Qs 9h 6c 2d", "Ac Ad 9h 6c 2d", "Jk Qs", "trips.aces"),
    ("Ks Qd 9h 7c 5s 4d 2h", "Ks 7c 5s 4d 2h", "Qd 9h", "pai-gow"),
]


@pytest.mark.parametrize(("seven", "high", "low", "rule"), WORKED, ids=[w[3] for w in WORKED])
def test_worked_example(seven: str, high: str, low: str, rule: str) -> None:
    check(PRESETS["standard"], seven, high, low, rule)


def test_worked_examples_are_the_rule_books() -> None:
    text = HOUSE_WAY_DOC.read_text("utf-8").split("## Worked examples", 1)[1]
    rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([a-z.-]+) \|$", text, re.M)
    table = [
        tuple(cell.strip() for cell in row)
        for row in rows
        if row[0].strip() != "seven cards" and not row[0].startswith("-")
    ]
    assert table == WORKED


# ---------------------------------------------------------------- examples worked out by hand
# (preset, seven cards, high hand, low hand, rule id), each read off docs/house-way.md's text.
# S = standard, F = foxwoods, K = an operator preset with `keep` everywhere.

HAND_WORKED = [
    # 1. five aces
    ("S", "Jk Ac Ad Ah As Kc Kh", "Jk Ac Ad Ah As", "Kc Kh", "five-aces.kings"),
    ("F", "Jk Ac Ad Ah As Kc Kh", "Jk Ac Ad Ah As", "Kc Kh", "five-aces.kings"),
    ("S", "Jk Ac Ad Ah As Qc Qd", "Jk Ac Ad Qc Qd", "Ah As", "five-aces.split"),
    ("F", "Jk Ac Ad Ah As Kc 3d", "Jk Ac Ad Kc 3d", "Ah As", "five-aces.split"),
    # 2. straight flush: the best low, then the best high
    ("S", "9h 8h 7h 6h 5h Ac Kd", "9h 8h 7h 6h 5h", "Ac Kd", "straight-flush"),
    ("S", "Jk 9h 8h 7h 6h 5h As", "9h 8h 7h 6h 5h", "Jk As", "straight-flush"),
    ("S", "Ah Ad Ac Jk Kh Qh Jh", "Ah Kh Qh Jh Jk", "Ad Ac", "straight-flush"),
    ("F", "Ah 2h 3h 4h 5h 6h Kd", "6h 5h 4h 3h 2h", "Ah Kd", "straight-flush"),
    # 3. four of a kind
    ("S", "8c 8d 8h 8s Kc Kd 2h", "8c 8d 8h 8s 2h", "Kc Kd", "quads.pair-low"),
    ("S", "5c 5d 5h 5s 9c 9d 9h", "5c 5d 5h 5s 9h", "9c 9d", "quads.pair-low"),
    ("F", "Jk Ac Ad Ah 7c 7d 3s", "Jk Ac Ad Ah 3s", "7c 7d", "quads.pair-low"),
    ("S", "4c 4d 4h 4s Ac Qd 7h", "4c 4d 4h 4s 7h", "Ac Qd", "quads.keep"),
    ("F", "6c 6d 6h 6s Kc 9d 2h", "6c 6d 6h 6s 2h", "Kc 9d", "quads.keep"),
    ("K", "Kc Kd Kh Ks 7h 5s 3c", "Kc Kd Kh Ks 3c", "7h 5s", "quads.keep"),
    ("S", "9c 9d 9h 9s Ac Qd 3h", "9c 9d 9h 9s 3h", "Ac Qd", "quads.keep-ace"),
    ("S", "Tc Td Th Ts Jk Qd 3h", "Tc Td Th Ts 3h", "Jk Qd", "quads.keep-ace"),
    ("F", "8c 8d 8h 8s Kc 6d 3h", "8c 8d 8h 8s 3h", "Kc 6d", "quads.keep-king"),
    ("F", "7c 7d 7h 7s Ac 6d 3h", "7c 7d 7h 7s 3h", "Ac 6d", "quads.keep-king"),
    ("S", "9c 9d 9h 9s Kc Qd 3h", "9c 9d Kc Qd 3h", "9h 9s", "quads.split"),
    ("S", "Qc Qd Qh Qs Ac Kd 3h", "Qc Qd Ac Kd 3h", "Qh Qs", "quads.split"),
    ("S", "Jk Ac Ad Ah Kc 9d 3h", "Ac Ad Kc 9d 3h", "Jk Ah", "quads.split"),
    ("F", "7c 7d 7h 7s Qc 6d 3h", "7c 7d Qc 6d 3h", "7h 7s", "quads.split"),
    ("F", "Kc Kd Kh Ks Ac Qd 3h", "Kc Kd Ac Qd 3h", "Kh Ks", "quads.split"),
    # 4. two sets of three
    ("S", "Kc Kd Kh 6c 6d 6h 2s", "Kh 6c 6d 6h 2s", "Kc Kd", "trips.two-sets"),
    ("F", "Jk Ac Ad 3c 3d 3h 9s", "Ad 3c 3d 3h 9s", "Jk Ac", "trips.two-sets"),
    # 5. full house
    ("S", "Tc Td Th 8c 8d 4h 4s", "Tc Td Th 4h 4s", "8c 8d", "full-house.two-pairs"),
    ("F", "3c 3d 3h Jk Ac Kh Ks", "3c 3d 3h Kh Ks", "Jk Ac", "full-house.two-pairs"),
    ("S", "Jc Jd Jh 2c 2d Ah Ks", "Jc Jd Jh 2c 2d", "Ah Ks", "full-house.deuces"),
    ("F", "6c 6d 6h 2c 2d Jk Ks", "6c 6d 6h 2c 2d", "Jk Ks", "full-house.deuces"),
    ("S", "3c 3d 3h 2c 2d Ah Ks", "3c 3d 3h 2c 2d", "Ah Ks", "full-house.deuces"),
    ("S", "Jc Jd Jh 2c 2d Ah Qs", "Jc Jd Jh Ah Qs", "2c 2d", "full-house.split"),
    ("S", "Kc Kd Kh 5c 5d 9h 3s", "Kc Kd Kh 9h 3s", "5c 5d", "full-house.split"),
    ("F", "Ac Ad Ah 2c 2d Kh Qs", "Ac Ad Ah Kh Qs", "2c 2d", "full-house.split"),
    # 6. flush or straight: a placement with the best low
    ("S", "Ah Jh 8h 5h 2h Kc Qd", "Ah Jh 8h 5h 2h", "Kc Qd", "flush"),
    ("S", "Kh Th 8h 5h 2h 3h 3c", "Kh Th 8h 5h 2h", "3h 3c", "flush"),
    ("S", "Jk Kh 9h 6h 2h Qc 8d", "Jk Kh 9h 6h 2h", "Qc 8d", "flush"),
    ("F", "Qd 9d 7d 4d 3d Ac As", "Qd 9d 7d 4d 3d", "Ac As", "flush"),
    ("S", "Ac Ad Ah Kc 9c 5c 2c", "Ac Kc 9c 5c 2c", "Ad Ah", "flush"),
    ("S", "Tc 9d 8h 7s 6c Ac Ad", "Tc 9d 8h 7s 6c", "Ac Ad", "straight"),
    ("S", "8c 8d 8h 9s Tc Jd Qh", "8c 9s Tc Jd Qh", "8d 8h", "straight"),
    ("F", "Ac 2d 3h 4s 5c Kd Qh", "Ac 2d 3h 4s 5c", "Kd Qh", "straight"),
    # the straight leaves K-9 low, the flush only 7-4: the best low decides
    ("S", "Jk 3h 4d 6h 7c Kh 9h", "Jk 3h 4d 6h 7c", "Kh 9h", "straight"),
    # 7. three pairs
    ("S", "Kc Kd 9h 9s 4c 4d 2h", "9h 9s 4c 4d 2h", "Kc Kd", "three-pair"),
    ("F", "Jk As 9h 9s 4c 4d 2h", "9h 9s 4c 4d 2h", "Jk As", "three-pair"),
    ("S", "Ac Ad Kc Kd Qc Qd Jh", "Kc Kd Qc Qd Jh", "Ac Ad", "three-pair"),
    # 8. three of a kind
    ("S", "7c 7d 7h Kd 9s 4c 2h", "7c 7d 7h 4c 2h", "Kd 9s", "trips"),
    ("F", "Jk 7c 7d 7h 9s 4c 2h", "7c 7d 7h 4c 2h", "Jk 9s", "trips"),
    ("S", "Ac Ad Ah Kd 9s 4c 2h", "Ac Ad 9s 4c 2h", "Ah Kd", "trips.aces"),
    ("F", "Jk Ac Ad 8d 6s 4c 3h", "Jk Ac 6s 4c 3h", "Ad 8d", "trips.aces"),
    # 9. two pair
    ("S", "Ac Ad 5c 5d Kh 9s 3c", "Ac Ad Kh 9s 3c", "5c 5d", "two-pair.split"),
    ("S", "Jk As 5c 5d Kh 9s 3c", "Jk As Kh 9s 3c", "5c 5d", "two-pair.split"),
    ("S", "Ac Ad Kc Kd 7h 5s 3c", "Ac Ad 7h 5s 3c", "Kc Kd", "two-pair.split"),
    ("S", "Kc Kd 9c 9d Ah 7s 3c", "Kc Kd Ah 7s 3c", "9c 9d", "two-pair.split"),
    ("S", "Jc Jd 4c 4d Kh 8s 3c", "Jc Jd Kh 8s 3c", "4c 4d", "two-pair.split"),
    ("S", "Tc Td 7c 7d Kh 8s 3c", "Tc Td Kh 8s 3c", "7c 7d", "two-pair.split"),
    ("S", "6c 6d 2c 2d Qh Js 3c", "6c 6d Qh Js 3c", "2c 2d", "two-pair.split"),
    ("F", "Qc Qd 4c 4d Ah 8s 3c", "Qc Qd Ah 8s 3c", "4c 4d", "two-pair.split"),
    ("F", "9c 9d 3c 3d Kh 8s 2c", "9c 9d Kh 8s 2c", "3c 3d", "two-pair.split"),
    ("K", "Ac Ad Kc Kd 7h 5s 3c", "Ac Ad 7h 5s 3c", "Kc Kd", "two-pair.split"),
    # two pairs with a straight or a flush: the straight or flush is ignored
    ("S", "9c 9d 8c 8d 7h 6s 5c", "9c 9d 7h 6s 5c", "8c 8d", "two-pair.split"),
    ("S", "Kh Kd 4h 4c 9h 7h 2h", "Kh Kd 9h 7h 2h", "4h 4c", "two-pair.split"),
    ("S", "Qc Qd 4c 4d Ah 8s 3c", "Qc Qd 4c 4d 3c", "Ah 8s", "two-pair.keep-ace"),
    ("S", "Tc Td 7c 7d Ah 8s 3c", "Tc Td 7c 7d 3c", "Ah 8s", "two-pair.keep-ace"),
    ("S", "Jc Jd 5c 5d Jk 8s 3c", "Jc Jd 5c 5d 3c", "Jk 8s", "two-pair.keep-ace"),
    ("F", "9c 9d 3c 3d Ah 8s 2c", "9c 9d 3c 3d 2c", "Ah 8s", "two-pair.keep-ace"),
    ("F", "Tc Td 8c 8d Ah Ks 3c", "Tc Td 8c 8d 3c", "Ah Ks", "two-pair.keep-ace"),
    ("S", "9c 9d 3c 3d Kh 8s 2c", "9c 9d 3c 3d 2c", "Kh 8s", "two-pair.keep-king"),
    ("S", "6c 6d 2c 2d Ah Qs 3c", "6c 6d 2c 2d 3c", "Ah Qs", "two-pair.keep-king"),
    ("S", "7c 7d 6c 6d Kh 9s 2c", "7c 7d 6c 6d 2c", "Kh 9s", "two-pair.keep-king"),
    ("F", "5c 5d 3c 3d Kh 9s 2c", "5c 5d 3c 3d 2c", "Kh 9s", "two-pair.keep-king"),
    ("K", "Kc Kd Qc Qd 7h 5s 3c", "Kc Kd Qc Qd 3c", "7h 5s", "two-pair.keep"),
    ("K", "6c 6d 2c 2d 9h 8s 4c", "6c 6d 2c 2d 4c", "9h 8s", "two-pair.keep"),
    # 10. one pair
    ("S", "Jc Jd Ah 9s 7c 4d 2h", "Jc Jd 7c 4d 2h", "Ah 9s", "one-pair"),
    ("F", "Jk 8c 8d Kh Ts 4d 2h", "8c 8d Ts 4d 2h", "Jk Kh", "one-pair"),
    ("S", "Jk Ac Kh Ts 7d 4d 2h", "Jk Ac 7d 4d 2h", "Kh Ts", "one-pair"),
    # 11. no pair
    ("S", "Ah Jd 9h 7c 5s 4d 2c", "Ah 7c 5s 4d 2c", "Jd 9h", "pai-gow"),
    ("F", "Jk Qd 9h 7c 5s 4d 2h", "Jk 7c 5s 4d 2h", "Qd 9h", "pai-gow"),
]
HAND_WORKED_WAYS = {"S": WAYS["standard"], "F": WAYS["foxwoods"], "K": WAYS["all-keep"]}

ALL_RULE_IDS = set(RULE_IDS)  # defined once, in the core


@pytest.mark.parametrize(
    ("way", "seven", "high", "low", "rule"),
    HAND_WORKED,
    ids=[f"{w[0]}-{w[4]}-{w[1].replace(' ', '')}" for w in HAND_WORKED],
)
def test_hand_worked_example(way: str, seven: str, high: str, low: str, rule: str) -> None:
    check(HAND_WORKED_WAYS[way], seven, high, low, rule)


def test_hand_worked_examples_cover_every_rule_id_in_both_presets() -> None:
    assert {w[4] for w in HAND_WORKED} == ALL_RULE_IDS
    by_preset = {p: {w[4] for w in HAND_WORKED if w[0] == p} for p in ("S", "F")}
    # standard has no `keep-if-king` for quads and foxwoods no `keep-if-ace`, and neither keeps
    # two pair unconditionally (`two-pair.keep` is covered by the all-keep operator preset).
    reachable = ALL_RULE_IDS - {"two-pair.keep"}
    assert by_preset["S"] | {"quads.keep-king"} >= reachable
    assert by_preset["F"] | {"quads.keep-ace"} >= reachable


# ---------------------------------------------------------------- an independent reading


def _rank(card: Card) -> int:
    return 14 if card.is_joker else card.rank  # the joker pairs with aces


def _best_placement(seven: list[Card], cats: set[Category], wheel: Wheel) -> Setting | None:
    best: tuple[tuple[int, int], Setting] | None = None
    for low in combinations(seven, 2):
        high = tuple(c for c in seven if c not in low)
        hv = evaluate_five(high, wheel)
        if hv.category in cats:
            k = (evaluate_two(low).key, hv.key)
            if best is None or k > best[0]:
                best = (k, Setting(high, low))
    return None if best is None else best[1]


def _keep(action: str, singles: list[Card]) -> bool:
    have = {_rank(c) for c in singles}
    return (
        action == "keep"
        or (action == "keep-if-ace" and 14 in have)
        or (action == "keep-if-king" and bool(have & {13, 14}))
    )


def reference_house_way(
    cards: Sequence[Card], params: dict[str, Any], wheel: Wheel
) -> list[tuple[Setting, str]]:
    """docs/house-way.md's rules read independently of paigow.house_way. Returns every setting the
    text allows (more than one only where it leaves a real choice: which pair of three aces and
    the joker goes low in `quads.split`)."""
    seven = list(cards)
    count = Counter(_rank(c) for c in seven)

    def of(rank: int) -> list[Card]:
        return [c for c in seven if _rank(c) == rank]

    def low(cards_low: Sequence[Card], rule: str) -> list[tuple[Setting, str]]:
        high = tuple(c for c in seven if c not in cards_low)
        return [(Setting(high, tuple(cards_low)), rule)]

    singles = sorted((c for c in seven if count[_rank(c)] == 1), key=_rank, reverse=True)
    pairs = sorted((r for r, n in count.items() if n == 2), reverse=True)
    trips = sorted((r for r, n in count.items() if n == 3), reverse=True)
    quads = [r for r, n in count.items() if n == 4]

    if count[14] == 5:  # 1
        if count[13] == 2:
            return low(of(13), "five-aces.kings")
        return low([c for c in of(14) if not c.is_joker][:2], "five-aces.split")
    sf = _best_placement(seven, {Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH}, wheel)
    if sf is not None:  # 2
        return [(sf, "straight-flush")]
    if quads:  # 3
        q = quads[0]
        beside = [r for r in count if r != q and count[r] >= 2]
        if beside:
            return low(of(beside[0])[:2], "quads.pair-low")
        cls = "low" if q <= 6 else "middle" if q <= 10 else "high"
        action = params["quads"][cls]
        if _keep(action, singles):
            rule = {"keep": "keep", "keep-if-ace": "keep-ace", "keep-if-king": "keep-king"}[action]
            return low(singles[:2], f"quads.{rule}")
        return [s for pair in combinations(of(q), 2) for s in low(pair, "quads.split")]
    if len(trips) == 2:  # 4
        return low(of(trips[0])[:2], "trips.two-sets")
    if len(trips) == 1 and pairs:  # 5
        if len(pairs) == 2:
            return low(of(pairs[0]), "full-house.two-pairs")
        aces = [c for c in singles if _rank(c) == 14]
        kings = [c for c in singles if _rank(c) == 13]
        if pairs[0] == 2 and aces and kings:
            return low([aces[0], kings[0]], "full-house.deuces")
        return low(of(pairs[0]), "full-house.split")
    if len(pairs) < 2:  # 6
        s = _best_placement(seven, {Category.STRAIGHT, Category.FLUSH}, wheel)
        if s is not None:
            kept = evaluate_five(s.high, wheel).category
            return [(s, "flush" if kept is Category.FLUSH else "straight")]
    if len(pairs) == 3:  # 7
        return low(of(pairs[0]), "three-pair")
    if len(trips) == 1:  # 8
        if trips[0] == 14:
            return low([of(14)[0], singles[0]], "trips.aces")
        return low(singles[:2], "trips")
    if len(pairs) == 2:  # 9
        hi, lo = pairs
        if hi == 14:
            return low(of(lo), "two-pair.split")

        def cls2(r: int) -> str:
            return "low" if r <= 6 else "middle" if r <= 10 else "high"

        action = params["two_pair"][f"{cls2(hi)}_{cls2(lo)}"]
        if _keep(action, singles):
            rule = {"keep": "keep", "keep-if-ace": "keep-ace", "keep-if-king": "keep-king"}[action]
            return low(singles[:2], f"two-pair.{rule}")
        return low(of(lo), "two-pair.split")
    if len(pairs) == 1:  # 10
        return low(singles[:2], "one-pair")
    ordered = sorted(seven, key=_rank, reverse=True)  # 11
    return low(ordered[1:3], "pai-gow")


@st.composite
def dense_hands(draw: st.DrawFn) -> list[Card]:
    """Seven cards biased towards the rare rules: few ranks, few suits, runs, aces and the joker."""
    kind = draw(st.sampled_from(["ranks", "suits", "run", "aces"]))
    if kind == "ranks":
        ranks = draw(st.sets(st.integers(2, 14), min_size=2, max_size=4))
        pool = [c for c in FULL_DECK if c.is_joker or c.rank in ranks]
    elif kind == "suits":
        suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=2))
        pool = [c for c in FULL_DECK if c.is_joker or c.suit in suits]
    elif kind == "run":
        bottom = draw(st.integers(2, 10))
        pool = [
            c for c in FULL_DECK if c.is_joker or bottom <= c.rank <= bottom + 4 or c.rank == 14
        ]
    else:
        pool = [c for c in FULL_DECK if c.is_joker or c.rank >= 13 or c.rank == 2]
    extra = draw(st.lists(st.sampled_from(FULL_DECK), max_size=2, unique=True))
    pool = list(dict.fromkeys([*pool, *extra]))
    return draw(st.lists(st.sampled_from(pool), min_size=7, max_size=7, unique=True))


any_hand = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True)


def _agrees_with_reference(cards: list[Card], name: str, wheel: Wheel) -> None:
    way = WAYS[name]
    got = way.set_hand(cards, wheel)
    allowed = {
        (*strength(s.high, s.low, wheel), rule)
        for s, rule in reference_house_way(cards, PARAMS[name], wheel)
    }
    assert (*strength(got.setting.high, got.setting.low, wheel), got.rule) in allowed, (
        f"{way.name}: {' '.join(c.code for c in cards)} -> {got.setting} ({got.rule})"
    )


@settings(max_examples=1500, deadline=None)
@given(any_hand, st.sampled_from(sorted(WAYS)), st.sampled_from(list(Wheel)))
def test_agrees_with_an_independent_reading_on_random_hands(
    cards: list[Card], name: str, wheel: Wheel
) -> None:
    _agrees_with_reference(cards, name, wheel)


@settings(max_examples=2500, deadline=None)
@given(dense_hands(), st.sampled_from(sorted(WAYS)), st.sampled_from(list(Wheel)))
@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
def test_agrees_with_an_independent_reading_on_dense_hands(
    cards: list[Card], name: str, wheel: Wheel
) -> None:
    _agrees_with_reference(cards, name, wheel)


# ---------------------------------------------------------------- invariants


@pytest.mark.slow  # seconds: the full suite's; the quick lane keeps the dense hands' twin below
@pytest.mark.parametrize("name", sorted(PRESETS))
@settings(max_examples=3000, deadline=None)
@given(cards=any_hand, wheel=st.sampled_from(list(Wheel)))
def test_never_fouls_and_uses_exactly_the_seven_cards(
    name: str, cards: list[Card], wheel: Wheel
) -> None:
    got = PRESETS[name].set_hand(cards, wheel)
    s = got.setting
    assert not s.is_foul, f"{' '.join(c.code for c in cards)} -> {s} ({got.rule}) fouls"
    assert not s.value(wheel).foul
    assert len(s.high) == 5 and len(s.low) == 2
    assert len(set(s.cards)) == 7
    assert set(s.cards) == set(cards)
    assert got.rule in ALL_RULE_IDS


@pytest.mark.parametrize("name", sorted(WAYS))
@settings(max_examples=600, deadline=None)
@given(cards=dense_hands())
def test_never_fouls_on_dense_hands(name: str, cards: list[Card]) -> None:
    s = WAYS[name].set_hand(cards).setting
    assert not s.is_foul
    assert set(s.cards) == set(cards)


@pytest.mark.slow  # seconds: the full suite's; the quick lane keeps the dense hands' twin below
@pytest.mark.parametrize("name", sorted(PRESETS))
@settings(max_examples=3000, deadline=None)
@given(cards=any_hand, order=st.permutations(range(7)), wheel=st.sampled_from(list(Wheel)))
def test_does_not_depend_on_card_order(
    name: str, cards: list[Card], order: list[int], wheel: Wheel
) -> None:
    way = PRESETS[name]
    a = way.set_hand(cards, wheel)
    b = way.set_hand([cards[i] for i in order], wheel)
    assert a.rule == b.rule
    assert strength(a.setting.high, a.setting.low, wheel) == strength(
        b.setting.high, b.setting.low, wheel
    )
    assert a.setting.same_hands(b.setting)  # the same cards, not only the same strength


@pytest.mark.parametrize("name", sorted(WAYS))
@settings(max_examples=500, deadline=None)
@given(cards=dense_hands(), order=st.permutations(range(7)))
def test_does_not_depend_on_card_order_dense(
    name: str, cards: list[Card], order: list[int]
) -> None:
    way = WAYS[name]
    a = way.set_hand(cards)
    b = way.set_hand([cards[i] for i in order])
    assert a.rule == b.rule
    assert a.setting.same_hands(b.setting)


def test_set_hand_needs_seven_distinct_cards() -> None:
    way = PRESETS["standard"]
    with pytest.raises(ValueError):
        way.set_hand(parse_cards("As Kd Qh Jc 9s 7d"))
    with pytest.raises(ValueError):
        way.set_hand([*parse_cards("As Kd Qh Jc 9s 7d"), parse_cards("As")[0]])


# ---------------------------------------------------------------- presets


def test_builtin_preset_parameters_are_the_rule_books_table() -> None:
    """The parameters the presets were written with are the rule book's table; that the
    rewritten files set every hand as those parameters do is checked on every hand in
    tests/test_house_way_language.py."""
    standard = legacy_params("standard")
    assert standard["two_pair"] == {
        "aces": "split",
        "high_high": "split",
        "high_middle": "split",
        "high_low": "keep-if-ace",
        "middle_middle": "keep-if-ace",
        "middle_low": "keep-if-king",
        "low_low": "keep-if-king",
    }
    assert standard["quads"] == {"low": "keep", "middle": "keep-if-ace", "high": "split"}
    foxwoods = legacy_params("foxwoods")
    assert foxwoods["two_pair"] == {
        "aces": "split",
        "high_high": "split",
        "high_middle": "split",
        "high_low": "split",
        "middle_middle": "keep-if-ace",
        "middle_low": "keep-if-ace",
        "low_low": "keep-if-king",
    }
    assert foxwoods["quads"] == {"low": "keep", "middle": "keep-if-king", "high": "split"}


def test_unknown_builtin_preset_is_named() -> None:
    with pytest.raises(HouseWayError, match="casino-royale"):
        HouseWay.preset("casino-royale")


@pytest.mark.parametrize("name", ["standard", "foxwoods", "all-keep", "mixed"])
def test_to_dict_from_dict_round_trip(name: str) -> None:
    way = WAYS[name]
    again = HouseWay.from_dict(json.loads(json.dumps(way.to_dict())))
    assert again == way
    assert again.to_dict() == way.to_dict()


# ---------------------------------------------------------------- operator preset files

KEEP_TOML = """\
name = "riverboat"

[two_pair]
aces = "split"
high_high = "keep"
high_middle = "keep"
high_low = "keep"
middle_middle = "keep"
middle_low = "keep"
low_low = "keep"

[quads]
low = "keep"
middle = "keep"
high = "keep"
"""


def _write_toml(path: Path, data: dict[str, Any]) -> Path:
    lines = []
    if "name" in data:
        lines.append(f'name = "{data["name"]}"')
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"[{key}]")
            lines.extend(f'{k} = "{v}"' for k, v in value.items())
        elif key != "name":
            lines.insert(0, f'{key} = "{value}"')
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_operator_preset_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "riverboat.toml"
    path.write_text(KEEP_TOML, "utf-8")
    way = HouseWay.from_file(path)
    assert way.name == "riverboat"
    assert way == HouseWay.from_dict(ALL_KEEP | {"name": "riverboat"})
    r = way.set_hand(parse_cards("Kc Kd Qc Qd 7h 5s 3c"))
    assert r.rule == "two-pair.keep"
    assert set(r.setting.low) == set(parse_cards("7h 5s"))
    assert HouseWay.load(str(path)) == way
    assert HouseWay.load(path) == way


def test_operator_preset_from_json(tmp_path: Path) -> None:
    data = {k: v for k, v in MIXED.items() if k != "name"}
    path = tmp_path / "mixed-house.json"
    path.write_text(json.dumps(data), "utf-8")
    way = HouseWay.from_file(path)
    assert way.name == "mixed-house"  # the file's name when it names none
    assert way.rules == WAYS["mixed"].rules
    r = way.set_hand(parse_cards("Kc Kd 9c 9d Qh 7s 3c"))  # high_middle keep-if-king: no king
    assert r.rule == "two-pair.split"
    r = way.set_hand(parse_cards("Qc Qd 9c 9d Kh 7s 3c"))  # ... with a king
    assert r.rule == "two-pair.keep-king"


def test_operator_file_copying_standard_plays_like_standard(tmp_path: Path) -> None:
    path = _write_toml(tmp_path / "copy.toml", legacy_params("standard") | {"name": "copy"})
    way = HouseWay.from_file(path)
    for _, preset, seven, _, _, _ in TSV_ROWS:
        if preset != "standard":
            continue
        cards = parse_cards(seven, count=7)
        a, b = way.set_hand(cards), PRESETS["standard"].set_hand(cards)
        assert a.rule == b.rule
        assert a.setting.same_hands(b.setting)


def _base() -> dict[str, Any]:
    return json.loads(json.dumps(ALL_KEEP))


@pytest.mark.parametrize("suffix", [".toml", ".json"])
@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.update(surrender="yes"), "surrender"),
        (lambda d: d["two_pair"].update(aces_low="split"), "aces_low"),
        (lambda d: d["quads"].update(aces="keep"), "aces"),
        (lambda d: d["quads"].update(royal="split"), "royal"),
    ],
    ids=["top-level", "two_pair", "quads-aces", "quads-royal"],
)
def test_unknown_parameter_is_refused_and_named(
    tmp_path: Path, suffix: str, change: Any, named: str
) -> None:
    data = _base()
    change(data)
    path = tmp_path / f"bad{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(data), "utf-8")
    else:
        _write_toml(path, data)
    with pytest.raises(HouseWayError, match=named):
        HouseWay.from_file(path)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
@pytest.mark.parametrize(
    ("table", "key", "value"),
    [
        ("two_pair", "high_low", "sometimes"),
        ("two_pair", "low_low", "keep-if-queen"),
        ("quads", "middle", "Keep"),
        ("quads", "high", "fold"),
    ],
)
def test_unknown_value_is_refused_and_named(
    tmp_path: Path, suffix: str, table: str, key: str, value: str
) -> None:
    data = _base()
    data[table][key] = value
    path = tmp_path / f"bad{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(data), "utf-8")
    else:
        _write_toml(path, data)
    with pytest.raises(HouseWayError) as info:
        HouseWay.from_file(path)
    assert repr(value) in str(info.value)
    assert f"{table}.{key}" in str(info.value)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
@pytest.mark.parametrize(
    ("table", "key"),
    [("two_pair", "low_low"), ("two_pair", "high_high"), ("quads", "middle"), ("quads", "low")],
)
def test_missing_parameter_is_refused_and_named(
    tmp_path: Path, suffix: str, table: str, key: str
) -> None:
    data = _base()
    del data[table][key]
    path = tmp_path / f"short{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(data), "utf-8")
    else:
        _write_toml(path, data)
    with pytest.raises(HouseWayError, match=rf"{table}\.{key}"):
        HouseWay.from_file(path)


def test_missing_table_names_its_parameters(tmp_path: Path) -> None:
    data = _base()
    del data["quads"]
    path = tmp_path / "noquads.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(HouseWayError) as info:
        HouseWay.from_file(path)
    for key in ("quads.low", "quads.middle", "quads.high"):
        assert key in str(info.value)


def test_aces_with_another_pair_cannot_be_kept(tmp_path: Path) -> None:
    data = _base()
    data["two_pair"]["aces"] = "keep"
    path = tmp_path / "aces.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(HouseWayError, match="aces"):
        HouseWay.from_file(path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("broken.toml", "name = \n[two_pair"),
        ("broken.json", "{not json"),
        ("list.json", "[1, 2, 3]"),
        ("scalar.json", '{"name": "x", "two_pair": "split", "quads": {}}'),
    ],
)
def test_malformed_files_are_refused(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(HouseWayError):
        HouseWay.from_file(path)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HouseWayError, match="nowhere"):
        HouseWay.from_file(tmp_path / "nowhere.toml")
