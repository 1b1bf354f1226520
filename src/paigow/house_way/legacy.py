"""The first house-way format (two small tables over fixed rules), read into the rule language.

An operator's file of that format names ``two_pair`` and ``quads`` parameters only; it still
loads: :func:`translate` writes the same fixed rules (docs/house-way.md#the-first-format) with
those parameters as rules of the language, which set every hand as the fixed rules did (checked
on all 154,143,080 hands against :func:`paigow.analysis.kernels.house_way7`, the fixed rules'
own kernel).

>>> rules = translate(LegacyParams.from_mapping({"two_pair": {"high_high": "split"}}))
Traceback (most recent call last):
...
paigow.errors.HouseWayError: missing parameter(s): two_pair.high_middle, two_pair.high_low, two_pair.middle_middle, two_pair.middle_low, two_pair.low_low, quads.low, quads.middle, quads.high
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from paigow.errors import HouseWayError


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
#: The fixed rules' ids in the order they are tried; the fixed rules' kernel numbers them so.
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
#: The rank bands of the first format: two pair (low 2-6, middle 7-T, high J-K) and four of a
#: kind (low 2-6, middle 7-T, high J-A).
PAIR_BANDS: Final = {"low": "2-6", "middle": "7-T", "high": "J-K"}
QUADS_BANDS: Final = {"low": "2-6", "middle": "7-T", "high": "J-A"}


def _action(value: object, where: str) -> Action:
    for action in Action:
        if value == action.value:
            return action
    allowed = ", ".join(a.value for a in Action)
    raise HouseWayError(f"{where}: unknown value {value!r} (allowed: {allowed})")


@dataclass(frozen=True)
class LegacyParams:
    """A first-format file's parameters, checked."""

    two_pair: Mapping[str, Action]
    quads: Mapping[str, Action]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> LegacyParams:
        """From ``{"two_pair": {...}, "quads": {...}}``; unknown and missing keys are refused."""
        two_pair, quads = data.get("two_pair", {}), data.get("quads", {})
        if not isinstance(two_pair, Mapping) or not isinstance(quads, Mapping):
            raise HouseWayError("two_pair and quads must be tables of parameters")
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
        return cls(
            {k: _action(two_pair[k], f"two_pair.{k}") for k in TWO_PAIR_KEYS},
            {k: _action(quads[k], f"quads.{k}") for k in QUADS_KEYS},
        )

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {
            "two_pair": {"aces": "split", **{k: a.value for k, a in self.two_pair.items()}},
            "quads": {k: a.value for k, a in self.quads.items()},
        }


def is_legacy(data: Mapping[str, Any]) -> bool:
    """Whether a house way's data is of the first format (parameters, no rules)."""
    return "rule" not in data and "rules" not in data and ("two_pair" in data or "quads" in data)


def _keep_rule(
    family: str, when: str, action: Action, low: str = "single1+single2"
) -> dict[str, Any] | None:
    """The rule keeping a hand together under a keep/keep-if parameter (None for split)."""
    if action is Action.SPLIT:
        return None
    if action is Action.KEEP:
        return {"id": f"{family}.keep", "when": when, "low": low}
    if action is Action.KEEP_IF_ACE:
        return {"id": f"{family}.keep-ace", "when": f"{when} and single-A", "low": low}
    return {
        "id": f"{family}.keep-king",
        "when": f"{when} and (single-A or single-K)",
        "low": low,
    }


def translate(params: LegacyParams) -> list[dict[str, Any]]:
    """The fixed rules with ``params``, as rules of the language (raw ``[[rule]]`` tables)."""
    rules: list[dict[str, Any]] = [
        {"id": "five-aces.kings", "when": "five-aces and pair == K", "low": "pair"},
        {"id": "five-aces.split", "when": "five-aces", "low": "A+A"},
        {
            "id": "straight-flush",
            "when": "straight-flush",
            "high": "straight-flush|royal-flush",
            "choose": "best-low",
        },
        {
            "id": "quads.pair-low",
            "when": "quads and (pairs > 0 or threes > 0)",
            "low": ["pair", "three"],
        },
    ]
    for band, ranks in QUADS_BANDS.items():
        rule = _keep_rule("quads", f"quads and four in {ranks}", params.quads[band])
        if rule is not None:
            rules.append(rule)
    rules += [
        {"id": "quads.split", "when": "quads", "low": "four"},
        {"id": "trips.two-sets", "when": "two-trips", "low": "three"},
        {"id": "full-house.two-pairs", "when": "full-house and pairs == 2", "low": "high-pair"},
        {
            "id": "full-house.deuces",
            "when": "full-house and pair == 2 and single-A and single-K",
            "low": "A+K",
        },
        {"id": "full-house.split", "when": "full-house", "low": "pair"},
        {
            "id": "straight",
            "when": "pairs < 2 and (straight or flush)",
            "high": "straight|flush",
            "choose": "best-low",
            "ids": {"flush": "flush"},
        },
        {"id": "three-pair", "when": "three-pair", "low": "high-pair"},
        {"id": "trips.aces", "when": "trips and three == A", "low": "A+single1"},
        {"id": "trips", "when": "trips", "low": "single1+single2"},
        {"id": "two-pair.split", "when": "two-pair and high-pair == A", "low": "low-pair"},
    ]
    for key in TWO_PAIR_KEYS:
        hi, lo = key.split("_")
        when = f"two-pair and high-pair in {PAIR_BANDS[hi]} and low-pair in {PAIR_BANDS[lo]}"
        rule = _keep_rule("two-pair", when, params.two_pair[key])
        if rule is not None:
            rules.append(rule)
    rules += [
        {"id": "two-pair.split", "when": "two-pair", "low": "low-pair"},
        {"id": "one-pair", "when": "one-pair", "low": "single1+single2"},
        {"id": "pai-gow", "low": "single2+single3"},
    ]
    return rules
