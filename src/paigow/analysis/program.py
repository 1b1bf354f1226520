"""A house way compiled for the kernels.

:func:`compile_way` turns the rules of any :class:`~paigow.house_way.HouseWay` into the array
that :func:`paigow.analysis.kernels.way_program.house_way_program` reads: per hand shape (its groups
of five, four, three and two of a rank) the rules that can hold for it, each condition folded
for that shape; :func:`paigow.analysis.compiled.check` runs the program over all 154,143,080
hands and refuses a house way that leaves a hand without a rule or sets one into a foul (with an
example hand), and names the rules that never set a hand.

>>> from paigow.house_way import HouseWay
>>> p = compile_way(HouseWay.preset("standard"))
>>> p.outcomes[:3]
('five-aces.kings', 'five-aces.split', 'straight-flush')
>>> int(p.prog[0, 0])  # the number of rules
23
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paigow.analysis.kernels import way_program as KP
from paigow.cards import Card
from paigow.errors import HouseWayError
from paigow.house_way import HouseWay
from paigow.house_way.rules import FLAGS, NUMBERS, Condition, LowSpec
from paigow.ranking import Category, Wheel

_CMP = {"==": KP.CMP_EQ, "!=": KP.CMP_NE, "<": KP.CMP_LT, "<=": KP.CMP_LE, ">": KP.CMP_GT,
        ">=": KP.CMP_GE}  # fmt: skip
_CHOOSE = {"first": KP.CHOOSE_FIRST, "best-low": KP.CHOOSE_BEST_LOW,
           "best-high": KP.CHOOSE_BEST_HIGH}  # fmt: skip
_FEATURE = {name: n for n, name in enumerate((*FLAGS, *NUMBERS))}
assert len(FLAGS) == KP.N_FLAGS and len(_FEATURE) == KP.N_FEATURES


@dataclass(frozen=True)
class Program:
    """A house way as the kernels read it: ``prog``, and the id of each outcome number with
    the rule (its position) it belongs to."""

    way: HouseWay
    prog: KP.Arr = field(repr=False)
    outcomes: tuple[str, ...]
    rule_of: tuple[int, ...]


class _Builder:
    def __init__(self) -> None:
        self.specs: list[list[int]] = []
        self.spec_index: dict[tuple[Any, ...], int] = {}
        self.code: list[list[int]] = []

    def spec(self, low: LowSpec) -> int:
        row = [len(low.slots)]
        for kind, arg in low.slots:
            if kind == "group":
                row += [KP.SLOT_GROUP, _FEATURE[str(arg)]]
            elif kind == "single":
                row += [KP.SLOT_SINGLE, int(arg)]
            elif kind == "rank":
                row += [KP.SLOT_RANK, int(arg)]
            elif kind == "natural":
                row += [KP.SLOT_NATURAL, 14]
            else:
                row += [KP.SLOT_JOKER, 0]
        key = tuple(row)
        if key not in self.spec_index:
            self.spec_index[key] = len(self.specs)
            self.specs.append(row)
        return self.spec_index[key]

    def condition(self, c: Condition, out: list[list[int]]) -> None:
        """Postfix code for ``c`` appended to ``out`` (jumps relative to the condition's
        start are fixed when all of it is written)."""
        if c.kind == "true":
            out.append([KP.OP_TRUE])
        elif c.kind == "flag":
            out.append([KP.OP_FLAG, _FEATURE[c.name]])
        elif c.kind == "cmp":
            out.append([KP.OP_FEAT, _FEATURE[c.name]])
            if c.other:
                out.append([KP.OP_FEAT, _FEATURE[c.other]])
            else:
                out.append([KP.OP_CONST, c.value])
            out.append([KP.OP_CMP, _CMP[c.op]])
        elif c.kind == "in":
            out.append([KP.OP_FEAT, _FEATURE[c.name]])
            out.append([KP.OP_IN, sum(1 << r for r in c.ranks)])
        elif c.kind == "not":
            self.condition(c.args[0], out)
            out.append([KP.OP_NOT])
        elif c.kind in ("and", "or"):
            jumps = []
            for n, arg in enumerate(c.args):
                self.condition(arg, out)
                if n < len(c.args) - 1:
                    jumps.append(len(out))
                    out.append([KP.OP_JZ if c.kind == "and" else KP.OP_JNZ, -1])
            for at in jumps:
                out[at][1] = len(out)
        elif c.kind == "leaves":
            assert c.low is not None
            guard = _leaves_guard(c.cats)
            jump = -1
            if guard is not None:  # a cheap flag first: no straight or flush, no placement of one
                self.condition(guard, out)
                jump = len(out)
                out.append([KP.OP_JZ, -1])
            out.append([KP.OP_LEAVES, -1 - self.spec(c.low), sum(1 << int(k) for k in c.cats)])
            if jump >= 0:
                out[jump][1] = len(out)
        elif c.kind == "lows":  # two best lows, then compared
            for side in c.args:
                assert side.low is not None
                cats = sum(1 << int(k) for k in side.cats)
                out.append([KP.OP_BEST_LOW, -1 - self.spec(side.low), cats])
            out.append([KP.OP_CMP, _CMP[c.op]])
        else:  # pragma: no cover
            raise AssertionError(c.kind)


# ----------------------------------------------------------------------------- shapes
def _shape_known(five: int, fours: int, threes: int, pairs: int) -> dict[str, int]:
    """The features a hand's shape decides (the rest depend on its ranks and suits)."""
    singles = 7 - 5 * five - 4 * fours - 3 * threes - 2 * pairs
    known = {
        "five-aces": five,
        "quads": int(fours > 0),
        "full-house": int(threes >= 1 and pairs + threes >= 2),
        "two-trips": int(threes == 2),
        "trips": int(threes == 1 and pairs == 0 and fours == 0),
        "three-pair": int(pairs == 3),
        "two-pair": int(pairs == 2 and threes == 0 and fours == 0),
        "one-pair": int(pairs == 1 and threes == 0 and fours == 0 and five == 0),
        "no-pair": int(pairs == 0 and threes == 0 and fours == 0 and five == 0),
        "pairs": pairs,
        "threes": threes,
        "fours": fours,
    }
    if five:
        known |= {"aces": 5, "joker": 1}
    absent = []  # rank features that are 0 for this shape
    if pairs == 0:
        absent += ["high-pair", "low-pair"]
    if pairs != 3:
        absent.append("middle-pair")
    if threes == 0:
        absent += ["three", "low-three"]
    if fours == 0:
        absent.append("four")
    absent += [f"single{k}" for k in range(singles + 1, 6)]
    known |= dict.fromkeys(absent, 0)
    if singles == 0:
        known |= {name: 0 for name in FLAGS if name.startswith("single-")}
    return known


#: The flag that holds whenever some placement's high hand is of the category.
_CATEGORY_FLAG = {
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.STRAIGHT_FLUSH: "straight-flush",
    Category.ROYAL_FLUSH: "straight-flush",
}


def _leaves_guard(cats: frozenset[Category]) -> Condition | None:
    """A condition that ``leaves(..., cats)`` implies, read from the flags alone (the flags
    are exact from the ranks and suits in most hands, where ``leaves`` values every placement):
    where every category is a straight or a flush, whether the seven make one at all.

    >>> _leaves_guard(frozenset({Category.STRAIGHT, Category.ROYAL_FLUSH})).kind
    'or'
    >>> _leaves_guard(frozenset({Category.ONE_PAIR})) is None
    True
    """
    if not cats or not cats <= set(_CATEGORY_FLAG):
        return None
    flags = sorted({_CATEGORY_FLAG[c] for c in cats})
    conds = tuple(Condition("flag", name=f) for f in flags)
    return conds[0] if len(conds) == 1 else Condition("or", args=conds)


def _fold(c: Condition, known: dict[str, int]) -> Condition | bool:
    """``c`` simplified under the known features: True or False where they decide it."""
    if c.kind == "true":
        return True
    if c.kind == "flag":
        v = known.get(c.name)
        return c if v is None else bool(v)
    if c.kind == "cmp":
        left = known.get(c.name)
        right = known.get(c.other) if c.other else c.value
        if left is None or right is None:
            return c
        return {"==": left == right, "!=": left != right, "<": left < right,
                "<=": left <= right, ">": left > right, ">=": left >= right}[c.op]  # fmt: skip
    if c.kind == "in":
        v = known.get(c.name)
        return c if v is None else v in c.ranks
    if c.kind == "not":
        inner = _fold(c.args[0], known)
        return (not inner) if isinstance(inner, bool) else Condition("not", args=(inner,))
    if c.kind in ("and", "or"):
        decisive = c.kind == "or"  # True decides an `or`, False an `and`
        rest: list[Condition] = []
        for arg in c.args:
            got = _fold(arg, known)
            if got is decisive:
                return decisive
            if not isinstance(got, bool):
                rest.append(got)
        if not rest:
            return not decisive
        return rest[0] if len(rest) == 1 else Condition(c.kind, args=tuple(rest))
    return c  # leaves, lows: the cards decide


_SHAPES = [
    (five, fours, threes, pairs)
    for five in (0, 1)
    for fours in (0, 1)
    for threes in (0, 1, 2)
    for pairs in (0, 1, 2, 3)
    if 5 * five + 4 * fours + 3 * threes + 2 * pairs <= 7
]


def shape_mask(c: Condition) -> int:
    """The shapes (:func:`paigow.analysis.kernels.way_program.shape_of`) for which ``c`` may hold.

    >>> from paigow.house_way.rules import parse_condition
    >>> m = shape_mask(parse_condition("two-pair and high-pair == A"))
    >>> [n for n in range(48) if m >> n & 1] == [KP.shape_of(0, 0, 0, 2)]
    True
    """
    mask = 0
    for shape in _SHAPES:
        if _fold(c, _shape_known(*shape)) is not False:
            mask |= 1 << KP.shape_of(*shape)
    return mask


_COMPILED: dict[str, tuple[KP.Arr, tuple[str, ...], tuple[int, ...]]] = {}


def compile_way(way: HouseWay) -> Program:
    """The kernels' program of ``way`` (compiled once per digest of its rules)."""
    got = _COMPILED.get(way.digest)
    if got is None:
        p = _build(way)
        got = _COMPILED[way.digest] = (p.prog, p.outcomes, p.rule_of)
    return Program(way, *got)


def _build(way: HouseWay) -> Program:
    b = _Builder()
    outcomes: list[str] = []
    rule_of: list[int] = []
    rule_rows: list[list[int]] = []
    id_rows: list[list[int]] = []
    cand_rows: list[list[int]] = []
    entries: list[list[list[int]]] = [[] for _ in range(KP.N_SHAPES)]  # [rule, code at, n]
    for r, rule in enumerate(way.rules):
        placed: dict[str, tuple[int, int]] = {}
        for shape in _SHAPES:
            folded = _fold(rule.when, _shape_known(*shape))
            if folded is False:
                continue
            if folded is True:
                where = (0, 0)
            else:
                key = repr(folded)
                if key not in placed:
                    code: list[list[int]] = []
                    b.condition(folded, code)
                    placed[key] = (len(b.code), len(code))
                    b.code.extend(code)  # jumps are relative to the condition's first row
                where = placed[key]
            entries[KP.shape_of(*shape)].append([r, *where])
        cand_at = len(cand_rows)
        for spec in rule.low:
            cand_rows.append([b.spec(spec)])
        outcome = len(outcomes)
        outcomes.append(rule.id)
        rule_of.append(r)
        ids = [-1] * KP.WIDTH
        for cat, rid in rule.ids:
            ids[int(cat)] = len(outcomes)
            outcomes.append(rid)
            rule_of.append(r)
        highmask = sum(1 << int(c) for c in rule.high)
        rule_rows.append(
            [0, 0, cand_at, len(rule.low), highmask, _CHOOSE[rule.choose], outcome,
             1 if rule.ids else 0]
        )  # fmt: skip
        id_rows.append(ids)
    n = len(way.rules)
    rules_at = 1
    ids_at = rules_at + n
    cand_at = ids_at + n
    specs_at = cand_at + len(cand_rows)
    shapes_at = specs_at + len(b.specs)
    entries_at = shapes_at + KP.N_SHAPES
    code_at = entries_at + sum(len(e) for e in entries)
    prog = np.zeros((code_at + len(b.code), KP.WIDTH), dtype=np.int64)
    prog[0, :6] = [n, rules_at, ids_at, specs_at, code_at, shapes_at]
    for r, row in enumerate(rule_rows):
        row = list(row)
        row[2] += cand_at
        prog[rules_at + r, : len(row)] = row
        prog[ids_at + r] = id_rows[r]
    for k, row in enumerate(cand_rows):
        prog[cand_at + k, 0] = specs_at + row[0]
    for k, row in enumerate(b.specs):
        prog[specs_at + k, : len(row)] = row
    at = entries_at
    for n_shape, listed in enumerate(entries):
        prog[shapes_at + n_shape, :2] = [at, len(listed)]
        for r, start, length in listed:
            prog[at, :3] = [r, code_at + start, length]
            at += 1
    for k, row in enumerate(b.code):
        if row[0] in (KP.OP_LEAVES, KP.OP_BEST_LOW):
            row = [row[0], specs_at + (-1 - row[1]), row[2]]
        prog[code_at + k, : len(row)] = row
    prog.setflags(write=False)
    return Program(way, prog, tuple(outcomes), tuple(rule_of))


def set_hand(
    program: Program, cards: Sequence[Card], wheel: Wheel = Wheel.SECOND
) -> tuple[tuple[Card, ...], tuple[Card, ...], str]:
    """The program's setting of seven cards: (high, low, rule id); for tests and the CLI.

    >>> from paigow.cards import parse_cards
    >>> high, low, rule = set_hand(compile_way(HouseWay.preset("standard")),
    ...                            parse_cards("Th Tc 8s 8d As 9h 3c"))
    >>> " ".join(c.code for c in low), rule
    ('As 9h', 'two-pair.keep-ace')
    """
    by_index = {c.index: c for c in cards}
    s = np.array(sorted(by_index, reverse=True), dtype=np.int64)
    if len(s) != 7:
        raise ValueError("seven distinct cards are needed")
    i, j, out = KP.house_way_program(s, program.prog, wheel is Wheel.LOWEST, KP.work_array())
    if out < 0:
        raise HouseWayError(f"{program.way.origin}: no rule sets the hand")
    low = (by_index[int(s[i])], by_index[int(s[j])])
    high = tuple(by_index[int(c)] for k, c in enumerate(s) if k not in (i, j))
    return high, low, program.outcomes[out]
