"""The words of the house-way rule language (docs/house-way.md#the-rule-language): the ranks,
the features a condition reads, the high-hand categories, the low specs that say which two cards
go low, and the ways to choose. :mod:`paigow.house_way.conditions` reads conditions in these
words, :mod:`paigow.house_way.rules` whole rules.

>>> parse_low("A+single1")
LowSpec(text='A+single1', slots=(('rank', 14), ('single', 1)))
>>> sorted(parse_ranks("2-4, 9, Q-A"))
[2, 3, 4, 9, 12, 13, 14]
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from paigow.errors import HouseWayError
from paigow.ranking import Category

RANK_LETTERS: Final = {
    "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14,
}  # fmt: skip
RANK_NAMES: Final = {v: k for k, v in RANK_LETTERS.items() if k != "10"}

#: Boolean features: the categories the seven cards can make, and the singletons.
FLAGS: Final = (
    "five-aces",
    "straight-flush",
    "flush",
    "straight",
    "quads",
    "full-house",
    "two-trips",
    "trips",
    "three-pair",
    "two-pair",
    "one-pair",
    "no-pair",
    "joker",
    *(f"single-{RANK_NAMES[r]}" for r in range(14, 1, -1)),
)
#: Number features: counts, and ranks (2-14; 0 where the hand has none).
NUMBERS: Final = (
    "pairs",
    "threes",
    "fours",
    "aces",
    "high-pair",
    "middle-pair",
    "low-pair",
    "three",
    "low-three",
    "four",
    "single1",
    "single2",
    "single3",
    "single4",
    "single5",
    "straight-high",
)
ALIASES: Final = {"pair": "high-pair"}
#: High-hand categories a rule may require, by their names in the language.
CATEGORIES: Final = {
    "high-card": Category.HIGH_CARD,
    "one-pair": Category.ONE_PAIR,
    "two-pair": Category.TWO_PAIR,
    "trips": Category.THREE_OF_A_KIND,
    "straight": Category.STRAIGHT,
    "flush": Category.FLUSH,
    "full-house": Category.FULL_HOUSE,
    "quads": Category.FOUR_OF_A_KIND,
    "straight-flush": Category.STRAIGHT_FLUSH,
    "royal-flush": Category.ROYAL_FLUSH,
    "five-aces": Category.FIVE_ACES,
}
#: Two-card groups a low spec may name, each the feature holding its rank.
GROUPS: Final = {
    "pair": "high-pair",
    "high-pair": "high-pair",
    "middle-pair": "middle-pair",
    "low-pair": "low-pair",
    "three": "three",
    "low-three": "low-three",
    "four": "four",
}
CHOICES: Final = ("first", "best-low", "best-high")
OPERATORS: Final = ("==", "!=", "<=", ">=", "<", ">")


def suggest(word: str, words: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``words`` to a misspelt ``word``, or ``""``.

    >>> suggest("staright", CATEGORIES)
    " (did you mean 'straight'?)"
    >>> suggest("bestlow", CHOICES)
    " (did you mean 'best-low'?)"
    >>> suggest("zzz", CHOICES)
    ''
    """
    near = difflib.get_close_matches(word, list(words), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def rank_range(text: str, where: str) -> frozenset[int]:
    """``2-6`` -> {2..6}; ``9`` -> {9}."""
    m = re.fullmatch(r"(10|[2-9TJQKA])(?:-(10|[2-9TJQKA]))?", text.strip())
    if m is None:
        raise HouseWayError(f"{where}: {text!r} is not a rank or a range of ranks")
    lo = RANK_LETTERS[m.group(1)]
    hi = RANK_LETTERS[m.group(2)] if m.group(2) else lo
    if hi < lo:
        raise HouseWayError(f"{where}: the range {text!r} runs downwards (write it low-high)")
    return frozenset(range(lo, hi + 1))


def parse_ranks(text: str, where: str = "band") -> frozenset[int]:
    """A set of ranks: ``2-6``, ``J-A``, ``9`` or a comma list of those.

    >>> sorted(parse_ranks("2-4, 9, Q-A"))
    [2, 3, 4, 9, 12, 13, 14]
    """
    ranks: set[int] = set()
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise HouseWayError(f"{where}: {text!r} is not a list of ranks")
    for part in parts:
        ranks |= rank_range(part, where)
    return frozenset(ranks)


@dataclass(frozen=True)
class LowSpec:
    """Which two cards go low: two slots, each ``("single", n)``, ``("rank", r)``,
    ``("joker", 0)``, ``("natural", 14)`` (an ace that is not the joker) or ``("group", feature)`` (a group fills both slots). ``any`` (no slots)
    stands for every setting that does not foul."""

    text: str
    slots: tuple[tuple[str, int | str], ...]

    @property
    def is_any(self) -> bool:
        return not self.slots


ANY: Final = LowSpec("any", ())
_CARD_WORDS: Final = ("joker", "natural-A", "single1", "single2", "single3", "single4", "single5")


def _slot(word: str, spec: str) -> tuple[str, int | str]:
    if word in RANK_LETTERS:
        return ("rank", RANK_LETTERS[word])
    if word == "joker":
        return ("joker", 0)
    if word == "natural-A":
        return ("natural", RANK_LETTERS["A"])
    m = re.fullmatch(r"single([1-5])", word)
    if m:
        return ("single", int(m.group(1)))
    if word in GROUPS:
        raise HouseWayError(
            f"low spec {spec!r}: {word!r} is two cards already; it cannot be joined with '+'"
        )
    near = suggest(word, [*_CARD_WORDS, *GROUPS]) if len(word) > 1 else ""
    raise HouseWayError(
        f"low spec {spec!r}: unknown card {word!r}{near} (one card: single1..single5, a rank "
        "such as A or K, joker, natural-A; two cards: pair, high-pair, middle-pair, low-pair, three, "
        "low-three, four, or two single cards joined by '+')"
    )


def parse_low(text: str, partial: bool = False) -> LowSpec:
    """A low spec: a two-card group (``pair``), two cards joined by ``+`` (``A+K``), or
    ``any``; with ``partial`` (inside ``leaves``) one card alone is allowed too."""
    spec = text.strip()
    if spec == "any":
        return ANY
    if spec in GROUPS:
        return LowSpec(spec, (("group", GROUPS[spec]), ("group", GROUPS[spec])))
    parts = [p.strip() for p in spec.split("+")]
    if len(parts) == 1 and partial:
        return LowSpec(spec, (_slot(parts[0], spec),))
    if len(parts) == 1 and len(spec) > 1 and spec not in RANK_LETTERS:
        near = suggest(spec, [*GROUPS, "any"])
        if near:
            raise HouseWayError(f"low spec {spec!r}: unknown two-card group{near}")
    if len(parts) != 2 or not all(parts):
        raise HouseWayError(
            f"low spec {spec!r}: name two cards (e.g. 'single1+single2', 'A+K') or a pair "
            "('pair', 'low-pair', 'three', 'four')"
        )
    slots = (_slot(parts[0], spec), _slot(parts[1], spec))
    if slots[0] == slots[1] and slots[0][0] in ("single", "joker"):
        raise HouseWayError(f"low spec {spec!r} names the same card twice")
    return LowSpec(spec, slots)


def parse_categories(text: str) -> frozenset[Category]:
    """``straight|flush`` -> the categories."""
    names = [n.strip() for n in text.split("|")]
    unknown = [n for n in names if n not in CATEGORIES]
    if unknown:
        raise HouseWayError(
            f"unknown high-hand categor{'y' if len(unknown) == 1 else 'ies'} "
            f"{', '.join(map(repr, unknown))}{suggest(unknown[0], CATEGORIES)} "
            f"(categories: {', '.join(CATEGORIES)})"
        )
    return frozenset(CATEGORIES[n] for n in names)
