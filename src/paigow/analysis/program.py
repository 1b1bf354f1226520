"""A house way compiled for the kernels, and the exhaustive check of a house way file.

:func:`compile_way` turns the rules of any :class:`~paigow.house_way.HouseWay` into the array
that :func:`paigow.analysis.kernels.program.house_way_program` reads; :func:`check` runs that
program over all 154,143,080 hands and refuses a house way that leaves a hand without a rule or
sets one into a foul (with an example hand), and names the rules that never set a hand.

>>> from paigow.house_way import HouseWay
>>> p = compile_way(HouseWay.preset("standard"))
>>> p.outcomes[:3]
('five-aces.kings', 'five-aces.split', 'straight-flush')
>>> int(p.prog[0, 0])  # the number of rules
24
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paigow.analysis.kernels import program as KP
from paigow.cards import Card
from paigow.errors import HouseWayError
from paigow.house_way import HouseWay
from paigow.house_way_rules import FLAGS, NUMBERS, Condition, LowSpec
from paigow.ranking import Wheel

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
            out.append([KP.OP_LEAVES, -1 - self.spec(c.low), sum(1 << int(k) for k in c.cats)])
        else:  # pragma: no cover
            raise AssertionError(c.kind)


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
    for r, rule in enumerate(way.rules):
        code: list[list[int]] = []
        b.condition(rule.when, code)
        start = len(b.code)
        for row in code:  # jumps are relative to the condition's first row
            b.code.append(row)
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
            [start, len(code), cand_at, len(rule.low), highmask, _CHOOSE[rule.choose], outcome,
             1 if rule.ids else 0]
        )  # fmt: skip
        id_rows.append(ids)
    n = len(way.rules)
    rules_at = 1
    ids_at = rules_at + n
    cand_at = ids_at + n
    specs_at = cand_at + len(cand_rows)
    code_at = specs_at + len(b.specs)
    prog = np.zeros((code_at + len(b.code), KP.WIDTH), dtype=np.int64)
    prog[0, :5] = [n, rules_at, ids_at, specs_at, code_at]
    for r, row in enumerate(rule_rows):
        row = list(row)
        row[0] += code_at
        row[2] += cand_at
        prog[rules_at + r, : len(row)] = row
        prog[ids_at + r] = id_rows[r]
    for k, row in enumerate(cand_rows):
        prog[cand_at + k, 0] = specs_at + row[0]
    for k, row in enumerate(b.specs):
        prog[specs_at + k, : len(row)] = row
    for k, row in enumerate(b.code):
        if row[0] == KP.OP_LEAVES:
            row = [row[0], specs_at + (-1 - row[1]), row[2]]
        prog[code_at + k, : len(row)] = row
    prog.setflags(write=False)
    return Program(way, prog, tuple(outcomes), tuple(rule_of))


def set_hand(program: Program, cards: Sequence[Card], wheel: Wheel = Wheel.SECOND) -> tuple[
    tuple[Card, ...], tuple[Card, ...], str
]:
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


