"""The commission-free variants' rules on cards, no I/O (docs/rulebook.md#push-rules): whether a
dealer's hand triggers a push rule, the dragon hand's packet, and the best setting of a hand
against a dealer's setting shown face up.

>>> from paigow.cards import parse_cards
>>> from paigow.house_way import HouseWay
>>> dealer = parse_cards("Qs Jd 9c 7h 5s 4d 2c")
>>> way = HouseWay.load("standard").set_hand(dealer)
>>> push_triggered(PushRule.QUEEN_HIGH_PAI_GOW, dealer, way.setting)
True
>>> push_triggered(PushRule.QUEEN_HIGH_PAI_GOW, parse_cards("Qs Jd 9c 7h 5s 4d Jk"), way.setting)
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paigow.bonus.hand import PAI_GOW_BY_TOP, QUEEN, bonus_hand
from paigow.cards import ACE, Card
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import PushRule
from paigow.setting import Setting, all_settings
from paigow.settlement import Outcome, Settlement, settle

NINE = 9


def pai_gow_top(cards: Sequence[Card]) -> int | None:
    """The top rank of a seven-card pai gow (no pair, straight or flush; the joker counts as an
    ace, so a hand with the joker is ace-high or no pai gow), or None for any other hand.

    >>> from paigow.cards import parse_cards
    >>> pai_gow_top(parse_cards("Jk Qd 9c 7h 5s 4d 2c")), pai_gow_top(parse_cards("Qs Qd 9c 7h 5s 4d 2c"))
    (14, None)
    """
    held = bonus_hand(cards).held
    for rank, category in PAI_GOW_BY_TOP.items():
        if category in held:
            return rank
    return None  # seven distinct ranks are at least nine high, so no pai gow is missed


def is_nine_high_low(low: Sequence[Card]) -> bool:
    """A two-card low hand of a nine and a lower card (not a pair; the joker is an ace).

    >>> from paigow.cards import parse_cards
    >>> is_nine_high_low(parse_cards("9s 8d")), is_nine_high_low(parse_cards("9s 9d"))
    (True, False)
    """
    ranks = sorted((ACE if c.is_joker else c.rank for c in low), reverse=True)
    return ranks[0] == NINE and ranks[1] < NINE


def push_triggered(rule: PushRule, dealer_cards: Sequence[Card], dealer: Setting) -> bool:
    """Whether the dealer's seven cards, set as ``dealer`` by the house way, are the hand on which
    every player's main wager pushes under ``rule``."""
    if rule is PushRule.NONE:
        return False
    if rule is PushRule.NINE_HIGH_LOW:
        return is_nine_high_low(dealer.low)
    want = QUEEN if rule is PushRule.QUEEN_HIGH_PAI_GOW else ACE
    return pai_gow_top(dealer_cards) == want


def push_reason(rule: PushRule) -> str:
    """What a push by the rule records as its reason: the rule's own value.

    >>> push_reason(PushRule.NINE_HIGH_LOW)
    'nine-high-low'
    """
    return rule.value


def dragon_packet(order: Sequence[int], occupied: Sequence[int]) -> int | None:
    """The spot whose packet is the dragon hand: the first spot without a wager in dealing order
    (positions from the starting position counterclockwise, the dealer's position 1 passed over),
    or None when every spot has a wager.

    >>> dragon_packet([5, 6, 7, 1, 2, 3, 4], occupied=[1, 3, 4])
    5
    >>> dragon_packet([1, 2, 3, 4, 5, 6, 7], occupied=[1, 2, 3, 4, 5, 6]) is None
    True
    """
    for position in order:
        spot = position - 1
        if spot >= 1 and spot not in occupied:
            return spot
    return None


def offer_order(order: Sequence[int], occupied: Sequence[int]) -> tuple[int, ...]:
    """The spots with a wager in order from the starting position (whom the dragon is offered to).

    >>> offer_order([5, 6, 7, 1, 2, 3, 4], occupied=[1, 3, 4])
    (4, 1, 3)
    """
    return tuple(p - 1 for p in order if p - 1 in occupied)


@dataclass(frozen=True)
class FaceUpChoice:
    """The best setting against a dealer's setting shown face up, and every setting's
    settlement (in :func:`paigow.setting.all_settings` order)."""

    best: Setting
    settlement: Settlement
    house_way: Setting
    results: tuple[tuple[Setting, Settlement], ...]


_RANK = {Outcome.WIN: 2, Outcome.PUSH: 1, Outcome.LOSS: 0}


def best_against(
    cards: Sequence[Card],
    dealer: Setting,
    house_way: HouseWay,
    wheel: Wheel = Wheel.SECOND,
    *,
    pushes: bool = False,
) -> FaceUpChoice:
    """The setting of the seven ``cards`` that does best against the dealer's known setting:
    every setting's outcome is certain, so the best is a win if any setting wins, else a push,
    else a loss; ties go to the house way's setting (then the first in
    :func:`paigow.setting.all_settings` order). ``pushes``: the dealer's hand triggers the push
    rule (every hand but a foul pushes, so the house way is best).

    >>> from paigow.cards import parse_cards
    >>> way = HouseWay.load("standard")
    >>> dealer = Setting.from_low(parse_cards("Ks Kd 8c 6h 4s 3d 2c"), ["3d", "2c"])
    >>> choice = best_against(parse_cards("As Ad Jc 9h 7s 5d 4c"), dealer, way)
    >>> str(choice.best), choice.settlement.outcome.value
    ('As Ad 7s 5d 4c / Jc 9h', 'win')
    """
    hw = house_way.set_hand(cards, wheel).setting
    results = []
    best: tuple[Setting, Settlement] | None = None
    for s in all_settings(tuple(cards)):
        r = settle(s, dealer, 100, Commission("0"), wheel)
        if pushes and not r.foul:
            r = Settlement(Outcome.PUSH, r.high, r.low, r.wager, 0, 0)
        results.append((s, r))
        if (
            best is None
            or _RANK[r.outcome] > _RANK[best[1].outcome]
            or (_RANK[r.outcome] == _RANK[best[1].outcome] and s.same_hands(hw))
        ):
            best = (s, r)
    assert best is not None
    return FaceUpChoice(best[0], best[1], hw, tuple(results))
