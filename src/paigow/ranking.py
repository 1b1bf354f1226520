"""Hand ranking: five-card and two-card hands with the joker (docs/rulebook.md#ranking).

Every hand gets a value with an integer ``key``: a higher key is a better hand and equal keys are
a copy. Suits never break ties.

>>> from paigow.cards import parse_cards
>>> evaluate_five(parse_cards("Jk Kh Qh Jh Th")).name
'royal flush'
>>> evaluate_five(parse_cards("Jk 2h 3c 4d 5s")).name
'straight, ace to five'
>>> evaluate_five(parse_cards("Jk 2h 3c 4d 5s"), Wheel.LOWEST).name
'straight, two to six'
>>> evaluate_two(parse_cards("Jk 9c")).name
'high card, ace-nine'
>>> evaluate_five(parse_cards("As Ad Ac Ah Jk")) > evaluate_five(parse_cards("As Ks Qs Js Ts"))
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from itertools import combinations
from typing import Final

from paigow.cards import ACE, JOKER_INDEX, RANK_NAMES, RANK_PLURALS, Card
from paigow.errors import CardError


class Category(IntEnum):
    """Five-card hand categories, lowest first. Two-card hands use HIGH_CARD and ONE_PAIR."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_ACES = 10

    @property
    def label(self) -> str:
        """The category's name as the rule book writes it: ``four of a kind``."""
        return self.name.lower().replace("_", " ")

    @classmethod
    def from_label(cls, label: str) -> Category:
        """The category named ``label`` (``"two pair"``)."""
        return cls[label.strip().upper().replace(" ", "_")]


class Wheel(StrEnum):
    """Where A-2-3-4-5 ranks among straights (and straight flushes)."""

    SECOND = "second"
    """Second-highest: below A-K-Q-J-T, above K-Q-J-T-9 (the Indiana default)."""
    LOWEST = "lowest"
    """Lowest straight, below 6-5-4-3-2."""


#: Straights as rank windows (highest rank first), best first, for each wheel setting.
_HIGH_STRAIGHTS: Final = [tuple(range(top, top - 5, -1)) for top in range(14, 5, -1)]
_WHEEL: Final = (5, 4, 3, 2, ACE)
STRAIGHT_ORDER: Final = {
    Wheel.SECOND: [_HIGH_STRAIGHTS[0], _WHEEL, *_HIGH_STRAIGHTS[1:]],
    Wheel.LOWEST: [*_HIGH_STRAIGHTS, _WHEEL],
}
#: The layout of a five-card key: the category above five tie-break fields of FIELD_BITS bits
#: each (most important first; each field twice a rank, or a straight's field).
FIELD_BITS: Final = 5
CATEGORY_SHIFT: Final = 5 * FIELD_BITS
#: The layout of a two-card key: ``PAIR_FLAG | rank`` for a pair, else
#: ``high << TWO_CARD_SHIFT | low`` (ranks 2..14, the joker an ace).
PAIR_FLAG: Final = 1 << 8
TWO_CARD_SHIFT: Final = 4


def _straight_field(top: int, wheel: Wheel) -> int:
    """Tie-break value of a straight whose top card is ``top`` (5 for the wheel)."""
    if top == 5:
        return 27 if wheel is Wheel.SECOND else 10
    return 2 * top


@dataclass(frozen=True, slots=True, order=True)
class HandValue:
    """The value of a five-card hand. Ordered and compared by ``key`` alone.

    ``ranks`` are the tie-break ranks in order of importance (for a straight, its top card, 5 for
    the wheel; for a flush, the five ranks with the joker's value filled in).
    """

    key: int
    category: Category = field(compare=False)
    ranks: tuple[int, ...] = field(compare=False)

    @property
    def name(self) -> str:
        """Readable name: ``"full house, kings over sevens"``."""
        c, r = self.category, self.ranks
        if c is Category.FIVE_ACES or c is Category.ROYAL_FLUSH:
            return c.label
        if c in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
            low = ACE if r[0] == 5 else r[0] - 4
            return f"{c.label}, {RANK_NAMES[low]} to {RANK_NAMES[r[0]]}"
        if c in (Category.FOUR_OF_A_KIND, Category.THREE_OF_A_KIND, Category.ONE_PAIR):
            return f"{c.label}, {RANK_PLURALS[r[0]]}"
        if c is Category.FULL_HOUSE:
            return f"{c.label}, {RANK_PLURALS[r[0]]} over {RANK_PLURALS[r[1]]}"
        if c is Category.TWO_PAIR:
            return f"{c.label}, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}"
        return f"{c.label}, {RANK_NAMES[r[0]]} high"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, order=True)
class TwoCardValue:
    """The value of a two-card (low) hand: any pair beats any non-pair; the joker is an ace."""

    key: int
    category: Category = field(compare=False)
    ranks: tuple[int, ...] = field(compare=False)

    @property
    def name(self) -> str:
        """``"one pair, aces"`` or ``"high card, ace-nine"``."""
        if self.category is Category.ONE_PAIR:
            return f"one pair, {RANK_PLURALS[self.ranks[0]]}"
        return f"high card, {RANK_NAMES[self.ranks[0]]}-{RANK_NAMES[self.ranks[1]]}"

    def __str__(self) -> str:
        return self.name


def _make(category: Category, ranks: tuple[int, ...], wheel: Wheel) -> HandValue:
    key = int(category)
    straight = category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
    fields = (_straight_field(ranks[0], wheel),) if straight else tuple(2 * r for r in ranks)
    for i in range(5):
        key = (key << FIELD_BITS) | (fields[i] if i < len(fields) else 0)
    return HandValue(key, category, ranks)


def _grouped(ranks: list[int]) -> tuple[list[int], list[int]]:
    """Counts and ranks, sorted by count then rank, both descending."""
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return [c for _, c in groups], [r for r, _ in groups]


def _by_groups(ranks: list[int]) -> tuple[Category, tuple[int, ...]]:
    """Category and tie-break ranks of a hand with no straight or flush (pairs and the like)."""
    counts, order = _grouped(ranks)
    if counts[0] == 5:
        return Category.FIVE_ACES, (ACE,)
    if counts[0] == 4:
        return Category.FOUR_OF_A_KIND, tuple(order)
    if counts[0] == 3:
        return (Category.FULL_HOUSE if counts[1] == 2 else Category.THREE_OF_A_KIND), tuple(order)
    if counts[0] == 2:
        return (Category.TWO_PAIR if counts[1] == 2 else Category.ONE_PAIR), tuple(order)
    return Category.HIGH_CARD, tuple(order)


def _best_straight(ranks: set[int], wheel: Wheel, wild: bool) -> int | None:
    """Top card of the best straight the ranks make (with one wild card if ``wild``), or None."""
    need = 4 if wild else 5
    if len(ranks) != need:
        return None
    for window in STRAIGHT_ORDER[wheel]:
        if ranks.issubset(window):
            return window[0]
    return None


def evaluate_five(cards: Sequence[Card], wheel: Wheel = Wheel.SECOND) -> HandValue:
    """The value of a five-card hand under the joker rules of docs/rulebook.md#the-joker.

    >>> from paigow.cards import parse_cards
    >>> evaluate_five(parse_cards("Jk 9h 7h 4h 2h")).name  # the joker is the ace of hearts
    'flush, ace high'
    >>> evaluate_five(parse_cards("Jk Ah 7h 4h 2h")).ranks  # ... or the highest heart missing
    (14, 13, 7, 4, 2)
    >>> evaluate_five(parse_cards("Jk As Ks Kd 2c")).name
    'two pair, aces and kings'
    """
    if len(cards) != 5:
        raise CardError(f"a five-card hand needs 5 cards, got {len(cards)}")
    indices = [c.index for c in cards]
    if len(set(indices)) != 5:
        raise CardError("a hand cannot hold the same card twice")
    naturals = [i for i in indices if i != JOKER_INDEX]
    ranks = [i // 4 + 2 for i in naturals]
    suits = {i % 4 for i in naturals}
    flush = len(suits) == 1
    if len(naturals) == 5:
        top = _best_straight(set(ranks), wheel, wild=False)
        if flush and top is not None:
            cat = Category.ROYAL_FLUSH if top == ACE else Category.STRAIGHT_FLUSH
            return _make(cat, (top,), wheel)
        if flush:
            return _make(Category.FLUSH, tuple(sorted(ranks, reverse=True)), wheel)
        if top is not None:
            return _make(Category.STRAIGHT, (top,), wheel)
        return _make(*_by_groups(ranks), wheel)
    # The joker: straight flush, then flush, then straight, else an ace. Four suited naturals
    # have distinct ranks, so reading the joker as an ace could make at most a pair there.
    top = _best_straight(set(ranks), wheel, wild=True)
    if flush and top is not None:
        cat = Category.ROYAL_FLUSH if top == ACE else Category.STRAIGHT_FLUSH
        return _make(cat, (top,), wheel)
    if flush:
        missing = max(r for r in range(2, ACE + 1) if r not in ranks)
        return _make(Category.FLUSH, tuple(sorted([*ranks, missing], reverse=True)), wheel)
    if top is not None:
        return _make(Category.STRAIGHT, (top,), wheel)
    return _make(*_by_groups([*ranks, ACE]), wheel)


def evaluate_two(cards: Sequence[Card]) -> TwoCardValue:
    """The value of a two-card hand.

    >>> from paigow.cards import parse_cards
    >>> evaluate_two(parse_cards("Jk As")).name
    'one pair, aces'
    >>> evaluate_two(parse_cards("2c 2d")) > evaluate_two(parse_cards("As Kd"))
    True
    """
    if len(cards) != 2:
        raise CardError(f"a two-card hand needs 2 cards, got {len(cards)}")
    a, b = cards
    if a == b:
        raise CardError("a hand cannot hold the same card twice")
    hi, lo = sorted((a.rank, b.rank), reverse=True)
    if hi == lo:
        return TwoCardValue(PAIR_FLAG | hi, Category.ONE_PAIR, (hi,))
    return TwoCardValue((hi << TWO_CARD_SHIFT) | lo, Category.HIGH_CARD, (hi, lo))


def best_five(
    cards: Sequence[Card], wheel: Wheel = Wheel.SECOND
) -> tuple[HandValue, tuple[Card, ...]]:
    """The best five-card hand among any number (5..7) of cards, and the cards that make it.

    >>> from paigow.cards import parse_cards, format_cards
    >>> value, five = best_five(parse_cards("Jk Kh Qh 2c 9s Jh Th"))
    >>> value.name, format_cards(five)
    ('royal flush', 'Jk Kh Qh Jh Th')
    """
    if not 5 <= len(cards) <= 7:
        raise CardError(f"best_five needs 5 to 7 cards, got {len(cards)}")
    best: tuple[HandValue, tuple[Card, ...]] | None = None
    for five in combinations(cards, 5):
        value = evaluate_five(five, wheel)
        if best is None or value > best[0]:
            best = (value, five)
    assert best is not None
    return best
