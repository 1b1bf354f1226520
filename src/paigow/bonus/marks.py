"""The cards that make a bonus hand, for the showdown to mark them: of seven cards, those that
make a category they hold (:func:`paigow.bonus.hand.bonus_hand`), the best such cards where there
is a choice (the highest straight, the highest trips and pair of a full house). The joker is
marked wherever it plays: completing a straight or flush, or as an ace.

>>> from paigow.cards import parse_cards
>>> seven = parse_cards("9c 9d 9h Th Js Qd Kc")
>>> [c.code for c in bonus_cards(seven, BonusCategory.THREE_OF_A_KIND)]
['9c', '9d', '9h']
>>> [c.code for c in bonus_cards(seven, BonusCategory.STRAIGHT)]
['Kc', 'Qd', 'Js', 'Th', '9c']
>>> [c.code for c in bonus_cards(parse_cards("Jk 8h 7h 6h 5h 2c 2d"), BonusCategory.STRAIGHT_FLUSH)]
['Jk', '8h', '7h', '6h', '5h']
"""

from __future__ import annotations

from collections.abc import Sequence

from paigow.bonus.hand import _ROYAL, _WINDOWS5, BonusCategory, bonus_hand
from paigow.cards import ACE, Card


def _rank_of(card: Card, low_ace: bool = False) -> int:
    return 1 if low_ace and card.rank == ACE else card.rank


def _run(cards: Sequence[Card], joker: Card | None) -> tuple[Card, ...]:
    """The highest five-card run of ``cards`` (one card a rank), the joker filling one gap."""
    for window in sorted(_WINDOWS5, key=max, reverse=True):
        picked: list[Card] = []
        for rank in sorted(window, reverse=True):
            found = [c for c in cards if _rank_of(c, rank == 1) == rank]
            if found:
                picked.append(found[0])
        missing = 5 - len(picked)
        if missing == 0:
            return tuple(picked)
        if missing == 1 and joker is not None:
            return (joker, *picked)
    return ()


def bonus_cards(cards: Sequence[Card], category: BonusCategory | str) -> tuple[Card, ...]:
    """The cards of ``cards`` (seven, or a two-card low hand) that make ``category``; empty
    when they do not hold it."""
    cat = BonusCategory(category)
    seven = tuple(cards)
    if cat.is_low:
        return seven if len(seven) == 2 else ()
    if cat not in bonus_hand(seven).held:
        return ()
    joker = next((c for c in seven if c.is_joker), None)
    naturals = [c for c in seven if not c.is_joker]
    if cat in (
        BonusCategory.SEVEN_CARD_STRAIGHT_FLUSH,
        BonusCategory.WILD_SEVEN_CARD_STRAIGHT_FLUSH,
        BonusCategory.ROYAL_MATCH,
    ):
        return seven
    if cat.is_pai_gow:
        top = joker or max(naturals, key=lambda c: c.rank)
        return (top,)
    by_rank: dict[int, list[Card]] = {}
    for c in naturals:
        by_rank.setdefault(c.rank, []).append(c)
    if joker is not None:  # for sets, the joker is an ace
        by_rank.setdefault(ACE, []).append(joker)
    sets = sorted(by_rank.items(), key=lambda kv: (len(kv[1]), kv[0]), reverse=True)
    if cat is BonusCategory.FIVE_ACES:
        return tuple(by_rank[ACE])
    if cat is BonusCategory.FOUR_OF_A_KIND:
        return tuple(next(cs for _, cs in sets if len(cs) >= 4)[:4])
    if cat is BonusCategory.THREE_OF_A_KIND:
        return tuple(next(cs for _, cs in sets if len(cs) >= 3)[:3])
    if cat is BonusCategory.FULL_HOUSE:
        trips_rank, trips = next((r, cs) for r, cs in sets if len(cs) >= 3)
        pair = next(cs for r, cs in sets if r != trips_rank and len(cs) >= 2)
        return (*trips[:3], *pair[:2])
    if cat is BonusCategory.STRAIGHT:
        return _run(naturals, joker)
    suits: dict[int, list[Card]] = {}
    for c in naturals:
        suits.setdefault(c.suit, []).append(c)
    suited = max(suits.values(), key=len)
    wild = (joker,) if joker is not None else ()
    if cat is BonusCategory.FLUSH:
        return (*wild, *sorted(suited, key=lambda c: -c.rank))
    if cat is BonusCategory.ROYAL_FLUSH:
        royal = sorted((c for c in suited if c.rank in _ROYAL), key=lambda c: -c.rank)
        return tuple(royal) if len(royal) == 5 else (*wild, *royal)
    if cat is BonusCategory.STRAIGHT_FLUSH:
        return _run(suited, joker)
    raise AssertionError(f"no cards for {cat}")  # every seven-card category is handled above
