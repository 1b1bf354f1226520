"""The house way: how the dealer sets the bank's hand (docs/house-way.md, 9-1(d)(10), 9-13(d)).

Presets are data (TOML files naming the parameters of docs/house-way.md#presets); the rules
themselves are fixed. Every setting carries the id of the rule that made it. The result depends
only on the set of seven cards, never on their order, and is never a foul.

>>> from paigow.cards import parse_cards
>>> hw = HouseWay.preset("standard")
>>> r = hw.set_hand(parse_cards("Th Tc 8s 8d As 9h 3c"))
>>> str(r.setting), r.rule
('Th Tc 8s 8d 3c / As 9h', 'two-pair.keep-ace')
>>> HouseWay.preset("foxwoods").set_hand(parse_cards("Qs Qh 4c 4d As 9h 3c")).rule
'two-pair.split'
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from paigow.cards import ACE, Card, parse_cards, sort_cards
from paigow.errors import HouseWayError
from paigow.ranking import Category, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting, all_settings

KING: Final = 13


class Action(StrEnum):
    """What a two-pair or four-of-a-kind parameter says to do."""

    KEEP = "keep"
    SPLIT = "split"
    KEEP_IF_ACE = "keep-if-ace"
    KEEP_IF_KING = "keep-if-king"


TWO_PAIR_KEYS: Final = (
    "high_high",
    "high_middle",
    "high_low",
    "middle_middle",
    "middle_low",
    "low_low",
)
QUADS_KEYS: Final = ("low", "middle", "high")
BUILTIN_PRESETS: Final = ("standard", "foxwoods")
#: Every rule id a setting can carry, in the order they are tried (docs/house-way.md#rule-ids); the
#: analysis kernels number the rules by their position here.
RULE_IDS: Final = (
    "five-aces.kings",
    "five-aces.split",
    "straight-flush",
    "quads.pair-low",
    "quads.keep",
    "quads.keep-ace",
    "quads.keep-king",
    "quads.split",
    "trips.two-sets",
    "full-house.two-pairs",
    "full-house.deuces",
    "full-house.split",
    "flush",
    "straight",
    "three-pair",
    "trips",
    "trips.aces",
    "two-pair.split",
    "two-pair.keep-ace",
    "two-pair.keep-king",
    "two-pair.keep",
    "one-pair",
    "pai-gow",
)


def pair_class(rank: int) -> str:
    """Rank class for two pair: low 2-6, middle 7-T, high J-K, aces."""
    if rank == ACE:
        return "aces"
    if rank >= 11:
        return "high"
    return "middle" if rank >= 7 else "low"


def quads_class(rank: int) -> str:
    """Rank class for four of a kind: low 2-6, middle 7-T, high J-A."""
    if rank >= 11:
        return "high"
    return "middle" if rank >= 7 else "low"


@dataclass(frozen=True, slots=True)
class HouseWaySetting:
    """A setting made by the house way, with the id of the rule that made it."""

    setting: Setting
    rule: str


def _action(value: object, where: str) -> Action:
    for action in Action:
        if value == action.value:
            return action
    allowed = ", ".join(a.value for a in Action)
    raise HouseWayError(f"{where}: unknown value {value!r} (allowed: {allowed})")


class HouseWay:
    """A house way preset: the fixed rules of docs/house-way.md with the preset's parameters.

    >>> hw = HouseWay.preset("standard")
    >>> hw.name, hw.two_pair["middle_low"].value, hw.quads["high"].value
    ('standard', 'keep-if-king', 'split')
    >>> HouseWay.preset("casino-royale")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: unknown house way 'casino-royale' (presets: standard, foxwoods; or a .toml/.json file)
    """

    def __init__(self, name: str, two_pair: Mapping[str, Any], quads: Mapping[str, Any]) -> None:
        if not isinstance(name, str) or not name.strip():
            raise HouseWayError("a house way needs a name")
        self.name = name.strip()
        unknown = sorted(set(two_pair) - {*TWO_PAIR_KEYS, "aces"})
        if unknown:
            raise HouseWayError(f"unknown two_pair parameter(s): {', '.join(unknown)}")
        unknown = sorted(set(quads) - set(QUADS_KEYS))
        if unknown:
            raise HouseWayError(f"unknown quads parameter(s): {', '.join(unknown)}")
        missing = [f"two_pair.{k}" for k in TWO_PAIR_KEYS if k not in two_pair]
        missing += [f"quads.{k}" for k in QUADS_KEYS if k not in quads]
        if missing:
            raise HouseWayError(f"missing parameter(s): {', '.join(missing)}")
        if "aces" in two_pair and _action(two_pair["aces"], "two_pair.aces") is not Action.SPLIT:
            raise HouseWayError(
                "two_pair.aces must be 'split': aces with any other pair always split "
                "(house way rule 9, docs/house-way.md#two-pair)"
            )
        self.two_pair: dict[str, Action] = {
            k: _action(two_pair[k], f"two_pair.{k}") for k in TWO_PAIR_KEYS
        }
        self.quads: dict[str, Action] = {k: _action(quads[k], f"quads.{k}") for k in QUADS_KEYS}

    # ----------------------------------------------------------------------------- loading
    @classmethod
    def preset(cls, name: str) -> HouseWay:
        """A built-in preset by name (``standard`` or ``foxwoods``)."""
        key = name.strip().lower()
        if key not in BUILTIN_PRESETS:
            raise HouseWayError(
                f"unknown house way {name!r} (presets: {', '.join(BUILTIN_PRESETS)}; "
                "or a .toml/.json file)"
            )
        text = resources.files("paigow.presets").joinpath(f"{key}.toml").read_text("utf-8")
        return cls.from_dict(tomllib.loads(text))

    @classmethod
    def from_file(cls, path: str | Path) -> HouseWay:
        """An operator preset from a TOML or JSON file naming the parameters (and nothing else)."""
        p = Path(path)
        try:
            text = p.read_text("utf-8")
        except OSError as exc:
            raise HouseWayError(f"cannot read house way file {str(p)!r}: {exc.strerror}") from None
        try:
            data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise HouseWayError(f"house way file {str(p)!r} is not valid: {exc}") from None
        if not isinstance(data, dict):
            raise HouseWayError(f"house way file {str(p)!r} must hold a table of parameters")
        data.setdefault("name", p.stem)
        return cls.from_dict(data)

    @classmethod
    def load(cls, name_or_path: str | Path) -> HouseWay:
        """A built-in preset by name, or an operator preset file by path."""
        text = str(name_or_path)
        if text.strip().lower() in BUILTIN_PRESETS:
            return cls.preset(text)
        if text.endswith((".toml", ".json")) or Path(text).exists():
            return cls.from_file(text)
        return cls.preset(text)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HouseWay:
        """From ``{"name": ..., "two_pair": {...}, "quads": {...}}``; unknown keys are refused."""
        unknown = sorted(set(data) - {"name", "two_pair", "quads"})
        if unknown:
            raise HouseWayError(f"unknown house way parameter(s): {', '.join(unknown)}")
        two_pair, quads = data.get("two_pair", {}), data.get("quads", {})
        if not isinstance(two_pair, Mapping) or not isinstance(quads, Mapping):
            raise HouseWayError("two_pair and quads must be tables of parameters")
        return cls(str(data.get("name", "")), two_pair, quads)

    def to_dict(self) -> dict[str, Any]:
        """The preset's parameters, JSON-ready (recorded in every round's log)."""
        return {
            "name": self.name,
            "two_pair": {"aces": "split", **{k: a.value for k, a in self.two_pair.items()}},
            "quads": {k: a.value for k, a in self.quads.items()},
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HouseWay) and other.to_dict() == self.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def __repr__(self) -> str:
        return f"HouseWay({self.name!r})"

    # ----------------------------------------------------------------------------- setting
    def set_hand(self, cards: Sequence[Card], wheel: Wheel = Wheel.SECOND) -> HouseWaySetting:
        """Set seven cards by the house way; the first rule that applies sets the hand."""
        return _HandReader(sort_cards(parse_cards(cards, count=7)), self, wheel).decide()


class _HandReader:
    """One hand read by rank groups (the joker counts with the aces) and set by the rules."""

    def __init__(self, seven: tuple[Card, ...], way: HouseWay, wheel: Wheel) -> None:
        self.seven = seven  # highest first, joker first
        self.way = way
        self.wheel = wheel
        groups: dict[int, list[Card]] = {}
        for card in seven:
            groups.setdefault(card.rank, []).append(card)  # the joker's rank is the ace's
        self.groups = groups

    def ranks_with(self, count: int) -> list[int]:
        """Ranks that appear exactly ``count`` times, highest first."""
        return sorted((r for r, cs in self.groups.items() if len(cs) == count), reverse=True)

    def singletons(self) -> list[Card]:
        """Cards of ranks that appear once, highest first."""
        return [self.groups[r][0] for r in self.ranks_with(1)]

    def strongest(self, lows: Sequence[Sequence[Card]], rule: str) -> HouseWaySetting:
        """Where a rule leaves a choice between cards of one rank, the choice that makes the high
        hand strongest: the low hand is the same, and a joker among aces may complete a straight
        or flush in the high hand. This keeps the house way blind to suits (the first of equal
        choices is taken)."""
        best: tuple[int, Sequence[Card]] | None = None
        for low in lows:
            key = evaluate_five([c for c in self.seven if c not in low], self.wheel).key
            if best is None or key > best[0]:
                best = (key, low)
        assert best is not None
        return self.low(best[1], rule)

    def pair_of(self, rank: int, rule: str) -> HouseWaySetting:
        """Two cards of ``rank`` go low (the strongest such choice)."""
        return self.strongest(list(combinations(self.groups[rank], 2)), rule)

    def low(self, low: Sequence[Card], rule: str) -> HouseWaySetting:
        high = tuple(c for c in self.seven if c not in low)
        return HouseWaySetting(Setting(high, tuple(low)), rule)

    def best_placement(self, categories: set[Category]) -> Setting | None:
        """Among settings whose high hand is in ``categories``: the best low, then best high."""
        best: tuple[int, int, Setting] | None = None
        for s in all_settings(self.seven):
            high = evaluate_five(s.high, self.wheel)
            if high.category not in categories:
                continue
            low = evaluate_two(s.low)
            if best is None or (low.key, high.key) > best[:2]:
                best = (low.key, high.key, s)
        return None if best is None else best[2]

    def keep_condition(self, action: Action) -> bool:
        if action is Action.KEEP:
            return True
        if action is Action.SPLIT:
            return False
        wanted = {ACE} if action is Action.KEEP_IF_ACE else {ACE, KING}
        return any(c.rank in wanted for c in self.singletons())

    def decide(self) -> HouseWaySetting:
        for rule in self.RULES:
            result = rule(self)
            if result is not None:
                return result
        raise AssertionError("no house way rule applied")  # pragma: no cover - rule 11 always does

    # The rules, in order (docs/house-way.md#the-rules-in-order); None when one does not apply.
    def five_aces(self) -> HouseWaySetting | None:
        aces = self.groups.get(ACE, [])
        if len(aces) != 5:
            return None
        kings = self.groups.get(KING, [])
        if len(kings) == 2:
            return self.low(kings, "five-aces.kings")
        naturals = [c for c in aces if not c.is_joker]
        return self.low(naturals[:2], "five-aces.split")

    def straight_flush(self) -> HouseWaySetting | None:
        s = self.best_placement({Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
        return None if s is None else HouseWaySetting(s, "straight-flush")

    def four_of_a_kind(self) -> HouseWaySetting | None:
        quads = self.ranks_with(4)
        if not quads:
            return None
        others = [r for r in self.groups if r != quads[0]]
        beside = sorted((r for r in others if len(self.groups[r]) >= 2), reverse=True)
        if beside:
            return self.pair_of(beside[0], "quads.pair-low")
        action = self.way.quads[quads_class(quads[0])]
        singles = self.singletons()
        if self.keep_condition(action):
            rule = {
                Action.KEEP: "quads.keep",
                Action.KEEP_IF_ACE: "quads.keep-ace",
                Action.KEEP_IF_KING: "quads.keep-king",
            }[action]
            return self.low(singles[:2], rule)
        return self.pair_of(quads[0], "quads.split")

    def two_sets_of_three(self) -> HouseWaySetting | None:
        trips = self.ranks_with(3)
        if len(trips) != 2:
            return None
        return self.pair_of(trips[0], "trips.two-sets")

    def full_house(self) -> HouseWaySetting | None:
        trips, pairs = self.ranks_with(3), self.ranks_with(2)
        if len(trips) != 1 or not pairs:
            return None
        if len(pairs) == 2:
            return self.low(self.groups[pairs[0]], "full-house.two-pairs")
        singles = self.singletons()
        if pairs[0] == 2:
            ace = [c for c in singles if c.rank == ACE]
            king = [c for c in singles if c.rank == KING]
            if ace and king:
                return self.low([ace[0], king[0]], "full-house.deuces")
        return self.low(self.groups[pairs[0]], "full-house.split")

    def flush_or_straight(self) -> HouseWaySetting | None:
        pairs = len(self.ranks_with(2))
        if pairs >= 2:
            return None  # three pairs: rule 7; two pairs: rule 9 (the straight or flush ignored)
        s = self.best_placement({Category.STRAIGHT, Category.FLUSH})
        if s is None:
            return None
        kept = evaluate_five(s.high, self.wheel).category
        return HouseWaySetting(s, "flush" if kept is Category.FLUSH else "straight")

    def three_pair(self) -> HouseWaySetting | None:
        pairs = self.ranks_with(2)
        if len(pairs) != 3:
            return None
        return self.low(self.groups[pairs[0]], "three-pair")

    def three_of_a_kind(self) -> HouseWaySetting | None:
        trips = self.ranks_with(3)
        if len(trips) != 1:
            return None
        singles = self.singletons()
        if trips[0] == ACE:
            return self.strongest([[ace, singles[0]] for ace in self.groups[ACE]], "trips.aces")
        return self.low(singles[:2], "trips")

    def two_pair(self) -> HouseWaySetting | None:
        pairs = self.ranks_with(2)
        if len(pairs) != 2:
            return None
        hi, lo = pairs
        split = self.low(self.groups[lo], "two-pair.split")
        if hi == ACE:
            return split
        action = self.way.two_pair[f"{pair_class(hi)}_{pair_class(lo)}"]
        if not self.keep_condition(action):
            return split
        rule = {
            Action.KEEP: "two-pair.keep",
            Action.KEEP_IF_ACE: "two-pair.keep-ace",
            Action.KEEP_IF_KING: "two-pair.keep-king",
        }[action]
        return self.low(self.singletons()[:2], rule)

    def one_pair(self) -> HouseWaySetting | None:
        if len(self.ranks_with(2)) != 1:
            return None
        return self.low(self.singletons()[:2], "one-pair")

    def no_pair(self) -> HouseWaySetting:
        return self.low(self.seven[1:3], "pai-gow")

    RULES: Final[tuple[Callable[[_HandReader], HouseWaySetting | None], ...]] = (
        five_aces,
        straight_flush,
        four_of_a_kind,
        two_sets_of_three,
        full_house,
        flush_or_straight,
        three_pair,
        three_of_a_kind,
        two_pair,
        one_pair,
        no_pair,
    )
