"""The cards a side wager of ``paigow deal`` is settled on (shown beside its bonus hand)."""

from __future__ import annotations

from paigow.bonus.paytable import Target
from paigow.cards import Card
from paigow.round import Round


def bonus_cards(rnd: Round, spot: int, target: Target) -> tuple[Card, ...]:
    """The cards a side wager is settled on: the spot's seven, the dealer's seven, or the
    dealer's low hand (as the house way set it)."""
    if target is Target.PLAYER:
        return rnd.hands[spot]
    if target is Target.DEALER_LOW:
        return tuple(rnd.dealer_setting.low) if rnd.dealer_setting is not None else ()
    return rnd.dealer_cards or ()
