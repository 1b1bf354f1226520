"""Each setting's price (issue 47) against the settlement's own arithmetic: against a known dealer
setting every setting's outcome is certain, so its price for a wager is what ``settle`` pays it,
the commission rounded to the cent as the table rounds it, a foul lost or reset to the house
way's setting, the push rule applied; on random hands and dealers, odd wagers included."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from paigow.analysis.price import dollars, price_hand
from paigow.cards import FULL_DECK
from paigow.commission import Commission
from paigow.house_way import HouseWay
from paigow.ruleset import FoulRule, Ruleset
from paigow.setting import all_settings
from paigow.settlement import Outcome, settle

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


def test_a_push_rule_with_the_dealer_face_down_is_not_priced() -> None:
    cards = tuple(random.Random(1).sample(FULL_DECK, 7))
    with pytest.raises(ValueError, match="push rule"):
        price_hand(cards, HW.set_hand(cards).setting, 500, Ruleset.preset("ez"), HW)
    with pytest.raises(ValueError, match="not compiled"):
        price_hand(cards, HW.set_hand(cards).setting, 500, Ruleset(), HW)
