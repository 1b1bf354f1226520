"""Exhaustive check of paigow.ranking against the independent reference (tests/helpers/reference_eval.py).

For both wheel settings, every one of the C(53,5) = 2,869,685 five-card hands of the pai gow deck
is evaluated by the production evaluator and by the reference. The production keys must induce
exactly the reference's total order, copies included: the map production key -> reference value
must be a function (a key never stands for two different reference values) and strictly increasing
(sorting by key sorts the reference values strictly; so two hands tie in production if and only if
they tie in the reference). Categories are compared hand by hand and their counts are checked
against a frequency table derived independently (see EXPECTED_COUNTS). All C(53,2) = 1,378
two-card hands are checked the same way.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from paigow.cards import FULL_DECK
from paigow.ranking import Category, Wheel, evaluate_five, evaluate_two
from tests.helpers import reference_eval as ref

pytestmark = pytest.mark.exhaustive


DECK_CARDS = tuple(FULL_DECK)
DECK_CODES = tuple(card.code for card in DECK_CARDS)
WHEEL_SETTINGS = {"second": Wheel.SECOND, "lowest": Wheel.LOWEST}

# ----------------------------------------------------------------------------------------------
# Expected category counts over all C(53,5) hands (they do not depend on the wheel setting).
#
# Published evidence:
# * Joker-free hands (the standard 52-card table, with the 4 royal flushes split from the 40
#   straight flushes): 4 / 36 / 624 / 3,744 / 5,108 / 10,200 / 54,912 / 123,552 / 1,098,240 /
#   1,302,540, total 2,598,960 -- e.g. http://mathproblems.info/prob62a.htm and
#   http://suffe.cool/poker/wild.html (Cactus Kev, "Enumerating Wild Card Hands").
# * 53-card deck with one joker, straight flush (royals included) 204, flush 7,804, straight
#   20,532: https://fennaixelphox.dreamwidth.org/1543.html. That table is for a fully wild joker,
#   but in these three categories the bug and a fully wild joker agree: a joker hand can only be
#   a straight or flush if its four other cards have four distinct ranks, and then a fully wild
#   joker can make nothing better than a pair out of them either.
# * Brian Alspach, "Bring On The Jokers", Poker Digest 4(18), 2001,
#   http://people.math.sfu.ca/~alspach/mag79 counts exactly this joker (ace, or wild for straights
#   and flushes) by the same split C(53,5) = C(52,5) + C(52,4) used below; only its opening could
#   be retrieved, not its final table, so the joker terms are derived here by hand.
#
# Joker terms (joker + 4 of the 52 cards; "non-ace" ranks are the 12 ranks 2..K):
# * Rank sets that a joker completes to a straight: 4 distinct non-ace ranks spanning <= 4
#   (9 runs of four + 8 * 3 with one gap = 33), or an ace with 3 of {2,3,4,5} or of {T,J,Q,K} (8).
#   Every suit pattern (4**4 = 256) of those 41 rank sets is a straight (252) or straight flush (4).
#   Of the 41 * 4 = 164 straight flushes, 5 rank sets * 4 suits = 20 are royal flushes.
# * The other C(12,4) - 33 = 462 non-ace sets and C(12,3) - 8 = 212 ace sets are flushes when
#   suited (4 each), otherwise ace-high (462 * 252) or a pair of aces (212 * 252).
# ----------------------------------------------------------------------------------------------
_STANDARD_52 = {
    Category.HIGH_CARD: 1_302_540,
    Category.ONE_PAIR: 1_098_240,
    Category.TWO_PAIR: 123_552,
    Category.THREE_OF_A_KIND: 54_912,
    Category.STRAIGHT: 10_200,
    Category.FLUSH: 5_108,
    Category.FULL_HOUSE: 3_744,
    Category.FOUR_OF_A_KIND: 624,
    Category.STRAIGHT_FLUSH: 36,
    Category.ROYAL_FLUSH: 4,
    Category.FIVE_ACES: 0,
}
_JOKER_HANDS = {
    # joker + 4 distinct non-ace ranks, no straight or flush: ace high
    Category.HIGH_CARD: 462 * 252,
    # joker + pair (non-ace) + 2 other non-ace ranks: the pair with an ace kicker
    # + joker + ace + 3 distinct non-ace ranks, no straight or flush: a pair of aces
    Category.ONE_PAIR: 12 * 6 * math.comb(11, 2) * 16 + 212 * 252,
    # joker + two non-ace pairs (ace kicker) + joker + non-ace pair + ace + other (aces up)
    Category.TWO_PAIR: math.comb(12, 2) * 36 + 12 * 6 * 4 * 44,
    # joker + AA + 2 distinct non-ace ranks + joker + non-ace trips + non-ace other card
    Category.THREE_OF_A_KIND: 6 * math.comb(12, 2) * 16 + 12 * 4 * 44,
    Category.STRAIGHT: 41 * 252,
    Category.FLUSH: (462 + 212) * 4,
    # joker + AA + non-ace pair (aces full) + joker + non-ace trips + ace
    Category.FULL_HOUSE: 6 * 12 * 6 + 12 * 4 * 4,
    # joker + AAA + any non-ace card (four aces) + joker + non-ace quads (ace kicker)
    Category.FOUR_OF_A_KIND: 4 * 48 + 12,
    Category.STRAIGHT_FLUSH: 41 * 4 - 20,
    Category.ROYAL_FLUSH: 20,
    Category.FIVE_ACES: 1,
}
EXPECTED_COUNTS = {cat: _STANDARD_52[cat] + _JOKER_HANDS[cat] for cat in Category}
# The same table written out (cross-checked against the formulas above in a test below).
EXPECTED_COUNTS_LITERAL = {
    Category.HIGH_CARD: 1_418_964,
    Category.ONE_PAIR: 1_215_024,
    Category.TWO_PAIR: 138_600,
    Category.THREE_OF_A_KIND: 63_360,
    Category.STRAIGHT: 20_532,
    Category.FLUSH: 7_804,
    Category.FULL_HOUSE: 4_368,
    Category.FOUR_OF_A_KIND: 828,
    Category.STRAIGHT_FLUSH: 180,
    Category.ROYAL_FLUSH: 24,
    Category.FIVE_ACES: 1,
}

MAX_EXAMPLES = 10


def test_expected_table_is_consistent() -> None:
    assert sum(_STANDARD_52.values()) == math.comb(52, 5)
    assert sum(_JOKER_HANDS.values()) == math.comb(52, 4)
    assert sum(EXPECTED_COUNTS.values()) == math.comb(53, 5) == 2_869_685
    assert EXPECTED_COUNTS == EXPECTED_COUNTS_LITERAL
    # The published one-joker numbers for the categories where bug and wild joker agree.
    assert EXPECTED_COUNTS[Category.STRAIGHT_FLUSH] + EXPECTED_COUNTS[Category.ROYAL_FLUSH] == 204
    assert EXPECTED_COUNTS[Category.FLUSH] == 7_804
    assert EXPECTED_COUNTS[Category.STRAIGHT] == 20_532


def test_category_numbering_matches_reference() -> None:
    assert {c.name: int(c) for c in Category} == {
        "HIGH_CARD": ref.HIGH_CARD,
        "ONE_PAIR": ref.ONE_PAIR,
        "TWO_PAIR": ref.TWO_PAIR,
        "THREE_OF_A_KIND": ref.THREE_OF_A_KIND,
        "STRAIGHT": ref.STRAIGHT,
        "FLUSH": ref.FLUSH,
        "FULL_HOUSE": ref.FULL_HOUSE,
        "FOUR_OF_A_KIND": ref.FOUR_OF_A_KIND,
        "STRAIGHT_FLUSH": ref.STRAIGHT_FLUSH,
        "ROYAL_FLUSH": ref.ROYAL_FLUSH,
        "FIVE_ACES": ref.FIVE_ACES,
    }


def test_full_deck() -> None:
    assert len(DECK_CODES) == 53
    assert sorted(DECK_CODES) == sorted(ref.DECK)


# ---------------------------------------------------------------- five-card hands, exhaustive


def _hands_starting_at(first: int) -> Iterator[tuple[int, ...]]:
    """All 5-index combinations of the deck whose smallest index is ``first``."""
    for rest in itertools.combinations(range(first + 1, len(DECK_CARDS)), 4):
        yield (first, *rest)


def _five_card_chunk(task: tuple[str, int]) -> dict[str, Any]:
    """Worker: evaluate one chunk with production and reference; summarise it compactly."""
    wheel_name, first = task
    wheel = WHEEL_SETTINGS[wheel_name]
    key_to_ref: dict[int, tuple[int, ...]] = {}
    key_example: dict[int, str] = {}
    conflicts: list[tuple[int, str, tuple[int, ...], str, tuple[int, ...]]] = []
    category_mismatches: list[tuple[str, int, tuple[int, ...]]] = []
    production_counts: Counter[int] = Counter()
    reference_counts: Counter[int] = Counter()
    n = 0
    for idx in _hands_starting_at(first):
        n += 1
        cards = tuple(DECK_CARDS[i] for i in idx)
        codes = [DECK_CODES[i] for i in idx]
        value = evaluate_five(cards, wheel)
        key = value.key
        category = int(value.category)
        expected = ref.reference_five(codes, wheel_name)
        production_counts[category] += 1
        reference_counts[expected[0]] += 1
        if category != expected[0] and len(category_mismatches) < MAX_EXAMPLES:
            category_mismatches.append((" ".join(codes), category, expected))
        seen = key_to_ref.get(key)
        if seen is None:
            key_to_ref[key] = expected
            key_example[key] = " ".join(codes)
        elif seen != expected and len(conflicts) < MAX_EXAMPLES:
            conflicts.append((key, key_example[key], seen, " ".join(codes), expected))
    return {
        "n": n,
        "key_to_ref": key_to_ref,
        "key_example": key_example,
        "conflicts": conflicts,
        "category_mismatches": category_mismatches,
        "production_counts": production_counts,
        "reference_counts": reference_counts,
    }


def _pool() -> Any:
    # fork: the workers inherit the imported production and reference modules.
    return multiprocessing.get_context("fork").Pool(2)


#: A reduced deck where every category meets its neighbours: all four aces to fives (five aces
#: with the joker, the wheel, quads, full houses, flushes), the spade broadway (royal flushes,
#: natural and with the joker) and the joker.
REDUCED = [c for c in DECK_CARDS if c.is_joker or c.rank in (14, 2, 3, 4, 5)] + [
    c for c in DECK_CARDS if c.code in ("Ks", "Qs", "Js", "Ts")
]


@pytest.mark.parametrize("wheel_name", ["second", "lowest"])
def test_five_card_order_matches_reference_on_a_reduced_deck(wheel_name: str) -> None:
    """The order of every five-card hand of :data:`REDUCED` (53,130 hands) is the reference's:
    equal keys for equal values, the keys sorted as the values (the suite's; every hand of the
    full deck: the ``full_deck`` lane)."""
    wheel = WHEEL_SETTINGS[wheel_name]
    assert len(REDUCED) == 25
    by_key: dict[int, tuple[int, ...]] = {}
    categories: set[int] = set()
    for hand in itertools.combinations(REDUCED, 5):
        value = evaluate_five(hand, wheel)
        expected = ref.reference_five([c.code for c in hand], wheel_name)
        assert int(value.category) == expected[0], hand
        assert by_key.setdefault(value.key, expected) == expected, hand
        categories.add(expected[0])
    keys = sorted(by_key)
    assert all(by_key[a] < by_key[b] for a, b in itertools.pairwise(keys))
    assert len(categories) >= 10  # high card to five aces, royal flush among them


@pytest.mark.full_deck
@pytest.mark.parametrize("wheel_name", ["second", "lowest"])
def test_five_card_order_matches_reference_exhaustively(wheel_name: str) -> None:
    # Biggest chunks first so the two workers finish together.
    tasks = [(wheel_name, first) for first in range(len(DECK_CARDS) - 4)]
    key_to_ref: dict[int, tuple[int, ...]] = {}
    key_example: dict[int, str] = {}
    conflicts: list[Any] = []
    category_mismatches: list[Any] = []
    production_counts: Counter[int] = Counter()
    reference_counts: Counter[int] = Counter()
    total = 0
    with _pool() as pool:
        for part in pool.imap_unordered(_five_card_chunk, tasks):
            total += part["n"]
            conflicts.extend(part["conflicts"])
            category_mismatches.extend(part["category_mismatches"])
            production_counts.update(part["production_counts"])
            reference_counts.update(part["reference_counts"])
            for key, expected in part["key_to_ref"].items():
                seen = key_to_ref.get(key)
                if seen is None:
                    key_to_ref[key] = expected
                    key_example[key] = part["key_example"][key]
                elif seen != expected:
                    conflicts.append(
                        (key, key_example[key], seen, part["key_example"][key], expected)
                    )

    assert total == math.comb(53, 5)

    # Same category for every hand.
    assert not category_mismatches, (
        f"{wheel_name}: production category differs from reference, e.g. "
        "(hand, production category, reference value): "
        f"{category_mismatches[:MAX_EXAMPLES]}"
    )

    # A production key never stands for two different reference values (no false copies).
    assert not conflicts, (
        f"{wheel_name}: hands with equal production keys but different reference values, e.g. "
        "(key, hand A, reference A, hand B, reference B): "
        f"{conflicts[:MAX_EXAMPLES]}"
    )

    # Sorting by production key sorts the reference values strictly: same order, and hands
    # that differ in the reference never share a key (no missed copies, no inversions).
    keys = sorted(key_to_ref)
    violations = [
        (key_example[a], key_to_ref[a], key_example[b], key_to_ref[b])
        for a, b in itertools.pairwise(keys)
        if not key_to_ref[a] < key_to_ref[b]
    ]
    assert not violations, (
        f"{wheel_name}: production order disagrees with the reference, e.g. "
        "(lower-keyed hand, its reference value, next hand, its reference value): "
        f"{violations[:MAX_EXAMPLES]}"
    )
    # Equivalent to the above, said directly: as many distinct values in both.
    assert len(set(key_to_ref.values())) == len(keys)

    # Category counts: production == reference == the derived/published table.
    expected_counts = {int(cat): count for cat, count in EXPECTED_COUNTS.items()}
    assert dict(reference_counts) == {k: v for k, v in expected_counts.items() if v}
    assert dict(production_counts) == dict(reference_counts)


# ---------------------------------------------------------------- two-card hands, exhaustive


def test_two_card_order_matches_reference_exhaustively() -> None:
    key_to_ref: dict[int, tuple[int, ...]] = {}
    key_example: dict[int, str] = {}
    conflicts = []
    count = 0
    for idx in itertools.combinations(range(len(DECK_CARDS)), 2):
        count += 1
        cards = tuple(DECK_CARDS[i] for i in idx)
        codes = [DECK_CODES[i] for i in idx]
        key = evaluate_two(cards).key
        expected = ref.reference_two(codes)
        seen = key_to_ref.setdefault(key, expected)
        key_example.setdefault(key, " ".join(codes))
        if seen != expected:
            conflicts.append((key, key_example[key], seen, " ".join(codes), expected))
    assert count == 1_378
    assert not conflicts, f"equal two-card keys, different reference values: {conflicts[:10]}"
    keys = sorted(key_to_ref)
    violations = [
        (key_example[a], key_to_ref[a], key_example[b], key_to_ref[b])
        for a, b in itertools.pairwise(keys)
        if not key_to_ref[a] < key_to_ref[b]
    ]
    assert not violations, f"two-card order disagrees with the reference: {violations[:10]}"
    assert len(keys) == 13 + 78  # 13 pairs and 78 non-pairs, joker counted as an ace
