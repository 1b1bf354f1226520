"""The house way, no I/O: how the dealer sets the bank's hand (docs/house-way.md, 9-1(d)(10),
9-13(d)).

``way`` reads presets and operators' files and applies their rules (:class:`HouseWay`); the rule
language is read by ``words`` (its vocabulary), ``conditions`` and ``rules``; ``reader`` reads a
hand for them; ``legacy`` translates the first format; ``plain`` renders the rules in plain
English; ``cases`` reads and runs cases files of expected settings.

>>> from paigow.cards import parse_cards
>>> HouseWay.preset("standard").set_hand(parse_cards("Th Tc 8s 8d As 9h 3c")).rule
'two-pair.keep-ace'
"""

from paigow.house_way.way import (
    BUILTIN_PRESETS,
    RULE_IDS,
    HouseWay,
    HouseWaySetting,
    legacy_params,
)

__all__ = ["BUILTIN_PRESETS", "RULE_IDS", "HouseWay", "HouseWaySetting", "legacy_params"]
