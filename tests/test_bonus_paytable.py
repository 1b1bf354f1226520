"""Pay tables as data (paigow.bonus.paytable): parsing pays, the presets, errors that name the
file and line, the JSON form a round's log records; settlement and Envy (paigow.bonus.settle)."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paigow.bonus import (
    BONUS_PRESETS,
    BonusCategory,
    BonusResult,
    Envy,
    Pay,
    PayKind,
    PayTable,
    PayTableError,
    Progressive,
    Target,
    bonus_hand,
    envy_due,
    held_for,
    settle_bonus,
)
from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.setting import Setting

B = BonusCategory
HEADER = 'name = "mine"\ntarget = "player"\n'


def table(text: str, origin: str = "mine.toml") -> PayTable:
    return PayTable.from_toml(text, origin)


# ----------------------------------------------------------------------------- pays
@pytest.mark.parametrize(
    ("text", "kind", "win_on_500"),
    [
        ("2 to 1", PayKind.ODDS, 1000),
        ("8000 to 1", PayKind.ODDS, 4_000_000),
        ("3 to 2", PayKind.ODDS, 750),
        ("  7 TO 5 ", PayKind.ODDS, 700),
        ("$500", PayKind.FIXED, 50_000),
        ("$1,000.50", PayKind.FIXED, 100_050),
        ("100% of meter", PayKind.METER, 1_234_567),
        ("10% of the meter", PayKind.METER, 123_456),
        ("7.5% of meter", PayKind.METER, 92_592),
    ],
)
def test_pays_parse_and_win(text: str, kind: PayKind, win_on_500: int) -> None:
    pay = Pay.parse(text)
    assert pay.kind is kind
    assert pay.win(500, meter=1_234_567) == win_on_500
    assert Pay.parse(pay.text) == pay


def test_odds_floor_to_the_cent() -> None:
    assert Pay.parse("3 to 2").win(101) == 151  # 151.5 floored
    assert Pay.parse("1 to 3").win(100) == 33
    assert isinstance(Pay.parse("3 to 2").value(101), Fraction)


@given(st.integers(1, 10**9), st.integers(1, 10_000), st.integers(1, 100))
def test_odds_win_is_the_floor_of_the_exact_amount(wager: int, n: int, m: int) -> None:
    assert Pay.parse(f"{n} to {m}").win(wager) == wager * n // m


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("four to one", "is not a pay"),
        ("-4 to 1", "negative"),
        ("0 to 1", "pays nothing"),
        ("4 to 0", "pays nothing"),
        ("$0", "pays nothing"),
        ("$1.005", "more than two decimal places"),
        ("150% of meter", "at most 100%"),
        ("0% of meter", "more than 0%"),
        ("4:1", "is not a pay"),
    ],
)
def test_bad_pays(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Pay.parse(text)


def test_a_meter_pay_needs_the_meter() -> None:
    with pytest.raises(PayTableError, match="needs the progressive meter"):
        Pay.parse("10% of meter").win(100)


# ----------------------------------------------------------------------------- presets
def test_every_preset_loads_round_trips_and_names_its_source() -> None:
    folder = resources.files("paigow.presets").joinpath("bonus")
    shipped = sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )
    assert shipped == sorted(BONUS_PRESETS)
    for name in BONUS_PRESETS:
        t = PayTable.load(name)
        assert t.name == name and t.title and len(t.source) > 40
        assert "http" not in t.source
        data = json.loads(json.dumps(t.to_dict()))
        assert PayTable.from_dict(data) == t
        assert PayTable.load(name.upper()) == t


def test_fortune_tables() -> None:
    a, b = PayTable.load("fortune-a"), PayTable.load("fortune-b")
    assert a.pays[B.SEVEN_CARD_STRAIGHT_FLUSH] == Pay.odds(8000)
    assert b.pays[B.SEVEN_CARD_STRAIGHT_FLUSH] == Pay.odds(5000)
    for t in (a, b):
        assert t.pays[B.STRAIGHT] == Pay.odds(2) and t.pays[B.THREE_OF_A_KIND] == Pay.odds(3)
        assert t.envy is not None and t.envy.minimum == 500
        assert t.envy.amounts[B.FOUR_OF_A_KIND] == 500
        assert min(t.envy.amounts, key=lambda c: t.envy.amounts[c]) is B.FOUR_OF_A_KIND  # type: ignore[union-attr]


def test_dealer_tables() -> None:
    assert PayTable.load("queens-dragon").target is Target.DEALER
    assert PayTable.load("queens-dragon").pays == {B.PAI_GOW_QUEEN: Pay.odds(50)}
    assert PayTable.load("tiger-9").target is Target.DEALER_LOW
    assert PayTable.load("tiger-9").pays == {B.LOW_NINE_HIGH: Pay.odds(30)}
    bonus = PayTable.load("dealer-bonus")
    assert bonus.target is Target.DEALER and bonus.pays[B.LOW_NINE_HIGH] == Pay.odds(5)


def test_progressive_preset() -> None:
    t = PayTable.load("fortune-progressive")
    assert t.progressive == Progressive(Fraction(15, 100), 1_000_000, 100)
    assert t.progressive.reset == t.progressive.seed
    assert t.win(B.SEVEN_CARD_STRAIGHT_FLUSH, 100, meter=2_500_037) == 2_500_037
    assert t.win(B.FIVE_ACES, 100, meter=2_500_037) == 250_003
    assert t.win(B.FOUR_OF_A_KIND, 100) == 7_500
    # Five aces also hold four of a kind: 10% of a $100,000 meter beats $75.
    held = bonus_hand(parse_cards("Jk As Ad Ac Ah Kd 2c")).held
    assert t.best(held, 100, meter=10_000_000) is B.FIVE_ACES


def test_unknown_preset() -> None:
    with pytest.raises(PayTableError, match=r"unknown pay table 'fortune-z'.*presets: fortune-a"):
        PayTable.load("fortune-z")


def test_load_a_file(tmp_path: Path) -> None:
    path = tmp_path / "house-special.toml"
    path.write_text('target = "player"\n[pays]\nflush = "5 to 1"\n', "utf-8")
    t = PayTable.load(str(path))
    assert t.name == "house-special" and t.title == "house-special" and t.source == ""
    with pytest.raises(PayTableError, match="cannot read pay table file"):
        PayTable.load(str(tmp_path / "missing.toml"))


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            HEADER + '[pays]\nflsh = "4 to 1"\n',
            r"mine\.toml, line 4: pays\.flsh: unknown category 'flsh'",
        ),
        (HEADER + '[pays]\nflush = "4 to one"\n', r"line 4: pays\.flush: '4 to one' is not a pay"),
        (HEADER + '[pays]\nflush = "-4 to 1"\n', r"line 4: pays\.flush: '-4 to 1' is negative"),
        (HEADER + "[pays]\nflush = 4\n", r"line 4: pays\.flush: 4 is not a pay"),
        (HEADER + 'colour = 1\n[pays]\nflush = "4 to 1"\n', r"line 3: unknown key 'colour'"),
        ('name = "x"\n[pays]\nflush = "4 to 1"\n', r"mine\.toml: missing target"),
        (HEADER.replace('"player"', '"croupier"'), r"line 2: unknown target 'croupier'"),
        (HEADER, r"mine\.toml: missing \[pays\]"),
        (HEADER + "[pays]\n", r"mine\.toml, line 3: a pay table pays at least one hand"),
        (
            HEADER + '[pays]\nflush = "4 to 1"\n[envy]\nminimum = "$5"\n',
            r"line 5: envy without amounts",
        ),
        (
            HEADER
            + '[pays]\nflush = "4 to 1"\n[envy]\nminimum = "$-5"\n[envy.amounts]\nflush = "$5"\n',
            r"line 6: envy\.minimum: '\$-5' is negative",
        ),
        (
            HEADER + '[pays]\nflush = "4 to 1"\n[envy.amounts]\nfour-of-a-kind = 25\n',
            r"line 6: envy\.amounts\.four-of-a-kind: 25 is not an amount",
        ),
        (
            HEADER + '[pays]\nflush = "4 to 1"\n[envy.amounts]\nfour-of-a-kind = "$0"\n',
            r"line 6: envy\.amounts\.four-of-a-kind: an amount must be more than zero",
        ),
        (
            HEADER + '[pays]\nflush = "4 to 1"\nroyal-flush = "10% of meter"\n',
            r"line 5: pays\.royal-flush: a meter pay needs a \[progressive\] section",
        ),
        (
            HEADER + '[pays]\nflush = "4 to 1"\n[progressive]\nshare = "15%"\n',
            r"line 5: progressive without a seed",
        ),
        (
            HEADER + '[pays]\nflush = "4 to 1"\n[progressive]\nshare = "0.15"\nseed = "$1"\n',
            r"line 6: progressive\.share: '0\.15' is not a percentage",
        ),
        (
            HEADER
            + '[pays]\nflush = "4 to 1"\n[progressive]\nshare = "15%"\nseed = "$1"\nextra = 1\n',
            r"line 8: unknown key progressive\.extra",
        ),
        (
            HEADER + '[pays]\nlow-nine-high = "30 to 1"\n',
            r"line 4: pays\.low-nine-high: a player pay table pays seven-card categories only",
        ),
        (
            'name = "x"\ntarget = "dealer-low"\n[pays]\nflush = "4 to 1"\n',
            r"line 4: pays\.flush: a dealer-low pay table pays the low hand's categories only",
        ),
        (
            'name = "x"\ntarget = "dealer"\n[pays]\nflush = "4 to 1"\n[envy.amounts]\nflush = "$5"\n',
            r"line 5: Envy is paid on players' hands only",
        ),
        ('name = "x\n', r"mine\.toml: not valid TOML: .*line 1"),
    ],
)
def test_bad_files_name_the_line(text: str, message: str) -> None:
    with pytest.raises(PayTableError, match=message):
        table(text)


def test_from_dict_errors_name_the_table() -> None:
    data = PayTable.load("fortune-a").to_dict()
    data["pays"]["flush"] = "four to one"
    with pytest.raises(PayTableError, match=r"pay table 'fortune-a': pays\.flush"):
        PayTable.from_dict(data)


def test_presets_are_valid_toml_with_only_known_keys() -> None:
    folder = resources.files("paigow.presets").joinpath("bonus")
    for name in BONUS_PRESETS:
        data = tomllib.loads(folder.joinpath(f"{name}.toml").read_text("utf-8"))
        assert data["name"] == name and "source" in data


# ----------------------------------------------------------------------------- paying
def test_best_is_the_better_paid_category() -> None:
    trips_and_straight = bonus_hand(parse_cards("9c 9d 9h Th Js Qd Kc")).held
    assert PayTable.load("fortune-a").best(trips_and_straight) is B.THREE_OF_A_KIND
    straight_pays_more = table(HEADER + '[pays]\nstraight = "5 to 1"\nthree-of-a-kind = "3 to 1"\n')
    assert straight_pays_more.best(trips_and_straight) is B.STRAIGHT
    equal = table(HEADER + '[pays]\nstraight = "3 to 1"\nthree-of-a-kind = "3 to 1"\n')
    assert equal.best(trips_and_straight) is B.THREE_OF_A_KIND  # ties: the declared order
    assert equal.best({B.FLUSH}) is None
    assert equal.win(B.FLUSH, 500) == 0


def test_settlement_of_every_fortune_category() -> None:
    t = PayTable.load("fortune-a")
    examples = {
        "As Ks Qs Js Ts 9s 8s": (B.SEVEN_CARD_STRAIGHT_FLUSH, 8000),
        "Jk Ks Qs Js Ts Kd Qd": (B.ROYAL_MATCH, 2000),
        "Jk 8h 7h 6h 5h 4h 3h": (B.WILD_SEVEN_CARD_STRAIGHT_FLUSH, 1000),
        "Jk As Ad Ac Ah Kd 2c": (B.FIVE_ACES, 400),
        "As Ks Qs Js Ts 2c 3d": (B.ROYAL_FLUSH, 150),
        "9d 8d 7d 6d 5d Ac Ah": (B.STRAIGHT_FLUSH, 50),
        "7s 7h 7d 7c Kd Kh 2c": (B.FOUR_OF_A_KIND, 25),
        "Ks Kh Kd Qc Qh 2s 3d": (B.FULL_HOUSE, 5),
        "Kh 2h 7h 9h Jh 3c 3s": (B.FLUSH, 4),
        "9c 9d 9h Th Js Qd Kc": (B.THREE_OF_A_KIND, 3),
        "Ah 2h 3s 4d 5c Kd Kc": (B.STRAIGHT, 2),
    }
    for cards, (category, odds) in examples.items():
        result = settle_bonus(t, 1000, bonus_hand(parse_cards(cards)).held)
        assert result == BonusResult(category, 1000, 1000 * odds, 1000 * (odds + 1)), cards
        assert result.won and result.house_net == -1000 * odds
    lost = settle_bonus(t, 1000, bonus_hand(parse_cards("Qs Qh 9c 7d 5s 3h 2c")).held)
    assert lost == BonusResult(None, 1000, 0, 0) and not lost.won and lost.house_net == 1000


def test_a_foul_still_wins_the_bonus() -> None:
    """The bonus is settled from the seven cards, whatever the setting (a foul included)."""
    cards = parse_cards("Ah 2h 3s 4d 5c 5d 9c")
    foul = Setting.from_low(cards, parse_cards("5c 5d"))  # a pair of fives over ace high
    assert foul.is_foul
    held = bonus_hand([*foul.high, *foul.low]).held
    assert settle_bonus(PayTable.load("fortune-a"), 500, held) == BonusResult(
        B.STRAIGHT, 500, 1000, 1500
    )


def test_bad_wagers() -> None:
    t = PayTable.load("fortune-a")
    for wager in (0, -5, True):
        with pytest.raises(ValueError, match="positive number of cents"):
            settle_bonus(t, wager, set())


def test_envy_with_several_qualifying_hands() -> None:
    t = PayTable.load("fortune-a")
    quads = bonus_hand(parse_cards("7s 7h 7d 7c Kd Kh 2c")).held
    aces = bonus_hand(parse_cards("Jk As Ad Ac Ah Kd 2c")).held
    flush = bonus_hand(parse_cards("Kh 2h 7h 9h Jh 3c 3s")).held
    # Five aces also hold four of a kind: paid once, at the five aces' amount.
    assert envy_due(t, 500, [quads, aces, flush, quads]) == 500 + 25_000 + 0 + 500
    assert envy_due(t, 499, [quads, aces]) == 0  # below the $5 minimum
    assert envy_due(t, 10_000, []) == 0
    assert envy_due(PayTable.load("emperors-challenge"), 500, [quads]) == 0  # no Envy there
    assert Envy(minimum=0, amounts={B.FLUSH: 100}).amount({B.FLUSH}) == 100


def test_dealer_bets_settle_on_the_dealer_cards_and_house_way() -> None:
    way = HouseWay.preset("standard")
    queen_high = parse_cards("Qs Jh 9c 8d 5s 3h 2c")
    low = way.set_hand(queen_hi := queen_high).setting.low
    dragon = PayTable.load("queens-dragon")
    held = held_for(dragon.target, queen_hi, low)
    assert settle_bonus(dragon, 500, held) == BonusResult(B.PAI_GOW_QUEEN, 500, 25_000, 25_500)
    # One pair, nine-high singles: the house way's low hand is 9-8.
    pair = parse_cards("Ks Kh 9c 8d 5s 3h 2c")
    low = way.set_hand(pair).setting.low
    assert sorted(c.rank for c in low) == [8, 9]
    tiger = PayTable.load("tiger-9")
    assert settle_bonus(tiger, 500, held_for(tiger.target, pair, low)).win == 15_000
    assert held_for(Target.DEALER_LOW, pair, low) == {B.LOW_NINE_HIGH}
    bonus = PayTable.load("dealer-bonus")
    assert settle_bonus(bonus, 500, held_for(bonus.target, pair, low)).category is B.LOW_NINE_HIGH
    with pytest.raises(ValueError, match="needs the dealer's low hand"):
        held_for(Target.DEALER, pair)
    with pytest.raises(ValueError, match="two of the dealer's seven cards"):
        held_for(Target.DEALER, pair, parse_cards("As Ad"))


def test_the_side_wagers_page_lists_every_preset_as_it_pays() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "side-wagers.md").read_text("utf-8")
    for name in BONUS_PRESETS:
        t = PayTable.load(name)
        section = text.split(f"\n### `{name}`\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
        rows = [
            [c.strip() for c in line.strip().strip("|").split("|")]
            for line in section.splitlines()
            if line.startswith("| `")
        ]
        assert {r[0].strip("`"): r[1] for r in rows} == {c.value: p.text for c, p in t.pays.items()}
        assert t.source in section.replace("\n", " ")
