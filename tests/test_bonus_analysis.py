"""The side-wager analysis: the bonus kernel's counts against the Python classifiers on every hand
of reduced decks, each return computed from counts against a brute-force sum over every hand,
Envy and the progressive's break-even meter against brute force, and the full deck's published
counts (exhaustive: needs the compiled house way)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from paigow.analysis import kernels as K
from paigow.analysis.bonus_counts import BonusCounts, deck_counts, held_of, low_category
from paigow.analysis.bonus_return import analyze, break_even_meter, decimal
from paigow.analysis.compiled import kernel_params
from paigow.analysis.kernels import bonus_hand as KB
from paigow.analysis.program import compile_way
from paigow.analysis.tables import rank_tables
from paigow.bonus import (
    BONUS_PRESETS,
    BonusCategory,
    PayTable,
    Target,
    bonus_hand,
    envy_due,
    held_for,
    low_hand_category,
    settle_bonus,
)
from paigow.cards import Card, parse_cards
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from tests.helpers.reference_bonus import reference_held

STANDARD = HouseWay.load("standard")
#: 19,448 hands: every made category (the natural and wild seven-card straight flushes, the
#: royal match, five aces ...), no pai gow.
HIGH = parse_cards("8s 9s Ts Js Qs Ks As 8h 9h Th Jh Qh Kh Ah Ac Ad Jk")
#: 50,388 hands: pai gow of every top card (the joker's ace high down to nine high).
LOW = parse_cards("2c 3c 4c 6c 7c 8c 9c 2d 3d 4d 6d 7d 8d 9d Td Jd Qd Kd Jk")
#: 1,716 hands the Python house way sets in about a second: low hands nine high and others.
SMALL = parse_cards("9s 9h 8s 7h 5s 4h 3s 2h Kd Qd Ad Jk 6c")

C = BonusCategory


def hands(deck: Sequence[Card]) -> list[tuple[Card, ...]]:
    return list(itertools.combinations(deck, 7))


@pytest.fixture(scope="module")
def held_by_hand() -> dict[str, list[frozenset[BonusCategory]]]:
    """Every hand's held set by the core's classifier, for HIGH and LOW."""
    return {
        "high": [bonus_hand(h).held for h in hands(HIGH)],
        "low": [bonus_hand(h).held for h in hands(LOW)],
    }


@pytest.fixture(scope="module")
def small_lows() -> list[tuple[Card, ...]]:
    """The low hand of every SMALL hand as the Python house way sets it."""
    return [STANDARD.set_hand(h).setting.low for h in hands(SMALL)]


# ------------------------------------------------------------------------------- the kernel
@pytest.mark.parametrize("name", ["high", "low"])
def test_kernel_signatures_equal_the_classifiers(
    name: str, held_by_hand: dict[str, list[frozenset[BonusCategory]]]
) -> None:
    deck = HIGH if name == "high" else LOW
    counts = deck_counts(deck, STANDARD)
    assert counts.hands == comb(len(deck), 7)
    assert dict(counts.signatures) == dict(Counter(held_by_hand[name]))
    # and the plain reference classifier agrees hand by hand with the kernel (every third hand
    # of LOW: the reference is slow)
    some = hands(deck)[:: 1 if name == "high" else 3]
    codes = KB.bonus_codes(np.array([[c.index for c in h] for h in some]))
    for h, code in zip(some, codes, strict=True):
        assert held_of(int(code)) == reference_held(h), h


def test_the_reduced_decks_hold_every_category() -> None:
    held = set()
    for deck in (HIGH, LOW):
        held |= set(deck_counts(deck, STANDARD).holding())
    assert held == {c for c in BonusCategory if not c.is_low}


def test_kernel_on_sampled_full_deck_hands() -> None:
    rng = np.random.default_rng(20)
    sample = np.array([rng.choice(53, 7, replace=False) for _ in range(20_000)])
    codes = KB.bonus_codes(sample)
    for row, code in zip(sample, codes, strict=True):
        cards = [Card(int(i)) for i in row]
        assert held_of(int(code)) == bonus_hand(cards).held, cards


def test_low_hands_equal_the_python_house_way(small_lows: list[tuple[Card, ...]]) -> None:
    counts = deck_counts(SMALL, STANDARD)
    assert counts.dealer_low == dict(Counter(low_hand_category(low) for low in small_lows))
    assert counts.dealer_low[C.LOW_NINE_HIGH] > 0
    dealer = Counter(
        held_for(Target.DEALER, h, low) for h, low in zip(hands(SMALL), small_lows, strict=True)
    )
    assert counts.dealer == dict(dealer)


def test_full_deck_slices_join_the_compiled_table() -> None:
    """``bonus_slice`` (what the full-deck count runs) on the first slices of a compiled table
    built for them: the hands of the 14 lowest cards, set by the Python house way."""
    tables = rank_tables(Wheel.SECOND)
    prog = kernel_params(STANDARD)
    size = comb(14, 7)
    table = np.zeros(3 * size, dtype=np.uint8)
    counts = np.zeros((KB.N_CODES, len(tables.two_keys)), dtype=np.int64)
    n = 0
    for top in range(6, 14):
        reach, stats = np.zeros(len(compile_way(STANDARD).outcomes), dtype=np.int64), np.full(5, -1)
        stats[[0, 2]] = 0
        K.build_slice(
            top, table, prog, False, tables.rank5, tables.rank2, K.BINOM, tables.five_keys,
            reach, stats,
        )  # fmt: skip
        assert stats[0] == stats[2] == 0  # every hand set, none into a foul
        n += KB.bonus_slice(top, table, counts)
    assert n == size
    got = BonusCounts.from_array(counts, tables.two_keys, "standard", "second")
    deck = [Card(i) for i in range(14)]
    assert dict(got.signatures) == dict(Counter(bonus_hand(h).held for h in hands(deck)))
    lows = Counter(low_hand_category(STANDARD.set_hand(h).setting.low) for h in hands(deck))
    assert got.dealer_low == dict(lows)


def test_codes_and_low_keys() -> None:
    assert held_of(0) == frozenset()
    assert held_of(KB.MADE) == {C.PAI_GOW_ACE}
    assert set().union(*(held_of(KB.MADE + i) for i in range(6))) == {
        c for c in BonusCategory if c.is_pai_gow
    }
    for a, b in itertools.combinations(parse_cards("Jk As Kd 9c 4h 3s 2d 2c"), 2):
        assert low_category(int(K.key2(a.index, b.index))) == low_hand_category((a, b))


# ------------------------------------------------------------------------------- returns
def brute_return(
    table: PayTable,
    helds: Sequence[frozenset[BonusCategory]],
    wager: int,
    meter: int | Fraction | None = None,
) -> Fraction:
    """The return per unit: the exact win of every hand's best-paid category, summed."""
    total = Fraction(0)
    for held in helds:
        best = table.best(held, wager, meter)  # type: ignore[arg-type]
        if best is None:
            total -= wager
        else:
            total += table.pays[best].value(wager, meter)  # type: ignore[arg-type]
    return total / (wager * len(helds))


def settled_return(
    table: PayTable, helds: Sequence[frozenset[BonusCategory]], wager: int, meter: int | None
) -> Fraction:
    """The same by settling every hand as the table does (floored to the cent)."""
    net = sum(settle_bonus(table, wager, held, meter).returned - wager for held in helds)
    return Fraction(net, wager * len(helds))


PROGRESSIVE = PayTable.from_toml(
    """name = "test-progressive"
target = "player"
[pays]
seven-card-straight-flush = "100% of meter"
royal-match = "10% of meter"
wild-seven-card-straight-flush = "$2000"
five-aces = "$500"
royal-flush = "$300"
straight-flush = "$75"
four-of-a-kind = "$50"
full-house = "$5"
[progressive]
share = "20%"
seed = "$10000"
wager = "$1"
""",
    "test-progressive.toml",
)
LOW_TABLE = PayTable.from_toml(
    'name = "nine-low"\ntarget = "dealer-low"\n[pays]\nlow-nine-high = "40 to 1"\n'
    'low-eight-high = "3 to 1"\n',
    "nine-low.toml",
)
DEALER_MIX = PayTable.from_toml(
    'name = "mix"\ntarget = "dealer"\n[pays]\nlow-nine-high = "5 to 1"\nlow-ace-high = "1 to 4"\n'
    'straight = "2 to 1"\nflush = "3 to 1"\npai-gow-king-high = "9 to 1"\n',
    "mix.toml",
)
PAI_GOW = PayTable.from_toml(
    'name = "pg"\ntarget = "dealer"\n[pays]\npai-gow-nine-high = "500 to 1"\n'
    'pai-gow-queen-high = "30 to 1"\npai-gow-ace-high = "1 to 2"\nthree-of-a-kind = "2 to 1"\n'
    'straight = "5 to 1"\n',
    "pg.toml",
)


def tables() -> list[PayTable]:
    return [PayTable.preset(n) for n in BONUS_PRESETS] + [
        PROGRESSIVE,
        LOW_TABLE,
        PAI_GOW,
        DEALER_MIX,
    ]


@pytest.mark.parametrize("table", tables(), ids=lambda t: t.name)
def test_returns_from_counts_equal_brute_force(
    table: PayTable,
    held_by_hand: dict[str, list[frozenset[BonusCategory]]],
    small_lows: list[tuple[Card, ...]],
) -> None:
    """Seven-card tables on HIGH and LOW; tables paying the dealer's low hand on SMALL, each
    hand settled on what :func:`held_for` gives from the Python house way's setting."""
    if any(c.is_low for c in table.pays):
        decks = {
            "small": [
                held_for(table.target, h, low)
                for h, low in zip(hands(SMALL), small_lows, strict=True)
            ]
        }
    else:
        decks = {"high": held_by_hand["high"], "low": held_by_hand["low"]}
    for name, helds in decks.items():
        deck = {"high": HIGH, "low": LOW, "small": SMALL}[name]
        counts = deck_counts(deck, STANDARD)
        for wager in (500,) if table.progressive is None else (100, 500):
            result = analyze(table, counts, wager)
            assert result.paid_return == brute_return(table, helds, wager, result.meter)
            assert result.paid_return == settled_return(table, helds, wager, result.meter)
            paid = Counter(table.best(h, wager, result.meter) for h in helds)
            assert {line.category: line.hands for line in result.lines if line.hands} == {
                c: n for c, n in paid.items() if c is not None
            }
            assert result.hands - result.paid_hands == paid[None]


def test_trips_and_straight_pay_the_better_paid(
    held_by_hand: dict[str, list[frozenset[BonusCategory]]],
) -> None:
    both = [h for h in held_by_hand["high"] if {C.THREE_OF_A_KIND, C.STRAIGHT} <= h]
    assert both  # the deck holds such hands, and PAI_GOW pays straights more than trips
    counts = deck_counts(HIGH, STANDARD)
    straights = next(line for line in analyze(PAI_GOW, counts).lines if line.category is C.STRAIGHT)
    assert straights.hands == sum(1 for h in held_by_hand["high"] if C.STRAIGHT in h)


def test_envy_per_other_player_equals_two_players_dealt() -> None:
    """Two players dealt from a 16-card deck, every ordered pair of disjoint hands: Envy for the
    first player's wager is the marginal expectation over the second player's hand."""
    table = PayTable.preset("fortune-a")
    assert table.envy is not None
    deck = (*HIGH[:15], HIGH[-1])  # 8-A of two suits, the ace of clubs and the joker
    held = {frozenset(h): bonus_hand(h).held for h in hands(deck)}
    total, pairs = 0, 0
    for first in held:
        rest = [c for c in deck if c not in first]
        for second in itertools.combinations(rest, 7):
            total += envy_due(table, 500, [held[frozenset(second)]])
            pairs += 1
    assert pairs == comb(16, 7) * comb(9, 7)
    result = analyze(table, deck_counts(deck, STANDARD), 500)
    assert result.envy_per_other == Fraction(total, pairs)
    assert result.envy_per_other > 0
    assert result.total_return(3) == result.paid_return + 2 * Fraction(total, pairs) / 500
    # below the Envy minimum nothing is due
    assert analyze(table, deck_counts(deck, STANDARD), 499).total_return(6) == (
        analyze(table, deck_counts(deck, STANDARD), 499).paid_return
    )
    with pytest.raises(ValueError, match="players"):
        result.total_return(7)


def test_progressive_return_at_a_meter_and_the_break_even(
    held_by_hand: dict[str, list[frozenset[BonusCategory]]],
) -> None:
    helds = held_by_hand["high"]
    counts = deck_counts(HIGH, STANDARD)
    for meter in (0, 1_000_000, 12_345_678):
        got = analyze(PROGRESSIVE, counts, 100, meter).paid_return
        assert got == brute_return(PROGRESSIVE, helds, 100, meter)
    # a meter table whose return is negative at an empty meter; a royal match pays the
    # better of 10% of the meter and the royal flush's $2 (the return's slope changes at $20)
    table = PayTable.from_toml(
        'name = "p"\ntarget = "player"\n[pays]\nseven-card-straight-flush = "100% of meter"\n'
        'royal-match = "10% of meter"\nroyal-flush = "$2"\n'
        '[progressive]\nshare = "10%"\nseed = "$10"\n'
    )
    assert analyze(table, counts, 100, 0).paid_return < 0
    even = analyze(table, counts, 100).break_even
    assert even is not None and even > 2_000
    assert brute_return(table, helds, 100, even) == 0
    assert brute_return(table, helds, 100, even - 1) < 0
    assert brute_return(table, helds, 100, even + 1) > 0
    assert analyze(table, counts, 100, int(even) + 1).paid_return > 0
    dist = dict(counts.signatures)
    assert break_even_meter(PayTable.preset("fortune-a"), dist, 100) is None


def test_decimal_rounds_exactly() -> None:
    assert decimal(Fraction(-77656, 10**6), 4) == "-0.0777"
    assert decimal(Fraction(1, 2000), 3) == "0.001"
    assert decimal(Fraction(-1, 10**9), 3) == "0.000"


# ------------------------------------------------------------------------------- full deck
@pytest.mark.exhaustive
def test_full_deck_counts_match_the_published_ones(compiled) -> None:  # type: ignore[no-untyped-def]
    from paigow.analysis.bonus_counts import open_counts

    counts = open_counts(STANDARD, Wheel.SECOND, compiled.path.parent, compiled=compiled)
    assert counts.hands == 154_143_080
    assert sum(counts.dealer_low.values()) == counts.hands
    holding = counts.holding()
    assert holding[C.SEVEN_CARD_STRAIGHT_FLUSH] == 32
    assert holding[C.ROYAL_MATCH] == 72
    assert holding[C.WILD_SEVEN_CARD_STRAIGHT_FLUSH] == 196
    assert holding[C.FIVE_ACES] == 1_128
    assert holding[C.ROYAL_FLUSH] == 26_132
    fortune = analyze(PayTable.preset("fortune-a"), counts)
    paid = {line.category: line.hands for line in fortune.lines}
    assert paid[C.ROYAL_FLUSH] == 26_020
    assert paid[C.STRAIGHT_FLUSH] == 184_644
    assert paid[C.FOUR_OF_A_KIND] == 307_472
    assert paid[C.FULL_HOUSE] == 4_188_528
    assert paid[C.FLUSH] == 6_172_088
    assert paid[C.THREE_OF_A_KIND] == 7_672_500
    assert paid[C.STRAIGHT] == 11_034_204
    assert decimal(fortune.paid_return, 4) == "-0.0777"
