"""Settings: seven cards arranged into a five-card high hand and a two-card low hand
(docs/rulebook.md#setting-a-hand).

There are 21 ways to set seven cards (choose the two low cards). A setting whose low hand outranks
its high hand is a foul.

>>> from paigow.cards import parse_cards
>>> cards = parse_cards("Qs Qh 9c 9d 5s 3h 2c")
>>> len(all_settings(cards))
21
>>> s = Setting.from_low(cards, parse_cards("9c 9d"))
>>> str(s), s.is_foul
('Qs Qh 5s 3h 2c / 9c 9d', False)
>>> Setting.from_low(cards, parse_cards("Qs Qh")).is_foul
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Final

from paigow.cards import Card, format_cards, parse_cards
from paigow.errors import SettingError
from paigow.ranking import Category, HandValue, TwoCardValue, Wheel, evaluate_five, evaluate_two

#: The 21 ways to choose the low hand's two positions out of seven, in a fixed order.
LOW_POSITIONS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(range(7), 2))


def low_outranks_high(high: HandValue, low: TwoCardValue) -> bool:
    """True when the low hand outranks the high hand (a foul), under 9-1(d)(9) and 9-13(a).

    The low hand is compared with the high hand's category and leading ranks; where those are
    equal, the high hand's extra cards make it the higher.

    >>> from paigow.cards import parse_cards
    >>> hi = evaluate_five(parse_cards("Ad Kd 7c 4s 2h"))
    >>> low_outranks_high(hi, evaluate_two(parse_cards("Ac Kh")))  # equal leading ranks
    False
    >>> low_outranks_high(hi, evaluate_two(parse_cards("Ac Qh")))
    False
    >>> low_outranks_high(hi, evaluate_two(parse_cards("3c 3h")))
    True
    """
    if high.category > Category.ONE_PAIR:
        return False
    if low.category is not high.category:
        return low.category > high.category
    width = len(low.ranks)
    return low.ranks > high.ranks[:width]


@dataclass(frozen=True, slots=True)
class SettingValue:
    """The two hands' values and whether the setting is a foul."""

    high: HandValue
    low: TwoCardValue
    foul: bool


@dataclass(frozen=True)
class Setting:
    """A five-card high hand and a two-card low hand.

    >>> from paigow.cards import parse_cards
    >>> s = Setting(parse_cards("Ks 7c 5s 4d 2h"), parse_cards("Qd 9h"))
    >>> s.value().high.name, s.value().low.name
    ('high card, king high', 'high card, queen-nine')
    """

    high: tuple[Card, ...]
    low: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.high) != 5:
            raise SettingError(f"the high hand needs 5 cards, got {len(self.high)}")
        if len(self.low) != 2:
            raise SettingError(f"the low hand needs 2 cards, got {len(self.low)}")
        if len(set(self.high) | set(self.low)) != 7:
            raise SettingError("a setting cannot use the same card twice")

    @classmethod
    def from_low(cls, cards: Sequence[Card], low: Iterable[Card | str]) -> Setting:
        """The setting of seven ``cards`` that puts ``low`` in the low hand.

        >>> from paigow.cards import parse_cards
        >>> Setting.from_low(parse_cards("As Kd Qh Jc 9s 7d 2c"), ["7d", "as"]).low
        (Card('As'), Card('7d'))
        """
        seven = parse_cards(cards, count=7)
        low_cards = parse_cards(list(low), count=2)
        for card in low_cards:
            if card not in seven:
                raise SettingError(f"{card.code} is not one of the seven cards")
        ordered_low = tuple(c for c in seven if c in low_cards)
        return cls(tuple(c for c in seven if c not in low_cards), ordered_low)

    @property
    def cards(self) -> tuple[Card, ...]:
        """All seven cards, high hand first."""
        return self.high + self.low

    def value(self, wheel: Wheel = Wheel.SECOND) -> SettingValue:
        """Both hands' values and the foul flag."""
        high = evaluate_five(self.high, wheel)
        low = evaluate_two(self.low)
        return SettingValue(high, low, low_outranks_high(high, low))

    @cached_property
    def is_foul(self) -> bool:
        """Whether the low hand outranks the high hand (does not depend on the wheel)."""
        return self.value().foul

    def same_hands(self, other: Setting) -> bool:
        """Whether both settings put the same cards high and the same cards low."""
        return set(self.high) == set(other.high) and set(self.low) == set(other.low)

    def __str__(self) -> str:
        return f"{format_cards(self.high)} / {format_cards(self.low)}"

    def to_dict(self) -> dict[str, list[str]]:
        """JSON-ready: ``{"high": [...], "low": [...]}``."""
        return {"high": [c.code for c in self.high], "low": [c.code for c in self.low]}

    @classmethod
    def from_dict(cls, data: dict[str, list[str]]) -> Setting:
        """Inverse of :meth:`to_dict`."""
        return cls(parse_cards(data["high"], count=5), parse_cards(data["low"], count=2))


def all_settings(cards: Sequence[Card]) -> tuple[Setting, ...]:
    """The 21 settings of seven cards, low positions in the order of :data:`LOW_POSITIONS`."""
    seven = parse_cards(cards, count=7)
    out = []
    for i, j in LOW_POSITIONS:
        high = tuple(c for k, c in enumerate(seven) if k != i and k != j)
        out.append(Setting(high, (seven[i], seven[j])))
    return tuple(out)
