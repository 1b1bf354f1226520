"""The house way: how the dealer sets the bank's hand (docs/house-way.md, 9-1(d)(10), 9-13(d)).

A house way is a file of the rule language (:mod:`paigow.house_way_rules`): an ordered list of
rules, each a condition over the seven cards and an action choosing the setting; the first rule
that applies sets the hand, and the setting carries that rule's id. This module reads the
presets and operators' files and applies the rules to a hand by reading them directly (the
reference; the analysis engine compiles the same rules for its kernels). A file of the first
format (two small tables) still loads, translated (:mod:`paigow.house_way_legacy`).

>>> from paigow.cards import parse_cards
>>> hw = HouseWay.preset("standard")
>>> r = hw.set_hand(parse_cards("Th Tc 8s 8d As 9h 3c"))
>>> str(r.setting), r.rule
('Th Tc 8s 8d 3c / As 9h', 'two-pair.keep-ace')
>>> HouseWay.preset("foxwoods").set_hand(parse_cards("Qs Qh 4c 4d As 9h 3c")).rule
'two-pair.split'
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from paigow.cards import ACE, Card, parse_cards, sort_cards
from paigow.errors import HouseWayError
from paigow.house_way_legacy import RULE_IDS, LegacyParams, is_legacy, translate
from paigow.house_way_rules import (
    RANK_NAMES,
    Condition,
    LowSpec,
    Rule,
    parse_ranks,
    parse_rule,
    rule_lines,
)
from paigow.ranking import Category, HandValue, TwoCardValue, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting, all_settings, low_outranks_high

__all__ = ["BUILTIN_PRESETS", "RULE_IDS", "HouseWay", "HouseWaySetting"]

#: The presets shipped in ``paigow/presets/house_ways`` (docs/house-way.md#presets).
BUILTIN_PRESETS: Final = ("standard", "foxwoods")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}")
_TOP_KEYS: Final = ("name", "title", "source", "format", "bands", "rule", "rules")


@dataclass(frozen=True, slots=True)
class HouseWaySetting:
    """A setting made by the house way, with the id of the rule that made it."""

    setting: Setting
    rule: str


class HouseWay:
    """A house way: a name, named rank bands and the ordered rules.

    >>> hw = HouseWay.preset("standard")
    >>> hw.name, len(hw.rules), hw.rules[0].id
    ('standard', 24, 'five-aces.kings')
    >>> HouseWay.preset("casino-royale")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: unknown house way 'casino-royale' (presets: standard, foxwoods; or a .toml/.json file)
    """

    def __init__(
        self,
        name: str,
        rules: Sequence[Rule],
        bands: Mapping[str, str] | None = None,
        title: str = "",
        source: str = "",
        origin: str = "",
    ) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name.strip()):
            raise HouseWayError(
                f"a house way needs a name (letters, digits, ' ', '.', '_', '-'; got {name!r})"
            )
        if not rules:
            raise HouseWayError(f"{origin or name}: a house way needs at least one [[rule]]")
        self.name = name.strip()
        self.rules = tuple(rules)
        self.bands = dict(bands or {})
        self.title = title
        self.source = source
        self.origin = origin or self.name

    # ----------------------------------------------------------------------------- loading
    @classmethod
    def preset(cls, name: str) -> HouseWay:
        """A built-in preset by name (:data:`BUILTIN_PRESETS`)."""
        key = name.strip().lower()
        if key not in BUILTIN_PRESETS:
            raise HouseWayError(
                f"unknown house way {name!r} (presets: {', '.join(BUILTIN_PRESETS)}; "
                "or a .toml/.json file)"
            )
        return _preset(key)

    @classmethod
    def from_text(cls, text: str, origin: str = "<text>", json_text: bool = False) -> HouseWay:
        """From a file's text (TOML, or JSON with ``json_text``); errors name ``origin`` and the
        line."""
        try:
            data = json.loads(text) if json_text else tomllib.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            kind = "JSON" if json_text else "TOML"
            raise HouseWayError(f"{origin}: not valid {kind}: {exc}") from None
        if not isinstance(data, dict):
            raise HouseWayError(f"{origin}: a house way file holds a table")
        lines = [] if json_text else rule_lines(text)
        return cls.from_dict(data, origin, lines)

    @classmethod
    def from_file(cls, path: str | Path) -> HouseWay:
        """An operator's house way file (TOML, or JSON by its suffix)."""
        p = Path(path)
        try:
            text = p.read_text("utf-8")
        except OSError as exc:
            raise HouseWayError(f"cannot read house way file {str(p)!r}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise HouseWayError(f"house way file {str(p)!r} is not UTF-8 text") from None
        data_is_json = p.suffix.lower() == ".json"
        try:
            raw = json.loads(text) if data_is_json else tomllib.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise HouseWayError(f"house way file {str(p)!r} is not valid: {exc}") from None
        if isinstance(raw, dict) and "name" not in raw:
            raw["name"] = p.stem
        if not isinstance(raw, dict):
            raise HouseWayError(f"house way file {str(p)!r} must hold a table")
        return cls.from_dict(raw, str(p), [] if data_is_json else rule_lines(text))

    @classmethod
    def load(cls, name_or_path: str | Path) -> HouseWay:
        """A built-in preset by name, or an operator's file by path."""
        text = str(name_or_path)
        if text.strip().lower() in BUILTIN_PRESETS:
            return cls.preset(text)
        if text.endswith((".toml", ".json")) or Path(text).exists():
            return cls.from_file(text)
        return cls.preset(text)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], origin: str = "", lines: Sequence[int] = ()
    ) -> HouseWay:
        """From a file's table (``rule`` or ``rules``: the list of rules), or from the first
        format's ``{"name", "two_pair", "quads"}`` (translated); unknown keys are refused."""
        where = origin or str(data.get("name", "house way"))
        if is_legacy(data):
            unknown = sorted(set(data) - {"name", "two_pair", "quads"})
            if unknown:
                raise HouseWayError(f"unknown house way parameter(s): {', '.join(unknown)}")
            params = LegacyParams.from_mapping(data)
            for preset in ("standard", "foxwoods"):
                if _PRESET_PARAMS[preset] == params.to_dict() and data.get("name") == preset:
                    return _preset(preset)
            data = {"name": data.get("name", ""), "rules": translate(params)}
        unknown = sorted(set(data) - set(_TOP_KEYS))
        if unknown:
            raise HouseWayError(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))} (a house way file has: "
                "name, title, source, bands and its [[rule]] tables)"
            )
        fmt = data.get("format", 2)
        if fmt != 2:
            raise HouseWayError(f"{where}: format {fmt!r} is not known (this engine reads 2)")
        bands_raw = data.get("bands", {})
        if not isinstance(bands_raw, Mapping) or not all(
            isinstance(v, str) for v in bands_raw.values()
        ):
            raise HouseWayError(f'{where}: [bands] holds names = "ranks" (e.g. low = "2-6")')
        bands = {}
        for band, ranks in bands_raw.items():
            if not re.fullmatch(r"[a-z][a-z0-9-]*", str(band)):
                raise HouseWayError(f"{where}: band name {band!r}: lowercase letters and '-'")
            bands[str(band)] = parse_ranks(str(ranks), f"{where}: band {band!r}")
        rules_raw = data.get("rule", data.get("rules"))
        if "rule" in data and "rules" in data:
            raise HouseWayError(f"{where}: write the rules as [[rule]] tables or 'rules', not both")
        if not isinstance(rules_raw, list) or not rules_raw:
            raise HouseWayError(f"{where}: no [[rule]] tables: a house way needs its rules")
        rules = []
        for n, raw in enumerate(rules_raw):
            line = lines[n] if n < len(lines) else 0
            at = f"{where}:{line}" if line else f"{where}: rule {n + 1}"
            if not isinstance(raw, Mapping):
                raise HouseWayError(f"{at}: a rule is a table (id, when, low, ...)")
            rules.append(parse_rule(raw, bands, at, line))
        way = cls(
            str(data.get("name", "")),
            rules,
            {k: str(v) for k, v in bands_raw.items()},
            str(data.get("title", "")),
            str(data.get("source", "")),
            where,
        )
        way.check_static()
        return way

    def check_static(self) -> None:
        """What can be seen without dealing a hand: a rule after one that sets every hand can
        never apply (the exhaustive checks are :func:`paigow.analysis.program.check`)."""
        for n, rule in enumerate(self.rules[:-1]):
            if rule.when.kind == "true" and rule.low[0].is_any and not rule.high:
                later = self.rules[n + 1]
                raise HouseWayError(
                    f"{self.where(later)}: rule {later.id!r} is unreachable: rule {rule.id!r} "
                    f"({self.where(rule)}) sets every hand"
                )

    def where(self, rule: Rule) -> str:
        """``file:line`` of a rule (or the file and the rule's number)."""
        if rule.line:
            return f"{self.origin}:{rule.line}"
        return f"{self.origin}: rule {self.rules.index(rule) + 1}"

    def to_dict(self) -> dict[str, Any]:
        """The house way as data, JSON-ready (recorded in every round's log)."""
        out: dict[str, Any] = {"name": self.name}
        if self.title:
            out["title"] = self.title
        if self.source:
            out["source"] = self.source
        if self.bands:
            out["bands"] = dict(self.bands)
        out["rules"] = [r.to_dict() for r in self.rules]
        return out

    def to_toml(self) -> str:
        """The house way as a file of the language."""
        lines = [f"name = {_toml(self.name)}"]
        lines += [f"title = {_toml(self.title)}"] if self.title else []
        lines += [f"source = {_toml(self.source)}"] if self.source else []
        if self.bands:
            lines += ["", "[bands]", *(f"{k} = {_toml(v)}" for k, v in self.bands.items())]
        for rule in self.rules:
            lines += ["", "[[rule]]"]
            for key, value in rule.to_dict().items():
                if key == "ids" and isinstance(value, Mapping):
                    inner = ", ".join(f"{k} = {_toml(v)}" for k, v in value.items())
                    lines.append(f"ids = {{ {inner} }}")
                else:
                    lines.append(f"{key} = {_toml(value)}")
        return "\n".join(lines) + "\n"

    @property
    def digest(self) -> str:
        """A digest of the rules (what decides every setting), 16 hex digits."""
        rules = json.dumps(
            {"bands": self.bands, "rules": self.to_dict()["rules"]}, sort_keys=True
        ).encode()
        return hashlib.sha256(rules).hexdigest()[:16]

    def rule_ids(self) -> tuple[str, ...]:
        """Every rule id a setting can carry, in the order of the rules (each once)."""
        return tuple(dict.fromkeys(i for r in self.rules for i in r.outcomes()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HouseWay) and other.to_dict() == self.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def __repr__(self) -> str:
        return f"HouseWay({self.name!r})"

    # ----------------------------------------------------------------------------- setting
    def set_hand(self, cards: Sequence[Card], wheel: Wheel = Wheel.SECOND) -> HouseWaySetting:
        """Set seven cards by the house way: the first rule that applies sets the hand."""
        reader = HandReader(sort_cards(parse_cards(cards, count=7)), wheel)
        for rule in self.rules:
            if reader.holds(rule.when):
                made = reader.act(rule)
                if made is not None:
                    setting, high = made
                    if rule.low[0].slots and low_outranks_high(high, evaluate_two(setting.low)):
                        raise HouseWayError(
                            f"{self.where(rule)}: rule {rule.id!r} sets "
                            f"{' '.join(c.code for c in reader.seven)} into a foul "
                            f"({setting}): the low hand outranks the high hand"
                        )
                    return HouseWaySetting(setting, rule.id_for(high.category))
        raise HouseWayError(
            f"{self.origin}: no rule sets the hand {' '.join(c.code for c in reader.seven)}"
        )


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


class HandReader:
    """One hand read by rank groups (the joker counts with the aces): its features, and the
    settings a rule's action may choose. The plain reading of docs/house-way.md."""

    def __init__(self, seven: tuple[Card, ...], wheel: Wheel) -> None:
        self.seven = seven  # highest first, joker first
        self.wheel = wheel
        groups: dict[int, list[Card]] = {}
        for card in seven:
            groups.setdefault(card.rank, []).append(card)  # the joker's rank is the ace's
        self.groups = groups
        self._settings: list[tuple[Setting, HandValue, TwoCardValue]] | None = None
        by = {n: sorted((r for r, cs in groups.items() if len(cs) == n), reverse=True)
              for n in (1, 2, 3, 4, 5)}  # fmt: skip
        self.by_count = by
        self._categories: set[Category] | None = None

    def settings(self) -> list[tuple[Setting, HandValue, TwoCardValue]]:
        """The 21 settings with their hands' values."""
        if self._settings is None:
            self._settings = [
                (s, evaluate_five(s.high, self.wheel), evaluate_two(s.low))
                for s in all_settings(self.seven)
            ]
        return self._settings

    def categories(self) -> set[Category]:
        """The categories some five of the seven make."""
        if self._categories is None:
            self._categories = {high.category for _, high, _ in self.settings()}
        return self._categories

    def feature(self, name: str) -> int:
        """A number feature's value (docs/house-way.md#features)."""
        by = self.by_count
        pairs, threes = by[2], by[3]
        singles = by[1]
        if name == "pairs":
            return len(pairs)
        if name == "threes":
            return len(threes)
        if name == "fours":
            return len(by[4])
        if name == "aces":
            return len(self.groups.get(ACE, []))
        if name == "high-pair":
            return pairs[0] if pairs else 0
        if name == "middle-pair":
            return pairs[1] if len(pairs) == 3 else 0
        if name == "low-pair":
            return pairs[-1] if pairs else 0
        if name == "three":
            return threes[0] if threes else 0
        if name == "low-three":
            return threes[-1] if threes else 0
        if name == "four":
            return by[4][0] if by[4] else 0
        if name.startswith("single") and name[6:].isdigit():
            n = int(name[6:])
            return singles[n - 1] if len(singles) >= n else 0
        raise HouseWayError(f"unknown feature {name!r}")  # pragma: no cover - parse checks

    def flag(self, name: str) -> bool:
        """A true-or-false feature's value."""
        by = self.by_count
        n2, n3, n4 = len(by[2]), len(by[3]), len(by[4])
        five = bool(by[5])
        if name == "five-aces":
            return five
        if name == "straight-flush":
            return bool(self.categories() & {Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
        if name == "flush":
            return Category.FLUSH in self.categories()
        if name == "straight":
            return Category.STRAIGHT in self.categories()
        if name == "quads":
            return n4 > 0
        if name == "full-house":
            return n3 >= 1 and n2 + n3 >= 2
        if name == "two-trips":
            return n3 == 2
        if name == "trips":
            return n3 == 1 and n2 == 0 and n4 == 0
        if name == "three-pair":
            return n2 == 3
        if name == "two-pair":
            return n2 == 2 and n3 == 0 and n4 == 0
        if name == "one-pair":
            return n2 == 1 and n3 == 0 and n4 == 0
        if name == "no-pair":
            return n2 == 0 and n3 == 0 and n4 == 0 and not five
        if name == "joker":
            return any(c.is_joker for c in self.seven)
        if name.startswith("single-"):
            return _rank_of(name[7:]) in by[1]
        raise HouseWayError(f"unknown feature {name!r}")  # pragma: no cover - parse checks

    def holds(self, c: Condition) -> bool:
        """Whether a condition holds for this hand."""
        if c.kind == "true":
            return True
        if c.kind == "flag":
            return self.flag(c.name)
        if c.kind == "cmp":
            left = self.feature(c.name)
            right = self.feature(c.other) if c.other else c.value
            return {
                "==": left == right,
                "!=": left != right,
                "<": left < right,
                "<=": left <= right,
                ">": left > right,
                ">=": left >= right,
            }[c.op]
        if c.kind == "in":
            return self.feature(c.name) in c.ranks
        if c.kind == "not":
            return not self.holds(c.args[0])
        if c.kind == "and":
            return all(self.holds(a) for a in c.args)
        if c.kind == "or":
            return any(self.holds(a) for a in c.args)
        if c.kind == "leaves":
            assert c.low is not None
            return any(high.category in c.cats for _, high, _ in self.matching(c.low))
        raise AssertionError(c.kind)  # pragma: no cover

    def slot_rank(self, slot: tuple[str, int | str]) -> int | None:
        """The rank a low spec's slot asks for (14 for the joker), None if the hand has none."""
        kind, arg = slot
        if kind == "group":
            rank = self.feature(str(arg))
            return rank or None
        if kind == "single":
            singles = self.by_count[1]
            return singles[int(arg) - 1] if len(singles) >= int(arg) else None
        if kind == "rank":
            return int(arg) if int(arg) in self.groups else None
        return ACE if any(c.is_joker for c in self.seven) else None  # the joker

    def matching(self, spec: LowSpec) -> list[tuple[Setting, HandValue, TwoCardValue]]:
        """The settings whose low hand fits ``spec`` (any setting not a foul for ``any``)."""
        if spec.is_any:
            return [t for t in self.settings() if not low_outranks_high(t[1], t[2])]
        wants = [self.slot_rank(s) for s in spec.slots]
        if any(w is None for w in wants):
            return []
        joker = [s[0] == "joker" for s in spec.slots]

        def fits(card: Card, n: int) -> bool:
            return card.rank == wants[n] and (card.is_joker or not joker[n])

        out = []
        for t in self.settings():
            a, b = t[0].low
            if len(spec.slots) == 1:
                if fits(a, 0) or fits(b, 0):
                    out.append(t)
            elif (fits(a, 0) and fits(b, 1)) or (fits(a, 1) and fits(b, 0)):
                out.append(t)
        return out

    def act(self, rule: Rule) -> tuple[Setting, HandValue] | None:
        """The setting a rule's action chooses, or None when no candidate can be made."""
        best: tuple[tuple[int, int], Setting, HandValue] | None = None
        for spec in rule.low:
            for setting, high, low in self.matching(spec):
                if rule.high and high.category not in rule.high:
                    continue
                # best-low: the low hand first; first (within a spec: the strongest high
                # hand) and best-high: the high hand first
                best_low = rule.choose == "best-low"
                key = (low.key, high.key) if best_low else (high.key, low.key)
                if best is None or key > best[0]:
                    best = (key, setting, high)
            if rule.choose == "first" and best is not None:
                break
        return None if best is None else (best[1], best[2])


def _rank_of(letter: str) -> int:
    return next(r for r, name in RANK_NAMES.items() if name == letter)


def _read_preset(name: str) -> HouseWay:
    folder = resources.files("paigow.presets").joinpath("house_ways")
    text = folder.joinpath(f"{name}.toml").read_text("utf-8")
    return HouseWay.from_text(text, f"presets/house_ways/{name}.toml")


_PRESETS: dict[str, HouseWay] = {}
#: The first format's parameters of the two presets that were written in it.
_PRESET_PARAMS: Final = {
    "standard": {
        "two_pair": {
            "aces": "split",
            "high_high": "split",
            "high_middle": "split",
            "high_low": "keep-if-ace",
            "middle_middle": "keep-if-ace",
            "middle_low": "keep-if-king",
            "low_low": "keep-if-king",
        },
        "quads": {"low": "keep", "middle": "keep-if-ace", "high": "split"},
    },
    "foxwoods": {
        "two_pair": {
            "aces": "split",
            "high_high": "split",
            "high_middle": "split",
            "high_low": "split",
            "middle_middle": "keep-if-ace",
            "middle_low": "keep-if-ace",
            "low_low": "keep-if-king",
        },
        "quads": {"low": "keep", "middle": "keep-if-king", "high": "split"},
    },
}


def _preset(key: str) -> HouseWay:
    way = _PRESETS.get(key)
    if way is None:
        way = _PRESETS[key] = _read_preset(key)
    return way


def legacy_params(name: str) -> dict[str, Any]:
    """The first format's parameters of ``standard`` or ``foxwoods`` (for the checks that the
    rewritten presets set every hand as before)."""
    copied: dict[str, Any] = json.loads(json.dumps(_PRESET_PARAMS[name]))
    return copied
