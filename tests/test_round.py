"""The round as a state machine (docs/rulebook.md#a-round): wagers, shuffle, starting position,
the deal, setting, settlement, voids, the event log and replay."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable
from itertools import permutations, product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.commission import Commission
from paigow.errors import PaigowError, ReplayMismatch, RoundError
from paigow.events import (
    LOG_VERSION,
    DealerSet,
    Dealt,
    Event,
    HandSet,
    RoundSettled,
    RoundStarted,
    Shuffled,
    SpotSettled,
    Voided,
    WagerPlaced,
    event_from_dict,
)
from paigow.house_way import HouseWay
from paigow.narrator import narrate_log
from paigow.ranking import Wheel
from paigow.round import Phase, Round, fisher_yates, starting_position
from paigow.ruleset import FoulRule, Ruleset, StartMethod
from paigow.setting import all_settings
from paigow.settlement import settle

WAYS = {name: HouseWay.preset(name) for name in ("standard", "foxwoods")}
DICE = Ruleset()
RNG = Ruleset(start=StartMethod.RNG)


def new_round(ruleset: Ruleset = DICE, wagers: dict[int, int] | None = None) -> Round:
    r = Round(ruleset, WAYS[ruleset.house_way], round_id="test")
    for spot, amount in (wagers if wagers is not None else {1: 1000}).items():
        r.wager(spot, amount)
    return r


def deck_with(prefix: str) -> list[Card]:
    """A deck order that starts with ``prefix``, then the other cards in index order."""
    first = parse_cards(prefix)
    return [*first, *(c for c in FULL_DECK if c not in first)]


def dealt_round(
    ruleset: Ruleset = RNG,
    wagers: dict[int, int] | None = None,
    deck: list[Card] | None = None,
    number: int = 2,
) -> Round:
    """A round dealt from a known deck; with the RNG number 2 the first packet goes to spot 1."""
    r = new_round(ruleset, wagers)
    r.shuffle(deck=deck if deck is not None else list(FULL_DECK))
    if ruleset.start is StartMethod.RNG:
        r.choose_start(number=number)
    else:
        dice = next(
            d for d in product(range(1, 7), repeat=3) if starting_position(sum(d)) == number
        )
        r.choose_start(dice=dice)
    assert r.start is not None and r.start.position == number
    r.deal_packets()
    return r


def the(r: Round, kind: type[Any]) -> Any:
    found = [e for e in r.events if isinstance(e, kind)]
    assert len(found) == 1, f"expected one {kind.__name__}, got {len(found)}"
    return found[0]


# ---------------------------------------------------------------- chi-square


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (Numerical Recipes)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(-x + a * math.log(x) - gln)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom >= x)."""
    return _gamma_q(df / 2, x / 2)


def chi2(observed: list[int], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


P_MIN = 1e-6  # a correct (unseeded) generator fails one run in a million: no flaky CI


def test_chi2_helper_matches_tables() -> None:
    assert chi2_sf(22.458, 6) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(37.697, 15) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(49.728, 23) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, rel=1e-3)
    assert chi2_sf(2704, 2704) == pytest.approx(0.4949, abs=2e-3)


# ---------------------------------------------------------------- 1. wagers


def test_wagers_within_limits_are_recorded() -> None:
    r = new_round(Ruleset(min_wager=500, max_wager=100_000), {})
    r.wager(1, 500)
    r.wager(6, 100_000)
    r.wager(3, 12_345)
    assert r.wagers == {1: 500, 6: 100_000, 3: 12_345}
    assert [(e.spot, e.amount) for e in r.events if e.type == "wager-placed"] == [
        (1, 500),
        (6, 100_000),
        (3, 12_345),
    ]


@pytest.mark.parametrize("amount", [499, 1, 0, -500, 100_001, 10**9])
def test_wager_outside_the_limits_is_refused(amount: int) -> None:
    r = new_round(Ruleset(min_wager=500, max_wager=100_000), {})
    with pytest.raises(RoundError, match="limits"):
        r.wager(1, amount)
    assert r.wagers == {}
    assert [e.type for e in r.events] == ["round-started"]


@pytest.mark.parametrize("amount", [1000.0, 1000.5, "1000", True, None])
def test_wager_must_be_whole_minor_units(amount: object) -> None:
    r = new_round(wagers={})
    with pytest.raises(RoundError, match="whole number"):
        r.wager(1, amount)  # type: ignore[arg-type]


@pytest.mark.parametrize("spot", [0, 7, -1, 8, "1", True, 1.0])
def test_wager_on_a_spot_that_does_not_exist(spot: object) -> None:
    r = new_round(wagers={})
    with pytest.raises(RoundError, match="spot"):
        r.wager(spot, 1000)  # type: ignore[arg-type]


def test_a_spot_wagers_once() -> None:
    r = new_round(wagers={2: 1000})
    with pytest.raises(RoundError, match="already"):
        r.wager(2, 1000)
    assert r.wagers == {2: 1000}


# ---------------------------------------------------------------- out of order


def _settled() -> Round:
    r = dealt_round()
    r.set_house_way(1)
    r.finish()
    return r


OUT_OF_ORDER: list[tuple[str, Callable[[], Round], Callable[[Round], None], str]] = [
    ("shuffle without wagers", lambda: new_round(wagers={}), lambda r: r.shuffle(), "no wagers"),
    ("start before shuffle", new_round, lambda r: r.choose_start(), "'betting'"),
    ("deal before shuffle", new_round, lambda r: r.deal_packets(), "'betting'"),
    ("set before deal", new_round, lambda r: r.set_house_way(1), "'betting'"),
    ("time out before deal", new_round, lambda r: r.time_out(1), "'betting'"),
    ("dealer before deal", new_round, lambda r: r.set_dealer(), "'betting'"),
    ("settle before deal", new_round, lambda r: r.settle(), "'betting'"),
    (
        "deal before start",
        lambda: _shuffled(),
        lambda r: r.deal_packets(),
        "'shuffled'",
    ),
    ("wager after shuffle", lambda: _shuffled(), lambda r: r.wager(2, 1000), "'shuffled'"),
    ("shuffle twice", lambda: _shuffled(), lambda r: r.shuffle(), "'shuffled'"),
    ("dealer before players", lambda: dealt_round(), lambda r: r.set_dealer(), "not set"),
    ("settle before dealer", lambda: dealt_round(), lambda r: r.settle(), "'setting'"),
    ("wager after deal", lambda: dealt_round(), lambda r: r.wager(3, 1000), "'setting'"),
    ("spot without a hand", lambda: dealt_round(), lambda r: r.set_house_way(2), "no hand"),
    ("set twice", lambda: _set_once(), lambda r: r.set_house_way(1), "already"),
    ("time out after setting", lambda: _set_once(), lambda r: r.time_out(1), "already"),
    ("settle twice", _settled, lambda r: r.settle(), "'settled'"),
    ("wager after settlement", _settled, lambda r: r.wager(1, 1000), "'settled'"),
    ("void after settlement", _settled, lambda r: r.void("late"), "'settled'"),
    ("returned before the end", lambda: dealt_round(), lambda r: r.returned(), "not over"),
]


def _shuffled() -> Round:
    r = new_round()
    r.shuffle(random.Random(1))
    return r


def _set_once() -> Round:
    r = dealt_round()
    r.set_house_way(1)
    return r


@pytest.mark.parametrize(
    ("make", "action", "message"),
    [case[1:] for case in OUT_OF_ORDER],
    ids=[case[0] for case in OUT_OF_ORDER],
)
def test_out_of_order_calls_raise_round_error(
    make: Callable[[], Round], action: Callable[[Round], None], message: str
) -> None:
    r = make()
    before = list(r.events)
    phase = r.phase
    with pytest.raises(RoundError, match=message):
        action(r)
    assert r.events == before  # nothing recorded
    assert r.phase is phase


def test_setting_must_use_the_dealt_cards() -> None:
    r = dealt_round()
    other = all_settings(parse_cards("As Ks Qs Js 9d 8d 7d"))[0]
    with pytest.raises(RoundError, match="seven cards"):
        r.set_hand(1, other)


# ---------------------------------------------------------------- 4. starting position

EXPECTED_START = {
    3: 3,
    4: 4,
    5: 5,
    6: 6,
    7: 7,
    8: 1,
    9: 2,
    10: 3,
    11: 4,
    12: 5,
    13: 6,
    14: 7,
    15: 1,
    16: 2,
    17: 3,
    18: 4,
}


def test_starting_position_formula() -> None:
    for total in range(1, 19):
        assert starting_position(total) == (total - 1) % 7 + 1
    assert {t: starting_position(t) for t in range(3, 19)} == EXPECTED_START
    assert [starting_position(t) for t in (1, 8, 15)] == [1, 1, 1]  # the dealer
    assert starting_position(14) == 7  # spot 6


@pytest.mark.parametrize("total", range(3, 19))
def test_dice_total_gives_the_starting_position(total: int) -> None:
    combos = [d for d in product(range(1, 7), repeat=3) if sum(d) == total]
    for dice in (combos[0], combos[-1]):
        r = new_round()
        r.shuffle(deck=list(FULL_DECK))
        r.choose_start(dice=dice)
        e = r.start
        assert e is not None
        assert (e.method, e.dice, e.number, e.position) == (
            "dice",
            dice,
            total,
            EXPECTED_START[total],
        )
        assert r.phase is Phase.STARTING


@pytest.mark.parametrize("number", range(1, 8))
def test_rng_number_is_the_starting_position(number: int) -> None:
    r = new_round(RNG)
    r.shuffle(deck=list(FULL_DECK))
    r.choose_start(number=number)
    e = r.start
    assert e is not None
    assert (e.method, e.dice, e.number, e.position) == ("rng", None, number, number)


@pytest.mark.parametrize(
    ("ruleset", "kwargs"),
    [
        (DICE, {"dice": (0, 3, 3)}),
        (DICE, {"dice": (7, 1, 1)}),
        (DICE, {"dice": (3, 3)}),
        (DICE, {"dice": (1, 2, 3, 4)}),
        (DICE, {"number": 3}),
        (RNG, {"number": 0}),
        (RNG, {"number": 8}),
        (RNG, {"dice": (1, 2, 3)}),
    ],
)
def test_bad_start_inputs_are_refused(ruleset: Ruleset, kwargs: dict[str, Any]) -> None:
    r = new_round(ruleset)
    r.shuffle(deck=list(FULL_DECK))
    with pytest.raises(RoundError):
        r.choose_start(**kwargs)
    assert r.phase is Phase.SHUFFLED


def test_rng_start_is_uniform_over_1_to_7() -> None:
    n = 7000
    counts: Counter[int] = Counter()
    for _ in range(n):
        r = new_round(RNG)
        r.shuffle(deck=list(FULL_DECK))
        r.choose_start()  # the default generator: the operating system's CSPRNG
        e = r.start
        assert e is not None and e.method == "rng" and e.position == e.number
        counts[e.number] += 1
    assert set(counts) == set(range(1, 8))
    stat = chi2([counts[k] for k in range(1, 8)], [n / 7] * 7)
    assert chi2_sf(stat, 6) > P_MIN, f"chi-square {stat:.1f} for {sorted(counts.items())}"


def test_rng_start_with_an_explicit_system_random() -> None:
    n = 3500
    counts: Counter[int] = Counter()
    generator = random.SystemRandom()
    for _ in range(n):
        r = new_round(RNG)
        r.shuffle(deck=list(FULL_DECK))
        r.choose_start(generator)
        assert r.start is not None
        counts[r.start.number] += 1
    stat = chi2([counts[k] for k in range(1, 8)], [n / 7] * 7)
    assert chi2_sf(stat, 6) > P_MIN, f"chi-square {stat:.1f} for {sorted(counts.items())}"


def test_dice_follow_the_three_dice_distribution() -> None:
    n = 21_600
    ways = Counter(sum(d) for d in product(range(1, 7), repeat=3))
    totals: Counter[int] = Counter()
    faces: Counter[int] = Counter()
    for _ in range(n):
        r = new_round(DICE)
        r.shuffle(deck=list(FULL_DECK))
        r.choose_start()  # the default generator: the operating system's CSPRNG
        e = r.start
        assert e is not None and e.dice is not None
        assert len(e.dice) == 3 and e.number == sum(e.dice)
        assert e.position == (e.number - 1) % 7 + 1
        totals[e.number] += 1
        faces.update(e.dice)
    assert set(totals) <= set(range(3, 19))
    stat = chi2([totals[t] for t in range(3, 19)], [n * ways[t] / 216 for t in range(3, 19)])
    assert chi2_sf(stat, 15) > P_MIN, f"totals chi-square {stat:.1f}: {sorted(totals.items())}"
    assert set(faces) == set(range(1, 7))
    stat = chi2([faces[f] for f in range(1, 7)], [3 * n / 6] * 6)
    assert chi2_sf(stat, 5) > P_MIN, f"faces chi-square {stat:.1f}: {sorted(faces.items())}"


# ---------------------------------------------------------------- 2. the shuffle


def test_default_shuffle_is_the_csprng_and_a_permutation() -> None:
    r = new_round()
    r.shuffle()
    e = the(r, Shuffled)
    assert e.source == "csprng"
    assert r.deck is not None
    assert sorted(r.deck) == sorted(FULL_DECK)
    assert tuple(c.code for c in r.deck) == e.deck


def test_seeded_shuffle_is_fisher_yates_and_marked_seeded() -> None:
    for seed in range(20):
        r = new_round()
        r.shuffle(random.Random(seed))
        assert r.deck == fisher_yates(FULL_DECK, random.Random(seed))
        assert the(r, Shuffled).source == "seeded"


def test_fisher_yates_puts_each_card_at_each_position_uniformly() -> None:
    n = 10_600  # 200 expected in each of the 53 x 53 cells
    rng = random.Random(20_240_601)
    counts = [[0] * 53 for _ in range(53)]
    for _ in range(n):
        for position, card in enumerate(fisher_yates(FULL_DECK, rng)):
            counts[card.index][position] += 1
    expected = n / 53
    stat = sum((o - expected) ** 2 / expected for row in counts for o in row)
    df = 52 * 52  # rows and columns each sum to n
    assert chi2_sf(stat, df) > P_MIN, f"chi-square {stat:.0f} with {df} degrees of freedom"
    for card in (0, 26, 51, 52):  # first, middle, last card, the joker
        row = chi2(counts[card], [expected] * 53)
        assert chi2_sf(row, 52) > P_MIN / 100, f"card {card}: chi-square {row:.1f}"


def test_fisher_yates_gives_every_permutation_equally() -> None:
    cards = FULL_DECK[:4]
    n = 24_000
    rng = random.Random(7)
    counts = Counter(fisher_yates(cards, rng) for _ in range(n))
    assert set(counts) == set(permutations(cards))
    stat = chi2([counts[p] for p in permutations(cards)], [n / 24] * 24)
    assert chi2_sf(stat, 23) > P_MIN, f"chi-square {stat:.1f}"


def test_supplied_deck_in_any_notation() -> None:
    codes = [c.code.lower() for c in reversed(FULL_DECK)]
    r = new_round()
    r.shuffle(deck=codes)
    assert r.phase is Phase.SHUFFLED
    assert r.deck == tuple(reversed(FULL_DECK))
    assert the(r, Shuffled).source == "supplied"


# ---------------------------------------------------------------- 6. irregular decks

IRREGULAR_DECKS: dict[str, list[Any]] = {
    "52 cards": list(FULL_DECK[:52]),
    "54 cards": [*FULL_DECK, FULL_DECK[0]],
    "a repeated card": [*FULL_DECK[:52], FULL_DECK[0]],
    "two jokers": [*FULL_DECK[1:], FULL_DECK[52]],
    "a bad token": ["Xx", *(c.code for c in FULL_DECK[1:])],
    "no cards": [],
}


@pytest.mark.parametrize("deck", list(IRREGULAR_DECKS.values()), ids=list(IRREGULAR_DECKS))
def test_irregular_deck_voids_the_round_and_returns_every_wager(deck: list[Any]) -> None:
    wagers = {1: 1000, 4: 2500, 6: 100_000}
    r = new_round(wagers=wagers)
    r.shuffle(deck=deck)
    assert r.phase is Phase.VOIDED
    assert r.is_over
    voided = the(r, Voided)
    assert voided.reason == "irregular deck"  # a fact: what is wrong is in the recorded deck
    assert dict(voided.returned) == wagers
    assert r.returned() == wagers
    assert r.events[-1] == voided
    with pytest.raises(RoundError):
        r.choose_start()
    with pytest.raises(RoundError):
        r.deal_packets()
    replayed = Round.replay(json.loads(json.dumps(r.log())))
    assert replayed.events == r.events
    assert replayed.returned() == wagers


def test_void_by_the_dealer_returns_every_wager() -> None:
    r = dealt_round(wagers={2: 700, 3: 900})
    r.set_house_way(2)
    r.void("a card was exposed")
    assert r.returned() == {2: 700, 3: 900}
    assert the(r, Voided).reason == "a card was exposed"
    with pytest.raises(RoundError):
        dealt_round().void("")


# ---------------------------------------------------------------- 5. the deal


@pytest.mark.parametrize("start", range(1, 8))
def test_packets_from_the_starting_position_counterclockwise(start: int) -> None:
    wagers = dict.fromkeys(range(1, 7), 1000)
    r = dealt_round(RNG, wagers, number=start)
    dealt = the(r, Dealt)
    order = [(start - 1 + k) % 7 + 1 for k in range(7)]
    assert order[0] == start
    assert dealt.order == tuple(order)
    by_position = {p.position: p for p in dealt.packets}
    assert sorted(by_position) == list(range(1, 8))
    for k, position in enumerate(order):
        cards = FULL_DECK[7 * k : 7 * k + 7]
        packet = by_position[position]
        assert packet.cards == tuple(c.code for c in cards)
        assert packet.spot == (None if position == 1 else position - 1)
        if position == 1:
            assert r.dealer_cards == cards
        else:
            assert r.hands[position - 1] == cards
    assert dealt.discarded == ()
    assert dealt.leftover == tuple(c.code for c in FULL_DECK[49:])


@pytest.mark.parametrize("total", [3, 8, 14, 15, 18])
def test_dice_start_deals_the_first_packet_there(total: int) -> None:
    dice = next(d for d in product(range(1, 7), repeat=3) if sum(d) == total)
    r = new_round(DICE, dict.fromkeys(range(1, 7), 1000))
    r.shuffle(deck=list(FULL_DECK))
    r.choose_start(dice=dice)
    r.deal_packets()
    first = EXPECTED_START[total]
    packet = next(p for p in the(r, Dealt).packets if p.position == first)
    assert packet.cards == tuple(c.code for c in FULL_DECK[:7])


@pytest.mark.parametrize("number", range(1, 8))
def test_dealt_round_helper_with_dice(number: int) -> None:
    r = dealt_round(DICE, dict.fromkeys(range(1, 7), 1000), number=number)
    first = next(p for p in the(r, Dealt).packets if p.position == number)
    assert first.cards == tuple(c.code for c in FULL_DECK[:7])


def test_packets_on_spots_without_a_wager_are_discarded() -> None:
    r = dealt_round(RNG, {2: 1000, 5: 1000}, number=4)
    dealt = the(r, Dealt)
    assert {p.position for p in dealt.packets} == {1, 3, 6}  # the dealer, spots 2 and 5
    assert {p.position for p in dealt.discarded} == {2, 4, 5, 7}  # spots 1, 3, 4, 6
    assert sorted(r.hands) == [2, 5]
    assert r.spots_to_set() == [2, 5]
    # the deal still counts every position: 4, 5, 6, 7, 1, 2, 3
    packets = {p.position: p.cards for p in (*dealt.packets, *dealt.discarded)}
    for k, position in enumerate([4, 5, 6, 7, 1, 2, 3]):
        assert packets[position] == tuple(c.code for c in FULL_DECK[7 * k : 7 * k + 7])


@st.composite
def deal_plans(draw: st.DrawFn) -> tuple[int, set[int], Ruleset]:
    seed = draw(st.integers(0, 2**32 - 1))
    spots = draw(st.sets(st.integers(1, 6), min_size=1))
    start = draw(st.sampled_from(list(StartMethod)))
    return seed, spots, Ruleset(start=start)


@settings(max_examples=200, deadline=None)
@given(deal_plans())
def test_every_card_is_dealt_once(plan: tuple[int, set[int], Ruleset]) -> None:
    seed, spots, ruleset = plan
    r = new_round(ruleset, dict.fromkeys(spots, 1000))
    r.deal(random.Random(seed))
    assert r.deck is not None
    dealt = the(r, Dealt)
    shuffled = the(r, Shuffled)  # the whole deck order is recorded
    assert shuffled.deck == tuple(c.code for c in r.deck)
    seen = [code for p in (*dealt.packets, *dealt.discarded) for code in p.cards]
    seen += list(dealt.leftover)
    assert len(seen) == 53
    assert Counter(seen) == Counter(c.code for c in FULL_DECK)
    assert dealt.leftover == tuple(c.code for c in r.deck[49:])
    assert all(len(p.cards) == 7 for p in (*dealt.packets, *dealt.discarded))
    assert {p.spot for p in dealt.packets} == {None, *spots}
    assert {p.spot for p in dealt.discarded} == set(range(1, 7)) - spots
    hands = [c for spot in spots for c in r.hands[spot]]
    assert r.dealer_cards is not None
    assert len(set(hands) | set(r.dealer_cards)) == 7 * (len(spots) + 1)
    for p in dealt.packets:
        cards = r.dealer_cards if p.spot is None else r.hands[p.spot]
        assert p.cards == tuple(c.code for c in cards)
    assert r.start is not None
    assert dealt.order == tuple((r.start.position - 1 + k) % 7 + 1 for k in range(7))
    for k, position in enumerate(dealt.order):
        packet = next(p for p in (*dealt.packets, *dealt.discarded) if p.position == position)
        assert packet.cards == tuple(c.code for c in r.deck[7 * k : 7 * k + 7])


# ---------------------------------------------------------------- 6-7. setting

SPOT1_DECK = deck_with("Ah Kd 9c 7s 4d 3c 2h")  # no pair, no straight, no flush
FOUL = ("9c 7s 4d 3c 2h", "Ah Kd")


def test_time_out_sets_by_the_house_way() -> None:
    r = dealt_round(wagers={1: 1000}, deck=SPOT1_DECK)
    r.time_out(1)
    hw = WAYS["standard"].set_hand(r.hands[1])
    assert r.settings[1].same_hands(hw.setting)
    e = the(r, HandSet)
    assert (e.spot, e.by, e.reason, e.rule, e.foul) == (1, "house-way", "timeout", hw.rule, False)
    assert hw.rule == "pai-gow"
    assert set(e.low) == {"Kd", "9c"}


def test_a_player_who_left_is_set_by_the_house_way_and_replays() -> None:
    r = dealt_round(wagers={1: 1000}, deck=SPOT1_DECK)
    r.left(1)
    hw = WAYS["standard"].set_hand(r.hands[1])
    assert r.settings[1].same_hands(hw.setting)
    e = the(r, HandSet)
    assert (e.spot, e.by, e.reason, e.rule) == (1, "house-way", "left", hw.rule)
    r.finish()
    again = Round.replay(r.log())
    assert again.events == r.events


def test_a_foul_under_indiana_is_accepted_and_loses() -> None:
    r = dealt_round(wagers={1: 1000}, deck=SPOT1_DECK)
    r.set_low(1, FOUL[1].split())
    e = the(r, HandSet)
    assert (e.by, e.foul, e.reason) == ("player", True, None)
    assert set(e.high) == set(FOUL[0].split())
    assert r.settings[1].is_foul
    r.finish()
    s = the(r, SpotSettled)
    assert (s.outcome, s.foul, s.win, s.commission, s.returned) == ("loss", True, 0, 0, 0)
    assert r.returned() == {1: 0}


def test_a_foul_under_reset_is_replaced_by_the_house_way() -> None:
    ruleset = Ruleset(start=StartMethod.RNG, foul=FoulRule.RESET)
    r = dealt_round(ruleset, {1: 1000}, deck=SPOT1_DECK)
    r.set_low(1, FOUL[1].split())
    hw = WAYS["standard"].set_hand(r.hands[1])
    assert r.settings[1].same_hands(hw.setting)
    assert not r.settings[1].is_foul
    e = the(r, HandSet)
    assert (e.by, e.reason, e.rule, e.foul) == ("house-way", "foul-reset", hw.rule, False)
    assert e.submitted is not None
    assert set(e.submitted[0]) == set(FOUL[0].split())
    assert set(e.submitted[1]) == set(FOUL[1].split())
    r.finish()
    assert the(r, SpotSettled).foul is False
    assert Round.replay(json.loads(json.dumps(r.log()))).events == r.events


def test_a_legal_setting_under_reset_is_kept() -> None:
    ruleset = Ruleset(start=StartMethod.RNG, foul=FoulRule.RESET)
    r = dealt_round(ruleset, {1: 1000}, deck=SPOT1_DECK)
    r.set_low(1, ["9c", "7s"])  # legal, though not the house way
    e = the(r, HandSet)
    assert (e.by, e.reason, e.foul) == ("player", None, False)
    assert set(r.settings[1].low) == set(parse_cards("9c 7s"))


def test_the_dealer_sets_by_the_house_way_after_every_player() -> None:
    r = dealt_round(wagers={1: 1000, 3: 1000})
    r.set_house_way(3)
    with pytest.raises(RoundError, match=r"\[1\]"):
        r.set_dealer()
    r.time_out(1)
    r.set_dealer()
    assert r.phase is Phase.DEALER
    assert r.dealer_cards is not None and r.dealer_setting is not None
    hw = WAYS["standard"].set_hand(r.dealer_cards)
    assert r.dealer_setting.same_hands(hw.setting)
    e = the(r, DealerSet)
    assert e.rule == hw.rule
    assert set(e.to_dict()) == {"type", "high", "low", "rule"}  # facts only: no hand names
    types = [ev.type for ev in r.events]
    assert types.index("dealer-set") > max(i for i, t in enumerate(types) if t == "hand-set")


# ---------------------------------------------------------------- 8. settlement


def test_settlement_is_spot_by_spot_from_spot_1() -> None:
    wagers = {6: 1000, 2: 2000, 4: 3000, 1: 4000}
    r = new_round(RNG, wagers)
    r.deal(random.Random(5))
    for spot in reversed(r.spots_to_set()):  # players may set in any order
        r.set_house_way(spot)
    r.finish()
    settled = [e for e in r.events if isinstance(e, SpotSettled)]
    assert [e.spot for e in settled] == [1, 2, 4, 6]
    assert r.events[-1] == the(r, RoundSettled)
    assert r.events[-1 - len(settled) : -1] == settled


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sets(st.integers(1, 6), min_size=1))
def test_settlement_matches_settle_and_totals(seed: int, spots: set[int]) -> None:
    rng = random.Random(seed)
    wagers = {s: rng.randrange(500, 100_001) for s in spots}
    r = new_round(DICE, wagers)
    r.deal(rng)
    for spot in r.spots_to_set():
        r.set_hand(spot, rng.choice(all_settings(r.hands[spot])))
    r.finish()
    assert r.dealer_setting is not None
    for spot, e in r.results.items():
        s = settle(r.settings[spot], r.dealer_setting, wagers[spot], Commission("0.05"))
        assert (e.outcome, e.high, e.low) == (s.outcome.value, s.high.value, s.low.value)
        assert (e.wager, e.win, e.commission, e.returned, e.foul) == (
            s.wager,
            s.win,
            s.commission,
            s.returned,
            s.foul,
        )
    total = the(r, RoundSettled)
    assert total.wagered == sum(wagers.values())
    assert total.returned == sum(e.returned for e in r.results.values())
    assert total.commission == sum(e.commission for e in r.results.values())
    assert r.returned() == {s: e.returned for s, e in r.results.items()}


# ---------------------------------------------------------------- 9. the log and replay


@st.composite
def round_plans(draw: st.DrawFn) -> dict[str, Any]:
    ruleset = Ruleset(
        commission=Commission(draw(st.sampled_from(["0.05", "0.04", "0", "1/30"]))),
        wheel=draw(st.sampled_from(list(Wheel))),
        foul=draw(st.sampled_from(list(FoulRule))),
        start=draw(st.sampled_from(list(StartMethod))),
        house_way=draw(st.sampled_from(sorted(WAYS))),
        min_wager=100,
        max_wager=50_000,
    )
    spots = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True))
    return {
        "seed": draw(st.integers(0, 2**32 - 1)),
        "ruleset": ruleset,
        "wagers": {s: draw(st.integers(100, 50_000)) for s in spots},
        "actions": {
            s: (draw(st.sampled_from(["house", "timeout", "choose"])), draw(st.integers(0, 20)))
            for s in spots
        },
        "stop": draw(
            st.sampled_from(["settled", "settled", "settled", "setting", "dealer", "void"])
        ),
    }


def play(plan: dict[str, Any]) -> Round:
    r = Round(plan["ruleset"], round_id=f"r{plan['seed']}")
    for spot, amount in plan["wagers"].items():
        r.wager(spot, amount)
    rng = random.Random(plan["seed"])
    r.deal(rng)
    spots = r.spots_to_set()
    for i, spot in enumerate(spots):
        if plan["stop"] == "setting" and i == len(spots) - 1:
            return r
        kind, which = plan["actions"][spot]
        if kind == "house":
            r.set_house_way(spot)
        elif kind == "timeout":
            r.time_out(spot)
        else:
            r.set_hand(spot, all_settings(r.hands[spot])[which])
    if plan["stop"] == "void":
        r.void("table closed")
        return r
    r.set_dealer()
    if plan["stop"] == "dealer":
        return r
    r.settle()
    return r


@settings(max_examples=150, deadline=None)
@given(round_plans())
def test_replay_reproduces_the_events(plan: dict[str, Any]) -> None:
    r = play(plan)
    for log in (r.events, r.log(), json.loads(json.dumps(r.log()))):
        again = Round.replay(log)
        assert again.events == r.events
        assert again.log() == r.log()
        assert again.phase is r.phase
        assert again.wagers == r.wagers
        if r.is_over:
            assert again.returned() == r.returned()


def test_log_is_json_with_sequence_numbers() -> None:
    r = _settled()
    log = r.log()
    assert [e["seq"] for e in log] == list(range(len(r.events)))
    assert [e["type"] for e in log] == [e.type for e in r.events]
    assert json.loads(json.dumps(log)) == log
    assert log[0]["type"] == "round-started"
    assert log[0]["ruleset"] == RNG.to_dict()
    assert log[0]["house_way"] == WAYS["standard"].to_dict()


def _finished_round() -> Round:
    r = new_round(RNG, {1: 1000, 3: 2000, 5: 3000})
    r.deal(random.Random(11))
    r.set_house_way(1)
    r.time_out(3)
    r.set_hand(5, all_settings(r.hands[5])[0])
    r.finish()
    return r


def _edit(kind: str, change: Callable[[dict[str, Any]], None]) -> Callable[[list[Any]], None]:
    def apply(log: list[Any]) -> None:
        change(next(e for e in log if e["type"] == kind))

    return apply


def _swap_deck(e: dict[str, Any]) -> None:
    e["deck"][0], e["deck"][1] = e["deck"][1], e["deck"][0]


def _repeat_card(e: dict[str, Any]) -> None:
    e["deck"][0] = e["deck"][1]


def _timeout(log: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(
        e for e in log if e["type"] == "hand-set" and e["reason"] == "timeout"
    )
    return found


def _other_rule(e: dict[str, Any]) -> None:
    e["rule"] = "one-pair" if e["rule"] != "one-pair" else "pai-gow"


TAMPERING: dict[str, Callable[[list[Any]], None]] = {
    "dealer rule": _edit("dealer-set", _other_rule),
    "dealer high hand": _edit("dealer-set", lambda e: e["high"].reverse()),
    "returned amount": _edit("spot-settled", lambda e: e.update(returned=e["returned"] + 1)),
    "outcome": _edit(
        "spot-settled", lambda e: e.update(outcome="win" if e["outcome"] != "win" else "push")
    ),
    "commission": _edit("spot-settled", lambda e: e.update(commission=e["commission"] + 1)),
    "round total": _edit("round-settled", lambda e: e.update(returned=e["returned"] - 1)),
    "deck order": _edit("shuffled", _swap_deck),
    "deck card": _edit("shuffled", _repeat_card),
    "wager": _edit("wager-placed", lambda e: e.update(amount=e["amount"] + 100)),
    "start position": _edit("start-chosen", lambda e: e.update(position=e["position"] % 7 + 1)),
    "leftover": _edit("dealt", lambda e: e["leftover"].reverse()),
    "packet": _edit("dealt", lambda e: e["packets"][0]["cards"].reverse()),
    "time-out rule": lambda log: _timeout(log).update(rule="trips"),
    "time-out setting": lambda log: _timeout(log)["high"].reverse(),
    "dropped last event": lambda log: log.pop(),
    "extra event": lambda log: log.append(dict(log[-1])),
    "first event": lambda log: log.pop(0),
}


@pytest.mark.parametrize("tamper", list(TAMPERING.values()), ids=list(TAMPERING))
def test_tampered_log_raises_replay_mismatch(tamper: Callable[[list[Any]], None]) -> None:
    r = _finished_round()
    log = json.loads(json.dumps(r.log()))
    assert Round.replay(log).events == r.events  # untouched, it replays
    tamper(log)
    with pytest.raises(ReplayMismatch):
        Round.replay(log)


def test_tampering_targets_exist_in_the_log() -> None:
    log = json.loads(json.dumps(_finished_round().log()))
    types = {e["type"] for e in log}
    assert {"dealer-set", "spot-settled", "round-settled", "shuffled", "dealt"} <= types
    assert _timeout(log)["by"] == "house-way"


def test_replay_errors_are_paigow_errors() -> None:
    assert issubclass(ReplayMismatch, PaigowError)
    with pytest.raises(ReplayMismatch):
        Round.replay([])


# ---------------------------------------------------------------- 10. commands return their events


def test_every_command_returns_the_events_it_emitted() -> None:
    r = Round(RNG, WAYS["standard"], round_id="ret")

    def step(emitted: tuple[Event, ...]) -> tuple[Event, ...]:
        assert isinstance(emitted, tuple) and emitted
        assert list(emitted) == r.events[len(r.events) - len(emitted) :]
        return emitted

    assert step(r.wager(1, 1000)) == (WagerPlaced(1, 1000),)
    step(r.wager(2, 1000))
    step(r.wager(3, 1000))
    assert [e.type for e in step(r.shuffle(random.Random(5)))] == ["shuffled"]
    assert [e.type for e in step(r.choose_start(random.Random(5)))] == ["start-chosen"]
    assert [e.type for e in step(r.deal_packets())] == ["dealt"]
    (a,) = step(r.set_low(1, r.hands[1][:2]))
    assert isinstance(a, HandSet) and a.spot == 1 and a.by == "player"
    (b,) = step(r.set_house_way(2))
    assert isinstance(b, HandSet) and b.spot == 2
    (c,) = step(r.time_out(3))
    assert isinstance(c, HandSet) and c.reason == "timeout"
    (d,) = step(r.set_dealer())
    assert isinstance(d, DealerSet)
    settled = step(r.settle())
    assert [e.type for e in settled] == ["spot-settled"] * 3 + ["round-settled"]
    assert isinstance(settled[-1], RoundSettled)
    assert len(r.events) == 1 + 3 + 3 + 3 + 1 + 4


def test_deal_finish_and_void_return_everything_they_emitted() -> None:
    r = new_round(DICE, {2: 1000, 5: 500})
    dealt = r.deal(random.Random(1))
    assert [e.type for e in dealt] == ["shuffled", "start-chosen", "dealt"]
    for spot in r.spots_to_set():
        r.set_house_way(spot)
    finished = r.finish()
    assert [e.type for e in finished] == [
        "dealer-set",
        "spot-settled",
        "spot-settled",
        "round-settled",
    ]
    assert list(finished) == r.events[-4:]
    v = new_round(DICE, {1: 1000})
    (voided,) = v.void("table closed")
    assert voided == Voided("table closed", ((1, 1000),))
    irregular = new_round(DICE, {1: 1000}).shuffle(deck=list(FULL_DECK[:52]))
    assert [e.type for e in irregular] == ["shuffled", "voided"]


# ---------------------------------------------------------------- 11. log versions

LOG_V1 = Path(__file__).parent / "data" / "log_v1.json"


def _v1_logs() -> dict[str, list[dict[str, Any]]]:
    logs: dict[str, list[dict[str, Any]]] = json.loads(LOG_V1.read_text())
    return logs


def test_new_logs_record_their_version() -> None:
    r = _settled()
    assert LOG_VERSION == 6
    assert r.log()[0]["log_version"] == 6
    assert isinstance(r.events[0], RoundStarted) and r.events[0].log_version == 6


def test_the_version_1_fixture_is_the_old_format() -> None:
    """The fixture was written by the engine before this version: no log_version, and the
    dealer's hand names stored in dealer-set."""
    for log in _v1_logs().values():
        assert log[0]["type"] == "round-started" and "log_version" not in log[0]
        for e in log:
            if e["type"] == "dealer-set":
                assert {"high_name", "low_name"} <= set(e)


@pytest.mark.parametrize(
    "name", ["deal-seed-7", "foul-reset-and-timeout", "irregular-deck", "voided-in-setting"]
)
def test_version_1_logs_still_replay(name: str) -> None:
    log = _v1_logs()[name]
    r = Round.replay(log)
    assert r.is_over
    first = r.events[0]
    assert isinstance(first, RoundStarted) and first.log_version == 1
    assert sum(1 for e in r.events if e.type == "voided") == (
        1 if name in ("irregular-deck", "voided-in-setting") else 0
    )
    assert len(r.events) == len(log)
    recorded = {e["spot"]: e["returned"] for e in log if e["type"] == "spot-settled"}
    if r.phase is Phase.SETTLED:
        assert r.returned() == recorded and len(recorded) >= 3
    if name == "irregular-deck":
        assert r.returned() == {3: 700}


def test_display_text_of_version_1_is_never_compared() -> None:
    """Rewording a hand name cannot break the replay of a past round: the names in an old log
    are read and dropped."""
    log = json.loads(json.dumps(_v1_logs()["deal-seed-7"]))
    dealer = next(e for e in log if e["type"] == "dealer-set")
    dealer["high_name"], dealer["low_name"] = "a pair of nines, reworded", "whatever"
    r = Round.replay(log)
    assert r.phase is Phase.SETTLED
    del dealer["high_name"], dealer["low_name"]
    assert Round.replay(log).events == r.events


def test_version_1_logs_are_still_checked() -> None:
    """The facts of an old log are compared as ever: a changed rule or amount is caught."""
    for change in (_other_rule, lambda e: e["high"].reverse()):
        log = json.loads(json.dumps(_v1_logs()["deal-seed-7"]))
        change(next(e for e in log if e["type"] == "dealer-set"))
        with pytest.raises(ReplayMismatch):
            Round.replay(log)
    log = json.loads(json.dumps(_v1_logs()["irregular-deck"]))
    log[-1]["returned"] = [[3, 701]]
    with pytest.raises(ReplayMismatch):
        Round.replay(log)


def test_a_version_1_round_goes_on_in_its_own_format() -> None:
    """A round in progress when the engine changed: replayed from its old log, it carries on
    (its header still says version 1) and the whole log replays."""
    full = _v1_logs()["deal-seed-7"]
    log = full[: [e["type"] for e in full].index("dealer-set")]  # every player has set
    r = Round.replay(log)
    assert r.phase is Phase.SETTING and not r.spots_to_set()
    more = r.finish()
    assert isinstance(more[0], DealerSet) and "high_name" not in more[0].to_dict()
    whole = [*log, *({"seq": len(log) + i, **e.to_dict()} for i, e in enumerate(more))]
    recorded = {e["spot"]: e["returned"] for e in full if e["type"] == "spot-settled"}
    assert Round.replay(whole).returned() == recorded


def test_an_unknown_log_version_is_refused() -> None:
    log = _settled().log()
    log[0]["log_version"] = 99
    with pytest.raises(ReplayMismatch, match="log version 99"):
        Round.replay(log)
    with pytest.raises(RoundError, match="log version"):
        Round(log_version=7)
    assert event_from_dict({k: v for k, v in log[0].items() if k != "log_version"}) == RoundStarted(
        log[0]["round_id"], log[0]["ruleset"], log[0]["house_way"], 1, log[0]["house_way_digest"]
    )


def test_the_house_way_on_request_is_recorded_as_such_and_replays() -> None:
    """A player may ask the house to set the hand (issue 47): ``hand-set`` by ``house-way`` with
    the reason ``asked`` and the rule, the house way's setting; refused once the hand is set;
    the log replays; a version-5 log records the same request as the player's own setting."""
    r = Round(round_id="asked")
    r.wager(1, 1000)
    r.wager(2, 1000)
    r.deal(random.Random(3))
    (e,) = r.set_house_way(1)
    want = HouseWay.preset("standard").set_hand(r.hands[1])
    assert isinstance(e, HandSet)
    assert (e.by, e.reason, e.rule) == ("house-way", "asked", want.rule)
    assert r.settings[1].same_hands(want.setting)
    with pytest.raises(RoundError) as refused:
        r.verify_set_house_way(1)
    assert refused.value.code == "already-set" and "already set" in str(refused.value)
    assert not r.can_set_house_way(1)
    r.set_low(2, [c.code for c in r.hands[2][:2]])
    r.finish()
    assert Round.replay(r.log()).log() == r.log()
    assert "at the player's request" in " ".join(narrate_log(r.events))
    old = Round(round_id="v5", log_version=5)
    old.wager(1, 1000)
    old.deal(random.Random(3))
    (e5,) = old.set_house_way(1)
    assert isinstance(e5, HandSet) and e5.by == "player" and e5.reason is None
