"""Conditions of the house-way rule language (docs/house-way.md#features): a ``when`` read into
a tree of :class:`Condition` over the features of :mod:`paigow.house_way.words`, with errors that
give the column.

>>> c = parse_condition("two-pair and high-pair in 7-T and (single-A or single-K)")
>>> c.features()
['high-pair', 'single-A', 'single-K', 'two-pair']
>>> parse_condition("pair >> 3")
Traceback (most recent call last):
...
paigow.errors.HouseWayError: condition 'pair >> 3': expected a rank, a number or a number feature at column 7
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from paigow.errors import HouseWayError
from paigow.house_way.words import (
    ALIASES,
    FLAGS,
    NUMBERS,
    OPERATORS,
    RANK_LETTERS,
    LowSpec,
    parse_categories,
    parse_low,
    rank_range,
)
from paigow.ranking import Category


@dataclass(frozen=True)
class Condition:
    """A condition's tree. ``kind`` is one of ``true``, ``flag``, ``cmp``, ``in``, ``not``,
    ``and``, ``or``, ``leaves``, ``lows`` (two ``best-low`` args compared by ``op``) and
    ``best-low`` (the best low hand a spec leaves, only inside ``lows``); the other fields as
    the kind needs."""

    kind: str
    name: str = ""  # flag: the feature; cmp/in: the number feature on the left
    op: str = ""  # cmp, lows: the operator
    value: int = 0  # cmp: the right side when a literal
    other: str = ""  # cmp: the right side when a feature
    ranks: frozenset[int] = frozenset()  # in: the set
    args: tuple[Condition, ...] = ()  # not/and/or; lows: the two best-low
    low: LowSpec | None = None  # leaves, best-low: the spec
    cats: frozenset[Category] = frozenset()  # leaves, best-low: the categories (none: any)

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
        if kind == "name" and value == "best-low":
            return self.lows(col)
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
                    ranks |= rank_range(v, f"condition {self.text!r}")
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
            return rank_range(value, f"condition {self.text!r}")
        if kind == "name" and value in self.bands:
            return self.bands[value]
        if kind == "name":
            known = ", ".join(sorted(self.bands)) or "none defined"
            raise self.error(f"unknown band {value!r} at column {col} (bands: {known})")
        raise self.error(f"expected a band, a range or {{...}} after 'in' at column {col}")

    def leaves(self) -> Condition:
        low = self.spec_first("leaves")
        self.expect(",")
        cats = self.categories()
        self.expect(")")
        return Condition("leaves", low=low, cats=cats)

    def spec_first(self, name: str) -> LowSpec:
        """``(`` and the low spec that opens ``leaves(...)`` or ``best-low(...)``."""
        self.expect("(")
        kind, value, col = self.take()
        if kind not in ("name", "rank", "spec"):
            raise self.error(f"{name}(...) takes a low spec first (column {col})")
        return parse_low(value, partial=True)

    def categories(self) -> frozenset[Category]:
        cats: list[str] = []
        while True:
            kind, value, col = self.take()
            if kind != "name":
                raise self.error(f"expected a category at column {col}")
            cats.append(value)
            if self.peek()[1] != "|":
                break
            self.take()
        return parse_categories("|".join(cats))

    def best_low(self) -> Condition:
        """``best-low(CARDS[, CATEGORIES])`` after its name: the best low hand of the
        placements (fouls left out) with ``CARDS`` low and, where given, a high hand of one of
        ``CATEGORIES``."""
        low = self.spec_first("best-low")
        cats: frozenset[Category] = frozenset()
        if self.peek()[1] == ",":
            self.take()
            cats = self.categories()
        self.expect(")")
        return Condition("best-low", low=low, cats=cats)

    def lows(self, col: int) -> Condition:
        """``best-low(...) OP best-low(...)``: two candidate low hands compared."""
        left = self.best_low()
        _, op, _ = self.take()
        if op not in OPERATORS:
            raise self.error(
                f"best-low(...) at column {col} is a low hand: compare it (==, !=, <, <=, >, >=) "
                "with another best-low(...)"
            )
        _, value, vcol = self.take()
        if value != "best-low":
            raise self.error(
                f"a best-low(...) is compared with another best-low(...), not {value or 'nothing'!r}"
                + (f" (column {vcol})" if vcol else "")
            )
        return Condition("lows", op=op, args=(left, self.best_low()))


def _suggest(word: str) -> str:
    """' (did you mean ...?)' for a near miss among the features."""
    import difflib

    near = difflib.get_close_matches(word, [*FLAGS, *NUMBERS, *ALIASES], n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def parse_condition(text: str, bands: Mapping[str, frozenset[int]] | None = None) -> Condition:
    """A ``when`` condition read into its tree; :class:`HouseWayError` says what is wrong."""
    return _Parser(text, bands or {}).parse()
