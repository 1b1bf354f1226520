"""The house-way rule language (docs/house-way.md#the-rule-language): each feature and action,
each refusal with its file and line, the compiled program against the plain reading (every
preset: reduced decks exhaustively, full hands by sample), the rewritten presets against the first
format's own kernel on every hand, the checks over every hand, and the docs' examples."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import random
import re
import tempfile
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import numba as nb
import numpy as np
import pytest
from typer.testing import CliRunner

from paigow.analysis import compiled as C
from paigow.analysis import kernels as K
from paigow.analysis.kernels import way_program as KP
from paigow.analysis.program import compile_way, set_hand, shape_mask
from paigow.analysis.tables import rank_tables
from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.cli import app
from paigow.errors import HouseWayError
from paigow.house_way import BUILTIN_PRESETS, RULE_IDS, HouseWay, reader
from paigow.house_way.cases import preset_cases, run_cases
from paigow.house_way.legacy import LegacyParams
from paigow.house_way.rules import parse_condition
from paigow.ranking import HandValue, TwoCardValue, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting, all_settings

DOCS = Path(__file__).resolve().parents[1] / "docs"
STANDARD = HouseWay.preset("standard")
CATCH_ALL = '\n[[rule]]\nid = "pai-gow"\nlow = "single2+single3"\n'


def way_of(rules: str, bands: bool = True, name: str = "test-way") -> HouseWay:
    head = f'name = "{name}"\n'
    if bands:
        head += '[bands]\nlow = "2-6"\nmiddle = "7-T"\nhigh = "J-K"\n'
    return HouseWay.from_text(head + rules, "house.toml")


def strength(setting: Any) -> tuple[int, int]:
    return evaluate_five(setting.high).key, evaluate_two(setting.low).key


# ------------------------------------------------------------------------------ refusals
REFUSALS = [
    # (the file's text after name/bands, words the error must hold)
    ('[[rule]]\nid = "x"\nwhen = "two-pair and hihg-pair in 7-T"\n',
     ["house.toml:8", "unknown feature 'hihg-pair' at column 14", "did you mean 'high-pair'"]),
    ('[[rule]]\nid = "x"\nwhen = "flush == 2"\n', ["house.toml:8", "'flush' is true or false"]),
    ('[[rule]]\nid = "x"\nwhen = "pairs"\n', ["house.toml:8", "'pairs' (column 1) is a number"]),
    ('[[rule]]\nid = "x"\nwhen = "pair in tall"\n', ["unknown band 'tall' at column 9", "bands: high, low, middle"]),
    ('[[rule]]\nid = "x"\nwhen = "pair in K-7"\n', ["runs downwards"]),
    ('[[rule]]\nid = "x"\nwhen = "pair >> 3"\n', ["expected a rank, a number or a number"]),
    ('[[rule]]\nid = "x"\nwhen = "pair ! 3"\n', ["unexpected '!' at column 6"]),
    ('[[rule]]\nid = "x"\nwhen = "(pairs > 1"\n', ["expected ')' at the end"]),
    ('[[rule]]\nid = "x"\nwhen = "7 < pair"\n', ["a comparison starts with a feature"]),
    ('[[rule]]\nid = "x"\nlow = "A+Z"\n', ["house.toml:8", "low spec 'A+Z': unknown card 'Z'"]),
    ('[[rule]]\nid = "x"\nlow = "pair+A"\n', ["'pair' is two cards already"]),
    ('[[rule]]\nid = "x"\nlow = "single1+single1"\n', ["names the same card twice"]),
    ('[[rule]]\nid = "x"\nlow = "K"\n', ["name two cards"]),
    ('[[rule]]\nid = "x"\nhigh = "staright"\nchoose = "best-low"\n',
     ["unknown high-hand category 'staright'"]),
    ('[[rule]]\nid = "x"\nchoose = "best"\n', ["choose must be one of first, best-low, best-high"]),
    ('[[rule]]\nid = "x"\n', ["say how to choose"]),
    ('[[rule]]\nid = "x"\nlow = ["any", "pair"]\nchoose = "best-low"\n', ["list it alone"]),
    ('[[rule]]\nid = "x"\nlow = "pair"\nthen = "y"\n', ["house.toml:6", "unknown key(s) 'then'"]),
    ('[[rule]]\nwhen = "pairs > 0"\nlow = "pair"\n', ["a rule needs an id"]),
    ('[[rule]]\nid = "Two Pair"\nlow = "pair"\n', ["a rule needs an id"]),
    ('[[rule]]\nid = "x"\nlow = "pair"\nids = { flsh = "f" }\n', ["ids: unknown high-hand"]),
    ('[[rule]]\nid = "x"\nlow = "pair"\nnote = 3\n', ["'note' must be a string"]),
    ('[[rule]]\nid = "a"\nchoose = "best-low"\n\n[[rule]]\nid = "b"\nlow = "pair"\n',
     ["house.toml:10: rule 'b' is unreachable: rule 'a' (house.toml:6) sets every hand"]),
    ('[[rule]\nid = "x"\n', ["not valid TOML"]),
    # issue 50, item 4: the nearest word for actions and keys too
    ('[[rule]]\nid = "x"\nlow = "for"\n', ["house.toml:8", "did you mean 'four'?"]),
    ('[[rule]]\nid = "x"\nlow = "A+singel2"\n', ["did you mean 'single2'?"]),
    ('[[rule]]\nid = "x"\nlow = "pair"\nhigh = "staright"\n',
     ["house.toml:9", "unknown high-hand category 'staright' (did you mean 'straight'?)"]),
    ('[[rule]]\nid = "x"\nchoose = "bestlow"\n', ["house.toml:8", "did you mean 'best-low'?"]),
    ('[[rule]]\nid = "x"\nlo = "pair"\n', ["unknown key(s) 'lo' (did you mean 'low'?)"]),
    ('[[rule]]\nid = "x"\nlow = "pair"\nids = { flsh = "f" }\n', ["did you mean 'flush'?"]),
    # item 7: the line of the key at fault, a multi-line condition's first line
    ('[[rule]]\nid = "x"\nlow = "pair"\nwhen = """\npairs > 0 and\nflsh"""\n',
     ["house.toml:9: rule 'x'", "unknown feature 'flsh'"]),
    # item 6: a rule after a catch-all of singletons is found without the sweep
    ('[[rule]]\nid = "all"\nlow = "single1+single2"\n\n[[rule]]\nid = "pair"\nwhen = "one-pair"\n'
     'low = "single2+single3"\n',
     ["house.toml:10: rule 'pair' is unreachable: rule 'all' (house.toml:6) sets every hand"]),
    ("", ["no [[rule]] tables"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "words"), REFUSALS)
def test_each_refusal_says_what_is_wrong_and_where(text: str, words: list[str]) -> None:
    with pytest.raises(HouseWayError) as err:
        way_of(text)
    for w in words:
        assert w in str(err.value), str(err.value)


def test_the_top_of_a_file_is_checked_too() -> None:
    with pytest.raises(HouseWayError, match=r"house.toml: unknown key\(s\) 'colour'"):
        way_of('colour = "red"\n' + CATCH_ALL, bands=False)
    with pytest.raises(HouseWayError, match="format 3 is not known"):
        way_of("format = 3\n" + CATCH_ALL, bands=False)
    with pytest.raises(HouseWayError, match=r"\[bands\] holds names"):
        way_of("[bands]\nlow = 3\n" + CATCH_ALL, bands=False)


def test_a_band_must_be_ranks_and_a_name_must_be_a_name() -> None:
    with pytest.raises(HouseWayError, match=r"band 'low'.*not a rank"):
        HouseWay.from_text('name = "x"\n[bands]\nlow = "2-X"\n' + CATCH_ALL, "h.toml")
    with pytest.raises(HouseWayError, match="a house way needs a name"):
        HouseWay.from_text('name = "!"\n' + CATCH_ALL, "h.toml")


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "casino.toml"
    path.write_text('name = "c"\n\n[[rule]]\nid = "x"\nwhen = "quad"\nlow = "pair"\n')
    with pytest.raises(HouseWayError, match=rf"{re.escape(str(path))}:5: rule 'x'.*'quad'"):
        HouseWay.from_file(path)
    path.write_text('[[rule]]\nid = "x"\nlow = "single1+single2"\n')
    assert HouseWay.from_file(path).name == "casino"  # a file without a name takes its stem


# ------------------------------------------------------------------------------ features
def reader_of(cards: str) -> Any:
    from paigow.cards import sort_cards
    from paigow.house_way.reader import HandReader

    return HandReader(sort_cards(parse_cards(cards, count=7)), Wheel.SECOND)


# hand, {feature: value} read off by hand
FEATURES = [
    ("Jk As Ad Ac Ah Kd Ks", {"five-aces": 1, "quads": 0, "pairs": 1, "pair": 13, "aces": 5,
                              "joker": 1, "full-house": 0, "one-pair": 0, "no-pair": 0}),
    ("Jk Ah 9c 7d 5s 3h 2c", {"pairs": 1, "pair": 14, "one-pair": 1, "joker": 1, "aces": 2,
                              "single-A": 0, "single1": 9, "single5": 2}),
    ("Jk Kh 9c 7d 5s 3h 2c", {"no-pair": 1, "single-A": 1, "single1": 14, "single2": 13,
                              "aces": 1, "pairs": 0, "pair": 0}),
    ("9h 8h 7h 6h 5h Ac Kd", {"straight-flush": 1, "flush": 0, "straight": 0, "no-pair": 1}),
    ("9h 8h 7h 6h 5h 4h Kd", {"straight-flush": 1, "flush": 1, "straight": 0}),
    ("9h 8h 7h 6h 5c Ac Kd", {"straight-flush": 0, "straight": 1, "flush": 0}),
    ("Jk 5d 4c 3h 2s 9c Kd", {"straight": 1, "flush": 0, "single1": 14}),
    ("Kh Qh 9h 4h 2h Ac 6d", {"flush": 1, "straight": 0}),
    ("Jk As Kd Qc Th 6s 2c", {"straight-high": 14, "straight": 1}),
    ("Jk 5d 4c 3h Ah 9c Kd", {"straight-high": 5}),
    ("9h 8h 7h 6h 5h 4h Kd", {"straight-high": 9}),
    ("Qs Qh 9c 9d 5s 3h 2c", {"straight-high": 0}),
    ("8s 8h 8d 8c Kd 5s 2h", {"quads": 1, "four": 8, "fours": 1, "single1": 13, "pairs": 0}),
    ("8s 8h 8d 5c 5d 5s 2h", {"two-trips": 1, "full-house": 1, "three": 8, "low-three": 5,
                              "threes": 2, "trips": 0}),
    ("8s 8h 8d 5c 5d 4s 4h", {"full-house": 1, "pairs": 2, "high-pair": 5, "low-pair": 4,
                              "three": 8, "two-trips": 0}),
    ("Qs Qh 9c 9d 5s 5h 2c", {"three-pair": 1, "two-pair": 0, "high-pair": 12,
                              "middle-pair": 9, "low-pair": 5, "single1": 2}),
    ("Qs Qh 9c 9d 5s 3h 2c", {"two-pair": 1, "middle-pair": 0, "low-pair": 9, "single-5": 1,
                              "single-9": 0, "single3": 2, "single4": 0}),
    ("7s 7h 7d Kc 5s 3h 2c", {"trips": 1, "three": 7, "full-house": 0, "single1": 13}),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "want"), FEATURES)
def test_each_feature_reads_the_hand_as_the_docs_say(hand: str, want: dict[str, int]) -> None:
    reader = reader_of(hand)
    from paigow.house_way.rules import FLAGS

    for name, value in want.items():
        cond = parse_condition(name if name in FLAGS else f"{name} == {value}")
        if cond.kind == "flag":
            assert reader.holds(cond) == bool(value), (hand, name)
        else:
            assert reader.holds(cond), (hand, name, value)


def test_ranges_bands_sets_and_leaves() -> None:
    bands = {"high": frozenset(range(11, 14))}
    r = reader_of("Qs Qd Kc Jh Td Ac 3s")
    holds = {
        "pair in J-K": True,
        "pair in high": True,
        "pair in {2-4, 9, high}": True,
        "pair in {2-4, 9}": False,
        "single1 > pair": True,
        "leaves(A, straight)": False,  # the straight needs the ace
        "leaves(pair, straight)": False,  # the straight needs a queen
        "leaves(Q, straight)": True,  # one queen low, A K Q J T high
        "leaves(A+K, one-pair)": True,
        "not (pairs > 1 or joker)": True,
    }
    for text, want in holds.items():
        assert r.holds(parse_condition(text, bands)) is want, text


# ------------------------------------------------------------------------------ actions
def test_a_rule_that_cannot_act_passes_the_hand_on() -> None:
    way = way_of(
        '[[rule]]\nid = "ace-king"\nwhen = "no-pair"\nlow = "A+K"\n'
        '[[rule]]\nid = "rest"\nlow = "single2+single3"\n'
    )
    assert way.set_hand(parse_cards("Ks Qd 9h 7c 5s 4d 2h")).rule == "rest"  # no ace
    assert way.set_hand(parse_cards("Ks Kd 9h 7c 5s 4d 2h")).rule == "rest"  # not no-pair


def test_a_named_spec_into_a_foul_is_an_error_with_the_hand() -> None:
    way = way_of('[[rule]]\nid = "bad"\nwhen = "no-pair and single-A"\nlow = "A+single2"\n'
                 + CATCH_ALL)  # fmt: skip
    with pytest.raises(HouseWayError, match=r"house.toml:6: rule 'bad' sets .* into a foul"):
        way.set_hand(parse_cards("As Kd 9h 7c 5s 4d 2h"))


def test_choose_first_best_low_best_high_and_ids() -> None:
    hand = parse_cards("Kh Qd Jh Tc 9h 3h 2h")  # a straight and a flush
    rules = '[[rule]]\nid = "s"\nhigh = "straight|flush"\nchoose = "{}"\nids = {{ flush = "f" }}\n'
    low = way_of(rules.format("best-low") + CATCH_ALL).set_hand(hand)
    high = way_of(rules.format("best-high") + CATCH_ALL).set_hand(hand)
    assert (low.rule, [c.code for c in low.setting.low]) == ("f", ["Qd", "Tc"])
    assert (high.rule, evaluate_five(high.setting.high).category.name) == ("f", "FLUSH")
    # first: the first spec with a candidate, whatever a later one would leave
    first = way_of('[[rule]]\nid = "p"\nwhen = "one-pair"\nlow = ["A+9", "single1+single2"]\n'
                   + CATCH_ALL)  # fmt: skip
    got = first.set_hand(parse_cards("Qs Qd Kh Jc 9h 3h 2h"))
    assert [c.code for c in got.setting.low] == ["Kh", "Jc"]  # no ace: the second spec
    got = first.set_hand(parse_cards("Qs Qd Kh Jc 9h 3h Ah"))
    assert [c.code for c in got.setting.low] == ["Ah", "9h"]  # the first spec, not A K


def test_which_card_of_a_rank_leaves_the_best_high_hand() -> None:
    got = STANDARD.set_hand(parse_cards("Jk As Ah Ad 3c 4s 5d"))
    assert got.rule == "quads.split"
    assert evaluate_five(got.setting.high).category.name == "STRAIGHT"


def test_the_joker_spec_is_the_joker_itself() -> None:
    way = way_of('[[rule]]\nid = "j"\nwhen = "joker and pairs == 1"\nlow = "joker+single2"\n'
                 + CATCH_ALL)  # fmt: skip
    got = way.set_hand(parse_cards("Jk As Kd Kh 7c 5s 2h"))  # joker + ace: two pair
    assert got.rule == "pai-gow"
    got = way.set_hand(parse_cards("Jk Qs Kd Kh 7c 5s 2h"))  # single1 is the joker (an ace)
    assert got.rule == "j" and [c.code for c in got.setting.low] == ["Jk", "Qs"]
    way = way_of('[[rule]]\nid = "a"\nwhen = "joker and pairs == 1"\nlow = "A+single2"\n'
                 + CATCH_ALL)  # fmt: skip
    got = way.set_hand(parse_cards("Jk Qs Kd Kh 7c 5s 2h"))  # A may be the joker
    assert got.rule == "a" and [c.code for c in got.setting.low] == ["Jk", "Qs"]


# ------------------------------------------------------------------------------ the first format
def test_a_first_format_file_still_loads_translated() -> None:
    data = tomllib.loads((Path(__file__).parent / "data" / "legacy_foxwoods.toml").read_text())
    legacy = HouseWay.from_dict(data)
    assert legacy == HouseWay.preset("foxwoods")
    params = LegacyParams.from_mapping({**data, "two_pair": {**data["two_pair"],
                                                             "low_low": "split"}})  # fmt: skip
    mine = HouseWay.from_dict({"name": "mine", **params.to_dict()})
    got = mine.set_hand(parse_cards("6s 6h 4c 4d Ks 8h 2c"))
    assert got.rule == "two-pair.split"  # foxwoods would keep them (keep-if-king)
    assert set(mine.rule_ids()) <= set(RULE_IDS)


# ------------------------------------------------------------------------------ compiled = reference
@functools.lru_cache(maxsize=1 << 18)
def _five(cards: tuple[Card, ...], wheel: Wheel) -> HandValue:
    return evaluate_five(cards, wheel)


def _five_once(cards: Sequence[Card], wheel: Wheel = Wheel.SECOND) -> HandValue:
    """The core's ``evaluate_five``, each five cards (in their order) valued once a process: the
    reduced decks' hands share their five-card hands, as the 17 ways share their hands (the
    core's functions are pure; the plain reading is read as it is, only sooner)."""
    return _five(tuple(cards), wheel)


@functools.lru_cache(maxsize=1 << 12)
def _two(cards: tuple[Card, ...]) -> TwoCardValue:
    return evaluate_two(cards)


def _two_once(cards: Sequence[Card]) -> TwoCardValue:
    return _two(tuple(cards))


@functools.lru_cache(maxsize=36_000)  # the reduced decks' hands
def _settings(cards: tuple[Card, ...]) -> tuple[Setting, ...]:
    return all_settings(cards)


def _settings_once(cards: Sequence[Card]) -> tuple[Setting, ...]:
    return _settings(tuple(cards))


def _read_sooner() -> contextlib.ExitStack:
    """The plain reading with the core's pure functions above in place of its own."""
    stack = contextlib.ExitStack()
    for name, fn in (
        ("evaluate_five", _five_once),
        ("evaluate_two", _two_once),
        ("all_settings", _settings_once),
    ):
        stack.enter_context(mock.patch.object(reader, name, fn))
    return stack


def agree(way: HouseWay, hands: list[list[Card]], wheel: Wheel = Wheel.SECOND) -> list[str]:
    """The hands where the compiled program and the plain reading differ (strength and id)."""
    program = compile_way(way)
    bad = []
    for cards in hands:
        with _read_sooner():
            ref = way.set_hand(cards, wheel)
        high, low, rule = set_hand(program, cards, wheel)
        got = (_five_once(high, wheel).key, _two_once(low).key, rule)
        want = (_five_once(ref.setting.high, wheel).key, _two_once(ref.setting.low).key)
        if got != (*want, ref.rule):
            bad.append(f"{' '.join(c.code for c in cards)}: {ref.rule} / {rule}")
    return bad


def doc_ways() -> list[HouseWay]:
    """The docs' fragments, each with the standard rules after it."""
    text = (DOCS / "house-way.md").read_text("utf-8")
    part = text.split("## Writing a casino's house way", 1)[1].split("\n## ", 1)[0]
    std = STANDARD.to_dict()
    return [
        HouseWay.from_dict({"name": f"doc-{n}", "bands": std["bands"],
                            "rules": [*tomllib.loads(code)["rule"], *std["rules"]]})
        for n, code in enumerate(re.findall(r"```toml\n(.*?)```", part, re.S))
    ]  # fmt: skip


def all_ways() -> list[HouseWay]:
    return [HouseWay.preset(p) for p in BUILTIN_PRESETS] + doc_ways()


def rich_hands(rng: random.Random, n: int) -> list[list[Card]]:
    """Random hands, a third of them drawn from the top cards and a third with the joker (rich
    in the rare rules: quads, two sets of three, straights, flushes, five aces)."""
    top = FULL_DECK[36:]
    return (
        [rng.sample(FULL_DECK, 7) for _ in range(n)]
        + [rng.sample(top, 7) for _ in range(n)]
        + [[FULL_DECK[52], *rng.sample(FULL_DECK[:52], 6)] for _ in range(n)]
    )


@pytest.mark.parametrize("way", all_ways(), ids=lambda w: w.name)
def test_the_program_sets_a_sample_as_the_reference(way: HouseWay) -> None:
    rng = random.Random(f"sample-{way.name}")
    assert agree(way, rich_hands(rng, 150)) == []
    assert agree(way, rich_hands(rng, 40), Wheel.LOWEST) == []


def _deck(codes: str) -> list[Card]:
    return list(parse_cards(codes))


#: Reduced decks of 16 cards; every 7-card hand of each is set both ways. Between them: five aces,
#: four of a kind in each band with and without a pair, royal and low straight flushes, the
#: wheel, flushes and straights beside pairs, two sets of three, three pair, every two-pair band.
REDUCED = [
    "Jk As Ah Ad Ac Ks Kh Kd Qs Js Ts 9s 9h 2h 2d 3c",
    "Jk 2s 2h 2d 2c 3s 3h 4s 4h 5s 5d 6s 6c 7s 8h As",
    "Jk 8s 8h 8d 8c 9s 9h Ts Td Js 7s 7h 6h 5h Ah Kc",
]


@pytest.mark.exhaustive
@pytest.mark.parametrize("way", all_ways(), ids=lambda w: w.name)
def test_the_program_sets_every_hand_of_reduced_decks_as_the_reference(way: HouseWay) -> None:
    hands = [list(h) for deck in REDUCED for h in itertools.combinations(_deck(deck), 7)]
    assert len(hands) == 3 * 11_440
    assert agree(way, hands) == []


@pytest.mark.exhaustive
@pytest.mark.parametrize("way", all_ways(), ids=lambda w: w.name)
def test_the_program_sets_a_large_sample_of_full_hands_as_the_reference(way: HouseWay) -> None:
    assert agree(way, rich_hands(random.Random(f"large-{way.name}"), 4000)) == []


# ------------------------------------------------------------------------------ every hand
@nb.njit(nogil=True, cache=True)  # compiled once into the suite's shared numba cache
def _legacy_slice(top: int, prog: Any, tp: Any, quads: Any, lowest: bool, ids: Any) -> int:
    """Hands with highest card ``top`` where the program and the first format's kernel set
    differently (the strength of either hand, or the rule id)."""
    s = np.empty(7, dtype=np.int64)
    s[0] = top
    work = KP.work_array()
    bad = 0
    for f in range(top - 1, 4, -1):
        s[1] = f
        for e in range(f - 1, 3, -1):
            s[2] = e
            for d in range(e - 1, 2, -1):
                s[3] = d
                for c in range(d - 1, 1, -1):
                    s[4] = c
                    for b in range(c - 1, 0, -1):
                        s[5] = b
                        for a in range(b - 1, -1, -1):
                            s[6] = a
                            i, j, out = KP.house_way_program(s, prog, lowest, work)
                            i7, j7, rule = K.house_way7(s, tp, quads, lowest)
                            if (
                                out < 0
                                or ids[out] != rule
                                or KP.key2(s[i], s[j]) != KP.key2(s[i7], s[j7])
                                or KP._high_key(s, i, j, lowest) != KP._high_key(s, i7, j7, lowest)
                            ):
                                bad += 1
    return bad


@nb.njit(cache=True)  # compiled once into the suite's shared numba cache, not once a run
def _legacy_hands(hands: Any, prog: Any, tp: Any, quads: Any, lowest: bool, ids: Any) -> int:
    """Of ``hands`` (rows of seven card indices, descending), those the program and the first
    format's kernel set differently."""
    work = KP.work_array()
    bad = 0
    for n in range(hands.shape[0]):
        s = hands[n]
        i, j, out = KP.house_way_program(s, prog, lowest, work)
        i7, j7, rule = K.house_way7(s, tp, quads, lowest)
        if (
            out < 0
            or ids[out] != rule
            or KP.key2(s[i], s[j]) != KP.key2(s[i7], s[j7])
            or KP._high_key(s, i, j, lowest) != KP._high_key(s, i7, j7, lowest)
        ):
            bad += 1
    return bad


@pytest.mark.slow  # seconds: the full suite's (the quick lane under 3 minutes)
@pytest.mark.parametrize("preset", ["standard", "foxwoods"])
@pytest.mark.parametrize("wheel", [Wheel.SECOND, Wheel.LOWEST])
def test_the_rewritten_presets_set_reduced_decks_as_the_first_format(
    preset: str, wheel: Wheel
) -> None:
    """Every hand of the reduced decks (34,320) set alike by the rules and the first format's
    kernel (the suite's; every hand of the full deck: the ``full_deck`` lane)."""
    from paigow.house_way import legacy_params

    program = compile_way(HouseWay.preset(preset))
    tp, quads = K.legacy_arrays(LegacyParams.from_mapping(legacy_params(preset)))
    ids = np.array([RULE_IDS.index(r) for r in program.outcomes], dtype=np.int64)
    hands = np.array(
        [sorted((c.index for c in h), reverse=True)
         for deck in REDUCED for h in itertools.combinations(_deck(deck), 7)],
        dtype=np.int64,
    )  # fmt: skip
    assert hands.shape == (3 * 11_440, 7)
    assert _legacy_hands(hands, program.prog, tp, quads, wheel is Wheel.LOWEST, ids) == 0


@pytest.mark.full_deck
@pytest.mark.parametrize("preset", ["standard", "foxwoods"])
def test_the_rewritten_presets_set_every_hand_as_the_first_format(preset: str) -> None:
    from paigow.house_way import legacy_params

    program = compile_way(HouseWay.preset(preset))
    tp, quads = K.legacy_arrays(LegacyParams.from_mapping(legacy_params(preset)))
    ids = np.array([RULE_IDS.index(r) for r in program.outcomes], dtype=np.int64)
    _legacy_slice(6, program.prog, tp, quads, False, ids)  # compile once
    with ThreadPoolExecutor(2) as pool:
        bad = sum(pool.map(lambda t: _legacy_slice(t, program.prog, tp, quads, False, ids),
                           range(6, 53)))  # fmt: skip
    assert bad == 0


@pytest.mark.slow  # seconds (the sweep and the class check): the full suite's
def test_a_way_without_a_last_rule_is_refused_with_a_hand_early() -> None:
    way = way_of('[[rule]]\nid = "pairs"\nwhen = "pairs > 0"\nlow = "single1+single2"\n')
    survey = C.sweep(way, stop_early=True)
    assert not survey.complete and survey.unset > 0
    assert C.check(way).first_unset == survey.first_unset  # class by class: the same hand
    (problem,) = survey.problems()
    assert "or more hands have no rule, e.g." in problem
    example = problem.split("e.g. ", 1)[1].split(":", 1)[0]
    with pytest.raises(HouseWayError, match="no rule sets the hand"):
        way.set_hand(parse_cards(example))


@pytest.mark.slow
def test_the_check_over_every_hand_finds_each_problem_as_the_docs_show() -> None:
    text = (DOCS / "house-way.md").read_text("utf-8")
    part = text.split("### Checks", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```toml\n(.*?)```\s*```text\n(.*?)```", part, re.S)
    assert found is not None
    toml_text, shown = found.groups()
    way = HouseWay.from_text(toml_text, "house.toml")
    folder = Path(tempfile.mkdtemp())
    (folder / "house.toml").write_text(toml_text)
    result = CliRunner().invoke(app, ["house-way", "check", str(folder / "house.toml"), "--json"])
    assert result.exit_code == 1, result.output
    printed = json.loads(result.stdout.splitlines()[0])
    problems = [p.replace(str(folder / "house.toml"), "house.toml") for p in printed["problems"]]
    said = " ".join(shown.split("error: ", 1)[1].split())
    assert " ".join(" ".join(problems).split()) == said
    assert [r["hands"] for r in printed["by_rule"]] == [
        int(n.replace(",", "")) for n in re.findall(r"│ ([\d,]+) +│ [\d.]+% +│", shown)
    ]
    survey = C.sweep(way, stop_early=True)  # the same first problem, found early
    assert survey.unset > 0 and not survey.complete
    unset, foul, unreachable = problems
    assert foul.startswith("house.toml:3: rule 'ace-low' sets ") and "into a foul" in foul
    assert unreachable.startswith("house.toml:13: rule 'kings-again' is unreachable")
    with pytest.raises(HouseWayError, match="into a foul"):
        way.set_hand(parse_cards(foul.rsplit("e.g. ", 1)[1]))
    with pytest.raises(HouseWayError, match="no rule sets the hand"):
        way.set_hand(parse_cards(unset.split("e.g. ", 1)[1].split(":", 1)[0]))


def test_validate_keeps_its_answer_by_the_rules_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    way = way_of('[[rule]]\nid = "pairs"\nwhen = "pairs > 0"\nlow = "single1+single2"\n')
    first = C.validate(way)
    assert first and "have no rule" in first[0]
    assert list(tmp_path.glob("checked-*.json"))

    def no_second_run(*args: Any, **kw: Any) -> Any:
        raise AssertionError("checked again")

    monkeypatch.setattr(C, "check", no_second_run)
    assert C.validate(way) == first
    other = way_of('[[rule]]\nid = "pairs"\nwhen = "pairs > 1"\nlow = "single1+single2"\n')
    with pytest.raises(AssertionError, match="checked again"):
        C.validate(other)


@pytest.mark.parametrize("preset", BUILTIN_PRESETS)
def test_every_preset_is_fit_for_a_table(preset: str) -> None:
    survey = C.check(HouseWay.preset(preset))
    assert survey.problems() == []
    assert sum(survey.reach) == C.HANDS


# ------------------------------------------------------------------------------ shapes
def test_shape_masks_name_the_shapes_a_condition_can_hold_for() -> None:
    every = sum(1 << KP.shape_of(f, q, t, p) for f, q, t, p in itertools.product(
        range(2), range(2), range(3), range(4)) if 5 * f + 4 * q + 3 * t + 2 * p <= 7)  # fmt: skip
    assert every < 1 << KP.N_SHAPES
    assert shape_mask(parse_condition("true")) == every
    two_pair = shape_mask(parse_condition("two-pair"))
    assert two_pair == 1 << KP.shape_of(0, 0, 0, 2)
    assert shape_mask(parse_condition("two-pair and pairs == 3")) == 0
    assert shape_mask(parse_condition("not two-pair")) == every & ~two_pair
    flush = shape_mask(parse_condition("flush"))
    assert flush >> KP.shape_of(0, 0, 0, 0) & 1 and flush >> KP.shape_of(0, 0, 1, 1) & 1


def test_every_reachable_shape_is_numbered_below_n_shapes() -> None:
    rng = random.Random(5)
    for cards in rich_hands(rng, 300):
        r = reader_of(" ".join(c.code for c in cards))
        by = r.by_count
        shape = KP.shape_of(len(by[5]), len(by[4]), len(by[3]), len(by[2]))
        assert 0 <= shape < KP.N_SHAPES


# ------------------------------------------------------------------------------ the docs
def test_the_docs_examples_set_their_hands_as_shown() -> None:
    text = (DOCS / "house-way.md").read_text("utf-8")
    part = text.split("## Writing a casino's house way", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```toml\n.*?```\n(.*?)(?=```toml|\Z)", part, re.S)
    ways = doc_ways()
    assert len(ways) == len(blocks) >= 6
    shown = 0
    for way, after in zip(ways, blocks, strict=True):
        for line in after.splitlines():
            m = re.match(r"\| ((?:\w\w ){6}\w\w) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|", line)
            if m is None:
                continue
            cards, high, low, rule = (g.strip() for g in m.groups())
            got = way.set_hand(parse_cards(cards))
            want = evaluate_five(parse_cards(high)).key, evaluate_two(parse_cards(low)).key
            assert (strength(got.setting), got.rule) == (want, rule), cards
            shown += 1
    assert shown >= 12


def test_the_docs_file_example_loads() -> None:
    text = (DOCS / "house-way.md").read_text("utf-8")
    part = text.split("## The rule language", 1)[1]
    first = re.search(r"```toml\n(.*?)```", part, re.S)
    assert first is not None
    way = HouseWay.from_text(first.group(1), "doc.toml")
    assert way.name == "my-casino" and [r.id for r in way.rules] == ["two-pair.split", "pai-gow"]
    assert way.set_hand(parse_cards("As Ah 9c 9d 5s 3h 2c")).rule == "two-pair.split"


def test_every_feature_and_key_is_in_the_docs() -> None:
    from paigow.house_way.rules import CATEGORIES, CHOICES, FLAGS, NUMBERS

    text = (DOCS / "house-way.md").read_text("utf-8")
    lang = text.split("## The rule language", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-zA-Z0-9|+ -]+)`", lang))
    words = {w for n in named for w in re.split(r"[|+ ]", n)}
    singles = {f for f in FLAGS if f.startswith("single-")}
    missing = [f for f in [*FLAGS, *NUMBERS, *CATEGORIES, *CHOICES]
               if f not in words and f not in singles and not f.startswith("single")]  # fmt: skip
    assert missing == []
    assert "single-A" in words and "single1" in words


def test_a_house_way_round_trips_through_its_file_and_json() -> None:
    for way in all_ways():
        again = HouseWay.from_text(way.to_toml(), "again.toml")
        assert again == way and again.digest == way.digest
        assert HouseWay.from_dict(json.loads(json.dumps(way.to_dict()))) == way


def test_the_rule_ids_a_compiled_table_counts_are_the_ways_own() -> None:
    for way in all_ways():
        program = compile_way(way)
        assert set(program.outcomes) == set(way.rule_ids())
        t = rank_tables(Wheel.SECOND)
        assert t.five_keys.size > 0


# ------------------------------------------------------------------------------ published ways
@pytest.mark.parametrize("name", BUILTIN_PRESETS)
def test_every_preset_sets_its_shipped_cases_as_its_source_does(name: str) -> None:
    """Each preset's cases file (``presets/house_ways/<name>.cases.toml``): the published
    source's own examples, each low hand read off the source's words
    (docs/house-way-sources.md); every case names the rule id it expects."""
    cases = preset_cases(name)
    assert cases is not None and cases.house_way == name and cases.source
    assert all(c.rule and c.why and c.low for c in cases.cases)
    results = run_cases(HouseWay.preset(name), cases)
    assert [(r.case.number, r.problems) for r in results if not r.agrees] == []
    assert len(results) == len(cases.cases) >= 8


def test_every_published_preset_names_its_source_and_marks_what_it_lacks() -> None:
    for name in BUILTIN_PRESETS:
        way = HouseWay.preset(name)
        assert way.title and way.source, name
        if name not in ("standard", "foxwoods"):
            cases = preset_cases(name)
            assert cases is not None and len(cases.cases) >= 8
            assert name in (DOCS / "house-way-sources.md").read_text("utf-8")


def test_the_readme_example_loads_and_plays_the_straight() -> None:
    text = (DOCS.parent / "README.md").read_text("utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    way = HouseWay.from_text(block.group(1), "README.md")
    got = way.set_hand(parse_cards("6s 6d 5c 5h 4d 3c 2s"))
    assert got.rule == "two-pair.straight"
    assert evaluate_five(got.setting.high).category.name == "STRAIGHT"
    assert way.set_hand(parse_cards("6s 6d 5c 5h 4d 3c As")).rule == "pai-gow"


# ------------------------------------------------------------------------------ the command line
def test_the_house_way_commands_list_show_and_refuse(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = json.loads(runner.invoke(app, ["house-way", "list", "--json"]).stdout)
    assert [w["name"] for w in listed] == list(BUILTIN_PRESETS)
    assert all(w["source"] for w in listed)
    shown = runner.invoke(app, ["house-way", "show", "foxwoods", "--json"])
    assert HouseWay.from_dict(json.loads(shown.stdout)) == HouseWay.preset("foxwoods")
    text = runner.invoke(app, ["house-way", "show", "ballys-ac"], env={"COLUMNS": "200"})
    assert text.exit_code == 0 and "straight.joker-ace-high" in text.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n\n[[rule]]\nid = "x"\nwhen = "two-pair and hihg-pair == 9"\n')
    for command in ("show", "check"):
        result = runner.invoke(app, ["house-way", command, str(bad)])
        assert result.exit_code != 0
        assert f"{bad}:5:rule'x'" in "".join(result.output.split())  # wrapped as it may be
    result = runner.invoke(app, ["hand", "Qs Qh 9c 9d 5s 3h 2c", "--house-way", "gold-star-school"])
    assert result.exit_code == 0 and "gold-star-school" in result.stdout


# ------------------------------------------------------------------------------ side by side
@pytest.mark.full_deck
def test_the_house_ways_side_by_side(table_folder: Path) -> None:
    """``paigow report house-ways``: each figure exact, the differences adding up."""
    from fractions import Fraction

    from paigow.analysis.edge import house_way_edge, table_edge
    from paigow.analysis.house_ways import compare
    from paigow.analysis.runner import Runner, TableSpec
    from paigow.commission import Commission

    standard, foxwoods = HouseWay.preset("standard"), HouseWay.preset("foxwoods")
    rate, runner = Commission("0.05"), Runner(workers=2)
    base = TableSpec.of(standard, Wheel.SECOND, table_folder)
    own = house_way_edge(base, runner, rate)
    compiled = base.open()
    n5, n2 = len(compiled.tables.five_keys), len(compiled.tables.two_keys)
    again = table_edge(np.asarray(compiled.table), n5, n2, 2, rate)  # the table in memory
    assert (again.win, again.push, again.loss) == (own.win, own.push, own.loss)
    same, fox = compare([standard, foxwoods], standard, Wheel.SECOND, rate, runner, table_folder)
    assert same.differ == 0 and same.rules == () and same.edge.house_edge == own.house_edge
    spec = TableSpec.of(foxwoods, Wheel.SECOND, table_folder)
    assert fox.edge.house_edge == house_way_edge(spec, runner, rate).house_edge
    assert sum(r.differ for r in fox.rules) == fox.differ > 0
    assert {r.rule for r in fox.rules} <= set(foxwoods.rule_ids())
    worth = sum((r.worth for r in fox.rules if r.worth is not None), Fraction(0))
    assert abs(worth - (fox.edge.house_edge - own.house_edge)) < Fraction(1, 10**5)
    shown = fox.to_dict()
    assert shown["house_way"] == "foxwoods" and shown["hands_set_otherwise"] == fox.differ
    result = CliRunner().invoke(
        app, ["report", "house-ways", "--house-way", "foxwoods", "--no-worth", "--json"]
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout.splitlines()[-1])["house_ways"][0]
    assert printed["house_edge_exact"] == str(fox.edge.house_edge)
    assert printed["hands_set_otherwise"] == fox.differ
    assert all(d["worth_to_house"] is None for d in printed["differences"])


# ------------------------------------------------------------------------------ issue 50
FOULS = """name = "ace-low"

[[rule]]
id = "ace-low"
when = "no-pair and single-A"
low = "A+single2"

[[rule]]
id = "rest"
choose = "best-low"
"""


def test_a_preset_name_is_the_presets_alone(tmp_path: Path) -> None:
    """Item 2: a file may take a preset's name only with the preset's rules."""
    posing = tmp_path / "posing.toml"
    posing.write_text(FOULS.replace('"ace-low"\n\n', '"Standard"\n\n', 1))
    with pytest.raises(HouseWayError, match=r"the name 'Standard' is the standard preset's"):
        HouseWay.from_file(posing)
    result = CliRunner().invoke(app, ["hand", "Qs Qh 9c 9d 5s 3h 2c", "--house-way", str(posing)])
    assert result.exit_code == 2 and "a name of its own" in " ".join(result.output.split())
    own = tmp_path / "standard-copy.toml"
    own.write_text(STANDARD.to_toml())
    assert HouseWay.from_file(own).is_preset and HouseWay.from_file(own).label == "standard"
    mine = HouseWay.from_text(FOULS, "a.toml")
    assert mine.label == f"ace-low #{mine.digest[:8]}"


def test_the_saved_edges_are_known_by_name_and_digest() -> None:
    """Item 2: two files with one name never share the figures kept in the cache."""
    from paigow.analysis.edge import saved_name

    one = HouseWay.from_text(FOULS, "a.toml")
    other = HouseWay.from_text(FOULS.replace("best-low", "best-high"), "b.toml")
    assert one.name == other.name
    names = {saved_name(w, "second", "house-way") for w in (one, other)}
    assert len(names) == 2 and all(one.name in n for n in names)


def test_a_hand_a_file_sets_into_a_foul_is_a_clean_error(tmp_path: Path) -> None:
    """Item 3: exit status 2 and ``error:``, no traceback; in a batch the other hands go on
    (exit status 1, as for a line that is not seven cards)."""
    path = tmp_path / "fouls.toml"
    path.write_text(FOULS)
    runner = CliRunner()
    result = runner.invoke(app, ["hand", "Ac Ks Qs Js Ts 9s 7h", "--house-way", str(path)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    said = " ".join(result.output.split())
    assert (
        said.startswith("error:") and "rule 'ace-low' sets Ac Ks Qs Js Ts 9s 7h into a foul" in said
    )
    batch = "Ac Ks Qs Js Ts 9s 7h\nQs Qh 9c 9d 5s 3h 2c\n"
    result = runner.invoke(app, ["hand", "-", "--house-way", str(path), "--json"], input=batch)
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert "into a foul" in lines[0]["error"] and lines[1]["house_way"]["rule"] == "rest"


def test_a_check_that_passed_is_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 5: ``house-way check`` answers at once for rules (and kernels) that passed."""
    monkeypatch.setenv("PAIGOW_CACHE_DIR", str(tmp_path))
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n\n[[rule]]\nid = "all"\nchoose = "best-low"\n')
    way = HouseWay.from_file(path)
    survey = C.Survey(C.compile_way(way), (C.HANDS,), 0, -1, 0, -1, -1, 1.0)
    C.remember(way, Wheel.SECOND, survey)  # what a first check keeps

    def no_sweep(*args: Any, **kw: Any) -> Any:
        raise AssertionError("checked again")

    monkeypatch.setattr(C, "check", no_sweep)
    result = CliRunner().invoke(app, ["house-way", "check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["remembered"] and printed["problems"] == []
    assert printed["by_rule"][0]["hands"] == C.HANDS and printed["digest"] == way.digest
    assert C.validate(way) == []  # the server's memory is the same
    other = tmp_path / "other.toml"
    other.write_text(path.read_text().replace("best-low", "best-high"))
    with pytest.raises(AssertionError, match="checked again"):
        CliRunner().invoke(app, ["house-way", "check", str(other)], catch_exceptions=False)


def test_show_prints_notes_and_ids() -> None:
    """Item 8: the "NOT IN SOURCE" marks can be reviewed, and the ids by the high hand kept."""
    result = CliRunner().invoke(app, ["house-way", "show", "ballys-ac"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "rule 1 (five-aces.kings) note: NOT IN SOURCE: taken from standard" in lines
    assert any(x.startswith("rule ") and "ids: a flush high is 'flush'" in x for x in lines)
    assert f"digest: {HouseWay.preset('ballys-ac').digest}" in lines


def test_report_suggests_the_files_path_and_its_help_is_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 9: the strategy build suggested for a file names the file, and ``report --help``
    lists the commands without ``report sheet``'s options."""
    from types import SimpleNamespace

    from paigow.analysis import house_ways
    from paigow.cli import jobs

    path = tmp_path / "my way.toml"
    path.write_text(FOULS.replace("ace-low", "mgm-grand", 1))
    monkeypatch.setattr(jobs, "open_compiled", lambda *a, **k: None)
    zero = SimpleNamespace(house_edge=0)

    def compare(ways: list[HouseWay], *a: Any, **k: Any) -> list[Any]:
        return [SimpleNamespace(way=w, edge=zero, push_rate=0, optimal=None, cost=None, differ=0,
                                rules=()) for w in ways]  # fmt: skip

    monkeypatch.setattr(house_ways, "compare", compare)
    result = CliRunner().invoke(
        app, ["report", "house-ways", "--house-way", str(path)], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    assert f"paigow strategy build --house-way '{path}'" in result.stdout
    helped = CliRunner().invoke(app, ["report", "--help"], env={"COLUMNS": "200"})
    assert helped.exit_code == 0 and "house-ways" in helped.stdout
    assert "--rounds" not in helped.stdout and "report sheet --help" in helped.stdout


# ------------------------------------------------------------------------------ plain English
@pytest.mark.parametrize("preset", BUILTIN_PRESETS)
def test_every_preset_reads_in_plain_words_with_an_example_per_rule(preset: str) -> None:
    """Issue 50: numbered rules in plain words generated from the rules, each with an example
    hand that rule sets (checked against the house way itself)."""
    from paigow.house_way.plain import plain_rules

    way = HouseWay.preset(preset)
    rules = plain_rules(way)
    assert [r.number for r in rules] == list(range(1, len(way.rules) + 1))
    for rule, plain in zip(way.rules, rules, strict=True):
        assert plain.id == rule.id and plain.text.endswith(".")
        assert plain.example is not None, plain
        seven, setting, rid = plain.example
        got = way.set_hand(seven)
        assert got.rule == rid and got.setting.same_hands(setting)


def test_the_plain_words_come_from_the_rules_themselves(tmp_path: Path) -> None:
    from paigow.house_way.plain import plain_text

    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\n\n[[rule]]\nid = "kings"\nwhen = "one-pair and pair in J-K"\n'
        'low = "pair"\n\n[[rule]]\nid = "rest"\nchoose = "best-low"\n'
    )
    text = plain_text(HouseWay.from_file(path))
    assert "1. One pair, and the highest pair is jacks to kings: the highest pair goes low." in text
    assert (
        "2. Every other hand: of the settings that do not foul, play the one with the best low"
        in text
    )
    assert text.count("   e.g. ") == 2
    result = CliRunner().invoke(app, ["house-way", "show", "--plain", str(path)])
    assert result.exit_code == 0 and result.stdout == text


def test_the_docs_plain_english_is_what_the_command_prints() -> None:
    text = (DOCS / "house-way.md").read_text("utf-8")
    block = text.split("$ paigow house-way show --plain standard\n", 1)[1].split("```", 1)[0]
    printed = CliRunner().invoke(app, ["house-way", "show", "--plain", "standard"]).stdout
    for line in block.splitlines():
        if line != "...":
            assert line in printed.splitlines(), line
