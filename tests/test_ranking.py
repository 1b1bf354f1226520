"""Hand ranking with the joker: docs/rulebook.md#ranking, hand-picked cases and properties."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.errors import CardError
from paigow.ranking import (
    Category,
    HandValue,
    TwoCardValue,
    Wheel,
    best_five,
    evaluate_five,
    evaluate_two,
)

STANDARD = [c for c in FULL_DECK if not c.is_joker]


def five(text: str, wheel: Wheel = Wheel.SECOND) -> HandValue:
    return evaluate_five(parse_cards(text, count=5), wheel)


def two(text: str) -> TwoCardValue:
    return evaluate_two(parse_cards(text, count=2))


# ---------------------------------------------------------------- categories and names

CASES = [
    # (hand, category, readable name)
    ("Jk As Ad Ac Ah", Category.FIVE_ACES, "five aces"),
    ("As Ks Qs Js Ts", Category.ROYAL_FLUSH, "royal flush"),
    ("Jk Kh Qh Jh Th", Category.ROYAL_FLUSH, "royal flush"),
    ("Jk Ah Qh Jh Th", Category.ROYAL_FLUSH, "royal flush"),
    ("Jk Ad Kd Qd Jd", Category.ROYAL_FLUSH, "royal flush"),
    ("Kc Qc Jc Tc 9c", Category.STRAIGHT_FLUSH, "straight flush, nine to king"),
    ("9h 8h 7h 6h 5h", Category.STRAIGHT_FLUSH, "straight flush, five to nine"),
    ("Jk 9h 8h 6h 5h", Category.STRAIGHT_FLUSH, "straight flush, five to nine"),
    ("Jk 8h 7h 6h 5h", Category.STRAIGHT_FLUSH, "straight flush, five to nine"),
    ("Ah 2h 3h 4h 5h", Category.STRAIGHT_FLUSH, "straight flush, ace to five"),
    ("Jk 2s 3s 4s 5s", Category.STRAIGHT_FLUSH, "straight flush, ace to five"),
    ("6d 5d 4d 3d 2d", Category.STRAIGHT_FLUSH, "straight flush, two to six"),
    ("7s 7h 7d 7c Kd", Category.FOUR_OF_A_KIND, "four of a kind, sevens"),
    ("6s 6h 6d 6c 2d", Category.FOUR_OF_A_KIND, "four of a kind, sixes"),
    ("Jk Ac Ad Ah 2c", Category.FOUR_OF_A_KIND, "four of a kind, aces"),
    ("Jk Kc Kd Kh Ks", Category.FOUR_OF_A_KIND, "four of a kind, kings"),
    ("Ks Kh Kd 7c 7d", Category.FULL_HOUSE, "full house, kings over sevens"),
    ("Jk As 7c 7d 7h", Category.FULL_HOUSE, "full house, sevens over aces"),
    ("Jk As Ad 7c 7d", Category.FULL_HOUSE, "full house, aces over sevens"),
    ("Ah Jh 8h 5h 2h", Category.FLUSH, "flush, ace high"),
    ("Kc Jc 8c 5c 2c", Category.FLUSH, "flush, king high"),
    ("Jk 9h 7h 4h 2h", Category.FLUSH, "flush, ace high"),
    ("9s 8d 7c 6h 5s", Category.STRAIGHT, "straight, five to nine"),
    ("As Kd Qc Jh Ts", Category.STRAIGHT, "straight, ten to ace"),
    ("As 2d 3c 4h 5s", Category.STRAIGHT, "straight, ace to five"),
    ("6s 2d 3c 4h 5s", Category.STRAIGHT, "straight, two to six"),
    ("Jk 9s 8d 7c 6h", Category.STRAIGHT, "straight, six to ten"),
    ("Jk Ks Qd Jc Th", Category.STRAIGHT, "straight, ten to ace"),
    ("Jk 2s 3d 4c 5h", Category.STRAIGHT, "straight, ace to five"),
    ("7s 7h 7d Kc 2d", Category.THREE_OF_A_KIND, "three of a kind, sevens"),
    ("Jk As Ad Kc 2d", Category.THREE_OF_A_KIND, "three of a kind, aces"),
    ("Ks Kd 6c 6h 2d", Category.TWO_PAIR, "two pair, kings and sixes"),
    ("Jk As Ks Kd 2c", Category.TWO_PAIR, "two pair, aces and kings"),
    ("6s 6d Ac 9h 2d", Category.ONE_PAIR, "one pair, sixes"),
    ("Jk As 9c 7d 2h", Category.ONE_PAIR, "one pair, aces"),
    ("Jk 9s 9c 7d 2h", Category.ONE_PAIR, "one pair, nines"),
    ("Ks Qd 9h 7c 5s", Category.HIGH_CARD, "high card, king high"),
    ("Jk Qd 9h 7c 5s", Category.HIGH_CARD, "high card, ace high"),
    ("7s 5d 4h 3c 2s", Category.HIGH_CARD, "high card, seven high"),
]


@pytest.mark.parametrize(("hand", "category", "name"), CASES, ids=[c[0] for c in CASES])
def test_category_and_name(hand: str, category: Category, name: str) -> None:
    value = five(hand)
    assert value.category is category
    assert value.name == name
    assert str(value) == name


def test_every_category_is_covered_by_the_cases() -> None:
    assert {c for _, c, _ in CASES} == set(Category)


def test_category_labels_exactly() -> None:
    labels = {
        Category.FIVE_ACES: "five aces",
        Category.ROYAL_FLUSH: "royal flush",
        Category.STRAIGHT_FLUSH: "straight flush",
        Category.FOUR_OF_A_KIND: "four of a kind",
        Category.FULL_HOUSE: "full house",
        Category.FLUSH: "flush",
        Category.STRAIGHT: "straight",
        Category.THREE_OF_A_KIND: "three of a kind",
        Category.TWO_PAIR: "two pair",
        Category.ONE_PAIR: "one pair",
        Category.HIGH_CARD: "high card",
    }
    assert {c: c.label for c in Category} == labels
    for category, label in labels.items():
        assert Category.from_label(label) is category


def test_category_order_is_the_rule_books() -> None:
    order = [
        "five aces",
        "royal flush",
        "straight flush",
        "four of a kind",
        "full house",
        "flush",
        "straight",
        "three of a kind",
        "two pair",
        "one pair",
        "high card",
    ]
    assert [c.label for c in sorted(Category, reverse=True)] == order


# A ladder of hands, each strictly better than the next (wheel = second).
LADDER = [
    "Jk As Ad Ac Ah",  # five aces
    "As Ks Qs Js Ts",  # royal flush
    "Ah 2h 3h 4h 5h",  # wheel straight flush: second
    "Kc Qc Jc Tc 9c",
    "6d 5d 4d 3d 2d",
    "Jk Ac Ad Ah Kc",  # four aces, king kicker
    "Ac Ad Ah As Qc",  # four aces, queen kicker
    "Kc Kd Kh Ks Ac",
    "2c 2d 2h 2s Ac",
    "Jk As Ad Kc Kd",  # full house aces over kings
    "Ac Ad Ah 2c 2d",  # aces over twos
    "Kc Kd Kh Ac Ad",  # kings over aces
    "Jk Kh Qh 9h 8h",  # flush A K Q 9 8 (joker = ace)
    "Ah Kh Jh 9h 8h",  # flush A K J 9 8
    "Ah Kh Jh 9h 7h",
    "7c 5c 4c 3c 2c",  # lowest flush
    "As Kd Qc Jh Ts",  # ace-high straight
    "As 2d 3c 4h 5s",  # wheel: second
    "Ks Qd Jc Th 9s",
    "6s 5d 4c 3h 2s",
    "Jk Ac Ad Kh Qs",  # three aces
    "2c 2d 2h As Ks",
    "Ac Ad Kc Kd Qh",  # two pair aces and kings, queen
    "Ac Ad Kc Kd Jh",
    "Ac Ad 2c 2d Kh",
    "3c 3d 2c 2d Ah",
    "Jk As Kd Jh 9c",  # pair of aces, K J 9
    "Ac Ad Kd 9h 8c",
    "2c 2d 5h 4s 3d",
    "Jk Kd Qh Jc 8s",  # ace high, K Q J 8
    "Ad Kd Qh Jc 7s",
    "7s 5d 4h 3c 2s",  # the worst hand
]


def test_ladder_is_strictly_decreasing() -> None:
    values = [five(h) for h in LADDER]
    for better, worse, hb, hw in zip(values, values[1:], LADDER, LADDER[1:], strict=False):
        assert better > worse, f"{hb} should beat {hw}"
        assert better.key > worse.key


def test_five_aces_beat_a_royal_flush() -> None:
    five_aces = five("Jk As Ad Ac Ah")
    for royal in ("As Ks Qs Js Ts", "Jk Kh Qh Jh Th", "Ac Kc Qc Jc Tc"):
        assert five_aces > five(royal)
    # and the royal flush beats every straight flush
    assert five("Jk Kh Qh Jh Th") > five("Kc Qc Jc Tc 9c")


# ---------------------------------------------------------------- the joker


@pytest.mark.parametrize(
    ("hand", "ranks"),
    [
        ("Jk 9h 7h 4h 2h", (14, 9, 7, 4, 2)),  # ace missing: the joker is the ace
        ("Jk Ah 7h 4h 2h", (14, 13, 7, 4, 2)),  # ace present: the king
        ("Jk Ah Kh 4h 2h", (14, 13, 12, 4, 2)),  # the queen
        ("Jk Ah Kh Qh 2h", (14, 13, 12, 11, 2)),  # the jack
        ("Jk As Ks Qs 9s", (14, 13, 12, 11, 9)),  # the jack (T would not make a straight)
    ],
)
def test_flush_joker_is_the_highest_missing_rank_of_the_suit(
    hand: str, ranks: tuple[int, ...]
) -> None:
    value = five(hand)
    assert value.category is Category.FLUSH
    assert value.ranks == ranks


@pytest.mark.parametrize(
    ("joker_hand", "natural_hand"),
    [
        ("Jk 9h 7h 4h 2h", "Ad 9d 7d 4d 2d"),
        ("Jk Ah 7h 4h 2h", "Ac Kc 7c 4c 2c"),
        ("Jk Ah Kh 4h 2h", "As Ks Qs 4s 2s"),
    ],
)
def test_flush_with_joker_copies_the_natural_flush(joker_hand: str, natural_hand: str) -> None:
    assert five(joker_hand).key == five(natural_hand).key


def test_flush_joker_never_takes_a_rank_already_held() -> None:
    # With the joker as the ace the hand below would hold two aces of hearts: it must be A K.
    assert five("Jk Ah 7h 4h 2h") > five("Ad Qd 7d 4d 2d")
    assert five("Jk Ah 7h 4h 2h") < five("Ad Kd 8d 4d 2d")


@pytest.mark.parametrize(
    ("hand", "equal_to"),
    [
        ("Jk 9s 8d 7c 6h", "Ts 9d 8c 7h 6s"),  # joker on top, not at the bottom
        ("Jk Ts 9d 7c 6h", "Ts 9d 8c 7h 6s"),  # the joker fills the gap
        ("Jk Ks Qd Jc Th", "As Kd Qc Jh Ts"),  # the joker is the ace
        ("Jk Ks Qd Jc 9h", "Ks Qd Jc Th 9s"),
        ("Jk As 2d 3c 4h", "As 2d 3c 4h 5s"),
        ("Jk 3s 4d 5c 6h", "3s 4d 5c 6h 7s"),
    ],
)
def test_joker_completes_straights_with_the_highest_value(hand: str, equal_to: str) -> None:
    value = five(hand)
    assert value.category is Category.STRAIGHT
    assert value.key == five(equal_to).key


def test_joker_straight_beats_a_pair_of_aces() -> None:
    assert five("Jk As 2d 3c 4h").category is Category.STRAIGHT
    assert five("Jk Ks Qd Jc As").category is Category.STRAIGHT


def test_joker_with_four_low_cards_of_the_wheel() -> None:
    # 2-3-4-5 + joker: the wheel (second highest) under "second", 2-6 under "lowest".
    assert five("Jk 2s 3d 4c 5h", Wheel.SECOND).key == five("As 2d 3c 4h 5s", Wheel.SECOND).key
    assert five("Jk 2s 3d 4c 5h", Wheel.LOWEST).key == five("6s 2d 3c 4h 5c", Wheel.LOWEST).key
    assert five("Jk 2s 3d 4c 5h", Wheel.LOWEST).name == "straight, two to six"
    assert five("Jk 2h 3h 4h 5h", Wheel.LOWEST).name == "straight flush, two to six"


def test_joker_is_an_ace_otherwise() -> None:
    assert five("Jk Kd Kc Kh Ks").ranks == (13, 14)  # four kings, ace kicker
    assert five("Jk Kd Kc Kh Ks") > five("Qd Kd Kc Kh Ks")
    assert five("Jk Kd Kc 2h 2s").key == five("Ah Kd Kc 2h 2s").key
    assert five("Jk 9d 7c 4h 2s").key == five("Ah 9d 7c 4h 2s").key


@pytest.mark.parametrize(
    ("hand", "name"),
    [
        ("Jk As", "one pair, aces"),
        ("As Jk", "one pair, aces"),
        ("Jk 9c", "high card, ace-nine"),
        ("Jk Kd", "high card, ace-king"),
        ("Jk 2c", "high card, ace-two"),
    ],
)
def test_joker_in_two_cards_is_an_ace(hand: str, name: str) -> None:
    assert two(hand).name == name


def test_joker_two_card_values_copy_the_natural_ace() -> None:
    assert two("Jk As").key == two("Ac Ad").key
    assert two("Jk 9c").key == two("Ad 9s").key
    assert two("Jk Kd").key == two("Ah Kc").key
    assert two("Jk As").category is Category.ONE_PAIR
    assert two("Jk 9c").category is Category.HIGH_CARD


# ---------------------------------------------------------------- the wheel


def test_wheel_second_for_straights() -> None:
    wheel = five("As 2d 3c 4h 5s", Wheel.SECOND)
    assert five("As Kd Qc Jh Ts", Wheel.SECOND) > wheel
    assert wheel > five("Ks Qd Jc Th 9s", Wheel.SECOND)
    assert wheel > five("6s 5d 4c 3h 2s", Wheel.SECOND)
    assert wheel.name == "straight, ace to five"


def test_wheel_lowest_for_straights() -> None:
    wheel = five("As 2d 3c 4h 5s", Wheel.LOWEST)
    assert five("6s 5d 4c 3h 2s", Wheel.LOWEST) > wheel
    assert five("Ks Qd Jc Th 9s", Wheel.LOWEST) > wheel
    assert wheel.category is Category.STRAIGHT
    assert wheel > five("As Ad Ac Kh Qs", Wheel.LOWEST)  # still beats three of a kind
    assert wheel.name == "straight, ace to five"


def test_wheel_second_for_straight_flushes() -> None:
    wheel = five("Ah 2h 3h 4h 5h", Wheel.SECOND)
    assert five("Ac Kc Qc Jc Tc", Wheel.SECOND) > wheel
    assert wheel > five("Kc Qc Jc Tc 9c", Wheel.SECOND)
    assert wheel > five("6d 5d 4d 3d 2d", Wheel.SECOND)
    assert wheel.name == "straight flush, ace to five"


def test_wheel_lowest_for_straight_flushes() -> None:
    wheel = five("Ah 2h 3h 4h 5h", Wheel.LOWEST)
    assert five("6d 5d 4d 3d 2d", Wheel.LOWEST) > wheel
    assert wheel > five("Jk Kd Kc Kh Ks", Wheel.LOWEST)  # still beats four of a kind
    assert wheel.category is Category.STRAIGHT_FLUSH


def test_wheel_setting_changes_nothing_else() -> None:
    for hand in LADDER:
        if five(hand).category not in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
            assert five(hand, Wheel.SECOND).key == five(hand, Wheel.LOWEST).key


# ---------------------------------------------------------------- ties


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("As Kd Qc Jh 9s", "Ad Kc Qh Js 9d"),
        ("Ah Jh 8h 5h 2h", "As Js 8s 5s 2s"),
        ("9s 8d 7c 6h 5s", "9h 8c 7d 6s 5c"),
        ("Kc Qc Jc Tc 9c", "Kd Qd Jd Td 9d"),
        ("As Ks Qs Js Ts", "Ah Kh Qh Jh Th"),
        ("Ks Kd 9c 7h 2d", "Kh Kc 9d 7s 2c"),
        ("Ks Kd 6c 6h 2d", "Kh Kc 6d 6s 2c"),
        ("Jk Kh Qh Jh Th", "As Ks Qs Js Ts"),
    ],
)
def test_suits_never_break_ties(a: str, b: str) -> None:
    assert five(a).key == five(b).key
    assert five(a) == five(b)


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("Ks Kd 9c 7h 3d", "Kh Kc 9d 7s 2c"),  # last kicker
        ("Ks Kd 6c 6h 3d", "Kh Kc 6d 6s 2c"),
        ("Ks Kd 7c 7h 2d", "Kh Kc 6d 6s Ac"),  # second pair before kicker
        ("7s 7d 7c Ah 2d", "7s 7d 7c Kh Qd"),
        ("Ah Kh 9h 5h 3h", "Ac Kc 9c 5c 2c"),
        ("Ad Kd Qh Jc 9s", "Ad Kd Qh Jc 8s"),
    ],
)
def test_kickers_break_ties(better: str, worse: str) -> None:
    assert five(better) > five(worse)


def _suit_permuted(cards: tuple[Card, ...], perm: list[int]) -> tuple[Card, ...]:
    return tuple(c if c.is_joker else Card.from_rank_suit(c.rank, perm[c.suit]) for c in cards)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=5, unique=True),
    st.permutations(range(4)),
    st.sampled_from(list(Wheel)),
)
def test_relabelling_suits_never_changes_a_value(
    hand: list[Card], perm: list[int], wheel: Wheel
) -> None:
    original = evaluate_five(hand, wheel)
    relabelled = evaluate_five(_suit_permuted(tuple(hand), perm), wheel)
    assert relabelled.key == original.key
    assert relabelled.name == original.name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=5, unique=True))
def test_value_does_not_depend_on_card_order(hand: list[Card]) -> None:
    assert evaluate_five(hand).key == evaluate_five(list(reversed(hand))).key
    assert evaluate_five(hand).key == evaluate_five(sorted(hand)).key


# ---------------------------------------------------------------- two-card hands


def test_two_card_order() -> None:
    assert two("2c 2d") > two("As Kd")  # any pair beats any non-pair
    assert two("Ac Ad") > two("Kc Kd") > two("2c 2d")
    assert two("As Kd") > two("As Qd") > two("Ks Qd") > two("3s 2d")
    assert two("As 3d") > two("Ks Qd")  # the higher card first
    assert two("Ks 2d") < two("Ks 3d")  # then the lower
    assert two("As Kd").key == two("Kh Ac").key  # order and suits do not matter
    assert two("Ah Kh").category is Category.HIGH_CARD  # no flushes in two cards
    assert two("5h 4h") < two("6c 2d")  # no straights in two cards


def test_two_card_extremes_over_all_hands() -> None:
    values = {pair: evaluate_two(pair) for pair in combinations(FULL_DECK, 2)}
    non_pairs = [v for v in values.values() if v.category is Category.HIGH_CARD]
    pairs = [v for v in values.values() if v.category is Category.ONE_PAIR]
    assert len(values) == 1378
    assert max(non_pairs).ranks == (14, 13)
    assert min(non_pairs).ranks == (3, 2)
    assert max(pairs).ranks == (14,)
    assert min(pairs).ranks == (2,)
    assert min(pairs) > max(non_pairs)
    # keys: a copy exactly when the ranks agree
    by_key: dict[int, set[tuple[int, ...]]] = {}
    for v in values.values():
        by_key.setdefault(v.key, set()).add(v.ranks)
    assert all(len(ranks) == 1 for ranks in by_key.values())
    assert len(by_key) == 13 + 78  # 13 pairs and C(13, 2) non-pairs


def test_two_card_names() -> None:
    assert two("Ac Ad").name == "one pair, aces"
    assert two("6c 6d").name == "one pair, sixes"
    assert two("Kd 9c").name == "high card, king-nine"
    assert two("9c Kd").name == "high card, king-nine"


# ---------------------------------------------------------------- best_five


@pytest.mark.parametrize(
    ("seven", "name"),
    [
        ("Jk Kh Qh 2c 9s Jh Th", "royal flush"),
        ("As Ks Qs Js 9s Ts 2d", "royal flush"),
        ("7s 7h 7d 7c Kd Ks 2c", "four of a kind, sevens"),
        ("Ah Kh 9h 5h 2h 3c 4d", "flush, ace high"),
        ("Ks Kd Kh 7c 7d 7h 2s", "full house, kings over sevens"),
        ("Jk As Ad Ac Ah Kd Ks", "five aces"),
        ("As 2d 3c 4h 5s 6d Kd", "straight, ace to five"),
        ("Jk 9s 8d 7c 6h 2d 2c", "straight, six to ten"),
        ("Ks Qd 9h 7c 5s 4d 2h", "high card, king high"),
    ],
)
def test_best_five_of_seven(seven: str, name: str) -> None:
    cards = parse_cards(seven, count=7)
    value, chosen = best_five(cards)
    assert value.name == name
    assert len(chosen) == 5
    assert set(chosen) <= set(cards)
    assert evaluate_five(chosen).key == value.key


def test_best_five_respects_the_wheel_setting() -> None:
    cards = parse_cards("As 2d 3c 4h 5s 6d Kd", count=7)
    assert best_five(cards, Wheel.SECOND)[0].name == "straight, ace to five"
    assert best_five(cards, Wheel.LOWEST)[0].name == "straight, two to six"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=7, unique=True))
def test_best_five_is_the_maximum(cards: list[Card]) -> None:
    value, chosen = best_five(cards)
    assert set(chosen) <= set(cards)
    assert evaluate_five(chosen).key == value.key
    assert all(evaluate_five(f) <= value for f in combinations(cards, 5))


# ---------------------------------------------------------------- input checks


@pytest.mark.parametrize("text", ["As Kd Qh Jc", "As Kd Qh Jc Ts 9s"])
def test_evaluate_five_needs_five_cards(text: str) -> None:
    with pytest.raises(CardError):
        evaluate_five(parse_cards(text))


def test_evaluate_refuses_duplicates() -> None:
    a = parse_cards("As")[0]
    with pytest.raises(CardError):
        evaluate_five([a, a, *parse_cards("Kd Qh Jc")])
    with pytest.raises(CardError):
        evaluate_two([a, a])
    with pytest.raises(CardError):
        evaluate_two(parse_cards("As Kd Qh"))


@pytest.mark.parametrize("n", [4, 8])
def test_best_five_needs_five_to_seven(n: int) -> None:
    with pytest.raises(CardError):
        best_five(STANDARD[:n])
