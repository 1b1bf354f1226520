"""The bonus hand: what a side wager's pay table pays on seven cards (docs/rulebook.md#side-wagers).

The seven cards are read as a whole, however they are set. A hand *holds* every category its
cards make (a royal flush also holds a straight flush, a flush and a straight; trips beside a
straight hold both); a pay table pays the best-paid category held. The joker completes straights
and flushes and otherwise counts as an ace, as in the five-card ranking.

>>> from paigow.cards import parse_cards
>>> bonus_hand(parse_cards("Jk Kh Qh Jh Th Ks Qs")).top
<BonusCategory.ROYAL_MATCH: 'royal-match'>
>>> sorted(c.value for c in bonus_hand(parse_cards("9c 9d 9h Th Js Qd Kc")).held)
['straight', 'three-of-a-kind']
>>> bonus_hand(parse_cards("Qs Jh 9c 8d 5s 3h 2c")).top.label
'pai gow, queen high'
>>> low_hand_category(parse_cards("9s 4d"))
<BonusCategory.LOW_NINE_HIGH: 'low-nine-high'>
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from paigow.cards import ACE, RANK_NAMES, Card, parse_cards

KING: Final = 13
QUEEN: Final = 12
TEN: Final = 10


class BonusCategory(StrEnum):
    """The categories a side wager may pay, best first; the value is the key pay tables use."""

    SEVEN_CARD_STRAIGHT_FLUSH = "seven-card-straight-flush"
    """Seven suited cards in sequence, no joker."""
    ROYAL_MATCH = "royal-match"
    """A royal flush (natural or with the joker) and a natural king and queen of one other suit."""
    WILD_SEVEN_CARD_STRAIGHT_FLUSH = "wild-seven-card-straight-flush"
    """Six suited cards and the joker in sequence."""
    FIVE_ACES = "five-aces"
    ROYAL_FLUSH = "royal-flush"
    STRAIGHT_FLUSH = "straight-flush"
    FOUR_OF_A_KIND = "four-of-a-kind"
    FULL_HOUSE = "full-house"
    FLUSH = "flush"
    THREE_OF_A_KIND = "three-of-a-kind"
    STRAIGHT = "straight"
    PAI_GOW_ACE = "pai-gow-ace-high"
    """Seven cards with no pair, straight or flush, the top card an ace (or the joker)."""
    PAI_GOW_KING = "pai-gow-king-high"
    PAI_GOW_QUEEN = "pai-gow-queen-high"
    PAI_GOW_JACK = "pai-gow-jack-high"
    PAI_GOW_TEN = "pai-gow-ten-high"
    PAI_GOW_NINE = "pai-gow-nine-high"
    """The lowest pai gow there is: 9-7-5-4-3-2 and one more, never a straight."""
    LOW_ACE_HIGH = "low-ace-high"
    """A two-card low hand, no pair, its higher card an ace (or the joker)."""
    LOW_KING_HIGH = "low-king-high"
    LOW_QUEEN_HIGH = "low-queen-high"
    LOW_JACK_HIGH = "low-jack-high"
    LOW_TEN_HIGH = "low-ten-high"
    LOW_NINE_HIGH = "low-nine-high"
    """A two-card low hand of a nine and a lower card (Tiger 9)."""
    LOW_EIGHT_HIGH = "low-eight-high"
    LOW_SEVEN_HIGH = "low-seven-high"
    LOW_SIX_HIGH = "low-six-high"
    LOW_FIVE_HIGH = "low-five-high"
    LOW_FOUR_HIGH = "low-four-high"
    LOW_THREE_HIGH = "low-three-high"

    @property
    def label(self) -> str:
        """The category in words: ``'royal match'``, ``'pai gow, queen high'``.

        >>> BonusCategory.LOW_NINE_HIGH.label, BonusCategory.WILD_SEVEN_CARD_STRAIGHT_FLUSH.label
        ('low hand, nine high', 'wild seven-card straight flush')
        """
        for prefix, words in (("pai-gow-", "pai gow"), ("low-", "low hand")):
            if self.value.startswith(prefix):
                return f"{words}, {self.value.removeprefix(prefix).replace('-', ' ')}"
        words = self.value.replace("-", " ").replace("seven card", "seven-card")
        return words

    @property
    def is_pai_gow(self) -> bool:
        """A seven-card pai gow by its top card."""
        return self.value.startswith("pai-gow-")

    @property
    def is_low(self) -> bool:
        """A category of the two-card low hand (bets on the dealer's low hand)."""
        return self.value.startswith("low-")


#: Best first, the order ties are broken in.
ORDER: Final[Mapping[BonusCategory, int]] = {c: i for i, c in enumerate(BonusCategory)}
#: The seven-card categories (everything but the low hand's).
SEVEN_CARD_CATEGORIES: Final = tuple(c for c in BonusCategory if not c.is_low)
#: The low hand's categories.
LOW_CATEGORIES: Final = tuple(c for c in BonusCategory if c.is_low)
#: Pai gow by its top card, ace (14) down to nine.
PAI_GOW_BY_TOP: Final[Mapping[int, BonusCategory]] = {
    rank: BonusCategory(f"pai-gow-{RANK_NAMES[rank]}-high") for rank in range(9, ACE + 1)
}
#: A non-pair low hand by its higher card, ace (14) down to three.
LOW_BY_TOP: Final[Mapping[int, BonusCategory]] = {
    rank: BonusCategory(f"low-{RANK_NAMES[rank]}-high") for rank in range(3, ACE + 1)
}
#: Five-card windows of ranks, the ace also low (1).
_WINDOWS5: Final = tuple(frozenset(range(lo, lo + 5)) for lo in range(1, 11))
_WINDOWS7: Final = tuple(frozenset(range(lo, lo + 7)) for lo in range(1, 9))
_ROYAL: Final = frozenset(range(TEN, ACE + 1))


def best_first(categories: Iterable[BonusCategory]) -> list[BonusCategory]:
    """The categories in the declared order, best first.

    >>> best_first([BonusCategory.STRAIGHT, BonusCategory.FLUSH])
    [<BonusCategory.FLUSH: 'flush'>, <BonusCategory.STRAIGHT: 'straight'>]
    """
    return sorted(set(categories), key=ORDER.__getitem__)


@dataclass(frozen=True, slots=True)
class BonusHand:
    """Every seven-card category the cards make (``held``); empty for "nothing"."""

    held: frozenset[BonusCategory]

    @property
    def top(self) -> BonusCategory | None:
        """The best category held in the declared order (what the hand is called), or None."""
        ordered = best_first(self.held)
        return ordered[0] if ordered else None

    @property
    def name(self) -> str:
        """The hand in words: its top category's label, or ``'nothing'``."""
        top = self.top
        return "nothing" if top is None else top.label


def _with_low_ace(ranks: Iterable[int]) -> frozenset[int]:
    found = set(ranks)
    if ACE in found:
        found.add(1)
    return frozenset(found)


def _run(ranks: frozenset[int], windows: tuple[frozenset[int], ...], wild: bool) -> bool:
    """Some window is filled by ``ranks``, one gap left for the joker when ``wild``."""
    allowed = 1 if wild else 0
    return any(len(window - ranks) <= allowed for window in windows)


def bonus_hand(cards: Sequence[Card] | Iterable[Card | str]) -> BonusHand:
    """The bonus hand of exactly seven cards (:class:`~paigow.errors.CardError` otherwise).

    >>> from paigow.cards import parse_cards
    >>> bonus_hand(parse_cards("Jk As Ad Ac Ah Kd 2c")).top.value
    'five-aces'
    >>> bonus_hand(parse_cards("Jk 8h 7h 6h 5h 4h 3h")).top.value
    'wild-seven-card-straight-flush'
    >>> bonus_hand(parse_cards("As Kd 9c 8d 5s 3h 2c")).held
    frozenset({<BonusCategory.PAI_GOW_ACE: 'pai-gow-ace-high'>})
    >>> bonus_hand(parse_cards("As Kd"))
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: expected 7 cards, got 2
    """
    seven = parse_cards(cards, count=7)
    joker = any(c.is_joker for c in seven)
    naturals = [c for c in seven if not c.is_joker]
    counts: dict[int, int] = {}
    by_suit: dict[int, set[int]] = {}
    for card in naturals:
        counts[card.rank] = counts.get(card.rank, 0) + 1
        by_suit.setdefault(card.suit, set()).add(card.rank)
    if joker:  # for pairs and the like, the joker is an ace
        counts[ACE] = counts.get(ACE, 0) + 1
    held: set[BonusCategory] = set()
    sizes = sorted(counts.values(), reverse=True)
    if joker and counts[ACE] == 5:
        held.add(BonusCategory.FIVE_ACES)
    if sizes[0] >= 4:
        held.add(BonusCategory.FOUR_OF_A_KIND)
    if sizes[0] >= 3:
        held.add(BonusCategory.THREE_OF_A_KIND)
        if sizes[1] >= 2:
            held.add(BonusCategory.FULL_HOUSE)
    if _run(_with_low_ace(c.rank for c in naturals), _WINDOWS5, joker):
        held.add(BonusCategory.STRAIGHT)
    for suit, ranks in by_suit.items():
        if len(ranks) + joker < 5:
            continue
        held.add(BonusCategory.FLUSH)
        suited = _with_low_ace(ranks)
        if _run(suited, _WINDOWS5, joker):
            held.add(BonusCategory.STRAIGHT_FLUSH)
        if len(_ROYAL - ranks) <= joker:
            held.add(BonusCategory.ROYAL_FLUSH)
            if _royal_match(naturals, suit, joker):
                held.add(BonusCategory.ROYAL_MATCH)
        if len(ranks) + joker == 7 and _run(suited, _WINDOWS7, joker):
            held.add(
                BonusCategory.WILD_SEVEN_CARD_STRAIGHT_FLUSH
                if joker
                else BonusCategory.SEVEN_CARD_STRAIGHT_FLUSH
            )
    if not held and sizes[0] == 1:
        top = ACE if joker else max(counts)
        held.add(PAI_GOW_BY_TOP[top])
    return BonusHand(frozenset(held))


def _royal_match(naturals: Sequence[Card], suit: int, joker: bool) -> bool:
    """The cards outside a royal flush of ``suit`` are a natural king and queen of another suit."""
    royal = [c for c in naturals if c.suit == suit and c.rank >= TEN]
    others = [c for c in naturals if c not in royal]
    if len(royal) + joker != 5 or len(others) != 2:
        return False
    a, b = others
    return a.suit == b.suit != suit and {a.rank, b.rank} == {KING, QUEEN}


def low_hand_category(low: Sequence[Card] | Iterable[Card | str]) -> BonusCategory | None:
    """The category of a two-card low hand: ``low-<rank>-high`` for a non-pair, None for a pair.

    >>> from paigow.cards import parse_cards
    >>> low_hand_category(parse_cards("Jk 9c")).value, low_hand_category(parse_cards("9c 9d"))
    ('low-ace-high', None)
    """
    two = parse_cards(low, count=2)
    hi, lo = sorted((c.rank for c in two), reverse=True)
    return None if hi == lo else LOW_BY_TOP[hi]
