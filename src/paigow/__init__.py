"""paigow: pai gow poker conducted as Indiana's 68 IAC 10-9 requires.

The pure core: cards, ranking, settings, the house way, settlement and the round.

>>> import paigow
>>> cards = paigow.parse_cards("Qs Qh 9c 9d 5s 3h 2c")
>>> hw = paigow.HouseWay.preset("standard").set_hand(cards)
>>> str(hw.setting), hw.rule
('Qs Qh 5s 3h 2c / 9d 9c', 'two-pair.split')
"""

from paigow.cards import FULL_DECK, JOKER, Card, format_cards, parse_card, parse_cards
from paigow.commission import Commission
from paigow.errors import (
    CardError,
    HouseWayError,
    PaigowError,
    PayTableError,
    ReplayMismatch,
    RoundError,
    RulesetError,
    SettingError,
)
from paigow.events import Event, event_from_dict
from paigow.house_way import HouseWay, HouseWaySetting
from paigow.ranking import (
    Category,
    HandValue,
    TwoCardValue,
    Wheel,
    best_five,
    evaluate_five,
    evaluate_two,
)
from paigow.round import Phase, Round, starting_position
from paigow.ruleset import FoulRule, Ruleset, SideWagerOffer, StartMethod
from paigow.setting import Setting, SettingValue, all_settings
from paigow.settlement import HandResult, Outcome, Settlement, settle

__version__ = "0.1.0"

__all__ = [
    "FULL_DECK",
    "JOKER",
    "Card",
    "CardError",
    "Category",
    "Commission",
    "Event",
    "FoulRule",
    "HandResult",
    "HandValue",
    "HouseWay",
    "HouseWayError",
    "HouseWaySetting",
    "Outcome",
    "PaigowError",
    "PayTableError",
    "Phase",
    "ReplayMismatch",
    "Round",
    "RoundError",
    "Ruleset",
    "RulesetError",
    "Setting",
    "SettingError",
    "SettingValue",
    "Settlement",
    "SideWagerOffer",
    "StartMethod",
    "TwoCardValue",
    "Wheel",
    "__version__",
    "all_settings",
    "best_five",
    "evaluate_five",
    "evaluate_two",
    "event_from_dict",
    "format_cards",
    "parse_card",
    "parse_cards",
    "settle",
    "starting_position",
]
