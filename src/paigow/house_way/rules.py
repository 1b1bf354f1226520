"""The house-way rule language (docs/house-way.md#the-rule-language): the rules as data.

A house way is an ordered list of :class:`Rule`, each a condition over named features of the
seven cards (:mod:`paigow.house_way.conditions`, in the words of
:mod:`paigow.house_way.words`) and an action that chooses the setting (:class:`LowSpec`
candidates, an allowed set of high-hand categories, a way to choose). This module reads whole
rules; :mod:`paigow.house_way` applies them to a hand and :mod:`paigow.analysis.program`
compiles them for the kernels.

>>> rule = parse_rule({"id": "two-pair.split", "when": "two-pair", "low": "low-pair"}, {}, "h")
>>> rule.id, rule.when.kind, rule.low[0].text, rule.action_text()
('two-pair.split', 'flag', 'low-pair', 'low low-pair')
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from paigow.errors import HouseWayError
from paigow.house_way.conditions import TRUE, Condition, parse_condition
from paigow.house_way.words import (
    ALIASES,
    ANY,
    CATEGORIES,
    CHOICES,
    FLAGS,
    GROUPS,
    NUMBERS,
    OPERATORS,
    RANK_LETTERS,
    RANK_NAMES,
    LowSpec,
    parse_categories,
    parse_low,
    parse_ranks,
    suggest,
)
from paigow.ranking import Category

__all__ = [
    "ALIASES", "ANY", "CATEGORIES", "CHOICES", "FLAGS", "GROUPS", "NUMBERS", "OPERATORS",
    "RANK_LETTERS", "RANK_NAMES", "TRUE", "Condition", "LowSpec", "Rule", "iter_specs",
    "parse_categories", "parse_condition", "parse_low", "parse_ranks", "parse_rule",
    "rule_key_lines", "rule_lines",
]  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """One rule: its id, condition, candidates, allowed high hands and way to choose.

    ``line`` is where it starts in its file (0 when it came from elsewhere)."""

    id: str
    when: Condition
    low: tuple[LowSpec, ...]
    high: frozenset[Category] = frozenset()
    choose: str = "first"
    ids: tuple[tuple[Category, str], ...] = ()  # the id by the high hand kept, where it differs
    text: Mapping[str, object] = field(default_factory=dict, compare=False)
    line: int = field(default=0, compare=False)

    def to_dict(self) -> dict[str, object]:
        """The rule as its file writes it."""
        return dict(self.text)

    def outcomes(self) -> tuple[str, ...]:
        """Every id this rule can give: its own, then those named in ``ids``."""
        return (self.id, *(rid for _, rid in self.ids))

    def id_for(self, category: Category) -> str:
        """The id of a setting this rule made whose high hand is of ``category``."""
        return next((rid for cat, rid in self.ids if cat == category), self.id)

    def action_text(self) -> str:
        """What the rule sets, in the file's words: ``low pair``, ``high straight|flush,
        best-low``."""
        parts = []
        low = self.text.get("low")
        if low is not None:
            parts.append(
                "low " + (" or ".join(map(str, low)) if isinstance(low, list) else str(low))
            )
        if self.text.get("high") is not None:
            parts.append(f"high {self.text['high']}")
        if self.choose != "first":
            parts.append(self.choose)
        return ", ".join(parts) or "low any"


_RULE_KEYS: Final = ("id", "when", "low", "high", "choose", "ids", "note")
_ID = re.compile(r"[a-z0-9][a-z0-9.-]*")


def rule_lines(text: str) -> list[int]:
    """The line numbers (1-based) of each ``[[rule]]`` header of a TOML text, in order."""
    return [
        n for n, line in enumerate(text.splitlines(), 1) if re.match(r"\s*\[\[\s*rule\s*\]\]", line)
    ]


def rule_key_lines(text: str) -> list[dict[str, int]]:
    """For each ``[[rule]]`` of a TOML text, the line (1-based) of each key it sets, so an
    error can point at the ``when``, ``low`` or ``high`` at fault.

    >>> rule_key_lines('name = "x"\\n[[rule]]\\nid = "a"\\nwhen = "flush"\\n\\n[[rule]]\\nlow = "pair"')
    [{'id': 3, 'when': 4}, {'low': 7}]
    """
    found: list[dict[str, int]] = []
    in_rule = in_string = False
    for n, line in enumerate(text.splitlines(), 1):
        if in_string:
            in_string = (line.count('"""') + line.count("'''")) % 2 == 0
            continue
        if re.match(r"\s*\[", line):
            in_rule = bool(re.match(r"\s*\[\[\s*rule\s*\]\]", line))
            if in_rule:
                found.append({})
            continue
        m = re.match(r"\s*([A-Za-z0-9_-]+)\s*=(?!=)", line)
        if in_rule and m:
            found[-1].setdefault(m.group(1), n)
        in_string = (line.count('"""') + line.count("'''")) % 2 == 1
    return found


def parse_rule(
    data: Mapping[str, object],
    bands: Mapping[str, frozenset[int]],
    where: str,
    line: int = 0,
    keys: Mapping[str, int] | None = None,
    origin: str = "",
) -> Rule:
    """One ``[[rule]]`` table; errors start with ``where`` (the file and line), or with
    ``origin`` and the line of the key at fault where ``keys`` gives it
    (:func:`rule_key_lines`).

    >>> parse_rule({"id": "x", "low": "for"}, {}, "h.toml:3", 3, {"id": 4, "low": 5}, "h.toml")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: h.toml:5: rule 'x': low spec 'for': unknown two-card group (did you mean 'four'?)
    """
    unknown = sorted(set(data) - set(_RULE_KEYS))
    if unknown:
        raise HouseWayError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}"
            f"{suggest(unknown[0], _RULE_KEYS)} (a rule has: {', '.join(_RULE_KEYS)})"
        )
    rid = data.get("id")
    if not isinstance(rid, str) or not _ID.fullmatch(rid):
        raise HouseWayError(
            f"{where}: a rule needs an id of lowercase letters, digits, '.' and '-' (got {rid!r})"
        )

    def at(key: str) -> str:
        """Where the key's error points: its own line, else the rule's."""
        found = (keys or {}).get(key)
        return f"{origin}:{found}: rule {rid!r}" if found and origin else f"{where}: rule {rid!r}"

    when_text = data.get("when", "true")
    if not isinstance(when_text, str):
        raise HouseWayError(f"{at('when')}: 'when' must be a string")
    try:
        when = parse_condition(when_text, bands)
    except HouseWayError as exc:
        raise HouseWayError(f"{at('when')}: {exc}") from None
    low_raw = data.get("low", "any")
    lows = [low_raw] if isinstance(low_raw, str) else low_raw
    if not isinstance(lows, list) or not lows or not all(isinstance(x, str) for x in lows):
        raise HouseWayError(f"{at('low')}: 'low' must be a low spec or a list of them")
    try:
        low = tuple(parse_low(str(x)) for x in lows)
    except HouseWayError as exc:
        raise HouseWayError(f"{at('low')}: {exc}") from None
    try:
        high_raw = data.get("high")
        if high_raw is not None and not isinstance(high_raw, str):
            raise HouseWayError("'high' must be a string such as 'straight|flush'")
        high = parse_categories(high_raw) if high_raw else frozenset()
    except HouseWayError as exc:
        raise HouseWayError(f"{at('high')}: {exc}") from None
    if any(spec.is_any for spec in low) and len(low) > 1:
        raise HouseWayError(f"{at('low')}: 'any' already holds every setting; list it alone")
    choose = data.get("choose", "first")
    if choose not in CHOICES:
        raise HouseWayError(
            f"{at('choose')}: choose must be one of {', '.join(CHOICES)} (got {choose!r})"
            + (suggest(choose, CHOICES) if isinstance(choose, str) else "")
        )
    if low[0].is_any and choose == "first":
        raise HouseWayError(
            f"{at('low')}: with every setting a candidate ('low' left out or 'any'), say how to "
            'choose: choose = "best-low" or "best-high"'
        )
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise HouseWayError(f"{at('note')}: 'note' must be a string")
    ids_raw = data.get("ids", {})
    if not isinstance(ids_raw, Mapping):
        raise HouseWayError(f"{at('ids')}: 'ids' must be a table of high-hand category = id")
    ids: list[tuple[Category, str]] = []
    for name, other in ids_raw.items():
        if name not in CATEGORIES:
            raise HouseWayError(
                f"{at('ids')}: ids: unknown high-hand category {name!r}"
                f"{suggest(str(name), CATEGORIES)} (categories: {', '.join(CATEGORIES)})"
            )
        if not isinstance(other, str) or not _ID.fullmatch(other):
            raise HouseWayError(f"{at('ids')}: ids.{name}: {other!r} is not a rule id")
        ids.append((CATEGORIES[str(name)], other))
    return Rule(rid, when, low, high, str(choose), tuple(ids), dict(data), line)


def iter_specs(rule: Rule) -> Iterator[LowSpec]:
    """The low specs a rule names, its candidates and those inside ``leaves(...)``."""
    yield from rule.low
    stack = [rule.when]
    while stack:
        c = stack.pop()
        if c.low is not None:
            yield c.low
        stack.extend(c.args)
