"""The price of a setting: what the setting a player played was worth against the best of the
hand's 21 settings and the house way's, in money for the wager that was on it.

Each setting's exact expectation comes from :mod:`paigow.analysis.analyze`: over every dealer
hand of the other 46 cards set by the house way (:func:`~paigow.analysis.analyze.analyze`, or
:func:`~paigow.analysis.analyze.analyze_fast` when the optimal player's structures are built), or
at a Face Up table against the dealer's exposed setting, where each setting's outcome is certain
(:func:`~paigow.analysis.analyze.analyze_against`, the push rule applied). The money is exact: a
win pays the wager less the commission the table takes on it (rounded to the cent as the table
rounds it), a loss costs the wager, so a setting's expectation for a wager ``W`` is
``(wins * (W - commission(W)) - losses * W) / dealer hands`` cents, a fraction.

At a table with a push rule (EZ pai gow, commission-free) and its dealer's cards face down, the
dealer hands that trigger the rule push every setting but a foul: the counts are over the push
rule's own view of the dealer's hands (:func:`~paigow.analysis.analyze.dealer_view`).

>>> from paigow.cards import parse_cards
>>> from paigow.house_way import HouseWay
>>> from paigow.ruleset import Ruleset
>>> dealer = Setting.from_low(parse_cards("Ks Kd 8c 6h 4s 3d 2c"), ["3d", "2c"])
>>> cards = parse_cards("As Ad Jc 9h 7s 5d 4c")
>>> played = Setting.from_low(cards, ["As", "Ad"])  # a foul: loses
>>> p = price_hand(cards, played, 1000, Ruleset.preset("face-up"), HouseWay.load("standard"),
...                exposed=(dealer, False))
>>> p.played.cents, p.best.cents, p.given_up_cents, p.against
(Fraction(-1000, 1), Fraction(1000, 1), Fraction(2000, 1), 'exposed')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from paigow.analysis.analyze import HandAnalysis, SettingResult, analyze, analyze_against
from paigow.analysis.compiled import CompiledHouseWay
from paigow.cards import Card
from paigow.house_way import HouseWay
from paigow.ruleset import Ruleset
from paigow.setting import Setting


@dataclass(frozen=True)
class SettingPrice:
    """One setting and its exact expectation: per unit wagered (``ev``) and in cents for the
    wager (``cents``)."""

    setting: Setting
    ev: Fraction
    cents: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "high": [c.code for c in self.setting.high],
            "low": [c.code for c in self.setting.low],
            "foul": self.setting.is_foul,
            "ev": str(self.ev),
            "ev_cents": str(self.cents),
            "ev_dollars": dollars(self.cents),
        }


@dataclass(frozen=True)
class HandPrice:
    """A hand's played setting, the best and the house way's, priced for ``wager`` cents."""

    cards: tuple[Card, ...]
    wager: int
    played: SettingPrice
    best: SettingPrice
    house_way: SettingPrice
    house_way_rule: str
    against: str
    dealer_hands: int

    @property
    def given_up_cents(self) -> Fraction:
        """What the played setting gave up against the best (cents, never negative)."""
        return self.best.cents - self.played.cents

    @property
    def house_given_up_cents(self) -> Fraction:
        """What the played setting gave up against the house way's (negative: it did better)."""
        return self.house_way.cents - self.played.cents

    def to_dict(self) -> dict[str, Any]:
        house = self.house_way  # a setting's price (not a HouseWay)
        return {
            "cards": [c.code for c in self.cards],
            "wager": self.wager,
            "played": self.played.to_dict(),
            "best": self.best.to_dict(),
            "house_way": {**house.to_dict(), "rule": self.house_way_rule},
            "given_up_cents": str(self.given_up_cents),
            "given_up_dollars": dollars(self.given_up_cents),
            "house_given_up_cents": str(self.house_given_up_cents),
            "house_given_up_dollars": dollars(self.house_given_up_cents),
            "against": self.against,
            "dealer_hands": self.dealer_hands,
        }


def dollars(cents: Fraction) -> str:
    """An exact amount of cents in dollars, rounded to the cent (half away from zero).

    >>> dollars(Fraction(-1255, 2)), dollars(Fraction(1, 3)), dollars(Fraction(0))
    ('-$6.28', '$0.00', '$0.00')
    """
    whole = int(abs(cents) + Fraction(1, 2))
    sign = "-" if cents < 0 and whole else ""
    return f"{sign}${whole // 100:,}.{whole % 100:02d}"


def _money(result: SettingResult, total: int, wager: int, ruleset: Ruleset) -> Fraction:
    paid = wager - ruleset.commission.on(wager)
    return Fraction(result.win * paid - result.loss * wager, total)


def priced(analysis: HandAnalysis, played: Setting, wager: int, ruleset: Ruleset) -> HandPrice:
    """The price of ``played`` from a hand's analysis (its 21 settings' counts)."""
    total = analysis.dealer_hands
    i = next(k for k, r in enumerate(analysis.settings) if r.setting.same_hands(played))

    def at(k: int) -> SettingPrice:
        r = analysis.settings[k]
        return SettingPrice(r.setting, r.ev, _money(r, total, wager, ruleset))

    money = [_money(r, total, wager, ruleset) for r in analysis.settings]
    best = max(range(len(money)), key=lambda k: (money[k], k == analysis.house_way, -k))
    return HandPrice(
        analysis.cards,
        wager,
        at(i),
        at(best),
        at(analysis.house_way),
        analysis.house_way_rule,
        analysis.against,
        total,
    )


def price_hand(
    cards: tuple[Card, ...],
    played: Setting,
    wager: int,
    ruleset: Ruleset,
    way: HouseWay,
    *,
    exposed: tuple[Setting, bool] | None = None,
    compiled: CompiledHouseWay | None = None,
) -> HandPrice:
    """The price of ``played`` (a setting of ``cards``) for ``wager`` cents at a table of
    ``ruleset``: against the exposed dealer setting (``exposed``: the setting and whether it
    triggers the push rule) or over every dealer hand (``compiled``: the house way's compiled
    table, under the table's push rule). Raises ValueError when neither applies (no compiled
    table)."""
    if exposed is not None:
        dealer, pushes = exposed
        a = analyze_against(
            cards, dealer, way, ruleset.wheel, ruleset.commission, ruleset.foul, pushes=pushes
        )
        return priced(a, played, wager, ruleset)
    if compiled is None:
        raise ValueError("not priced: the house way's analysis table is not compiled here")
    from paigow.analysis.analyze import analyze_fast

    a = analyze_fast(cards, compiled, ruleset.commission, ruleset.foul, ruleset.push) or analyze(
        cards, compiled, ruleset.commission, ruleset.foul, workers=1, push=ruleset.push
    )
    return priced(a, played, wager, ruleset)
