"""Settings of seven cards and foul detection: docs/rulebook.md#setting-a-hand."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.errors import CardError, PaigowError, SettingError
from paigow.ranking import Category, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting, all_settings

SEVEN = "Qs Qh 9c 9d 5s 3h 2c"
seven_cards = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True)


def setting(text: str) -> Setting:
    """``"Qs Qh 5s 3h 2c / 9c 9d"`` -> Setting."""
    high, low = text.split("/")
    return Setting(parse_cards(high, count=5), parse_cards(low, count=2))


# ---------------------------------------------------------------- the 21 settings


def test_there_are_21_settings() -> None:
    cards = parse_cards(SEVEN, count=7)
    all21 = all_settings(cards)
    assert len(all21) == 21
    lows = {frozenset(s.low) for s in all21}
    assert len(lows) == 21  # every pair of cards exactly once
    for s in all21:
        assert len(s.high) == 5
        assert len(s.low) == 2
        assert set(s.cards) == set(cards)
        assert set(s.high).isdisjoint(s.low)


@settings(max_examples=100, deadline=None)
@given(seven_cards)
def test_21_distinct_settings_for_any_seven(cards: list[Card]) -> None:
    all21 = all_settings(cards)
    assert len({frozenset(s.low) for s in all21}) == 21
    assert all(set(s.cards) == set(cards) for s in all21)
    # there is always a setting that is not a foul
    assert any(not s.is_foul for s in all21)


@pytest.mark.parametrize("text", ["Qs Qh 9c 9d 5s 3h", "Qs Qh 9c 9d 5s 3h 2c 4c"])
def test_all_settings_needs_seven_cards(text: str) -> None:
    with pytest.raises(CardError):
        all_settings(parse_cards(text))


def test_all_settings_refuses_duplicates() -> None:
    c = parse_cards("As")[0]
    with pytest.raises(CardError):
        all_settings([c, *parse_cards("Kd Qh Jc 9s 7d"), c])


# ---------------------------------------------------------------- fouls

FOULS = [
    # (setting, is a foul, why)
    ("Qs Qh 5s 3h 2c / 9c 9d", False, "low pair below the high pair"),
    ("9c 9d 5s 3h 2c / Qs Qh", True, "low pair above the high pair"),
    ("9c 9d 5s 3h 2c / 9s 9h", False, "four of a kind split into two pairs of one rank"),
    ("8c 8d Ah 4s 2h / 8s 8h", False, "quads split, kickers high"),
    ("Jk As 7c 4d 2h / Ac Ad", False, "three aces and the joker split into two pairs of aces"),
    ("Ac Ad 7c 4d 2h / Jk As", False, "joker-ace pair low, pair of aces high"),
    ("Kc Kd 5s 3h 2c / Ac Ad", True, "aces low over kings high"),
    ("As Kd 7c 4s 2h / 3c 3h", True, "any low pair over a no-pair high hand"),
    ("5c 5d 4c 4d 2h / Kc Kd", False, "two pair beats any two-card hand"),
    ("2c 2d 2h 7d 3c / As Ad", False, "three of a kind beats any two-card hand"),
    ("9s 8d 7c 6h 5s / Ac Ad", False, "a straight beats any two-card hand"),
    ("2c 2d 9h 7s 4c / As Kd", False, "low ace-king under a pair of twos"),
    ("Ad Kd 7c 4s 2h / Ac Kh", False, "low ace-king with ace-king at the top: equal leading ranks"),
    ("Ad Qd 7c 4s 2h / Ac Kh", True, "low ace-king over ace-queen"),
    ("Kd Qd 9c 4s 2h / Kc Qh", False, "equal leading ranks: the high hand's extra cards"),
    ("Kd Jd 9c 4s 2h / Kc Qh", True, "low king-queen over king-jack"),
    ("Ks 9d 7c 4s 2h / Kh 9h", False, "equal leading ranks king-nine"),
    ("Ks 9d 7c 4s 2h / Kh 8h", False, "low king-eight under king-nine"),
    ("Ks 9d 7c 4s 2h / Kh Th", True, "low king-ten over king-nine"),
    ("Ks 7c 5s 4d 2h / Qd 9h", False, "low queen-nine under king"),
    ("Qs 7c 5s 4d 2h / Kd 3h", True, "low king over queen"),
    ("Ad Kd 7c 4s 2h / Jk Kh", False, "low joker-king (ace-king) with ace-king at the top"),
    ("Ad Qd 7c 4s 2h / Jk Ks", True, "low joker-king (ace-king) over ace-queen"),
    ("Kd Qd 8c 4s 2h / Jk 9h", True, "low joker-nine (ace-nine) over king high"),
    ("Jk Qd 8c 4s 2h / Ks 9h", False, "high joker is an ace"),
    ("Jk Qd 8c 4s 2h / As Kh", True, "low ace-king over joker-queen (ace-queen)"),
    ("Jk Qd 8c 4s 2h / As Qh", False, "low ace-queen against joker-queen: equal leading ranks"),
    ("6c 6d 5s 3h 2c / 6s 6h", False, "sixes and sixes"),
    ("6c 6d 5s 3h 2c / 7s 7h", True, "sevens over sixes"),
]


@pytest.mark.parametrize(("text", "foul", "why"), FOULS, ids=[f[0] for f in FOULS])
def test_foul_detection(text: str, foul: bool, why: str) -> None:
    s = setting(text)
    assert s.is_foul is foul, why
    assert s.value().foul is foul
    assert s.value(Wheel.LOWEST).foul is foul


def test_setting_value_reports_both_hands() -> None:
    s = setting("Ks 7c 5s 4d 2h / Qd 9h")
    v = s.value()
    assert v.high.name == "high card, king high"
    assert v.low.name == "high card, queen-nine"
    assert v.high.key == evaluate_five(s.high).key
    assert v.low.key == evaluate_two(s.low).key


def _independent_foul(high: tuple[Card, ...], low: tuple[Card, ...]) -> bool:
    """docs/rulebook.md#fouls read apart: compare the low hand with the high hand's category and
    leading ranks; only a high hand of one pair or no pair can lose to two cards."""
    hv = evaluate_five(high)
    lranks = sorted((c.rank for c in low), reverse=True)  # the joker's rank is the ace's
    low_pair = lranks[0] == lranks[1]
    if hv.category >= Category.TWO_PAIR:
        return False
    if hv.category is Category.ONE_PAIR:
        return low_pair and lranks[0] > hv.ranks[0]
    # high card
    if low_pair:
        return True
    return tuple(lranks) > tuple(hv.ranks[:2])


@settings(max_examples=300, deadline=None)
@given(seven_cards)
def test_foul_matches_an_independent_reading(cards: list[Card]) -> None:
    for s in all_settings(cards):
        assert s.is_foul == _independent_foul(s.high, s.low), str(s)


# ---------------------------------------------------------------- construction


def test_from_low_builds_the_setting() -> None:
    cards = parse_cards(SEVEN, count=7)
    s = Setting.from_low(cards, parse_cards("9c 9d"))
    assert set(s.low) == set(parse_cards("9c 9d"))
    assert s.high == parse_cards("Qs Qh 5s 3h 2c")  # the other five, in the given order
    assert str(s) == "Qs Qh 5s 3h 2c / 9c 9d"
    assert not s.is_foul
    assert Setting.from_low(cards, ["9D", "9♣"]).same_hands(s)  # tokens, any case, symbols
    assert Setting.from_low(cards, ["Qs", "qh"]).is_foul


def test_from_low_accepts_tokens_of_the_seven_cards_in_any_order() -> None:
    cards = parse_cards("As Kd Qh Jc 9s 7d 2c", count=7)
    s = Setting.from_low(cards, ["7d", "as"])
    assert set(s.low) == set(parse_cards("As 7d"))
    assert set(s.high) == set(parse_cards("Kd Qh Jc 9s 2c"))


def test_from_low_card_not_among_the_seven_is_named() -> None:
    cards = parse_cards(SEVEN, count=7)
    with pytest.raises(SettingError, match="Ah"):
        Setting.from_low(cards, ["Ah", "9c"])


@pytest.mark.parametrize("low", [["9c"], ["9c", "9d", "2c"], []])
def test_from_low_needs_two_cards(low: list[str]) -> None:
    with pytest.raises(PaigowError):
        Setting.from_low(parse_cards(SEVEN, count=7), low)


def test_from_low_refuses_a_repeated_low_card() -> None:
    with pytest.raises(CardError, match="9c"):
        Setting.from_low(parse_cards(SEVEN, count=7), ["9c", "9C"])


def test_from_low_refuses_bad_tokens_naming_them() -> None:
    with pytest.raises(CardError, match="'9x'"):
        Setting.from_low(parse_cards(SEVEN, count=7), ["9x", "9c"])


def test_from_low_needs_seven_distinct_cards() -> None:
    with pytest.raises(CardError):
        Setting.from_low(parse_cards("Qs Qh 9c 9d 5s 3h"), ["9c", "9d"])
    c = parse_cards("Qs")[0]
    with pytest.raises(CardError):
        Setting.from_low([c, c, *parse_cards("9c 9d 5s 3h 2c")], ["9c", "9d"])


@pytest.mark.parametrize(
    ("high", "low"),
    [
        ("Qs Qh 5s 3h", "9c 9d"),
        ("Qs Qh 5s 3h 2c 4c", "9c 9d"),
        ("Qs Qh 5s 3h 2c", "9c"),
        ("Qs Qh 5s 3h 2c", "9c 9d 4c"),
        ("Qs Qh 5s 3h 2c", "9c Qs"),
    ],
)
def test_setting_shape_is_checked(high: str, low: str) -> None:
    with pytest.raises(SettingError):
        Setting(parse_cards(high), parse_cards(low))


def test_same_hands_ignores_order() -> None:
    a = setting("Qs Qh 5s 3h 2c / 9c 9d")
    b = setting("2c 3h 5s Qh Qs / 9d 9c")
    c = setting("Qs Qh 5s 3h 9d / 9c 2c")
    assert a.same_hands(b)
    assert not a.same_hands(c)


# ---------------------------------------------------------------- to_dict / from_dict


def test_to_dict() -> None:
    s = setting("Qs Qh 5s 3h 2c / 9c 9d")
    assert s.to_dict() == {"high": ["Qs", "Qh", "5s", "3h", "2c"], "low": ["9c", "9d"]}


@settings(max_examples=100, deadline=None)
@given(seven_cards, st.integers(0, 20))
def test_dict_round_trip(cards: list[Card], which: int) -> None:
    s = all_settings(cards)[which]
    d = s.to_dict()
    back = Setting.from_dict(json.loads(json.dumps(d)))
    assert back == s
    assert back.high == s.high and back.low == s.low
    assert back.is_foul == s.is_foul


def test_from_dict_accepts_loose_notation() -> None:
    s = Setting.from_dict({"high": ["qs", "QH", "5♠", "3h", "2c"], "low": ["9c", "Joker"]})
    assert str(s) == "Qs Qh 5s 3h 2c / 9c Jk"


@pytest.mark.parametrize(
    "data",
    [
        {"high": ["Qs", "Qh", "5s", "3h"], "low": ["9c", "9d"]},
        {"high": ["Qs", "Qh", "5s", "3h", "2c"], "low": ["9c"]},
        {"high": ["Qs", "Qh", "5s", "3h", "2x"], "low": ["9c", "9d"]},
        {"high": ["Qs", "Qh", "5s", "3h", "2c"], "low": ["9c", "Qs"]},
    ],
)
def test_from_dict_refuses_bad_data(data: dict[str, list[str]]) -> None:
    with pytest.raises(PaigowError):
        Setting.from_dict(data)
