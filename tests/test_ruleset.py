"""The ruleset: Indiana's defaults and the refusals of docs/rulebook.md#ruleset-settings."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from typing import Any

import pytest

from paigow.commission import Commission
from paigow.errors import PaigowError, RulesetError
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, Ruleset, StartMethod


def test_indiana_defaults() -> None:
    r = Ruleset()
    assert r.commission.rate == Fraction(5, 100)
    assert str(r.commission) == "5%"
    assert r.banker == "house"
    assert r.wheel is Wheel.SECOND
    assert r.foul is FoulRule.LOSES
    assert r.start is StartMethod.DICE
    assert r.house_way == "standard"
    assert r.set_time_limit > 0
    assert 0 < r.min_wager <= r.max_wager
    assert Ruleset.indiana() == r


def test_setting_values_are_the_rule_books_words() -> None:
    assert {w.value for w in Wheel} == {"second", "lowest"}
    assert {f.value for f in FoulRule} == {"loses", "reset"}
    assert {s.value for s in StartMethod} == {"dice", "rng"}


def test_other_allowed_values() -> None:
    r = Ruleset(
        commission=Commission("0.04"),
        wheel="lowest",  # type: ignore[arg-type]
        foul="reset",  # type: ignore[arg-type]
        start="rng",  # type: ignore[arg-type]
        house_way="foxwoods",
        set_time_limit=30,
        min_wager=100,
        max_wager=100,
    )
    assert r.wheel is Wheel.LOWEST
    assert r.foul is FoulRule.RESET
    assert r.start is StartMethod.RNG
    assert r.commission.rate == Fraction(4, 100)
    assert Ruleset(commission="0").commission.rate == 0  # type: ignore[arg-type]
    assert Ruleset(commission="5%").commission == Commission()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "banker", ["player", "player-banker", "co-bank", "cobank", "Player", " CO-BANK ", "dealer", ""]
)
def test_banker_other_than_the_house_is_refused(banker: str) -> None:
    with pytest.raises(RulesetError, match="banker"):
        Ruleset(banker=banker)


def test_banker_refusal_cites_the_rule() -> None:
    with pytest.raises(RulesetError, match=r"10-9-1\(e\)"):
        Ruleset(banker="co-bank")


@pytest.mark.parametrize("rate", ["0.051", "0.06", "5.01%", "-0.01", "1"])
def test_commission_outside_zero_to_five_percent_is_refused(rate: str) -> None:
    with pytest.raises(RulesetError):
        Ruleset(commission=rate)  # type: ignore[arg-type]
    with pytest.raises(RulesetError):
        Ruleset.from_dict({"commission": rate})
    with pytest.raises(RulesetError):
        Ruleset().with_(commission=rate)


def test_max_below_min_is_refused() -> None:
    with pytest.raises(RulesetError, match="max_wager"):
        Ruleset(min_wager=1000, max_wager=999)
    with pytest.raises(RulesetError):
        Ruleset.from_dict({"min_wager": 1000, "max_wager": 500})


@pytest.mark.parametrize(
    "changes",
    [
        {"min_wager": 0},
        {"min_wager": -5},
        {"min_wager": 10.5},
        {"max_wager": "1000"},
        {"min_wager": True},
        {"set_time_limit": 0},
        {"set_time_limit": -60},
        {"set_time_limit": 1.5},
        {"house_way": ""},
    ],
)
def test_bad_numbers_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(RulesetError):
        Ruleset(**changes)


@pytest.mark.parametrize(
    ("name", "value"),
    [("wheel", "third"), ("foul", "push"), ("start", "coin"), ("wheel", "SECONDS")],
)
def test_unknown_setting_values_are_refused_and_named(name: str, value: str) -> None:
    with pytest.raises(RulesetError, match=value):
        Ruleset(**{name: value})
    with pytest.raises(RulesetError, match=value):
        Ruleset.from_dict({name: value})


@pytest.mark.parametrize("key", ["surrender", "side_bets", "Commission", "five_aces"])
def test_unknown_setting_in_from_dict_is_refused_and_named(key: str) -> None:
    data = Ruleset().to_dict()
    data[key] = "yes"
    with pytest.raises(RulesetError, match=key):
        Ruleset.from_dict(data)


def test_from_dict_refuses_a_player_banker() -> None:
    data = Ruleset().to_dict() | {"banker": "player-banker"}
    with pytest.raises(RulesetError):
        Ruleset.from_dict(data)


def test_to_dict_is_json_ready_with_an_exact_commission() -> None:
    d = Ruleset().to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["commission"] == "0.05"
    assert d["banker"] == "house"
    assert d["wheel"] == "second"
    assert d["foul"] == "loses"
    assert d["start"] == "dice"
    assert d["house_way"] == "standard"


RULESETS = [
    Ruleset(),
    Ruleset(commission=Commission("0.04"), wheel=Wheel.LOWEST),
    Ruleset(commission=Commission("1/30"), foul=FoulRule.RESET, start=StartMethod.RNG),
    Ruleset(commission=Commission("0"), house_way="foxwoods", set_time_limit=15),
    Ruleset(commission=Commission("2.5%"), min_wager=1, max_wager=1),
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=[str(i) for i in range(len(RULESETS))])
def test_to_dict_from_dict_round_trip(ruleset: Ruleset) -> None:
    d = ruleset.to_dict()
    again = Ruleset.from_dict(json.loads(json.dumps(d)))
    assert again == ruleset
    assert again.to_dict() == d
    assert again.commission.rate == ruleset.commission.rate


def test_from_dict_fills_in_defaults() -> None:
    assert Ruleset.from_dict({}) == Ruleset()
    assert Ruleset.from_dict({"wheel": "lowest"}) == Ruleset(wheel=Wheel.LOWEST)


def test_with_changes_one_setting_and_revalidates() -> None:
    r = Ruleset().with_(foul=FoulRule.RESET)
    assert r.foul is FoulRule.RESET
    assert r.commission == Ruleset().commission
    with pytest.raises(RulesetError):
        Ruleset().with_(banker="co-bank")


def test_ruleset_is_immutable() -> None:
    r = Ruleset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.banker = "player"  # type: ignore[misc]


def test_ruleset_errors_are_paigow_errors() -> None:
    assert issubclass(RulesetError, PaigowError)


@pytest.mark.parametrize("name", ["indiana", "ez", "commission-free", "face-up"])
def test_a_ruleset_travels_to_a_worker_process_as_itself(name: str) -> None:
    """Pickled (as the pricing process receives it) and back: the same ruleset, its commission
    included (an immutable Commission once refused to be unpickled)."""
    import pickle

    rules = Ruleset.preset(name, dragon=True)
    assert pickle.loads(pickle.dumps(rules)) == rules


def test_a_ruleset_read_again_is_the_same_and_its_record_a_new_copy() -> None:
    """``from_dict`` keeps what it read (a round's log names its ruleset, pay tables in full, and
    every replay reads it): the same record, in any key order, gives the same ruleset; another
    record another one; a bad record is refused every time; and ``to_dict`` hands out a copy a
    caller may change without changing the ruleset's."""
    from paigow.bonus.paytable import PayTable
    from paigow.ruleset import SideWagerOffer

    rules = Ruleset(side_wagers=(SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2500),))
    d = rules.to_dict()
    first = Ruleset.from_dict(d)
    assert first == rules
    assert Ruleset.from_dict(dict(reversed(list(d.items())))) is first
    assert Ruleset.from_dict(d | {"min_wager": 600}) == rules.with_(min_wager=600)
    assert Ruleset.from_dict(d | {"min_wager": 600}) is not first
    for _ in range(2):
        with pytest.raises(RulesetError, match="min_wager"):
            Ruleset.from_dict(d | {"min_wager": 600.5})
    mine = first.to_dict()
    mine["side_wagers"][0]["table"]["name"] = "changed"
    mine["min_wager"] = 1
    assert first.to_dict() == d and rules.to_dict() == d
    # a record with a value JSON cannot carry is read as before (refused here), not kept
    with pytest.raises(RulesetError, match="min_wager must be an integer"):
        Ruleset.from_dict(d | {"min_wager": Fraction(600)})
