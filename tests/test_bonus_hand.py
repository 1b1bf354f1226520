"""The bonus hand (paigow.bonus.hand) against the plain reference of tests/helpers/reference_bonus.py:
every hand of a reduced deck that holds every category, sampled full-deck hands, the project's
five-card ranking, and hand-picked hands of each category and edge case (docs/rulebook.md#side-wagers).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.bonus.hand import (
    LOW_CATEGORIES,
    PAI_GOW_BY_TOP,
    SEVEN_CARD_CATEGORIES,
    BonusCategory,
    BonusHand,
    bonus_hand,
    low_hand_category,
)
from paigow.cards import FULL_DECK, JOKER, Card, parse_cards
from paigow.errors import CardError
from paigow.ranking import Category, evaluate_five
from tests.helpers import reference_bonus as ref

B = BonusCategory


#: 18 cards that make every seven-card category: the spades ace to eight (a natural seven-card
#: straight flush, royal flushes, straight flushes, flushes), the king and queen of hearts (the
#: royal match), all four aces and the joker (five aces, four of a kind, full house with the
#: kings), and low cards of two suits (7c 5h 4c 3h 2c) for every pai gow from ace to nine high.
SMALL_DECK = parse_cards("As Ks Qs Js Ts 9s 8s Ah Kh Qh Ac Ad 7c 5h 4c 3h 2c Jk")
#: 25 cards: nine to ace in all four suits and the joker: every suit pairing of royal match,
#: four of a kind in every rank, full houses, flushes with the joker, wild seven-card straight
#: flushes (no pai gow and no natural seven-card straight flush: six ranks).
HIGH_DECK = tuple(c for c in FULL_DECK if c.is_joker or c.rank >= 9)


def held_by_five_card_ranking(cards: tuple[Card, ...]) -> frozenset[BonusCategory]:
    """The five-card bonus categories from paigow.ranking's value of each of the 21 five-card
    hands, each with what it implies (a royal flush is also a straight flush, flush, straight)."""
    implied = {
        Category.FIVE_ACES: {B.FIVE_ACES, B.FOUR_OF_A_KIND, B.THREE_OF_A_KIND},
        Category.ROYAL_FLUSH: {B.ROYAL_FLUSH, B.STRAIGHT_FLUSH, B.FLUSH, B.STRAIGHT},
        Category.STRAIGHT_FLUSH: {B.STRAIGHT_FLUSH, B.FLUSH, B.STRAIGHT},
        Category.FOUR_OF_A_KIND: {B.FOUR_OF_A_KIND, B.THREE_OF_A_KIND},
        Category.FULL_HOUSE: {B.FULL_HOUSE, B.THREE_OF_A_KIND},
        Category.FLUSH: {B.FLUSH},
        Category.STRAIGHT: {B.STRAIGHT},
        Category.THREE_OF_A_KIND: {B.THREE_OF_A_KIND},
    }
    found: set[BonusCategory] = set()
    for five in combinations(cards, 5):
        found |= implied.get(evaluate_five(five).category, set())
    return frozenset(found)


FIVE_CARD_KINDS = frozenset(
    {
        B.FIVE_ACES,
        B.ROYAL_FLUSH,
        B.STRAIGHT_FLUSH,
        B.FOUR_OF_A_KIND,
        B.FULL_HOUSE,
        B.FLUSH,
        B.THREE_OF_A_KIND,
        B.STRAIGHT,
    }
)


def check_hand(cards: tuple[Card, ...], with_ranking: bool = True) -> BonusHand:
    """The fast classifier against the reference, and (``with_ranking``) its five-card categories
    against paigow.ranking's value of the 21 five-card hands (the costly part)."""
    hand = bonus_hand(cards)
    expected = ref.reference_held(cards)
    assert hand.held == expected, (cards, sorted(hand.held), sorted(expected))
    if with_ranking:
        assert hand.held & FIVE_CARD_KINDS == held_by_five_card_ranking(cards), cards
    return hand


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
def test_small_deck_every_hand_agrees_and_holds_every_category() -> None:
    """All C(18, 7) = 31,824 hands of SMALL_DECK: the fast classifier, the reference and the
    five-card ranking agree, and every seven-card category occurs."""
    seen: Counter[BonusCategory] = Counter()
    hands = 0
    for seven in combinations(SMALL_DECK, 7):
        hand = check_hand(seven)
        seen.update(hand.held)
        hands += 1
    assert hands == 31_824
    assert set(seen) == set(SEVEN_CARD_CATEGORIES), set(SEVEN_CARD_CATEGORIES) - set(seen)
    # Rare ones too: exactly one natural seven-card straight flush (As..8s), and the royal
    # matches: the natural spade royal with Kh Qh, and the joker for any one of its five cards.
    assert seen[B.SEVEN_CARD_STRAIGHT_FLUSH] == 1
    assert seen[B.ROYAL_MATCH] == 6
    assert seen[B.WILD_SEVEN_CARD_STRAIGHT_FLUSH] == 7


@pytest.mark.exhaustive
def test_high_deck_every_hand_agrees() -> None:
    """All C(25, 7) = 480,700 hands of nine to ace in four suits and the joker."""
    seen: Counter[BonusCategory] = Counter()
    for seven in combinations(HIGH_DECK, 7):
        seen.update(check_hand(seven, with_ranking=False).held)
    assert sum(1 for _ in combinations(range(25), 7)) == 480_700
    # Six ranks: no pai gow and no natural seven-card straight flush (the joker makes the seventh).
    expected = set(SEVEN_CARD_CATEGORIES) - {c for c in B if c.is_pai_gow}
    expected.discard(B.SEVEN_CARD_STRAIGHT_FLUSH)
    assert set(seen) == expected
    assert seen[B.ROYAL_MATCH] == 4 * 3 * 6  # royal suit, match suit, natural or joker royal


seven_cards = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True)
six_and_joker = st.lists(st.sampled_from(FULL_DECK[:52]), min_size=6, max_size=6, unique=True).map(
    lambda six: (*six, JOKER)
)


@settings(max_examples=1500, deadline=None)
@given(seven_cards)
def test_full_deck_hands_agree(cards: list[Card]) -> None:
    check_hand(tuple(cards))


@settings(max_examples=1500, deadline=None)
@given(six_and_joker)
def test_full_deck_joker_hands_agree(cards: tuple[Card, ...]) -> None:
    hand = check_hand(cards)
    # With the joker, a pai gow is always ace high: the joker counts as its ace.
    if hand.top is not None and hand.top.is_pai_gow:
        assert hand.top is B.PAI_GOW_ACE


@settings(max_examples=300, deadline=None)
@given(seven_cards)
def test_order_of_cards_does_not_matter(cards: list[Card]) -> None:
    assert bonus_hand(cards) == bonus_hand(list(reversed(cards)))


def test_sampled_full_deck_hands_agree() -> None:
    """A fixed sample too (independent of hypothesis): 3,000 hands, 1,000 of them with the joker."""
    import random

    rng = random.Random(20)
    for _ in range(2000):
        check_hand(tuple(rng.sample(FULL_DECK, 7)))
    for _ in range(1000):
        check_hand((*rng.sample(FULL_DECK[:52], 6), JOKER))


def test_every_low_hand_agrees() -> None:
    for two in combinations(FULL_DECK, 2):
        assert low_hand_category(two) == ref.reference_low(two), two
    assert {low_hand_category(t) for t in combinations(FULL_DECK, 2)} == {*LOW_CATEGORIES, None}


# ----------------------------------------------------------------------------- hand-picked
@pytest.mark.parametrize(
    ("cards", "top", "also"),
    [
        ("9h 8h 7h 6h 5h 4h 3h", B.SEVEN_CARD_STRAIGHT_FLUSH, {B.STRAIGHT_FLUSH, B.FLUSH}),
        ("7d 6d 5d 4d 3d 2d Ad", B.SEVEN_CARD_STRAIGHT_FLUSH, {B.STRAIGHT_FLUSH}),
        ("As Ks Qs Js Ts 9s 8s", B.SEVEN_CARD_STRAIGHT_FLUSH, {B.ROYAL_FLUSH}),
        ("As Ks Qs Js Ts Kh Qh", B.ROYAL_MATCH, {B.ROYAL_FLUSH, B.STRAIGHT}),
        ("Jk Ks Qs Js Ts Kd Qd", B.ROYAL_MATCH, {B.ROYAL_FLUSH}),  # the joker is the ace
        ("As Jk Qs Js Ts Kc Qc", B.ROYAL_MATCH, {B.ROYAL_FLUSH}),  # the joker is the king
        ("Jk 8h 7h 6h 5h 4h 3h", B.WILD_SEVEN_CARD_STRAIGHT_FLUSH, {B.STRAIGHT_FLUSH}),
        ("9c Jk 7c 6c 5c 4c 3c", B.WILD_SEVEN_CARD_STRAIGHT_FLUSH, {B.FLUSH}),  # the gap
        ("Jk Ks Qs Js Ts 9s 8s", B.WILD_SEVEN_CARD_STRAIGHT_FLUSH, {B.ROYAL_FLUSH}),
        ("Jk As Ad Ac Ah Kd 2c", B.FIVE_ACES, {B.FOUR_OF_A_KIND, B.THREE_OF_A_KIND}),
        ("Jk As Ad Ac Ah Kd Kc", B.FIVE_ACES, {B.FULL_HOUSE}),
        ("As Ks Qs Js Ts 2c 3d", B.ROYAL_FLUSH, {B.STRAIGHT_FLUSH, B.FLUSH, B.STRAIGHT}),
        ("Jk Kh Qh Jh Th 2c 3d", B.ROYAL_FLUSH, {B.STRAIGHT_FLUSH}),
        ("9d 8d 7d 6d 5d Ac Ah", B.STRAIGHT_FLUSH, {B.FLUSH, B.STRAIGHT}),
        ("Jk 2s 3s 4s 5s Kd Qc", B.STRAIGHT_FLUSH, {B.FLUSH}),  # the joker is the ace or six
        ("Ac 2c 3c 4c 5c Kd Qh", B.STRAIGHT_FLUSH, {B.STRAIGHT}),  # the wheel
        ("Jk As Ad Ac 7h 3c 2d", B.FOUR_OF_A_KIND, {B.THREE_OF_A_KIND}),  # three aces and the joker
        ("7s 7h 7d 7c Kd Kh 2c", B.FOUR_OF_A_KIND, {B.FULL_HOUSE, B.THREE_OF_A_KIND}),
        ("Ks Kh Kd Qc Qh 2s 3d", B.FULL_HOUSE, {B.THREE_OF_A_KIND}),
        ("Ks Kh Kd Qc Qh Qs 3d", B.FULL_HOUSE, {B.THREE_OF_A_KIND}),  # two threes of a kind
        ("Jk Ah 9c 9d 9h 4s 2c", B.FULL_HOUSE, {B.THREE_OF_A_KIND}),  # the joker pairs the ace
        ("Jk 2h 7h 9h Jh 3c 3s", B.FLUSH, set()),
        ("Kh 2h 7h 9h Jh 3c 3s", B.FLUSH, set()),
        ("9c 9d 9h Th Js Qd Kc", B.THREE_OF_A_KIND, {B.STRAIGHT}),  # trips and a straight
        ("Jk Ac Ad 2h 3s 4d 5c", B.THREE_OF_A_KIND, {B.STRAIGHT}),
        ("Jk 2h 3s 4d 6c Kd Kc", B.STRAIGHT, set()),  # the joker is a five
        ("Ah 2h 3s 4d 5c Kd Kc", B.STRAIGHT, set()),
        ("As Kd 9c 8d 5s 3h 2c", B.PAI_GOW_ACE, set()),
        ("Jk Kd 9c 8d 5s 3h 2c", B.PAI_GOW_ACE, set()),  # the joker is the top card, an ace
        ("Kd Qs 9c 8d 5s 3h 2c", B.PAI_GOW_KING, set()),
        ("Qs Jh 9c 8d 5s 3h 2c", B.PAI_GOW_QUEEN, set()),
        ("Js 9h 8c 7d 5s 3h 2c", B.PAI_GOW_JACK, set()),
        ("Ts 9h 8c 7d 4s 3h 2c", B.PAI_GOW_TEN, set()),
        ("9s 8h 7c 5d 4s 3h 2c", B.PAI_GOW_NINE, set()),
        ("9s 8h 7c 6d 4s 3h 2c", B.PAI_GOW_NINE, set()),
    ],
)
def test_hand_picked(cards: str, top: BonusCategory, also: set[BonusCategory]) -> None:
    hand = check_hand(parse_cards(cards))
    assert hand.top is top, (cards, sorted(hand.held))
    assert also <= hand.held
    if top.is_pai_gow:
        assert hand.held == {top}


@pytest.mark.parametrize(
    ("cards", "missing"),
    [
        # The joker is never part of the match: a natural royal, the joker and a queen.
        ("As Ks Qs Js Ts Jk Qh", B.ROYAL_MATCH),
        # The match must be of another suit than the royal flush.
        ("Jk Ks Qs Js Ts 9s 8h", B.ROYAL_MATCH),
        # A king and queen of two suits are no match.
        ("As Ks Qs Js Ts Kh Qd", B.ROYAL_MATCH),
        # Six suited cards and the joker but not in sequence: no seven-card straight flush.
        ("Jk 9h 7h 6h 5h 4h 2h", B.WILD_SEVEN_CARD_STRAIGHT_FLUSH),
        # Seven cards in sequence of two suits: a straight, no seven-card straight flush.
        ("9h 8h 7h 6h 5h 4h 3c", B.SEVEN_CARD_STRAIGHT_FLUSH),
        # No wrap-around straight: Q-K-A-2-3.
        ("Qh Kd Ac 2s 3h 7d 8c", B.STRAIGHT),
        # Four aces without the joker are four of a kind, not five aces.
        ("As Ad Ac Ah Kd Ks 2c", B.FIVE_ACES),
        # The joker does not make four of a kind of kings.
        ("Jk Ks Kd Kc 7h 3c 2d", B.FOUR_OF_A_KIND),
    ],
)
def test_edge_cases_do_not_hold(cards: str, missing: BonusCategory) -> None:
    hand = check_hand(parse_cards(cards))
    assert missing not in hand.held


def test_seven_card_straight_flush_holds_the_five_card_ones() -> None:
    hand = check_hand(parse_cards("As Ks Qs Js Ts 9s 8s"))
    assert hand.held == {
        B.SEVEN_CARD_STRAIGHT_FLUSH,
        B.ROYAL_FLUSH,
        B.STRAIGHT_FLUSH,
        B.FLUSH,
        B.STRAIGHT,
    }


def test_queen_high_pai_gow_never_holds_the_joker() -> None:
    for seven in combinations(SMALL_DECK, 7):
        top = bonus_hand(seven).top
        if top is not None and top.is_pai_gow and top is not B.PAI_GOW_ACE:
            assert JOKER not in seven


def test_nine_high_is_the_lowest_pai_gow() -> None:
    """Seven distinct ranks from two to eight are always a straight; with a nine, the pai gow
    hands are exactly 9-8-7-(5 or 6)-4-3-2 in ranks."""
    low_ranks = [c for c in FULL_DECK if not c.is_joker and c.rank <= 9]
    nine_high_rank_sets = set()
    for ranks in combinations(range(2, 10), 7):
        cards = [Card.from_rank_suit(r, i % 2) for i, r in enumerate(ranks)]  # two suits: no flush
        hand = check_hand(tuple(cards))
        if max(ranks) == 8:
            assert B.STRAIGHT in hand.held
        if hand.top is B.PAI_GOW_NINE:
            nine_high_rank_sets.add(ranks)
    assert nine_high_rank_sets == {(2, 3, 4, 5, 7, 8, 9), (2, 3, 4, 6, 7, 8, 9)}
    assert min(PAI_GOW_BY_TOP) == 9 and len(low_ranks) == 32


def test_categories_are_declared_best_first_as_the_rule_book_lists_them() -> None:
    assert [c.value for c in SEVEN_CARD_CATEGORIES[:11]] == [
        "seven-card-straight-flush",
        "royal-match",
        "wild-seven-card-straight-flush",
        "five-aces",
        "royal-flush",
        "straight-flush",
        "four-of-a-kind",
        "full-house",
        "flush",
        "three-of-a-kind",
        "straight",
    ]
    assert [PAI_GOW_BY_TOP[r] for r in range(14, 8, -1)] == list(SEVEN_CARD_CATEGORIES[11:])
    assert B.LOW_NINE_HIGH in LOW_CATEGORIES and not B.LOW_NINE_HIGH.is_pai_gow
    assert B.ROYAL_MATCH.label == "royal match"
    assert B.PAI_GOW_QUEEN.label == "pai gow, queen high"
    assert bonus_hand(parse_cards("2c 2d 7h 8s 9c Jd Kh")).name == "nothing"


def test_tiger_nine_low_hands() -> None:
    assert low_hand_category(parse_cards("9s 8d")) is B.LOW_NINE_HIGH
    assert low_hand_category(parse_cards("2s 9d")) is B.LOW_NINE_HIGH
    assert low_hand_category(parse_cards("9s 9d")) is None
    assert low_hand_category(parse_cards("Ts 2d")) is B.LOW_TEN_HIGH
    assert low_hand_category(parse_cards("Jk 2d")) is B.LOW_ACE_HIGH


@pytest.mark.parametrize("cards", ["As Kd", "As Kd Qs Js Ts 9s 8s 7s"])
def test_wrong_number_of_cards(cards: str) -> None:
    with pytest.raises(CardError, match="expected 7 cards"):
        bonus_hand(parse_cards(cards))


def test_bad_cards_are_refused() -> None:
    with pytest.raises(CardError, match="duplicate"):
        bonus_hand(["As", "As", "Kd", "Qd", "Jd", "Td", "9d"])
    with pytest.raises(CardError, match="expected 2 cards"):
        low_hand_category(parse_cards("As Kd Qd"))
