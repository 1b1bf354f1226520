"""The house-way rule language (docs/house-way.md#the-rule-language): the rules as data.

A house way is an ordered list of :class:`Rule`, each a condition over named features of the
seven cards (:data:`FLAGS`, :data:`NUMBERS`, ``leaves(...)``) and an action that chooses the
setting (:class:`LowSpec` candidates, an allowed set of high-hand categories, a way to choose).
This module reads and checks the words; :mod:`paigow.house_way` applies them to a hand and
:mod:`paigow.analysis.program` compiles them for the kernels.

>>> c = parse_condition("two-pair and high-pair in 7-T and (single-A or single-K)")
>>> c.features()
['high-pair', 'single-A', 'single-K', 'two-pair']
>>> parse_low("A+single1")
LowSpec(text='A+single1', slots=(('rank', 14), ('single', 1)))
>>> parse_condition("pair >> 3")
Traceback (most recent call last):
...
paigow.errors.HouseWayError: condition 'pair >> 3': unexpected '>' at column 7
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
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


# --------------------------------------------------------------------------------- conditions
@dataclass(frozen=True)
class Condition:
    """A condition's tree. ``kind`` is one of ``true``, ``flag``, ``cmp``, ``in``, ``not``,
    ``and``, ``or``, ``leaves``; the other fields as the kind needs."""

    kind: str
    name: str = ""  # flag: the feature; cmp/in: the number feature on the left
    op: str = ""  # cmp: the operator
    value: int = 0  # cmp: the right side when a literal
    other: str = ""  # cmp: the right side when a feature
    ranks: frozenset[int] = frozenset()  # in: the set
    args: tuple[Condition, ...] = ()  # not/and/or
    low: LowSpec | None = None  # leaves: the spec
    cats: frozenset[Category] = frozenset()  # leaves: the categories

    def features(self) -> list[str]:
        """The features this condition reads (sorted)."""
        found: set[str] = set()
        stack: list[Condition] = [self]
        while stack:
            c = stack.pop()
            found.update(x for x in (c.name, c.other) if x)
            stack.extend(c.args)
        return sorted(found)


TRUE: Final = Condition("true")

_TOKEN = re.compile(
    r"\s*(?:(?P<spec>[A-Za-z0-9-]+\+[A-Za-z0-9-]+)"
    r"|(?P<range>(?:10|[2-9TJQKA])-(?:10|[2-9TJQKA]))(?![\w-])"
    r"|(?P<rank>10|[2-9TJQKA])(?![\w-])"
    r"|(?P<int>\d+)"
    r"|(?P<name>[a-z][a-zA-Z0-9-]*)"
    r"|(?P<op>==|!=|<=|>=|<|>|\(|\)|\{|\}|,|\|))"
)


def _rank_range(text: str, where: str) -> frozenset[int]:
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
        ranks |= _rank_range(part, where)
    return frozenset(ranks)


class _Parser:
    """A recursive-descent reader of one condition."""

    def __init__(self, text: str, bands: Mapping[str, frozenset[int]]) -> None:
        self.text = text
        self.bands = bands
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                column = len(text) - len(text[pos:].lstrip()) + 1
                raise self.error(f"unexpected {text[column - 1]!r} at column {column}")
            kind = m.lastgroup or ""
            value = m.group(kind)
            self.tokens.append((kind, value, m.start(kind) + 1))
            pos = m.end()
        self.at = 0

    def error(self, what: str) -> HouseWayError:
        return HouseWayError(f"condition {self.text!r}: {what}")

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "", 0)

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.at += 1
        return tok

    def expect(self, value: str) -> None:
        kind, got, col = self.take()
        if got != value:
            where = f"at column {col}" if kind != "end" else "at the end"
            raise self.error(f"expected {value!r} {where}, found {got or 'nothing'!r}")

    def parse(self) -> Condition:
        if not self.tokens:
            raise self.error("empty condition")
        cond = self.disjunction()
        kind, value, col = self.peek()
        if kind != "end":
            raise self.error(f"unexpected {value!r} at column {col}")
        return cond

    def disjunction(self) -> Condition:
        args = [self.conjunction()]
        while self.peek()[1] == "or":
            self.take()
            args.append(self.conjunction())
        return args[0] if len(args) == 1 else Condition("or", args=tuple(args))

    def conjunction(self) -> Condition:
        args = [self.negation()]
        while self.peek()[1] == "and":
            self.take()
            args.append(self.negation())
        return args[0] if len(args) == 1 else Condition("and", args=tuple(args))

    def negation(self) -> Condition:
        if self.peek()[1] == "not":
            self.take()
            return Condition("not", args=(self.negation(),))
        return self.atom()

    def atom(self) -> Condition:
        kind, value, col = self.take()
        if value == "(":
            inner = self.disjunction()
            self.expect(")")
            return inner
        if kind == "name" and value == "leaves":
            return self.leaves()
        if kind == "name" and value in ("true", "always"):
            return TRUE
        if kind == "name":
            name = ALIASES.get(value, value)
            if name in FLAGS:
                if self.peek()[1] in OPERATORS or self.peek()[1] == "in":
                    raise self.error(f"{value!r} is true or false, not a number (column {col})")
                return Condition("flag", name=name)
            if name in NUMBERS:
                return self.comparison(name, col)
            raise self.error(f"unknown feature {value!r} at column {col}{_suggest(value)}")
        if kind in ("rank", "int"):
            raise self.error(
                f"a comparison starts with a feature, not {value!r} (column {col}): "
                f"write e.g. 'pair >= {value}'"
            )
        raise self.error(f"unexpected {value or 'end'!r}" + (f" at column {col}" if col else ""))

    def comparison(self, name: str, col: int) -> Condition:
        kind, op, at = self.take()
        if op == "in":
            return Condition("in", name=name, ranks=self.rank_set())
        if op not in OPERATORS:
            raise self.error(
                f"{name!r} (column {col}) is a number: compare it (==, !=, <, <=, >, >=) "
                "or test 'in' a set of ranks"
            )
        kind, value, vcol = self.take()
        if kind == "rank":
            return Condition("cmp", name=name, op=op, value=RANK_LETTERS[value])
        if kind == "int":
            return Condition("cmp", name=name, op=op, value=int(value))
        if kind == "name" and ALIASES.get(value, value) in NUMBERS:
            return Condition("cmp", name=name, op=op, other=ALIASES.get(value, value))
        raise self.error(f"expected a rank, a number or a number feature at column {vcol or at}")

    def rank_set(self) -> frozenset[int]:
        kind, value, col = self.take()
        if value == "{":
            ranks: set[int] = set()
            while True:
                k, v, c = self.take()
                if k in ("rank", "range", "int"):
                    ranks |= _rank_range(v, f"condition {self.text!r}")
                elif k == "name" and v in self.bands:
                    ranks |= self.bands[v]
                else:
                    raise self.error(f"expected a rank, a range or a band at column {c}")
                k, v, c = self.take()
                if v == "}":
                    return frozenset(ranks)
                if v != ",":
                    raise self.error(f"expected ',' or '}}' at column {c}")
        if kind in ("rank", "range"):
            return _rank_range(value, f"condition {self.text!r}")
        if kind == "name" and value in self.bands:
            return self.bands[value]
        if kind == "name":
            known = ", ".join(sorted(self.bands)) or "none defined"
            raise self.error(f"unknown band {value!r} at column {col} (bands: {known})")
        raise self.error(f"expected a band, a range or {{...}} after 'in' at column {col}")

    def leaves(self) -> Condition:
        self.expect("(")
        kind, value, col = self.take()
        if kind not in ("name", "rank", "spec"):
            raise self.error(f"leaves(...) takes a low spec first (column {col})")
        low = parse_low(value, partial=True)
        self.expect(",")
        cats: list[str] = []
        while True:
            kind, value, col = self.take()
            if kind != "name":
                raise self.error(f"expected a category at column {col}")
            cats.append(value)
            if self.peek()[1] != "|":
                break
            self.take()
        self.expect(")")
        return Condition("leaves", low=low, cats=parse_categories("|".join(cats)))


def _suggest(word: str) -> str:
    """' (did you mean ...?)' for a near miss among the features."""
    import difflib

    near = difflib.get_close_matches(word, [*FLAGS, *NUMBERS, *ALIASES], n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def parse_condition(text: str, bands: Mapping[str, frozenset[int]] | None = None) -> Condition:
    """A ``when`` condition read into its tree; :class:`HouseWayError` says what is wrong."""
    return _Parser(text, bands or {}).parse()


# --------------------------------------------------------------------------------- low specs
@dataclass(frozen=True)
class LowSpec:
    """Which two cards go low: two slots, each ``("single", n)``, ``("rank", r)``,
    ``("joker", 0)`` or ``("group", feature)`` (a group fills both slots). ``any`` (no slots)
    stands for every setting that does not foul."""

    text: str
    slots: tuple[tuple[str, int | str], ...]

    @property
    def is_any(self) -> bool:
        return not self.slots


ANY: Final = LowSpec("any", ())


def _slot(word: str, spec: str) -> tuple[str, int | str]:
    if word in RANK_LETTERS:
        return ("rank", RANK_LETTERS[word])
    if word == "joker":
        return ("joker", 0)
    m = re.fullmatch(r"single([1-5])", word)
    if m:
        return ("single", int(m.group(1)))
    if word in GROUPS:
        raise HouseWayError(
            f"low spec {spec!r}: {word!r} is two cards already; it cannot be joined with '+'"
        )
    raise HouseWayError(
        f"low spec {spec!r}: unknown card {word!r} (one card: single1..single5, a rank "
        "such as A or K, joker; two cards: pair, high-pair, middle-pair, low-pair, three, "
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
            f"{', '.join(map(repr, unknown))} (categories: {', '.join(CATEGORIES)})"
        )
    return frozenset(CATEGORIES[n] for n in names)


# --------------------------------------------------------------------------------- rules
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


def parse_rule(
    data: Mapping[str, object], bands: Mapping[str, frozenset[int]], where: str, line: int = 0
) -> Rule:
    """One ``[[rule]]`` table; errors start with ``where`` (the file and line)."""
    unknown = sorted(set(data) - set(_RULE_KEYS))
    if unknown:
        raise HouseWayError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
            f"(a rule has: {', '.join(_RULE_KEYS)})"
        )
    rid = data.get("id")
    if not isinstance(rid, str) or not _ID.fullmatch(rid):
        raise HouseWayError(
            f"{where}: a rule needs an id of lowercase letters, digits, '.' and '-' (got {rid!r})"
        )
    where = f"{where}: rule {rid!r}"
    when_text = data.get("when", "true")
    if not isinstance(when_text, str):
        raise HouseWayError(f"{where}: 'when' must be a string")
    try:
        when = parse_condition(when_text, bands)
    except HouseWayError as exc:
        raise HouseWayError(f"{where}: {exc}") from None
    low_raw = data.get("low", "any")
    lows = [low_raw] if isinstance(low_raw, str) else low_raw
    if not isinstance(lows, list) or not lows or not all(isinstance(x, str) for x in lows):
        raise HouseWayError(f"{where}: 'low' must be a low spec or a list of them")
    try:
        low = tuple(parse_low(str(x)) for x in lows)
        high_raw = data.get("high")
        if high_raw is not None and not isinstance(high_raw, str):
            raise HouseWayError("'high' must be a string such as 'straight|flush'")
        high = parse_categories(high_raw) if high_raw else frozenset()
    except HouseWayError as exc:
        raise HouseWayError(f"{where}: {exc}") from None
    if any(spec.is_any for spec in low) and len(low) > 1:
        raise HouseWayError(f"{where}: 'any' already holds every setting; list it alone")
    choose = data.get("choose", "first")
    if choose not in CHOICES:
        raise HouseWayError(f"{where}: choose must be one of {', '.join(CHOICES)} (got {choose!r})")
    if low[0].is_any and choose == "first":
        raise HouseWayError(
            f"{where}: with every setting a candidate ('low' left out or 'any'), say how to "
            'choose: choose = "best-low" or "best-high"'
        )
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise HouseWayError(f"{where}: 'note' must be a string")
    ids_raw = data.get("ids", {})
    if not isinstance(ids_raw, Mapping):
        raise HouseWayError(f"{where}: 'ids' must be a table of high-hand category = id")
    ids: list[tuple[Category, str]] = []
    for name, other in ids_raw.items():
        if name not in CATEGORIES:
            raise HouseWayError(
                f"{where}: ids: unknown high-hand category {name!r} "
                f"(categories: {', '.join(CATEGORIES)})"
            )
        if not isinstance(other, str) or not _ID.fullmatch(other):
            raise HouseWayError(f"{where}: ids.{name}: {other!r} is not a rule id")
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
