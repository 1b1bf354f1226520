"""The house way: how the dealer sets the bank's hand (docs/house-way.md, 9-1(d)(10), 9-13(d)).

A house way is a file of the rule language (:mod:`paigow.house_way.rules`): an ordered list of
rules, each a condition over the seven cards and an action choosing the setting; the first rule
that applies sets the hand, and the setting carries that rule's id. This module reads the
presets and operators' files and applies the rules to a hand by reading them directly (the
reference; the analysis engine compiles the same rules for its kernels). A file of the first
format (two small tables) still loads, translated (:mod:`paigow.house_way.legacy`).

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

from paigow.cards import Card, parse_cards, sort_cards
from paigow.errors import HouseWayError
from paigow.house_way.legacy import RULE_IDS, LegacyParams, is_legacy, translate
from paigow.house_way.reader import HandReader
from paigow.house_way.rules import (
    LowSpec,
    Rule,
    parse_ranks,
    parse_rule,
    rule_key_lines,
    rule_lines,
)
from paigow.ranking import Wheel, evaluate_two
from paigow.setting import Setting, low_outranks_high

__all__ = ["BUILTIN_PRESETS", "RULE_IDS", "HouseWay", "HouseWaySetting"]

#: The presets shipped in ``paigow/presets/house_ways`` (docs/house-way.md#presets).
BUILTIN_PRESETS: Final = (
    "standard",
    "foxwoods",
    "foxwoods-published",
    "ballys-ac",
    "gold-star-school",
)
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
    ('standard', 23, 'five-aces.kings')
    >>> HouseWay.preset("casino-royale")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: unknown house way 'casino-royale' (presets: standard, foxwoods, foxwoods-published, ballys-ac, gold-star-school; or a .toml/.json file)
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
        #: Read from a file of the first format (its fixed rules, translated): such a way sets
        #: every hand without a foul whatever its parameters, so it needs no check over every hand.
        self.translated = False
        self._digest: str | None = None

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
        keys = [] if json_text else rule_key_lines(text)
        return _own_name(cls.from_dict(data, origin, lines, keys))

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
        lines, keys = ([], []) if data_is_json else (rule_lines(text), rule_key_lines(text))
        return _own_name(cls.from_dict(raw, str(p), lines, keys))

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
        cls,
        data: Mapping[str, Any],
        origin: str = "",
        lines: Sequence[int] = (),
        keys: Sequence[Mapping[str, int]] = (),
    ) -> HouseWay:
        """From a file's table (``rule`` or ``rules``: the list of rules), or from the first
        format's ``{"name", "two_pair", "quads"}`` (translated); unknown keys are refused. The
        same table read again (a table's house way at each step, a log's at each replay) is the
        house way read before: the rules are read once.

        >>> d = HouseWay.preset("foxwoods").to_dict()
        >>> HouseWay.from_dict(d) is HouseWay.from_dict(dict(d))
        True
        """
        try:
            key = json.dumps([data, origin, list(lines), list(keys)], sort_keys=True)
        except (TypeError, ValueError):
            return cls._read_dict(data, origin, lines, keys)
        way = _READ.get(key)
        if way is None:
            way = cls._read_dict(data, origin, lines, keys)
            if len(_READ) >= 64:
                _READ.pop(next(iter(_READ)))
            _READ[key] = way
        return way

    @classmethod
    def _read_dict(
        cls,
        data: Mapping[str, Any],
        origin: str,
        lines: Sequence[int],
        keys: Sequence[Mapping[str, int]] = (),
    ) -> HouseWay:
        where = origin or str(data.get("name", "house way"))
        if is_legacy(data):
            unknown = sorted(set(data) - {"name", "two_pair", "quads"})
            if unknown:
                raise HouseWayError(f"unknown house way parameter(s): {', '.join(unknown)}")
            params = LegacyParams.from_mapping(data)
            for preset in ("standard", "foxwoods"):
                if _PRESET_PARAMS[preset] == params.to_dict() and data.get("name") == preset:
                    return _preset(preset)
            way = cls._read_dict(
                {"name": data.get("name", ""), "rules": translate(params)}, where, ()
            )
            way.translated = True
            return way
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
            rule_keys = keys[n] if n < len(keys) else None
            rules.append(parse_rule(raw, bands, at, line, rule_keys, where if line else ""))
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
        """What can be seen without dealing a hand: a rule that sets every hand a later rule
        could set leaves that later rule unreachable (the exhaustive checks are
        :func:`paigow.analysis.compiled.check`). A rule shadows a later one when it always
        holds, keeps any high hand, and each of the later rule's low specs needs at least the
        cards one of its own needs (``any``; the same spec; ``single2+single3`` before
        ``single1+single2``, which needs two singletons where it needs three).

        >>> text = 'name = "h"\\n[[rule]]\\nid = "all"\\nlow = "single1+single2"\\n'
        >>> HouseWay.from_text(text + '[[rule]]\\nid = "late"\\nlow = "single2+single3"\\n', "h.toml")
        Traceback (most recent call last):
        ...
        paigow.errors.HouseWayError: h.toml:5: rule 'late' is unreachable: rule 'all' (h.toml:2) sets every hand it could set
        """
        for n, rule in enumerate(self.rules[:-1]):
            if rule.when.kind != "true" or rule.high:
                continue
            for later in self.rules[n + 1 :]:
                if all(any(_covers(mine, theirs) for mine in rule.low) for theirs in later.low):
                    every = rule.low[0].is_any
                    raise HouseWayError(
                        f"{self.where(later)}: rule {later.id!r} is unreachable: rule "
                        f"{rule.id!r} ({self.where(rule)}) sets every hand"
                        + ("" if every else " it could set")
                    )

    @property
    def is_preset(self) -> bool:
        """Whether this is a built-in preset, rules and all (not a file under its name)."""
        key = self.name.lower()
        return key in BUILTIN_PRESETS and self.digest == _preset(key).digest

    @property
    def label(self) -> str:
        """How a table shows the house way: a preset's name, or a file's name and the start of
        its digest (two files with one name are told apart).

        >>> HouseWay.preset("foxwoods").label
        'foxwoods'
        >>> HouseWay.from_text('name = "mine"\\n[[rule]]\\nid = "x"\\nchoose = "best-low"\\n').label
        'mine #ab349a13'
        """
        return self.name if self.is_preset else f"{self.name} #{self.digest[:8]}"

    @classmethod
    def identity_of(cls, data: Mapping[str, Any]) -> dict[str, str]:
        """A house way kept as data (a table's, a log's) known by its name, :attr:`label` and
        :attr:`digest` (empty where the data is no house way).

        >>> HouseWay.identity_of(HouseWay.preset("standard").to_dict())["digest"] == (
        ...     HouseWay.preset("standard").digest)
        True
        >>> HouseWay.identity_of({"name": "x"})
        {'name': 'x', 'label': 'x', 'digest': ''}
        """
        try:
            way = cls.from_dict(data)
        except HouseWayError:
            name = str(data.get("name", ""))
            return {"name": name, "label": name, "digest": ""}
        return {"name": way.name, "label": way.label, "digest": way.digest}

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
        """A digest of the rules (what decides every setting), 16 hex digits: a house way's
        identity (the caches, the table and the floor know a file's house way by it)."""
        if self._digest is None:
            rules = json.dumps(
                {"bands": self.bands, "rules": self.to_dict()["rules"]}, sort_keys=True
            ).encode()
            self._digest = hashlib.sha256(rules).hexdigest()[:16]
        return self._digest

    def rule_ids(self) -> tuple[str, ...]:
        """Every rule id a setting can carry, in the order of the rules (each once)."""
        return tuple(dict.fromkeys(i for r in self.rules for i in r.outcomes()))

    def __eq__(self, other: object) -> bool:  # one name and one digest of the rules
        return isinstance(other, HouseWay) and (other.name, other.digest) == (
            self.name,
            self.digest,
        )

    def __hash__(self) -> int:  # equal house ways have one name and one digest of their rules
        return hash((self.name, self.digest))

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


def _covers(mine: LowSpec, theirs: LowSpec) -> bool:
    """Whether every hand that has a candidate for ``theirs`` has one for ``mine``."""
    if mine.is_any or mine == theirs:
        return True
    if theirs.is_any:
        return False
    singles = [int(arg) for kind, arg in theirs.slots if kind == "single"]
    own = [int(arg) for kind, arg in mine.slots if kind == "single"]
    # singletons only: needing the n-th singleton holds whenever a later n does
    return (
        len(own) == len(mine.slots) == 2
        and len(singles) == len(theirs.slots)
        and max(own) <= max(singles)
    )


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _read_preset(name: str) -> HouseWay:
    folder = resources.files("paigow.presets").joinpath("house_ways")
    text = folder.joinpath(f"{name}.toml").read_text("utf-8")
    origin = f"presets/house_ways/{name}.toml"
    return HouseWay.from_dict(tomllib.loads(text), origin, rule_lines(text), rule_key_lines(text))


def _own_name(way: HouseWay) -> HouseWay:
    """``way``, unless it takes a preset's name without being that preset (a house way's
    identity is its rules: two ways with one name must not share a table's figures)."""
    key = way.name.strip().lower()
    if key in BUILTIN_PRESETS and way.digest != _preset(key).digest:
        raise HouseWayError(
            f"{way.origin}: the name {way.name!r} is the {key} preset's, and these rules are not "
            f"{key}'s: give your house way a name of its own"
        )
    return way


_PRESETS: dict[str, HouseWay] = {}
_READ: dict[str, HouseWay] = {}  # HouseWay.from_dict's, by the table read (the last 64)
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
