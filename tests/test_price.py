"""Each setting's price (issue 47) against the settlement's own arithmetic: against a known dealer
setting every setting's outcome is certain, so its price for a wager is what ``settle`` pays it,
the commission rounded to the cent as the table rounds it, a foul lost or reset to the house
way's setting, the push rule applied; on random hands and dealers, odd wagers included."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from pathlib import Path

import pytest

from paigow.analysis.compiled import CompiledHouseWay
from paigow.analysis.price import dollars, price_hand
from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import FoulRule, PushRule, Ruleset
from paigow.setting import all_settings
from paigow.settlement import Outcome, settle
from paigow.variants import push_triggered

HW = HouseWay.preset("standard")


@pytest.mark.parametrize("foul", [FoulRule.LOSES, FoulRule.RESET])
@pytest.mark.parametrize("pushes", [False, True])
def test_every_settings_price_is_what_the_settlement_pays(foul: FoulRule, pushes: bool) -> None:
    rules = Ruleset(commission=Commission("0.05"), face_up=True, foul=foul)
    rng = random.Random(f"{foul}-{pushes}")
    for _ in range(40):
        deck = rng.sample(FULL_DECK, 14)
        cards, dealer = tuple(deck[:7]), HW.set_hand(tuple(deck[7:])).setting
        wager = rng.choice([500, 1010, 2345, 99_999])
        house = HW.set_hand(cards).setting

        settings = all_settings(cards)
        paid = {}
        for s in settings:
            played = house if s.is_foul and foul is FoulRule.RESET else s
            r = settle(played, dealer, wager, rules.commission, rules.wheel)
            paid[s] = 0 if pushes and not r.foul else r.net
        best = max(paid.values())
        for s in settings:
            p = price_hand(cards, s, wager, rules, HW, exposed=(dealer, pushes))
            assert p.played.cents == paid[s]
            assert p.best.cents == best
            assert p.house_way.cents == next(v for x, v in paid.items() if x.same_hands(house))
            assert p.given_up_cents == best - paid[s] >= 0
        r = settle(house, dealer, wager, rules.commission, rules.wheel)
        if r.outcome is Outcome.WIN and not pushes:
            assert r.commission == rules.commission.on(wager)


def test_money_in_dollars_rounds_to_the_cent() -> None:
    assert dollars(Fraction(-2000, 3)) == "-$6.67"
    assert dollars(Fraction(1, 2)) == "$0.01"
    assert dollars(Fraction(123_456_789)) == "$1,234,567.89"


def test_without_a_compiled_table_a_face_down_hand_is_not_priced() -> None:
    cards = tuple(random.Random(1).sample(FULL_DECK, 7))
    with pytest.raises(ValueError, match="not compiled"):
        price_hand(cards, HW.set_hand(cards).setting, 500, Ruleset(), HW)
    with pytest.raises(ValueError, match="not compiled"):
        price_hand(cards, HW.set_hand(cards).setting, 500, Ruleset.preset("ez"), HW)


#: A reduced deck of pai gows: among the dealer hands of its cards left over, queen-high pai gows
#: (with and without the joker beside them) and nine-high low hands, besides pairs and straights.
PUSH_DECK = "Qs Qh Jd 9c 8s 7h 5d 4c 3s 2h Td 6c As Jk Kd 9h"


def _core_counts(
    cards: tuple[Card, ...], rest: list[Card], push: PushRule
) -> list[tuple[int, ...]]:
    """Each setting's (wins, pushes, losses) against every dealer hand of ``rest``, as the core
    settles it: the dealer set by the house way, every wager but a foul pushed when the dealer's
    hand triggers the push rule, a foul lost."""
    counts = [[0, 0, 0] for _ in range(21)]
    for dealer_cards in itertools.combinations(rest, 7):
        dealer = HW.set_hand(dealer_cards).setting
        pushes = push_triggered(push, dealer_cards, dealer)
        for k, s in enumerate(all_settings(cards)):
            outcome = (
                Outcome.LOSS
                if s.is_foul
                else Outcome.PUSH
                if pushes
                else settle(s, dealer, 100, Commission("0")).outcome
            )
            counts[k][(Outcome.WIN, Outcome.PUSH, Outcome.LOSS).index(outcome)] += 1
    return [tuple(c) for c in counts]


@pytest.mark.exhaustive  # a push rule's view of the dealer's hands copies the whole compiled table
@pytest.mark.parametrize("push", [PushRule.QUEEN_HIGH_PAI_GOW, PushRule.NINE_HIGH_LOW])
def test_a_push_rule_with_the_dealer_face_down_is_counted_as_the_core_settles(
    compiled: CompiledHouseWay, push: PushRule
) -> None:
    """At an EZ or commission-free table, the dealer's cards face down: each setting's counts on a
    reduced deck (:func:`analyze` over the push rule's view of the dealer's hands, as the prices
    take it) against the core's own settlement of every dealer hand."""
    from paigow.analysis import pushed as P
    from paigow.analysis.analyze import analyze

    deck = list(parse_cards(PUSH_DECK))
    indices = [c.index for c in deck]
    rng = random.Random(push.value)
    changed = 0
    try:
        for _ in range(16):
            cards = tuple(rng.sample(deck, 7))
            want = _core_counts(cards, [c for c in deck if c not in cards], push)
            a = analyze(cards, compiled, Commission("0"), workers=1, push=push, deck=indices)
            assert a.dealer_hands == 36
            assert [(r.win, r.push, r.loss) for r in a.settings] == want
            plain = analyze(cards, compiled, Commission("0"), workers=1, deck=indices)
            changed += [(r.win, r.push, r.loss) for r in plain.settings] != want
    finally:
        P.dealer_view.cache_clear()
    assert changed >= 3  # the push rule changed some hands' counts


@pytest.mark.slow  # builds a reduced deck's structures (seconds)
def test_the_structures_count_a_reduced_deck_as_the_histogram(
    compiled: CompiledHouseWay, table_folder: Path
) -> None:
    """:func:`analyze_with` (the optimal player's structures, the fast path) and :func:`analyze`
    (the dealer's histogram) agree on every setting of hands of a reduced deck."""
    from paigow.analysis import optimal as O
    from paigow.analysis.analyze import analyze, analyze_with
    from paigow.analysis.runner import TableSpec

    indices = [i for i in range(52) if i // 4 + 2 >= 11] + [52]  # J, Q, K, A and the joker
    deck = [c for c in FULL_DECK if c.index in indices]
    spec = TableSpec.of(compiled.way, Wheel.SECOND, table_folder)
    try:
        st = O.structures(spec, tuple(indices), False)
        rng = random.Random(7)
        for _ in range(8):
            cards = tuple(rng.sample(deck, 7))
            fast = analyze_with(cards, compiled, st, Commission("0.05"))
            slow = analyze(cards, compiled, Commission("0.05"), workers=1, deck=indices)
            assert fast == slow and fast.dealer_hands == 120  # C(10, 7)
    finally:
        O.structures.cache_clear()
