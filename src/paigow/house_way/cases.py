"""Expected settings (issue 50): a cases file of hands and how a house way must set them, read
and run (docs/house-way.md#expected-settings). A casino's procedures manual becomes its
regression test; each preset ships the published source's own examples
(``presets/house_ways/<name>.cases.toml``).

A case gives seven cards and the low and/or the high hand expected: a card (``As``, ``Jk``) is
that card; a rank alone (``A``, ``T``, ``9``) is any card of that rank, the joker counted as an
ace, for sources that name only a rank. ``rule`` (optional) is the rule id expected, ``why``
(optional) the source's words.

>>> from paigow.house_way import HouseWay
>>> cases = read_cases('''
... [[case]]
... hand = "Qs Qh 9c 9d 5s 3h 2c"
... low = "9 9"
... rule = "two-pair.split"
... ''')
>>> [r.agrees for r in run_cases(HouseWay.preset("standard"), cases)]
[True]
>>> wrong = read_cases('[[case]]\\nhand = "Qs Qh 9c 9d 5s 3h 2c"\\nlow = "Q Q"')
>>> r = run_cases(HouseWay.preset("standard"), wrong)[0]
>>> r.agrees, r.problems, r.rule
(False, ['low: expected Q Q, got 9d 9c'], 'two-pair.split')
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from paigow.cards import RANK_CHARS, Card, format_cards, parse_cards, sort_cards
from paigow.errors import CardError, HouseWayError
from paigow.house_way.reader import HandReader
from paigow.ranking import Wheel

if TYPE_CHECKING:
    from paigow.house_way.way import HouseWay, HouseWaySetting

__all__ = [
    "Case",
    "CaseResult",
    "Cases",
    "Expected",
    "preset_cases",
    "preset_cases_text",
    "read_cases",
    "run_cases",
]

_CASE_KEYS: Final = ("hand", "low", "high", "rule", "why")
_TOP_KEYS: Final = ("house_way", "source", "case")
_RANKS: Final = {ch: n for n, ch in enumerate(RANK_CHARS, 2)} | {"10": 10}


@dataclass(frozen=True)
class Expected:
    """One hand expected (the low's two cards or the high's five): the cards named exactly, and
    the ranks named alone (any card of that rank; 14, the ace, takes the joker too)."""

    text: str
    cards: tuple[Card, ...]
    ranks: tuple[int, ...]

    def matches(self, got: Sequence[Card]) -> bool:
        """Whether ``got`` is these cards, a rank alone standing for any card of it.

        >>> e = _expected("Jk K", 2)
        >>> e.matches(parse_cards("Kd Jk")), e.matches(parse_cards("As Kd"))
        (True, False)
        """
        rest = [c for c in got if c not in self.cards]
        return len(rest) == len(got) - len(self.cards) and sorted(c.rank for c in rest) == sorted(
            self.ranks
        )


@dataclass(frozen=True)
class Case:
    """A case: its number in the file (from 1), the line of its ``[[case]]``, the seven cards,
    the low and high expected (None: not said), the rule id expected and the source's words."""

    number: int
    line: int
    hand: tuple[Card, ...]
    low: Expected | None
    high: Expected | None
    rule: str | None
    why: str

    @property
    def expected(self) -> str:
        """What the case expects, in words: ``high ..., low ... by rule ...``."""
        parts = [f"{side} {e.text}" for side, e in (("high", self.high), ("low", self.low)) if e]
        return ", ".join(parts) + (f" by rule {self.rule}" if self.rule else "")


@dataclass(frozen=True)
class Cases:
    """A cases file: its cases, the house way it names (``house_way``, optional), its
    ``source`` and where it was read from."""

    cases: tuple[Case, ...]
    house_way: str = ""
    source: str = ""
    origin: str = "<cases>"


@dataclass(frozen=True)
class CaseResult:
    """A case run: the setting the house way made (None where it made none: ``error`` says
    why), the number of the rule that set it (from 1) and what disagrees with the case."""

    case: Case
    got: HouseWaySetting | None
    rule_number: int
    problems: list[str]

    @property
    def agrees(self) -> bool:
        return not self.problems

    @property
    def rule(self) -> str:
        """The id the setting carries ('' where there is no setting)."""
        return self.got.rule if self.got is not None else ""


def read_cases(text: str, origin: str = "<cases>") -> Cases:
    """Read a cases file's TOML; a malformed one raises :class:`HouseWayError` naming the file,
    the line and the case (a bad card, not seven cards, a card twice, a low or high card not in
    the hand, an unknown key).

    >>> read_cases('[[case]]\\nhand = "As Ks Qs Js 9d 3c"\\nlow = "As Ks"', "x.toml")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: x.toml:2: case 1: hand 'As Ks Qs Js 9d 3c': expected 7 cards, got 6
    >>> read_cases('[[case]]\\nhand = "As Ks Qs Js 9d 3c 2c"\\nlow = "As Kd"', "x.toml")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: x.toml:3: case 1: low 'As Kd': Kd is not in the hand
    >>> read_cases('[[case]]\\nhand = "As Ks Qs Js 9d 3c 2c"\\nlo = "As Ks"', "x.toml")
    Traceback (most recent call last):
    ...
    paigow.errors.HouseWayError: x.toml:3: case 1: unknown key 'lo' (did you mean 'low'?); a case has hand, low, high, rule, why
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HouseWayError(f"{origin}: not valid TOML: {exc}") from None
    for key in data:
        if key not in _TOP_KEYS:
            raise HouseWayError(
                f"{origin}: unknown key {key!r}{_nearest(key, _TOP_KEYS)}; a cases file has "
                "house_way, source and [[case]] tables"
            )
    raw = data.get("case")
    if not isinstance(raw, list) or not raw or not all(isinstance(c, dict) for c in raw):
        raise HouseWayError(f"{origin}: a cases file holds [[case]] tables (none found)")
    for key in ("house_way", "source"):
        if not isinstance(data.get(key, ""), str):
            raise HouseWayError(f"{origin}: {key} must be text")
    lines = _key_lines(text)
    cases = tuple(
        _case(n, case, lines[n - 1] if n <= len(lines) else {}, origin)
        for n, case in enumerate(raw, 1)
    )
    return Cases(cases, str(data.get("house_way", "")), str(data.get("source", "")), origin)


def run_cases(way: HouseWay, cases: Cases, wheel: Wheel = Wheel.SECOND) -> list[CaseResult]:
    """Set each case's hand by ``way`` and compare: one :class:`CaseResult` a case, in order."""
    out = []
    for case in cases.cases:
        try:
            got = way.set_hand(case.hand, wheel)
        except HouseWayError as exc:  # no rule sets it, or a rule sets it into a foul
            out.append(CaseResult(case, None, 0, [f"the house way sets no setting: {exc}"]))
            continue
        problems = []
        for side, want, cards in (
            ("high", case.high, got.setting.high),
            ("low", case.low, got.setting.low),
        ):
            if want is not None and not want.matches(cards):
                problems.append(f"{side}: expected {want.text}, got {format_cards(cards)}")
        if case.rule is not None and case.rule != got.rule:
            known = "" if case.rule in way.rule_ids() else " (no rule of this house way has it)"
            problems.append(f"rule: expected {case.rule}{known}, got {got.rule}")
        out.append(CaseResult(case, got, _rule_number(way, case.hand, wheel), problems))
    return out


def preset_cases_text(name: str) -> str | None:
    """The text of a preset's shipped cases file (None: it has none)."""
    path = resources.files("paigow.presets").joinpath("house_ways").joinpath(f"{name}.cases.toml")
    return path.read_text("utf-8") if path.is_file() else None


def preset_cases(name: str) -> Cases | None:
    """A preset's shipped cases: the published source's own examples (None: it has none).

    >>> len(preset_cases("foxwoods-published").cases) >= 8
    True
    """
    text = preset_cases_text(name)
    return None if text is None else read_cases(text, f"presets/house_ways/{name}.cases.toml")


# ----------------------------------------------------------------------------- reading
def _case(number: int, raw: Mapping[str, Any], lines: Mapping[str, int], origin: str) -> Case:
    head = lines.get("[[case]]", 0)

    def error(key: str, message: str) -> HouseWayError:
        line = lines.get(key, head)
        return HouseWayError(f"{origin}:{line}: case {number}: {message}" if line else
                             f"{origin}: case {number}: {message}")  # fmt: skip

    for key, value in raw.items():
        if key not in _CASE_KEYS:
            known = ", ".join(_CASE_KEYS)
            raise error(key, f"unknown key {key!r}{_nearest(key, _CASE_KEYS)}; a case has {known}")
        if not isinstance(value, str):
            raise error(key, f"{key} must be text (got {value!r})")
    if "hand" not in raw:
        raise error("[[case]]", "no hand (the seven cards)")
    try:
        hand = parse_cards(raw["hand"], count=7)
    except CardError as exc:
        raise error("hand", f"hand {raw['hand']!r}: {exc}") from None
    sides: dict[str, Expected | None] = {}
    for key, size in (("low", 2), ("high", 5)):
        if key not in raw:
            sides[key] = None
            continue
        try:
            sides[key] = want = _expected(raw[key], size)
        except CardError as exc:
            raise error(key, f"{key} {raw[key]!r}: {exc}") from None
        missing = [c.code for c in want.cards if c not in hand]
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            raise error(key, f"{key} {raw[key]!r}: {', '.join(missing)} {verb} not in the hand")
    low, high = sides["low"], sides["high"]
    if low is None and high is None:
        raise error("[[case]]", "expected neither low nor high: give one or both")
    both = [c.code for c in (low.cards if low else ()) if high and c in high.cards]
    if both:
        raise error("high", f"{', '.join(both)} is both low and high")
    held = Counter(c.rank for c in hand)
    named: Counter[int] = Counter()
    for key, side in (("low", low), ("high", high)):
        if side is None:
            continue
        named.update([*(c.rank for c in side.cards), *side.ranks])
        for rank, n in named.items():
            if n > held[rank]:
                cards = "card" if n == 1 else "cards"
                named_here = f"{key} {raw[key]!r}: names {n} {cards} of rank {RANK_CHARS[rank - 2]}"
                named_here += " with the low" if key == "high" and low is not None else ""
                raise error(key, f"{named_here}, the hand holds {held[rank] or 'none'}")
    rule = raw.get("rule")
    if rule is not None and not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", rule):
        raise error("rule", f"rule {rule!r} is not a rule id (lowercase letters, digits, . and -)")
    return Case(number, head, hand, low, high, rule, str(raw.get("why", "")))


def _expected(text: str, size: int) -> Expected:
    """``As K`` -> the ace of spades and any king.

    >>> _expected("As K", 2).ranks, _expected("A 10", 2).ranks
    ((13,), (14, 10))
    >>> _expected("As", 2)
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: expected 2 cards, got 1
    """
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    ranks = tuple(_RANKS[t.upper()] for t in tokens if t.upper() in _RANKS)
    cards = parse_cards([t for t in tokens if t.upper() not in _RANKS])
    if len(tokens) != size:
        raise CardError(f"expected {size} cards, got {len(tokens)}")
    return Expected(" ".join(tokens), cards, ranks)


def _key_lines(text: str) -> list[dict[str, int]]:
    """For each ``[[case]]``, the line of its header and of each key it sets."""
    found: list[dict[str, int]] = []
    in_case = False
    for n, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s*\[", line):
            in_case = bool(re.match(r"\s*\[\[\s*case\s*\]\]", line))
            if in_case:
                found.append({"[[case]]": n})
            continue
        m = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", line)
        if in_case and m:
            found[-1].setdefault(m.group(1), n)
    return found


def _nearest(word: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _rule_number(way: HouseWay, hand: Sequence[Card], wheel: Wheel) -> int:
    """The number (from 1) of the rule that sets ``hand``, as :meth:`HouseWay.set_hand` finds
    it."""
    reader = HandReader(sort_cards(hand), wheel)
    for n, rule in enumerate(way.rules, 1):
        if reader.holds(rule.when) and reader.act(rule) is not None:
            return n
    return 0
