"""The house way is blind to suits: relabelling the suits never changes the strength of the
setting it makes (what the exact edge's symmetry reduction relies on), even where a rule leaves a
choice between aces and the joker."""

from __future__ import annotations

import itertools
import random

import pytest

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.house_way import HouseWay

PERMS = list(itertools.permutations(range(4)))
ACES = [c for c in FULL_DECK if c.rank == 14 and not c.is_joker]


def _relabel(cards: list[Card], perm: tuple[int, ...]) -> list[Card]:
    return [c if c.is_joker else Card.from_rank_suit(c.rank, perm[c.suit]) for c in cards]


def _strength(way: HouseWay, cards: list[Card]) -> tuple[int, int]:
    v = way.set_hand(cards).setting.value()
    return v.high.key, v.low.key


@pytest.mark.slow  # 8-10 s each: the full suite's
@pytest.mark.parametrize("preset", ["standard", "foxwoods"])
def test_suit_relabelling_keeps_the_strength(preset: str) -> None:
    way = HouseWay.preset(preset)
    rnd = random.Random(preset)
    hands = [rnd.sample(FULL_DECK, 7) for _ in range(1500)]
    for _ in range(1500):  # the joker with two or three aces: where the rules leave a choice
        k = rnd.choice([2, 3])
        others = [c for c in FULL_DECK[:48]]
        hands.append([FULL_DECK[52], *rnd.sample(ACES, k), *rnd.sample(others, 6 - k)])
    for hand in hands:
        base = _strength(way, hand)
        for perm in rnd.sample(PERMS, 4):
            assert _strength(way, _relabel(hand, perm)) == base, [c.code for c in hand]


@pytest.mark.parametrize(
    ("cards", "high_name"),
    [
        ("Jk As Ad Ah Ks Qs Jd", "straight, ten to ace"),  # quads.split keeps the joker high
        ("Jk As Ad Ah 9s 6s 3s", "flush, ace high"),
        ("Jk Ac Ad Ah 9c 6c 3c", "flush, ace high"),  # the same hand in clubs
        ("Jk As Ac 9s 6s 3s Kd", "flush, ace high"),  # trips.aces keeps the suited ace high
        ("Jk Ac As 9c 6c 3c Kd", "flush, ace high"),
    ],
)
def test_choices_between_aces_keep_the_strongest_high_hand(cards: str, high_name: str) -> None:
    r = HouseWay.preset("standard").set_hand(parse_cards(cards))
    assert r.setting.value().high.name == high_name
    assert r.setting.value().low.name in ("one pair, aces", "high card, ace-king")
