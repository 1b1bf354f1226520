"""Settlement and commission: docs/rulebook.md#settlement."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.commission import Commission
from paigow.errors import RulesetError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.setting import Setting, all_settings
from paigow.settlement import HandResult, Outcome, outcome_of, settle

W, L, C = HandResult.WIN, HandResult.LOSS, HandResult.COPY
FIVE_PERCENT = Commission("0.05")


def setting(text: str) -> Setting:
    high, low = text.split("/")
    return Setting(parse_cards(high, count=5), parse_cards(low, count=2))


# The dealer: a pair of kings (K 9 7 4) high, jack-ten low.
DEALER = setting("Ks Kh 9d 7c 4s / Jc Td")
# Player hands against it, all distinct from the dealer's cards and never a foul.
PLAYER_HIGH = {
    W: "As Ah 9c 8d 3h",  # pair of aces
    C: "Kc Kd 9h 7d 4c",  # kings with 9 7 4: a copy
    L: "Qs Qh 9s 7h 4d",  # pair of queens
}
PLAYER_LOW = {
    W: "Qc Jd",  # queen-jack
    C: "Js Th",  # jack-ten: a copy
    L: "Tc 6h",  # ten-six
}

# docs/rulebook.md#outcomes, written out for all nine combinations.
RULE_BOOK = {
    (W, W): Outcome.WIN,
    (W, L): Outcome.PUSH,
    (L, W): Outcome.PUSH,
    (W, C): Outcome.PUSH,  # win + copy = push
    (C, W): Outcome.PUSH,
    (L, C): Outcome.LOSS,  # loss + copy = loss
    (C, L): Outcome.LOSS,
    (C, C): Outcome.LOSS,  # copy + copy = loss
    (L, L): Outcome.LOSS,
}


@pytest.mark.parametrize(("high", "low"), list(RULE_BOOK), ids=[f"{h}-{lo}" for h, lo in RULE_BOOK])
def test_outcome_of_every_combination(high: HandResult, low: HandResult) -> None:
    assert outcome_of(high, low) is RULE_BOOK[high, low]


@pytest.mark.parametrize(("high", "low"), list(RULE_BOOK), ids=[f"{h}-{lo}" for h, lo in RULE_BOOK])
def test_settle_every_combination_with_real_hands(high: HandResult, low: HandResult) -> None:
    player = setting(f"{PLAYER_HIGH[high]} / {PLAYER_LOW[low]}")
    assert not player.is_foul
    assert not set(player.cards) & set(DEALER.cards)
    s = settle(player, DEALER, 1000, FIVE_PERCENT)
    assert s.high is high
    assert s.low is low
    assert s.outcome is RULE_BOOK[high, low]
    assert s.foul is False
    if s.outcome is Outcome.WIN:
        assert (s.win, s.commission, s.returned, s.net) == (1000, 50, 1950, 950)
    elif s.outcome is Outcome.PUSH:
        assert (s.win, s.commission, s.returned, s.net) == (0, 0, 1000, 0)
    else:
        assert (s.win, s.commission, s.returned, s.net) == (0, 0, 0, -1000)


def test_settle_to_dict() -> None:
    player = setting(f"{PLAYER_HIGH[W]} / {PLAYER_LOW[W]}")
    d = settle(player, DEALER, 1019, FIVE_PERCENT).to_dict()
    assert d == {
        "outcome": "win",
        "high": "win",
        "low": "win",
        "wager": 1019,
        "win": 1019,
        "commission": 50,
        "returned": 1988,
        "net": 969,
        "foul": False,
    }


def test_a_foul_loses_under_indiana_even_with_better_hands() -> None:
    # Kings with Q J 8 beat the dealer's kings with 9 7 4, and aces beat jack-ten, but the low
    # pair of aces outranks the high pair of kings: a foul, so the wager is lost.
    player = setting("Kc Kd Qh Jd 8c / Ac Ad")
    assert player.is_foul
    s = settle(player, DEALER, 1000, FIVE_PERCENT)
    assert s.outcome is Outcome.LOSS
    assert s.foul is True
    assert (s.win, s.commission, s.returned, s.net) == (0, 0, 0, -1000)
    assert s.to_dict()["foul"] is True


def test_a_foul_must_be_reset_before_settlement_otherwise() -> None:
    player = setting("Kc Kd Qh Jd 8c / Ac Ad")
    with pytest.raises(ValueError):
        settle(player, DEALER, 1000, FIVE_PERCENT, foul_loses=False)


def test_wheel_setting_is_used_for_the_comparison() -> None:
    # A wheel against a six-high straight: wins when the wheel is second, loses when lowest.
    dealer = setting("6c 5d 4h 3s 2c / Kd Qd")
    player = setting("Ah 2d 3h 4c 5s / Ks Qh")  # low copies: at best a push
    assert settle(player, dealer, 1000, FIVE_PERCENT, Wheel.SECOND).high is W
    assert settle(player, dealer, 1000, FIVE_PERCENT, Wheel.LOWEST).high is L


# ---------------------------------------------------------------- commission


@pytest.mark.parametrize(
    ("rate", "win", "expected"),
    [
        ("0.05", 1019, 50),
        ("0.05", 19, 0),
        ("0.05", 20, 1),
        ("0.05", 39, 1),
        ("0.05", 40, 2),
        ("0.05", 1000, 50),
        ("0.05", 0, 0),
        ("0.05", 1, 0),
        ("0.04", 1000, 40),
        ("0.04", 24, 0),
        ("0.04", 25, 1),
        ("2.5%", 1000, 25),
        ("2.5%", 39, 0),
        ("2.5%", 40, 1),
        ("1/30", 100, 3),
        ("1/30", 89, 2),
        ("0", 100_000, 0),
    ],
)
def test_commission_is_rounded_down_to_the_cent(rate: str, win: int, expected: int) -> None:
    assert Commission(rate).on(win) == expected


def test_commission_rounding_through_settlement() -> None:
    player = setting(f"{PLAYER_HIGH[W]} / {PLAYER_LOW[W]}")
    for wager, commission in [(1019, 50), (19, 0), (500, 25), (999, 49)]:
        s = settle(player, DEALER, wager, FIVE_PERCENT)
        assert s.commission == commission
        assert s.returned == 2 * wager - commission


@pytest.mark.parametrize(("high", "low"), [(W, L), (W, C), (C, C), (L, L)])
def test_no_commission_on_push_or_loss(high: HandResult, low: HandResult) -> None:
    player = setting(f"{PLAYER_HIGH[high]} / {PLAYER_LOW[low]}")
    s = settle(player, DEALER, 100_000, FIVE_PERCENT)
    assert s.outcome is not Outcome.WIN
    assert s.commission == 0
    assert s.win == 0


@pytest.mark.parametrize(
    "rate",
    [
        "0.05",
        "5%",
        " 5 % ",
        "5.0%",
        Decimal("0.05"),
        Fraction(1, 20),
        Fraction(5, 100),
        "1/20",
        0.05,
    ],
)
def test_commission_accepts_five_percent_in_any_form(rate: object) -> None:
    c = Commission(rate)  # type: ignore[arg-type]
    assert c.rate == Fraction(1, 20)
    assert c == Commission()
    assert str(c) == "5%"
    assert c.on(1019) == 50


@pytest.mark.parametrize(
    "rate",
    [
        "0.051",
        "5.1%",
        "0.06",
        Decimal("0.0501"),
        Fraction(51, 1000),
        Fraction(1, 19),
        0.06,
        1,
        "-0.01",
        "-1%",
        Decimal("-0.05"),
        Fraction(-1, 100),
        -1,
    ],
)
def test_commission_refuses_above_five_percent_and_negative(rate: object) -> None:
    with pytest.raises(RulesetError):
        Commission(rate)  # type: ignore[arg-type]


@pytest.mark.parametrize("rate", ["abc", "", "5%%", "1/0", True])
def test_commission_refuses_nonsense(rate: object) -> None:
    with pytest.raises(RulesetError):
        Commission(rate)  # type: ignore[arg-type]


def test_commission_above_five_percent_message_names_the_limit() -> None:
    with pytest.raises(RulesetError, match="5%"):
        Commission("0.051")


@pytest.mark.parametrize("rate", ["0", "0.01", "0.025", "0.04", "0.05", "1/30", "1/40"])
def test_commission_string_round_trip(rate: str) -> None:
    c = Commission(rate)
    assert Commission(c.as_str()) == c
    assert Commission(c.as_str()).rate == c.rate


def test_commission_on_refuses_bad_money() -> None:
    with pytest.raises(ValueError):
        FIVE_PERCENT.on(-1)
    with pytest.raises(TypeError):
        FIVE_PERCENT.on(10.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("wager", [0, -100, 10.5, True, "100"])
def test_settle_refuses_bad_wagers(wager: object) -> None:
    player = setting(f"{PLAYER_HIGH[W]} / {PLAYER_LOW[W]}")
    with pytest.raises(ValueError):
        settle(player, DEALER, wager, FIVE_PERCENT)  # type: ignore[arg-type]


# ---------------------------------------------------------------- settlement creates no money


RATES = [Fraction(0), Fraction(1, 100), Fraction(1, 40), Fraction(1, 30), Fraction(1, 20)]


@settings(max_examples=1500, deadline=None)
@given(
    deck=st.permutations(FULL_DECK),
    which=st.integers(0, 20),
    use_house_way=st.booleans(),
    wager=st.integers(1, 10_000_000),
    rate=st.sampled_from(RATES),
    wheel=st.sampled_from(list(Wheel)),
)
def test_settlement_creates_no_money(
    deck: list[Card],
    which: int,
    use_house_way: bool,
    wager: int,
    rate: Fraction,
    wheel: Wheel,
) -> None:
    way = HouseWay.preset("standard")
    player_cards, dealer_cards = deck[:7], deck[7:14]
    player = (
        way.set_hand(player_cards, wheel).setting
        if use_house_way
        else all_settings(player_cards)[which]
    )
    dealer = way.set_hand(dealer_cards, wheel).setting
    s = settle(player, dealer, wager, Commission(rate), wheel)

    # results per hand, from the hands' values
    pv, dv = player.value(wheel), dealer.value(wheel)
    for result, mine, theirs in (
        (s.high, pv.high.key, dv.high.key),
        (s.low, pv.low.key, dv.low.key),
    ):
        assert result is (W if mine > theirs else L if mine < theirs else C)

    expected = Outcome.LOSS if player.is_foul else RULE_BOOK[s.high, s.low]
    assert s.outcome is expected
    assert s.foul is player.is_foul

    house_take = wager - s.returned
    assert 0 <= s.returned <= 2 * wager
    assert house_take == -s.net
    if s.outcome is Outcome.WIN:
        assert s.win == wager
        assert s.commission == (wager * rate.numerator) // rate.denominator
        assert 0 <= s.commission <= wager * Fraction(5, 100)
        assert s.returned - wager == s.win - s.commission
    elif s.outcome is Outcome.PUSH:
        assert (s.win, s.commission) == (0, 0)
        assert s.returned - wager == 0
    else:
        assert (s.win, s.commission) == (0, 0)
        assert s.returned - wager == -wager
        assert house_take == wager
