"""Side wagers in the round (docs/rulebook.md#side-wagers): offered by the ruleset, placed beside
a main wager, settled from the seven cards however they were set (a foul included), Envy, bets
on the dealer's hand, progressive meters, voids, the log (version 3; versions 1 and 2 still
replay) and its replay."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.bonus.hand import SEVEN_CARD_CATEGORIES, BonusCategory, bonus_hand
from paigow.bonus.paytable import PayKind, PayTable
from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.errors import ReplayMismatch, RoundError, RulesetError
from paigow.events import (
    EnvyPaid,
    RoundSettled,
    SideWagerPlaced,
    SideWagerSettled,
    SpotSettled,
    Voided,
    WagerPlaced,
    event_from_dict,
)
from paigow.narrator import narrate_log
from paigow.round import Phase, Round
from paigow.ruleset import Ruleset, SideWagerOffer, StartMethod
from paigow.setting import all_settings
from paigow.side_wagers import paid_from_meter

DATA = Path(__file__).parent / "data"

# --------------------------------------------------------------------------- pay tables

#: Every seven-card category paid, each at its own odds (best first: 100 to 1 down).
EVERY = PayTable.from_toml(
    'name = "every"\ntarget = "player"\n[pays]\n'
    + "".join(f'{c.value} = "{100 - i} to 1"\n' for i, c in enumerate(SEVEN_CARD_CATEGORIES)),
    "every.toml",
)
FORTUNE = PayTable.load("fortune-a")
JACKPOT = PayTable.from_toml(
    """name = "test-jackpot"
target = "player"
[pays]
seven-card-straight-flush = "100% of meter"
royal-match = "10% of meter"
straight-flush = "$100"
four-of-a-kind = "$75"
[progressive]
share = "20%"
seed = "$1000"
wager = "$1"
""",
    "jackpot.toml",
)
DEALER_BONUS = PayTable.from_toml(
    """name = "dealer-queen"
target = "dealer"
[pays]
pai-gow-queen-high = "25 to 1"
four-of-a-kind = "10 to 1"
""",
    "dealer.toml",
)
TIGER = PayTable.from_toml(
    'name = "tiger"\ntarget = "dealer-low"\n[pays]\nlow-nine-high = "30 to 1"\n', "tiger.toml"
)
OFFERS = (
    SideWagerOffer("fortune", FORTUNE, 100, 10_000),
    SideWagerOffer("every", EVERY, 100, 10_000),
    SideWagerOffer("jackpot", JACKPOT, 100, 100),
    SideWagerOffer("queen", DEALER_BONUS, 100, 5_000),
    SideWagerOffer("tiger", TIGER, 100, 5_000),
)
RULES = Ruleset(start=StartMethod.RNG, side_wagers=OFFERS)
BANK = "test-jackpot"


# --------------------------------------------------------------------------- helpers
def staged_deck(hands: dict[int | None, str]) -> list[Card]:
    """A deck order that, with the RNG number 2 (the first packet to spot 1), deals spot ``s``
    the cards ``hands[s]`` (None: the dealer); other packets are filled from the rest."""
    chosen = {k: parse_cards(v) for k, v in hands.items()}
    used = {c for cards in chosen.values() for c in cards}
    rest = iter([c for c in FULL_DECK if c not in used])
    deck: list[Card] = []
    for key in (1, 2, 3, 4, 5, 6, None):
        deck += chosen[key] if key in chosen else [next(rest) for _ in range(7)]
    deck += list(rest)
    assert len(deck) == 53 and len(set(deck)) == 53
    return deck


def play(
    hands: dict[int | None, str],
    wagers: dict[int, int],
    side: dict[tuple[int, str], int],
    *,
    players: dict[int, str] | None = None,
    meters: dict[str, int] | None = None,
    set_hand: Callable[[Round, int], object] | None = None,
    rules: Ruleset = RULES,
) -> Round:
    """A round dealt from a staged deck, set by the house way (or ``set_hand``) and settled."""
    r = Round(rules, round_id="side")
    for spot, amount in wagers.items():
        r.wager(spot, amount, player=(players or {}).get(spot))
    for (spot, name), amount in side.items():
        r.side_wager(spot, name, amount)
    r.shuffle(deck=staged_deck(hands))
    r.choose_start(number=2)
    r.deal_packets()
    for spot in r.spots_to_set():
        if set_hand is None:
            r.set_house_way(spot)
        else:
            set_hand(r, spot)
    r.finish(meters)
    return r


def replays(r: Round) -> Round:
    """The round's log replays to the same events, from JSON, and step by step by follow()."""
    log = json.loads(json.dumps(r.log()))
    again = Round.replay(log)
    assert again.events == r.events
    assert again.side_results == r.side_results and again.envy == r.envy
    assert again.meters == r.meters and again.meters_after == r.meters_after
    settling = {"spot-settled", "side-wager-settled", "envy-paid", "round-settled"}
    for cut in range(1, len(log)):
        if log[cut - 1]["type"] in settling:
            continue  # inside the settlement, one step
        behind = Round.replay(log[:cut])
        behind.follow(log[cut:])
        assert behind.events == r.events
    return again


EXAMPLES = {
    BonusCategory.SEVEN_CARD_STRAIGHT_FLUSH: "8h 7h 6h 5h 4h 3h 2h",
    BonusCategory.ROYAL_MATCH: "Ah Kh Qh Jh Th Ks Qs",
    BonusCategory.WILD_SEVEN_CARD_STRAIGHT_FLUSH: "Jk 7h 6h 5h 4h 3h 2h",
    BonusCategory.FIVE_ACES: "Jk Ah Ad Ac As Kd 2c",
    BonusCategory.ROYAL_FLUSH: "Ah Kh Qh Jh Th 3c 2d",
    BonusCategory.STRAIGHT_FLUSH: "9h 8h 7h 6h 5h 2c Kd",
    BonusCategory.FOUR_OF_A_KIND: "9c 9d 9h 9s Kd 2c 3h",
    BonusCategory.FULL_HOUSE: "9c 9d 9h Ks Kd 2c 3h",
    BonusCategory.FLUSH: "Ah 9h 7h 5h 2h Kc 3d",
    BonusCategory.THREE_OF_A_KIND: "9c 9d 9h Ks 5d 2c 3h",
    BonusCategory.STRAIGHT: "9c 8d 7h 6s 5d Kc 2h",
    BonusCategory.PAI_GOW_ACE: "Ac Kd 8h 6s 5s 3d 2h",
    BonusCategory.PAI_GOW_KING: "Kc Jd 8h 6s 5s 3d 2h",
    BonusCategory.PAI_GOW_QUEEN: "Qc Jd 8h 6s 5s 3d 2h",
    BonusCategory.PAI_GOW_JACK: "Jc 9d 8h 6s 5s 3d 2h",
    BonusCategory.PAI_GOW_TEN: "Tc 9d 8h 6s 4s 3d 2h",
    BonusCategory.PAI_GOW_NINE: "9c 8d 7h 5s 4s 3d 2h",
}


# --------------------------------------------------------------------------- the ruleset
def test_the_ruleset_records_every_offer_in_full() -> None:
    data = json.loads(json.dumps(RULES.to_dict()))
    assert [o["name"] for o in data["side_wagers"]] == [o.name for o in OFFERS]
    assert data["side_wagers"][2]["bank"] == BANK and "bank" not in data["side_wagers"][0]
    assert data["side_wagers"][0]["table"] == FORTUNE.to_dict()  # the pay table, not its name
    again = Ruleset.from_dict(data)
    assert again.side_wagers == RULES.side_wagers and again.to_dict() == RULES.to_dict()
    assert "side_wagers" not in Ruleset().to_dict()  # Indiana's default: none, logs unchanged
    assert RULES.offer("tiger").table == TIGER


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Ruleset(side_wagers=(OFFERS[0], OFFERS[0])), "offered twice: fortune"),
        (lambda: SideWagerOffer("Fortune!", FORTUNE), "lower-case"),
        (lambda: SideWagerOffer("f", FORTUNE, 0, 100), "at least one cent"),
        (lambda: SideWagerOffer("f", FORTUNE, 500, 100), "below min_wager"),
        (lambda: SideWagerOffer("f", FORTUNE, 1.5, 100), "must be an integer"),  # type: ignore[arg-type]
        (lambda: SideWagerOffer("f", FORTUNE, bank="b"), "only a progressive has a bank"),
        (lambda: SideWagerOffer("j", JACKPOT, 100, 500), "wager is 100 exactly"),
        (lambda: Ruleset(side_wagers=("fortune",)), "SideWagerOffer"),  # type: ignore[arg-type]
        (lambda: Ruleset().offer("fortune"), "no side wager 'fortune' at this table"),
        (
            lambda: Ruleset.from_dict({"side_wagers": [{"name": "x", "table": {}, "odd": 1}]}),
            "unknown side wager setting",
        ),
    ],
)
def test_bad_offers_are_refused(make: Callable[[], object], message: str) -> None:
    with pytest.raises(RulesetError, match=message):
        make()


def test_a_progressive_offer_may_name_its_bank() -> None:
    offer = SideWagerOffer("jackpot", JACKPOT, 100, 100, bank="floor-2")
    assert SideWagerOffer.from_dict(offer.to_dict()).bank == "floor-2"


# --------------------------------------------------------------------------- placing
def _betting() -> Round:
    r = Round(RULES, round_id="bets")
    r.wager(1, 1000)
    r.side_wager(1, "fortune", 500)
    return r


@pytest.mark.parametrize(
    ("spot", "name", "amount", "message"),
    [
        (2, "fortune", 500, "spot 2 has no wager: a side wager goes with the main wager"),
        (1, "insurance", 500, "no side wager 'insurance' at this table (offered: fortune"),
        (1, "every", 10_001, "every wager $100.01 is outside its limits $1.00 to $100.00"),
        (1, "every", 99, "outside its limits"),
        (1, "jackpot", 200, "outside its limits $1.00 to $1.00"),
        (1, "fortune", 500, "spot 1 already has a fortune wager"),
        (1, "every", 500.0, "whole number"),
        (7, "fortune", 500, "spot 7 does not exist"),
    ],
)
def test_side_wagers_refused(spot: int, name: str, amount: Any, message: str) -> None:
    r = _betting()
    before = list(r.events)
    with pytest.raises(RoundError, match=re.escape(message)):
        r.side_wager(spot, name, amount)
    assert r.events == before and r.side_wagers == {(1, "fortune"): 500}


def test_no_side_wager_after_betting_closes() -> None:
    r = _betting()
    r.shuffle(random.Random(1))
    with pytest.raises(RoundError, match="phase 'shuffled', not betting"):
        r.side_wager(1, "every", 500)


def test_an_old_format_round_takes_no_side_wagers() -> None:
    with pytest.raises(RoundError, match="version-2 log cannot record side wagers"):
        Round(RULES, log_version=2)
    r = Round(Ruleset(), log_version=2)
    r.wager(1, 1000)
    with pytest.raises(RoundError, match="version-2 log cannot record side wagers"):
        r.side_wager(1, "fortune", 500)


# --------------------------------------------------------------------------- settlement
@pytest.mark.parametrize("category", [*EXAMPLES, None], ids=lambda c: c or "nothing")
def test_every_category_is_settled(category: BonusCategory | None) -> None:
    cards = EXAMPLES[category] if category is not None else "9c 9d Kh 6s 4s 3d 2h"
    assert bonus_hand(parse_cards(cards)).top == category
    r = play({3: cards}, {3: 1000}, {(3, "every"): 700})
    e = r.side_results[(3, "every")]
    odds = 0 if category is None else 100 - SEVEN_CARD_CATEGORIES.index(category)
    assert e == SideWagerSettled(
        3,
        "every",
        700,
        None if category is None else category.value,
        700 * odds,
        700 * (odds + 1) if odds else 0,
    )
    assert r.side_returned() == {(3, "every"): e.returned}
    assert r.returned() == {3: r.results[3].returned}  # the main wager's, as ever
    totals = r.events[-1]
    assert isinstance(totals, RoundSettled)
    assert (totals.side_wagered, totals.side_returned, totals.envy_paid) == (700, e.returned, 0)
    replays(r)


def test_a_hand_is_paid_as_its_best_paid_category() -> None:
    """Trips beside a straight: the table that pays the straight more pays the straight."""
    straight_more = PayTable.from_toml(
        'name = "s"\ntarget = "player"\n[pays]\nstraight = "9 to 1"\nthree-of-a-kind = "3 to 1"\n'
    )
    rules = RULES.with_(side_wagers=(SideWagerOffer("s", straight_more), *OFFERS))
    cards = "9c 9d 9h Th Js Qd Kc"
    r = play({1: cards}, {1: 1000}, {(1, "s"): 100, (1, "every"): 100}, rules=rules)
    assert r.side_results[(1, "s")].hand == "straight" and r.side_results[(1, "s")].win == 900
    assert r.side_results[(1, "every")].hand == "three-of-a-kind"


def test_a_foul_loses_the_main_wager_and_its_bonus_hand_is_still_paid() -> None:
    flush = "Ah 9h 7h 5h 2h Kc 3d"

    def foul(r: Round, spot: int) -> object:
        return r.set_hand(spot, next(s for s in all_settings(r.hands[spot]) if s.is_foul))

    r = play({2: flush}, {2: 2000}, {(2, "fortune"): 500}, set_hand=foul)
    main = r.results[2]
    assert main.foul and main.outcome == "loss" and main.returned == 0
    assert r.side_results[(2, "fortune")] == SideWagerSettled(
        2, "fortune", 500, "flush", 2000, 2500
    )
    replays(r)


ENVY_HANDS: dict[int | None, str] = {
    1: "9c 9d 9h 9s Kd 2c 3h",  # four of a kind ($5)
    2: "7d 6d 5d 4d 3d Kc Kh",  # straight flush ($20)
    3: "Qc Jh 8c 6h 4c 3s 2h",  # nothing
    4: "Jk Ah Ad As Ac Qd Th",  # five aces ($250)
    5: "8s 7s 6s 5s 4s Jc Td",  # straight flush ($20), the same player as spot 3
    6: "Qh Qs 7c 7h 5c 3c Jd",  # nothing (two pair)
}


def test_envy_pays_for_every_other_players_qualifying_hand() -> None:
    players = {1: "ann", 2: "bob", 3: "cat", 4: "dan", 5: "cat", 6: "eve"}
    fortune = {1: 500, 2: 1000, 3: 500, 4: 400, 5: 500, 6: 2500}
    r = play(
        ENVY_HANDS,
        {s: 1000 for s in range(1, 7)},
        {(s, "fortune"): a for s, a in fortune.items()},
        players=players,
    )
    got = {spot: (e.amount, e.hands) for (spot, _), e in r.envy.items()}
    sf, quads, aces = "straight-flush", "four-of-a-kind", "five-aces"
    assert got == {
        1: (29000, ((2, sf), (4, aces), (5, sf))),
        2: (27500, ((1, quads), (4, aces), (5, sf))),
        3: (27500, ((1, quads), (2, sf), (4, aces))),  # never spot 5: the same player's
        5: (27500, ((1, quads), (2, sf), (4, aces))),
        6: (29500, ((1, quads), (2, sf), (4, aces), (5, sf))),
    }  # spot 4's $4.00 is under the Envy minimum
    assert r.side_results[(4, "fortune")].win == 400 * 400  # five aces, 400 to 1
    order = [(e.type, e.spot) for e in r.events if isinstance(e, SideWagerSettled | EnvyPaid)]
    assert order[:3] == [("side-wager-settled", 1), ("envy-paid", 1), ("side-wager-settled", 2)]
    totals = r.events[-1]
    assert isinstance(totals, RoundSettled) and totals.envy_paid == sum(a for a, _ in got.values())
    lines = narrate_log(r.events)
    assert (
        "spot 3 fortune Envy: $275.00 for spot 1's four of a kind and spot 2's straight flush "
        "and spot 4's five aces"
    ) in lines
    assert "spot 1 fortune: four of a kind pays 25 to 1, won $125.00, returned $130.00" in lines
    replays(r)


def test_envy_never_pays_for_the_dealers_hand_nor_the_players_own() -> None:
    hands: dict[int | None, str] = {1: "9c 9d 9h 9s Kd 2c 3h", None: "8c 8d 8h 8s Qd 2d 3d"}
    r = play(hands, {1: 1000, 2: 1000}, {(1, "fortune"): 2500, (2, "fortune"): 2500})
    assert bonus_hand(r.dealer_cards or ()).top is BonusCategory.FOUR_OF_A_KIND
    assert set(r.envy) == {(2, "fortune")} and r.envy[(2, "fortune")].hands == (
        (1, "four-of-a-kind"),
    )
    # spots without a player id are different players; without a side wager, no Envy is due
    r = play(hands, {1: 1000, 2: 1000}, {(1, "fortune"): 2500}, players={1: "ann", 2: "ann"})
    assert r.envy == {}


@pytest.mark.parametrize(
    ("dealer", "queen", "tiger"),
    [
        ("Qc Jd 8h 6s 5s 3d 2h", 25 * 200, 0),  # queen-high pai gow; low J-8
        ("Kc 9d 8h 6s 5s 3d 2h", 0, 30 * 300),  # king-high; the house way's low is 9-8
        ("8c 8d 8h 8s Qd 2d 3d", 10 * 200, 0),  # the dealer's four of a kind
    ],
)
def test_bets_on_the_dealers_hand(dealer: str, queen: int, tiger: int) -> None:
    r = play(
        {None: dealer, 1: "Ts Th Ac 7h 4h Js Kh"},
        {1: 1000},
        {(1, "queen"): 200, (1, "tiger"): 300},
    )
    assert set(r.dealer_cards or ()) == set(parse_cards(dealer))
    assert r.side_results[(1, "queen")].win == queen
    assert r.side_results[(1, "tiger")].win == tiger
    assert r.side_results[(1, "tiger")].hand == ("low-nine-high" if tiger else None)
    assert r.bonus_hands()[None] == bonus_hand(parse_cards(dealer))
    replays(r)


def test_a_dealer_bonus_pays_the_house_ways_low_hand_too() -> None:
    rules = RULES.with_(side_wagers=(SideWagerOffer("dealer", PayTable.load("dealer-bonus")),))
    dealer = "Kc 9d 8h 6s 5s 3d 2h"  # king-high pai gow; the house way's low hand is 9-8
    r = play({None: dealer}, {1: 1000}, {(1, "dealer"): 500}, rules=rules)
    assert r.dealer_setting is not None and {c.code for c in r.dealer_setting.low} == {"9d", "8h"}
    assert r.side_results[(1, "dealer")] == SideWagerSettled(
        1, "dealer", 500, "low-nine-high", 2500, 3000
    )


# --------------------------------------------------------------------------- progressive
JACKPOT_HANDS: dict[int | None, str] = {
    1: "Jk Kh Qh Jh Th Ks Qs",  # royal match with the joker: 10% of the meter
    2: "8d 7d 6d 5d 4d 3d 2d",  # natural seven-card straight flush: 100% of the meter
    3: "9c 9h 9s Kc 2c 3h 4h",  # three of a kind: nothing on this table
    4: "Ac Ad Ah As 5c 6c 7c",  # four of a kind: $75 from the house, not the meter
}


def test_two_jackpot_hits_in_one_round_run_down_the_meter_in_spot_order() -> None:
    wagers = {s: 1000 for s in JACKPOT_HANDS if s is not None}
    side = {(s, "jackpot"): 100 for s in wagers}
    r = Round(RULES, round_id="shares")
    for s, a in wagers.items():
        r.wager(s, a)
    for (s, name), a in side.items():
        r.side_wager(s, name, a)
    assert r.meter_shares() == {BANK: 4 * 20}
    r = play(JACKPOT_HANDS, wagers, side, meters={BANK: 1_234_567, "other": 5})
    got = [(e.hand, e.win, e.meter, e.meter_after) for e in r.side_results.values()]
    assert got == [
        ("royal-match", 123_456, 1_234_567, 1_111_111),
        ("seven-card-straight-flush", 1_111_111, 1_111_111, 100_000),  # reset to the seed
        (None, 0, 100_000, 100_000),
        ("four-of-a-kind", 7_500, 100_000, 100_000),
    ]
    assert r.meters == {BANK: 1_234_567} and r.meters_after == {BANK: 100_000}
    lines = narrate_log(r.events)
    assert any("meter $11,111.11, after $1,000.00" in line for line in lines)
    again = replays(r)  # from the meter the log recorded
    assert again.meters_after == {BANK: 100_000}


def test_a_pay_from_the_meter_at_its_seed_is_a_hit_though_the_meter_stays() -> None:
    hands = {k: v for k, v in JACKPOT_HANDS.items() if k != 2}
    wagers = {s: 1000 for s in hands if s is not None}
    side = {(s, "jackpot"): 100 for s in wagers}
    r = play(hands, wagers, side, meters={BANK: 100_000})  # the seed
    royal = r.side_results[(1, "jackpot")]
    assert (royal.win, royal.meter, royal.meter_after) == (10_000, 100_000, 100_000)
    paid = {k[0]: paid_from_meter(r.ruleset, e) for k, e in r.side_results.items()}
    assert paid == {1: 10_000, 3: 0, 4: 0}  # four of a kind: the house's $75, not the meter


def test_a_progressive_needs_its_meter() -> None:
    r = Round(RULES, round_id="m")
    r.wager(1, 1000)
    r.side_wager(1, "jackpot", 100)
    r.shuffle(deck=staged_deck(JACKPOT_HANDS))
    r.choose_start(number=2)
    r.deal_packets()
    r.set_house_way(1)
    r.set_dealer()
    mark = len(r.events)
    for meters in (None, {"other": 1}, {BANK: -1}, {BANK: 1.5}):
        with pytest.raises(RoundError, match="meter"):
            r.settle(meters)  # type: ignore[arg-type]
        assert len(r.events) == mark and r.phase is Phase.DEALER
    r.settle({BANK: 200_000})
    assert r.side_results[(1, "jackpot")].win == 20_000


# --------------------------------------------------------------------------- voids
def test_a_void_returns_every_side_wager() -> None:
    r = _betting()
    r.side_wager(1, "every", 300)
    r.wager(4, 2000)
    r.side_wager(4, "jackpot", 100)
    r.deal(random.Random(4))
    (event,) = r.void("dealer error")
    assert isinstance(event, Voided)
    assert event.side_returned == ((1, "every", 300), (1, "fortune", 500), (4, "jackpot", 100))
    assert r.side_returned() == r.side_wagers and r.returned() == {1: 1000, 4: 2000}
    assert "spot 4 jackpot $1.00" in narrate_log(r.events)[-1]
    replays(r)
    r = _betting()
    r.shuffle(deck=["As"] * 53)  # an irregular deck voids the round
    assert r.phase is Phase.VOIDED and r.side_returned() == {(1, "fortune"): 500}


def test_side_returned_before_the_end_is_an_error() -> None:
    with pytest.raises(RoundError, match="not over"):
        _betting().side_returned()
    with pytest.raises(RoundError, match="not dealt"):
        _betting().bonus_hands()


# --------------------------------------------------------------------------- the log
def _envy_round() -> Round:
    return play(
        ENVY_HANDS,
        {s: 1000 for s in range(1, 7)},
        {(1, "fortune"): 500, (3, "fortune"): 500, (2, "jackpot"): 100, (5, "tiger"): 200},
        players={3: "cat", 5: "cat"},
        meters={BANK: 500_000},
    )


def _edit(kind: str, change: Callable[[dict[str, Any]], None], nth: int = 0) -> Any:
    def tamper(log: list[dict[str, Any]]) -> None:
        change([e for e in log if e["type"] == kind][nth])

    return tamper


TAMPERING: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "side win": _edit("side-wager-settled", lambda e: e.update(win=e["win"] + 1)),
    "side returned": _edit("side-wager-settled", lambda e: e.update(returned=0)),
    "side hand": _edit("side-wager-settled", lambda e: e.update(hand="flush")),
    "meter after": _edit("side-wager-settled", lambda e: e.update(meter_after=1), 1),
    "meter dropped": _edit("side-wager-settled", lambda e: e.pop("meter"), 1),
    "envy amount": _edit("envy-paid", lambda e: e.update(amount=e["amount"] - 500)),
    "envy hands": _edit("envy-paid", lambda e: e["hands"].pop()),
    "envy removed": lambda log: log.remove(next(e for e in log if e["type"] == "envy-paid")),
    "side totals": _edit("round-settled", lambda e: e.update(side_returned=0)),
    "side wager amount": _edit("side-wager-placed", lambda e: e.update(amount=600)),
    "side wager offer": _edit("side-wager-placed", lambda e: e.update(name="nope")),
    "side wager spot": _edit("side-wager-placed", lambda e: e.update(spot=4)),
    "player": _edit("wager-placed", lambda e: e.update(player="ann"), 4),
    "offer's pay table": _edit(
        "round-started",
        lambda e: e["ruleset"]["side_wagers"][0]["table"]["pays"].update(
            {"four-of-a-kind": "30 to 1"}
        ),
    ),
}


@pytest.mark.parametrize("tamper", list(TAMPERING.values()), ids=list(TAMPERING))
def test_a_changed_side_result_raises_replay_mismatch(
    tamper: Callable[[list[dict[str, Any]]], None],
) -> None:
    r = _envy_round()
    log = json.loads(json.dumps(r.log()))
    assert Round.replay(log).events == r.events
    tamper(log)
    with pytest.raises(ReplayMismatch):
        Round.replay(log)


def test_the_log_of_a_round_with_side_wagers() -> None:
    r = _envy_round()
    log = r.log()
    assert log[0]["log_version"] == 6
    assert {"type": "wager-placed", "seq": 3, "spot": 3, "amount": 1000, "player": "cat"} in log
    assert [e.type for e in r.events if e.type.startswith(("side", "envy"))] == [
        "side-wager-placed",
        "side-wager-placed",
        "side-wager-placed",
        "side-wager-placed",
        "side-wager-settled",
        "envy-paid",
        "side-wager-settled",
        "side-wager-settled",
        "envy-paid",
        "side-wager-settled",
    ]
    jackpot = next(e for e in log if e["type"] == "side-wager-settled" and e["spot"] == 2)
    assert (jackpot["hand"], jackpot["win"]) == ("straight-flush", 10_000)  # $100, the house's
    assert jackpot["meter"] == jackpot["meter_after"] == 500_000
    fortune = next(e for e in log if e["type"] == "side-wager-settled" and e["spot"] == 1)
    assert "meter" not in fortune and "meter_after" not in fortune
    for e in r.events:
        assert event_from_dict(e.to_dict()) == e
    lines = narrate_log(r.events)
    assert lines[0].endswith(
        "; side wagers: fortune $1.00-$100.00 (fortune-a), every $1.00-$100.00 (every), jackpot "
        "$1.00 (test-jackpot, bank test-jackpot), queen $1.00-$50.00 (dealer-queen), tiger "
        "$1.00-$50.00 (tiger)"
    )
    assert "spot 5 wagers $2.00 on tiger" in lines
    assert lines[-1].endswith(
        "; side wagers: wagered $13.00, returned $231.00, Envy paid $565.00"  # 130 + 101; 290 + 275
    ), lines[-1]
    replays(r)


def test_a_round_without_side_wagers_writes_the_version_2_events() -> None:
    """Only the header's version differs from a version-2 log: no new key in any event."""
    old = json.loads((DATA / "log_v2.json").read_text())["deal-seed-11"]
    for version in (3, 4):
        new = Round.replay([{**old[0], "log_version": version}, *old[1:]])  # every event compared
        assert new.log() == [{**old[0], "log_version": version}, *old[1:]]


@pytest.mark.parametrize(
    "name",
    ["deal-seed-11", "foul-and-timeout", "foul-reset", "voided-in-setting", "irregular-deck"],
)
def test_version_2_logs_still_replay(name: str) -> None:
    log = json.loads((DATA / "log_v2.json").read_text())[name]
    assert log[0]["log_version"] == 2
    r = Round.replay(log)
    assert r.is_over and r.log() == log and r.side_wagers == {} and r.side_returned() == {}
    returned = {e["spot"]: e["returned"] for e in log if e["type"] == "spot-settled"}
    if r.phase is Phase.SETTLED:
        assert r.returned() == returned
    changed = json.loads(json.dumps(log))
    changed[-1]["returned"] = 1 if changed[-1]["type"] == "round-settled" else [[1, 1]]
    with pytest.raises(ReplayMismatch):
        Round.replay(changed)


def test_a_side_wager_event_in_a_version_2_log_is_refused() -> None:
    log = json.loads((DATA / "log_v2.json").read_text())["deal-seed-11"]
    log.insert(2, {"type": "side-wager-placed", "spot": 1, "name": "fortune", "amount": 500})
    with pytest.raises(ReplayMismatch, match="version-2 log cannot record side wagers"):
        Round.replay(log)


# --------------------------------------------------------------------------- money
NAMES = [o.name for o in OFFERS]


@st.composite
def side_plans(draw: st.DrawFn) -> dict[str, Any]:
    spots = draw(st.sets(st.integers(1, 6), min_size=1))
    side: dict[tuple[int, str], int] = {}
    for spot in sorted(spots):
        for name in draw(st.sets(st.sampled_from(NAMES))):
            offer = RULES.offer(name)
            side[(spot, name)] = draw(st.integers(offer.min_wager, offer.max_wager))
    return {
        "seed": draw(st.integers(0, 2**32 - 1)),
        "wagers": {s: draw(st.integers(500, 5000)) for s in sorted(spots)},
        "players": {s: draw(st.sampled_from("abc")) for s in sorted(spots)},
        "side": side,
        "meter": draw(st.integers(100_000, 10**9)),
        "void": draw(st.sampled_from([None, "betting", "setting"])),
        "hands": draw(st.sampled_from([{}, ENVY_HANDS, JACKPOT_HANDS])),
    }


@settings(max_examples=120, deadline=None)
@given(side_plans())
def test_every_cent_of_a_side_wager_is_returned_or_kept(plan: dict[str, Any]) -> None:
    r = Round(RULES, round_id="money")
    for spot, amount in plan["wagers"].items():
        r.wager(spot, amount, player=plan["players"][spot])
    for (spot, name), amount in plan["side"].items():
        r.side_wager(spot, name, amount)
    if plan["void"] == "betting":
        r.void("test")
    else:
        deck = staged_deck(plan["hands"])
        if not plan["hands"]:
            random.Random(plan["seed"]).shuffle(deck)
        r.shuffle(deck=deck)
        r.choose_start(number=2)
        r.deal_packets()
        if plan["void"] == "setting":
            r.void("test")
        else:
            for spot in r.spots_to_set():
                r.set_house_way(spot)
            r.finish({BANK: plan["meter"]})
    returned = r.side_returned()
    assert set(returned) == set(plan["side"])
    if r.phase is Phase.VOIDED:
        assert returned == plan["side"]
    else:
        bonus = r.bonus_hands()
        running = plan["meter"]
        for (spot, name), wager in plan["side"].items():
            e = r.side_results[(spot, name)]
            kept = wager - e.returned if e.returned == 0 else 0
            assert kept + (e.returned - e.win) == wager  # returned with its win, or kept
            assert e.returned in (0, wager + e.win) and (e.win > 0) == (e.returned > 0)
            table = RULES.offer(name).table
            target = bonus[spot].held if table.target.value == "player" else bonus[None].held
            if table.target.value != "dealer-low":
                assert e.hand == (None if table.best(target, wager, e.meter) is None else e.hand)
            if e.hand is not None:
                cat = BonusCategory(e.hand)
                assert e.win == table.win(cat, wager, e.meter)
            if name == "jackpot":
                assert e.meter == running
                from_meter = e.hand is not None and table.pays[cat].kind is PayKind.METER
                assert e.meter_after == (max(running - e.win, 100_000) if from_meter else running)
                running = e.meter_after
        totals = r.events[-1]
        assert isinstance(totals, RoundSettled)
        assert totals.side_wagered == sum(plan["side"].values())
        assert totals.side_returned == sum(returned.values())
        assert totals.envy_paid == sum(e.amount for e in r.envy.values())
        for (spot, _), envy in r.envy.items():
            assert all(
                s != spot and plan["players"][s] != plan["players"][spot] for s, _ in envy.hands
            )
        if any(n == "jackpot" for _, n in plan["side"]):
            assert r.meters_after == {BANK: running}
        main = [e for e in r.events if isinstance(e, SpotSettled)]
        assert sum(e.wager for e in main) == totals.wagered  # the main wagers' totals unchanged
    assert Round.replay(json.loads(json.dumps(r.log()))).events == r.events


def test_wager_placed_keeps_its_old_form_without_a_player() -> None:
    assert WagerPlaced(1, 500).to_dict() == {"type": "wager-placed", "spot": 1, "amount": 500}
    assert repr(WagerPlaced(1, 500)) == "WagerPlaced(spot=1, amount=500)"
    assert WagerPlaced(1, 500, "p").to_dict()["player"] == "p"
    assert SideWagerPlaced(1, "x", 5).to_dict()["name"] == "x"
    with pytest.raises(RoundError, match="player id"):
        Round().wager(1, 1000, player="")
