"""Settling a side wager from the cards alone, and Envy (docs/rulebook.md#side-wagers).

A side wager is settled on its target's cards whatever the setting, a foul included: paid as the
best-paid category held (the wager returned with the win) or lost.

>>> from paigow.bonus.hand import bonus_hand
>>> from paigow.bonus.paytable import PayTable
>>> from paigow.cards import parse_cards
>>> table = PayTable.load("fortune-a")
>>> settle_bonus(table, 500, bonus_hand(parse_cards("9c 9d 9h 9s Kd 2c 3h")).held)
BonusResult(category=<BonusCategory.FOUR_OF_A_KIND: 'four-of-a-kind'>, wager=500, win=12500, returned=13000)
>>> settle_bonus(table, 500, set())
BonusResult(category=None, wager=500, win=0, returned=0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from paigow.bonus.hand import BonusCategory, bonus_hand, low_hand_category
from paigow.bonus.paytable import PayTable, Target
from paigow.cards import Card


@dataclass(frozen=True, slots=True)
class BonusResult:
    """One side wager settled: the category paid (None: lost), the wager, the win (cents, the wager
    not included) and what goes back to the player (wager + win on a win, 0 on a loss)."""

    category: BonusCategory | None
    wager: int
    win: int
    returned: int

    @property
    def won(self) -> bool:
        return self.category is not None

    @property
    def house_net(self) -> int:
        """The house's result on the wager: the wager lost, or minus the win."""
        return self.wager - self.returned


def settle_bonus(
    table: PayTable, wager: int, held: Iterable[BonusCategory], meter: int | None = None
) -> BonusResult:
    """Settle ``wager`` cents on a hand holding ``held`` (for a meter pay, ``meter`` cents)."""
    if isinstance(wager, bool) or not isinstance(wager, int) or wager <= 0:
        raise ValueError(f"a side wager must be a positive number of cents, got {wager!r}")
    category = table.best(held, wager, meter)
    if category is None:
        return BonusResult(None, wager, 0, 0)
    win = table.win(category, wager, meter)
    return BonusResult(category, wager, win, wager + win)


def envy_due(table: PayTable, wager: int, others: Iterable[frozenset[BonusCategory]]) -> int:
    """Envy cents due to a player with bonus wager ``wager``, given every OTHER player's held
    categories (never the player's own hand, never the dealer's); 0 below the Envy minimum.

    >>> from paigow.bonus.paytable import PayTable
    >>> t = PayTable.load("fortune-a")
    >>> quads, aces = frozenset({BonusCategory.FOUR_OF_A_KIND}), frozenset({BonusCategory.FIVE_ACES})
    >>> envy_due(t, 500, [quads, aces, frozenset()]), envy_due(t, 499, [quads])
    (25500, 0)
    """
    if table.envy is None or wager < table.envy.minimum:
        return 0
    return sum(table.envy.amount(held) for held in others)


def held_for(
    target: Target, seven: Sequence[Card], low: Sequence[Card] | None = None
) -> frozenset[BonusCategory]:
    """What a side wager on ``target`` settles on: the seven cards' bonus hand, and for bets on
    the dealer, the category of the dealer's low hand as the house way set it (``low``).

    >>> from paigow.cards import parse_cards
    >>> seven = parse_cards("Qs Qh 9c 7d 5s 3h 2c")
    >>> sorted(held_for(Target.DEALER, seven, parse_cards("9c 7d")))
    [<BonusCategory.LOW_NINE_HIGH: 'low-nine-high'>]
    >>> held_for(Target.PLAYER, seven)
    frozenset()
    """
    held = set(bonus_hand(seven).held) if target is not Target.DEALER_LOW else set()
    if target is not Target.PLAYER:
        if low is None:
            raise ValueError(f"a {target.value} side wager needs the dealer's low hand")
        if not set(low) <= set(seven):
            raise ValueError("the dealer's low hand must be two of the dealer's seven cards")
        category = low_hand_category(low)
        if category is not None:
            held.add(category)
    return frozenset(held)
