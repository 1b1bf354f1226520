"""The cards that make a bonus hand (issue 47: the showdown marks them), checked on random hands
and on every category's examples against what each category means."""

from __future__ import annotations

import random

import pytest

from paigow.bonus.hand import BonusCategory, bonus_hand
from paigow.bonus.marks import bonus_cards
from paigow.cards import ACE, FULL_DECK, Card, parse_cards

SETS = {
    BonusCategory.FIVE_ACES: 5,
    BonusCategory.FOUR_OF_A_KIND: 4,
    BonusCategory.THREE_OF_A_KIND: 3,
}


def _rank(c: Card) -> int:
    return ACE if c.is_joker else c.rank


def _is_run(cards: tuple[Card, ...]) -> bool:
    naturals = [c for c in cards if not c.is_joker]
    wild = len(cards) - len(naturals)
    for low_ace in (False, True):
        ranks = sorted({1 if low_ace and c.rank == ACE else c.rank for c in naturals})
        if len(ranks) != len(naturals):
            return False
        if ranks[-1] - ranks[0] <= 4 and len(ranks) + wild == 5:
            return True
    return False


def _means(cat: BonusCategory, marked: tuple[Card, ...], seven: tuple[Card, ...]) -> bool:
    """Whether ``marked`` are cards of ``seven`` that make ``cat``, by the category's meaning."""
    if not marked or not set(marked) <= set(seven):
        return False
    suits = {c.suit for c in marked if not c.is_joker}
    if cat in SETS:
        return len(marked) == SETS[cat] and len({_rank(c) for c in marked}) == 1
    if cat is BonusCategory.FULL_HOUSE:
        ranks = sorted(_rank(c) for c in marked)
        return len(marked) == 5 and len(set(ranks)) == 2 and ranks.count(ranks[2]) == 3
    if cat is BonusCategory.STRAIGHT:
        return len(marked) == 5 and _is_run(marked)
    if cat is BonusCategory.FLUSH:
        return len(marked) >= 5 and len(suits) == 1
    if cat in (BonusCategory.STRAIGHT_FLUSH, BonusCategory.ROYAL_FLUSH):
        royal = cat is BonusCategory.ROYAL_FLUSH
        ok_royal = not royal or all(c.is_joker or c.rank >= 10 for c in marked)
        return len(marked) == 5 and len(suits) == 1 and _is_run(marked) and ok_royal
    if cat.is_pai_gow:
        return len(marked) == 1 and _rank(marked[0]) == max(_rank(c) for c in seven)
    return len(marked) == 7  # the seven-card straight flushes, the royal match


def test_every_category_held_by_random_hands_is_marked_by_its_cards() -> None:
    rng = random.Random(47)
    seen: set[BonusCategory] = set()
    for _ in range(20_000):
        seven = tuple(rng.sample(FULL_DECK, 7))
        for cat in bonus_hand(seven).held:
            marked = bonus_cards(seven, cat)
            assert _means(cat, marked, seven), (cat, [c.code for c in seven], marked)
            seen.add(cat)
    assert {BonusCategory.STRAIGHT, BonusCategory.FLUSH, BonusCategory.FULL_HOUSE} <= seen


@pytest.mark.parametrize(
    ("cards", "category", "want"),
    [
        ("Jk As Ad Ac Ah Kd 2c", "five-aces", "Jk As Ad Ac Ah"),
        ("Jk As Ad Ac 7h Kd 2c", "four-of-a-kind", "As Ad Ac Jk"),
        ("Kh Kd Ks 9c 9d 9h 2c", "full-house", "Kh Kd Ks 9c 9d"),
        ("As Ks Qs Js Ts 9s 2c", "royal-flush", "As Ks Qs Js Ts"),
        ("Jk Ks Qs Js Ts 9s 2c", "royal-flush", "Jk Ks Qs Js Ts"),
        ("Ah 2d 3c 4s 5h 9d Jc", "straight", "5h 4s 3c 2d Ah"),
        ("8h 7h 6h 5h 4h 3h 2h", "seven-card-straight-flush", "8h 7h 6h 5h 4h 3h 2h"),
        ("Jk Kd 9c 8d 5s 3h 2c", "pai-gow-ace-high", "Jk"),
        ("Qs Jh 9c 8d 5s 3h 2c", "pai-gow-queen-high", "Qs"),
        ("Qs Jh 9c 8d 5s 3h 2c", "flush", ""),
    ],
)
def test_the_marked_cards_of_examples(cards: str, category: str, want: str) -> None:
    got = bonus_cards(parse_cards(cards), category)
    assert sorted(c.code for c in got) == sorted(want.split())
