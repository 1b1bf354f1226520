"""The check class by class (:mod:`paigow.analysis.class_check`) against the sweep of every hand
one by one: on reduced decks against a brute force over each of their hands (every preset, the
first format's presets, files with problems and random rule files; quick), and on the full deck
against the reference sweep (:func:`paigow.analysis.compiled.sweep`, about 25 s a file: slow)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import pytest
from typer.testing import CliRunner

from paigow.analysis import compiled as C
from paigow.analysis import kernels as K
from paigow.analysis.class_check import survey_arrays
from paigow.analysis.kernels.keys import is_foul, key2
from paigow.analysis.kernels.rank_classes import sweep_order
from paigow.analysis.kernels.way_program import house_way_program, work_array
from paigow.analysis.program import compile_way
from paigow.analysis.tables import rank_tables
from paigow.cli import app
from paigow.errors import HouseWayError
from paigow.house_way import BUILTIN_PRESETS, HouseWay, legacy_params
from paigow.house_way.words import CATEGORIES, FLAGS, NUMBERS
from paigow.ranking import Wheel

DOCS = Path(__file__).resolve().parents[1] / "docs"
RANKS = "23456789TJQKA"

# ------------------------------------------------------------------------------ rule files
PROBLEMS = """name = "problems"

[[rule]]
id = "ace-low"
when = "no-pair and single-A"
low = "A+single2"

[[rule]]
id = "kings"
when = "pair == K and one-pair"
low = "single1+single2"

[[rule]]
id = "kings-again"
when = "pair == K and one-pair"
low = "pair"

[[rule]]
id = "flush-low"
when = "flush and not straight"
low = "single1+single2"

[[rule]]
id = "pairs"
when = "pairs > 0 or threes > 0"
low = "single1+single2"
"""
SPECS = ["pair", "low-pair", "middle-pair", "three", "low-three", "four", "A+K", "A+A", "A+Q",
         "single1+single2", "single2+single3", "A+single1", "A+single2", "joker+single2",
         "K+single1", "5+single1"]  # fmt: skip
NUMBER_WORDS = [n for n in NUMBERS if n not in ("pairs", "threes", "fours", "aces")]


def _atom(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:  # the suits matter here: weighted to the flushes and straights
        return rng.choice(["flush", "straight", "straight-flush", *FLAGS])
    if kind == 1:
        count = rng.choice(["pairs", "threes", "fours", "aces"])
        return f"{count} {rng.choice(['==', '>=', '<'])} {rng.randrange(3)}"
    if kind == 2:
        a, b = sorted(rng.sample(range(13), 2))
        return f"{rng.choice(NUMBER_WORDS)} in {RANKS[a]}-{RANKS[b]}"
    if kind == 3:
        op = rng.choice([">", "<=", "==", "!="])
        return f"{rng.choice(NUMBER_WORDS)} {op} {rng.choice(RANKS)}"
    if kind == 4:
        cats = "|".join(rng.sample(["straight", "flush", "straight-flush", "two-pair", "trips"], 2))
        return f"leaves({rng.choice(['pair', 'A', 'single1+single2', 'K'])}, {cats})"
    if kind == 5:
        return f"{rng.choice(NUMBER_WORDS)} > {rng.choice(NUMBER_WORDS)}"
    sides = []
    for _ in range(2):  # two best lows compared: a spec, with or without the high hands kept
        spec = rng.choice(["pair", "A", "A+single2", "single1+single2", "K", "any", "low-pair"])
        cats = "|".join(rng.sample(["straight", "flush", "straight-flush", "two-pair", "trips"], 2))
        sides.append(f"best-low({spec}, {cats})" if rng.random() < 0.6 else f"best-low({spec})")
    return f"{sides[0]} {rng.choice(['>', '>=', '<', '=='])} {sides[1]}"


def _condition(rng: random.Random, depth: int = 0) -> str:
    if depth >= 2 or rng.random() < 0.4:
        atom = _atom(rng)
        return f"not {atom}" if rng.random() < 0.15 and "(" not in atom else atom
    left, right = _condition(rng, depth + 1), _condition(rng, depth + 1)
    return f"({left} {rng.choice(['and', 'or'])} {right})"


def _rule(rng: random.Random, n: int, last: bool) -> str:
    lines = ["[[rule]]", f'id = "r{n}"']
    if not last:
        lines.append(f'when = "{_condition(rng)}"')
    if rng.random() < 0.2:
        lines += ['low = "any"', f'choose = "{rng.choice(["best-low", "best-high"])}"']
    else:
        specs = rng.sample(SPECS, rng.choice([1, 1, 2]))
        lines.append(f"low = {specs!r}".replace("'", '"'))
        if rng.random() < 0.3:
            lines.append(f'choose = "{rng.choice(["first", "best-low", "best-high"])}"')
    if rng.random() < 0.3:
        high = rng.sample(sorted(CATEGORIES), rng.randrange(2, 6))
        lines.append(f'high = "{"|".join(high)}"')
        if rng.random() < 0.5:
            lines.append(f'ids = {{ {high[0]} = "r{n}.{high[0]}" }}')
    return "\n".join(lines) + "\n"


def random_way(seed: int) -> HouseWay:
    """A random rule file that reads (some with a hand no rule sets, a foul, a rule never used)."""
    rng = random.Random(f"class-check-{seed}")
    while True:
        n = rng.randrange(3, 10)
        rules = [_rule(rng, k, k == n - 1 and rng.random() < 0.6) for k in range(n)]
        if seed % 2:  # a last rule for every hand: no hand without a rule, fouls by the others
            rules.append(
                f'[[rule]]\nid = "rest"\nchoose = "{rng.choice(["best-low", "best-high"])}"\n'
            )
        text = f'name = "random-{seed}"\n\n' + "\n".join(rules)
        try:
            return HouseWay.from_text(text, f"random-{seed}.toml")
        except HouseWayError:
            continue


def ways() -> list[HouseWay]:
    """Every preset, the first format's presets, a file with each problem, random files."""
    legacy = [HouseWay.from_dict({"name": f"first-{p}", **legacy_params(p)})
              for p in ("standard", "foxwoods")]  # fmt: skip
    return [
        *(HouseWay.preset(p) for p in BUILTIN_PRESETS),
        *legacy,
        HouseWay.from_text(PROBLEMS, "problems.toml"),
        *(random_way(seed) for seed in range(8)),
    ]


# ------------------------------------------------------------------------------ the sweep's order
def test_the_sweep_order_is_the_order_the_sweep_meets_hands() -> None:
    """Slice by slice (the top card ascending), each slice's hands as its loops meet them."""
    seen = []
    for top in range(6, 15):
        for rest in itertools.combinations(range(top - 1, -1, -1), 6):  # the loops' order
            seen.append(sweep_order(np.array([top, *rest], dtype=np.int64), K.BINOM))
    assert len(seen) == sum(int(K.BINOM[t, 6]) for t in range(6, 15))
    assert seen == sorted(seen) and len(set(seen)) == len(seen)


# ------------------------------------------------------------------------------ reduced decks
@nb.njit(cache=True)  # compiled once into the suite's shared numba cache, not once a run
def _every_hand(deck: Any, prog: Any, lowest: bool, rank5: Any, five_keys: Any, binom: Any,
                reach: Any, stats: Any) -> int:  # fmt: skip
    """Each seven-card hand of ``deck`` (descending) set one by one, counted as the sweep counts;
    the first of a kind by the sweep's order (``stats[5]``, ``stats[6]``)."""
    n = deck.shape[0]
    pos = np.arange(7)
    s = np.empty(7, dtype=np.int64)
    work = work_array()
    hands = 0
    while True:
        for k in range(7):
            s[k] = deck[pos[k]]
        hands += 1
        order = sweep_order(s, binom)
        index = 0
        for k in range(7):
            index += binom[s[k], 7 - k]
        i, j, out = house_way_program(s, prog, lowest, work)
        if out < 0:
            stats[0] += 1
            if stats[5] < 0 or order < stats[5]:
                stats[1], stats[5] = index, order
        else:
            reach[out] += 1
            hi = 0
            m = 1
            for q in range(6, -1, -1):  # the high hand's colex index
                if q != i and q != j:
                    hi += binom[s[q], m]
                    m += 1
            if is_foul(five_keys[rank5[hi]], key2(s[i], s[j])):
                stats[2] += 1
                if stats[6] < 0 or order < stats[6]:
                    stats[3], stats[4], stats[6] = index, out, order
        k = 6
        while k >= 0 and pos[k] == n - 7 + k:
            k -= 1
        if k < 0:
            return hands
        pos[k] += 1
        for m in range(k + 1, 7):
            pos[m] = pos[m - 1] + 1


#: Reduced decks, all four suits of some ranks (the class-by-class check needs no more), between
#: them: royal and wheel straight flushes, five aces, flushes beside pairs, quads, the joker's
#: straights and flushes, and without the joker a hand of no pair (seven ranks).
DECKS = {
    "9-A+joker": ("9TJQKA", True),
    "A-6+joker": ("A23456", True),
    "2-5,9,K,A": ("23459KA", False),
}


def _deck(ranks: str, joker: bool) -> tuple[int, Any]:
    bits = sum(1 << RANKS.index(r) for r in ranks)
    cards = [52] * joker + [c for c in range(51, -1, -1) if (bits >> (c // 4)) & 1]
    return bits, np.array(cards, dtype=np.int64)


def reduced_deck_cases() -> list[Any]:
    """:func:`ways`, the random files after the first two (one with a last rule for every hand,
    one without) in the full suite only: seconds each, and the quick lane has both kinds."""
    slow = {f"random-{seed}" for seed in range(2, 8)}
    return [pytest.param(w, id=w.name, marks=[pytest.mark.slow] * (w.name in slow)) for w in ways()]


@pytest.mark.parametrize("way", reduced_deck_cases())
def test_the_classes_count_every_hand_of_reduced_decks_as_one_by_one(way: HouseWay) -> None:
    program = compile_way(way)
    found = set()
    for name, (ranks, joker) in DECKS.items():
        for wheel in (Wheel.SECOND, Wheel.LOWEST) if name.startswith("A-6") else (Wheel.SECOND,):
            bits, deck = _deck(ranks, joker)
            reach, stats, hands = survey_arrays(program, wheel, bits, joker)
            t = rank_tables(wheel)
            want_reach = np.zeros_like(reach)
            want = np.array([0, -1, 0, -1, -1, -1, -1], dtype=np.int64)
            n = _every_hand(deck, program.prog, wheel is Wheel.LOWEST, t.rank5, t.five_keys,
                            K.BINOM, want_reach, want)  # fmt: skip
            assert hands == n == int(K.BINOM[len(deck), 7])
            assert reach.tolist() == want_reach.tolist(), name
            assert stats[:7].tolist() == want.tolist(), name
            assert 0 < stats[7] < n // 10  # far fewer classes than hands
            found |= {"unset" * bool(stats[0]), "foul" * bool(stats[2])}
    if way.name == "problems":
        assert {"unset", "foul"} <= found


def test_the_random_files_have_every_kind_of_problem() -> None:
    """The random files are no easy case: between them, hands with no rule and files with a rule
    for every hand, fouls, rules never used, conditions on flushes and straights."""
    seen = set()
    for seed in range(8):
        way = random_way(seed)
        survey = C.check(way)
        seen |= {"unset" if survey.unset else "every hand", "foul" * bool(survey.fouls),
                 "unused" * (0 in survey.by_rule())}  # fmt: skip
        seen |= {"flush" for r in way.rules if "flush" in str(r.text.get("when", ""))}
    assert {"unset", "every hand", "foul", "unused", "flush"} <= seen


def test_the_check_counts_every_hand_by_class_in_one_pass() -> None:
    reach, stats, hands = survey_arrays(compile_way(HouseWay.preset("standard")), Wheel.SECOND)
    assert hands == C.HANDS == sum(reach.tolist())
    assert stats[7] < C.HANDS // 500  # hundreds of thousands of classes, not 154 million hands
    assert survey_arrays(compile_way(HouseWay.preset("standard")), Wheel.SECOND, 0, True)[2] == 0


# ------------------------------------------------------------------------------ where it is used
def test_the_command_checks_by_class_and_sweeps_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    path = tmp_path / "problems.toml"
    path.write_text(PROBLEMS)
    swept: list[HouseWay] = []

    def sweep(way: HouseWay, *args: Any) -> C.Survey:  # the answer the sweep would give
        swept.append(way)
        return C.check(way)

    monkeypatch.setattr(C, "sweep", sweep)
    runs = [CliRunner().invoke(app, ["house-way", "check", str(path), "--json", *more])
            for more in ([], ["--sweep"])]  # fmt: skip
    assert len(swept) == 1 and swept[0].name == "problems"  # only when asked
    first, second = (json.loads(r.stdout.splitlines()[0]) for r in runs)
    assert runs[0].exit_code == runs[1].exit_code == 1 and first == second | {
        "seconds": first["seconds"]
    }
    assert sum(r["hands"] for r in first["by_rule"]) + first["unset"] == C.HANDS


def test_the_form_gets_the_whole_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's check (:func:`compiled.validate`) no longer stops at the first problem: every
    problem, with exact counts, as the command prints them."""
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    way = HouseWay.from_text(PROBLEMS, "problems.toml")
    problems = C.validate(way)
    assert problems == C.check(way).problems()
    unset, foul, unused = problems  # the sweep stopped early gave only the first one or two
    assert "hands have no rule" in unset and "into a foul" in foul
    assert "problems.toml:13: rule 'kings-again' is unreachable" in unused
    assert not any(" or more " in p for p in problems)


# ------------------------------------------------------------------------------ the full deck
def _answer(survey: C.Survey) -> tuple[Any, ...]:
    s = survey
    return (s.reach, s.unset, s.first_unset, s.fouls, s.first_foul, s.foul_outcome,
            s.problems(), s.by_rule())  # fmt: skip


def full_deck_ways() -> list[HouseWay]:
    """The files swept over every hand in the suite (about half a minute each): every preset,
    the file with each problem and two random files. The first format's presets and the other
    random files are counted over every hand of the reduced decks above; the first format's
    presets, on the full deck too, by ``benchmarks/bench_house_ways.py --check-only``."""
    chosen = [*BUILTIN_PRESETS, "problems", "random-0", "random-1"]
    return [w for w in ways() if w.name in chosen]


@pytest.mark.full_deck
@pytest.mark.parametrize("way", full_deck_ways(), ids=lambda w: w.name)
def test_the_check_is_the_sweep_of_every_hand(way: HouseWay) -> None:
    """The whole answer: hands per outcome, hands with no rule and into a foul, the first hand
    of each (the example the problem shows), the foul's rule, and the problems as printed."""
    fast = C.check(way)
    assert fast.complete
    assert _answer(fast) == _answer(C.sweep(way))


@pytest.mark.full_deck
def test_the_check_is_the_sweep_with_the_lowest_wheel() -> None:
    way = random_way(3)
    assert _answer(C.check(way, Wheel.LOWEST)) == _answer(C.sweep(way, Wheel.LOWEST))
