"""Side wagers, no I/O: the bonus hand, pay tables and their presets, settlement and Envy
(docs/rulebook.md#side-wagers, docs/side-wagers.md).

>>> from paigow.cards import parse_cards
>>> table = PayTable.load("fortune-a")
>>> hand = bonus_hand(parse_cards("Jk As Ad Ac Ah Kd 2c"))
>>> settle_bonus(table, 500, hand.held).win
200000
"""

from paigow.bonus.hand import (
    LOW_BY_TOP,
    LOW_CATEGORIES,
    PAI_GOW_BY_TOP,
    SEVEN_CARD_CATEGORIES,
    BonusCategory,
    BonusHand,
    best_first,
    bonus_hand,
    low_hand_category,
)
from paigow.bonus.paytable import (
    BONUS_PRESETS,
    ENVY_MINIMUM,
    Envy,
    Pay,
    PayKind,
    PayTable,
    Progressive,
    Target,
)
from paigow.bonus.settle import BonusResult, envy_due, held_for, settle_bonus
from paigow.errors import PayTableError

__all__ = [
    "BONUS_PRESETS",
    "ENVY_MINIMUM",
    "LOW_BY_TOP",
    "LOW_CATEGORIES",
    "PAI_GOW_BY_TOP",
    "SEVEN_CARD_CATEGORIES",
    "BonusCategory",
    "BonusHand",
    "BonusResult",
    "Envy",
    "Pay",
    "PayKind",
    "PayTable",
    "PayTableError",
    "Progressive",
    "Target",
    "best_first",
    "bonus_hand",
    "envy_due",
    "held_for",
    "low_hand_category",
    "settle_bonus",
]
