"""``paigow house-way diff A B`` (docs/house-way.md#side-by-side-house-way-diff): the hands each
rule pair sets otherwise, counted by the kernels on reduced decks and checked against a
brute-force count by the reference reading (:meth:`HouseWay.set_hand`); the command's errors;
the full deck (compiled tables) under ``slow``."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.analysis.house_way_diff import diff_hands
from paigow.cards import Card, parse_cards
from paigow.cli import app
from paigow.house_way import HouseWay
from paigow.ranking import Wheel, evaluate_five, evaluate_two

#: Reduced decks of 13 cards (1,716 hands each): two pair of every band beside aces, kings and
#: the joker; straights and flushes beside pairs and an ace; four of a kind with and without
#: a pair; three aces.
DECKS = [
    "Jk As Ah Ks Kh Qs Qd Js Jd Ts 9s 4h 4d",
    "Jk Ah Kc 9h 8h 7h 6h 5s 5h Th Td 2h 2c",
    "As Ad Ac 8s 8d 8c 8h 7s 7d 5d 4s 3s 2s",
]
PAIRS = [
    ("standard", "foxwoods"),
    ("standard", "foxwoods-published"),
    ("ballys-ac", "gold-star-school"),
]


def brute_force(
    a: HouseWay, b: HouseWay, hands: list[list[Card]], wheel: Wheel
) -> Counter[tuple[str, str]]:
    """The rule pairs of the hands ``b`` sets otherwise than ``a``, by the reference reading."""
    out: Counter[tuple[str, str]] = Counter()
    for cards in hands:
        sa, sb = a.set_hand(cards, wheel), b.set_hand(cards, wheel)
        strength_a = (evaluate_five(sa.setting.high, wheel).key, evaluate_two(sa.setting.low).key)
        strength_b = (evaluate_five(sb.setting.high, wheel).key, evaluate_two(sb.setting.low).key)
        if strength_a != strength_b:
            out[sa.rule, sb.rule] += 1
    return out


def deck_hands() -> list[list[Card]]:
    return [list(h) for deck in DECKS for h in itertools.combinations(parse_cards(deck), 7)]


@pytest.mark.slow  # 5-9 s a pair on two busy cores: the full suite's (the quick lane under 3 min)
@pytest.mark.parametrize(("a", "b"), PAIRS, ids=lambda n: n)
def test_the_rule_pairs_of_reduced_decks_are_the_brute_force_count(a: str, b: str) -> None:
    way_a, way_b = HouseWay.preset(a), HouseWay.preset(b)
    hands = deck_hands()
    for wheel in (Wheel.SECOND, Wheel.LOWEST) if a == "ballys-ac" else (Wheel.SECOND,):
        want = brute_force(way_a, way_b, hands, wheel)
        got = diff_hands(way_a, way_b, hands, wheel)
        assert {(p.a_rule, p.b_rule): p.hands for p in got.pairs} == dict(want)
        assert got.differ == sum(want.values()) > 0 and got.hands == len(hands)
        assert [p.hands for p in got.pairs] == sorted((p.hands for p in got.pairs), reverse=True)
        for p in got.pairs:  # each example is set by that pair, otherwise
            ra, rb = way_a.set_hand(p.example, wheel), way_b.set_hand(p.example, wheel)
            assert (ra.rule, rb.rule) == (p.a_rule, p.b_rule)
            set_a, set_b = p.settings()
            assert set_a != set_b


def test_a_house_way_beside_itself_differs_nowhere() -> None:
    way = HouseWay.preset("gold-star-school")
    got = diff_hands(way, way, deck_hands())
    assert got.differ == 0 and got.pairs == ()


def test_a_hand_left_without_a_rule_is_its_own_pair() -> None:
    partial = HouseWay.from_text(
        'name = "pairs-only"\n[[rule]]\nid = "pair"\nwhen = "one-pair"\nlow = "pair"\n', "p.toml"
    )
    hands = [list(parse_cards("Ks Qd 9h 7c 5s 4d 2h")), list(parse_cards("Ks Kd 9h 7c 5s 4d 2h"))]
    got = diff_hands(HouseWay.preset("standard"), partial, hands)
    assert {(p.a_rule, p.b_rule) for p in got.pairs} == {("pai-gow", "(no rule)"),
                                                         ("one-pair", "pair")}  # fmt: skip


def test_a_bad_file_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[[rule]]\nid = "x"\nlow = "for"\n')
    for args in (["standard", str(bad)], [str(bad), "standard"], ["standard", "nowhere.toml"]):
        result = CliRunner().invoke(app, ["house-way", "diff", *args])
        assert result.exit_code == 2, result.output
        assert "error:" in result.output and "Traceback" not in result.output
    assert "did you mean 'four'" in "".join(
        CliRunner().invoke(app, ["house-way", "diff", "standard", str(bad)]).output.split("\n")
    )


# every hand of the full deck, foxwoods' compiled table built for it (a minute cold): the
# full_deck lane's; the suite counts the same kernel's pairs on reduced decks (above)
@pytest.mark.full_deck
def test_the_full_deck_diff_counts_every_hand(table_folder: Path) -> None:
    """Every hand, from the compiled tables (about a minute per table to build): the total is
    ``report house-ways``' figure for foxwoods beside standard, and the pairs add up to it."""
    result = CliRunner().invoke(app, ["house-way", "diff", "standard", "foxwoods", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout.splitlines()[-1])
    assert got["hands"] == 154_143_080 and got["hands_set_otherwise"] == 3_614_400
    assert sum(p["hands"] for p in got["pairs"]) == 3_614_400
    standard, foxwoods = HouseWay.preset("standard"), HouseWay.preset("foxwoods")
    by_b: Counter[str] = Counter()
    for p in got["pairs"]:
        by_b[p["b_rule"]] += p["hands"]
        cards = parse_cards(p["example"])
        assert standard.set_hand(cards).rule == p["a_rule"]
        assert foxwoods.set_hand(cards).rule == p["b_rule"]
        assert p["worth_to_house"] is None
    assert by_b == {"two-pair.split": 3_602_880, "quads.keep-king": 11_520}
    shown = CliRunner().invoke(app, ["house-way", "diff", "standard", "foxwoods", "--top", "1"])
    assert shown.exit_code == 0 and "3,614,400 of 154,143,080" in shown.stdout
