"""Settlement of one player's wager against the banker (docs/rulebook.md#settlement, 9-13(e)).

Each hand is compared with the dealer's: a win, a loss, or a copy (identical rank), and copies go
to the banker. Two wins win (even money less commission); one win is a push; none is a loss. A
fouled hand under the Indiana rule loses. Money is integer minor units.

>>> from paigow.cards import parse_cards
>>> from paigow.commission import Commission
>>> player = Setting.from_low(parse_cards("As Ad Kc 9h 7s 5d 2c"), ["Kc", "9h"])
>>> dealer = Setting.from_low(parse_cards("Qs Qh Jc 8d 6s 4h 3c"), ["Jc", "8d"])
>>> r = settle(player, dealer, 1000, Commission("0.05"))
>>> r.outcome.value, r.high.value, r.low.value, r.commission, r.returned, r.net
('win', 'win', 'win', 50, 1950, 950)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from paigow.commission import Commission
from paigow.ranking import Wheel
from paigow.setting import Setting


class HandResult(StrEnum):
    """One hand against the dealer's."""

    WIN = "win"
    LOSS = "loss"
    COPY = "copy"


class Outcome(StrEnum):
    """The wager's outcome."""

    WIN = "win"
    PUSH = "push"
    LOSS = "loss"


def compare(player: int, dealer: int) -> HandResult:
    """Compare two hand keys: equal is a copy."""
    if player > dealer:
        return HandResult.WIN
    if player < dealer:
        return HandResult.LOSS
    return HandResult.COPY


def outcome_of(high: HandResult, low: HandResult) -> Outcome:
    """Both win: win; one win: push; otherwise loss (copies go to the banker).

    >>> outcome_of(HandResult.WIN, HandResult.COPY).value, outcome_of(HandResult.COPY, HandResult.COPY).value
    ('push', 'loss')
    """
    wins = (high is HandResult.WIN) + (low is HandResult.WIN)
    return (Outcome.LOSS, Outcome.PUSH, Outcome.WIN)[wins]


@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of one wager. ``returned`` is what goes back to the player (wager included);
    ``net`` is the player's gain (negative for a loss). Commission is shown beside every win."""

    outcome: Outcome
    high: HandResult
    low: HandResult
    wager: int
    win: int
    commission: int
    foul: bool = False

    @property
    def returned(self) -> int:
        if self.outcome is Outcome.WIN:
            return self.wager + self.win - self.commission
        return self.wager if self.outcome is Outcome.PUSH else 0

    @property
    def net(self) -> int:
        return self.returned - self.wager

    def to_dict(self) -> dict[str, object]:
        return {
            "outcome": self.outcome.value,
            "high": self.high.value,
            "low": self.low.value,
            "wager": self.wager,
            "win": self.win,
            "commission": self.commission,
            "returned": self.returned,
            "net": self.net,
            "foul": self.foul,
        }


def settle(
    player: Setting,
    dealer: Setting,
    wager: int,
    commission: Commission,
    wheel: Wheel = Wheel.SECOND,
    foul_loses: bool = True,
) -> Settlement:
    """Settle ``wager`` (minor units) on ``player``'s setting against the dealer's.

    A fouled player setting loses when ``foul_loses`` (Indiana); with the reset rule the caller
    replaces the foul by the house way before settling, so a foul never reaches here.
    """
    if not isinstance(wager, int) or isinstance(wager, bool) or wager <= 0:
        raise ValueError(f"a wager is a positive whole number of minor units, got {wager!r}")
    p, d = player.value(wheel), dealer.value(wheel)
    high, low = compare(p.high.key, d.high.key), compare(p.low.key, d.low.key)
    if p.foul and foul_loses:
        return Settlement(Outcome.LOSS, high, low, wager, 0, 0, foul=True)
    if p.foul:
        raise ValueError("a fouled setting must be reset by the house way before settlement")
    outcome = outcome_of(high, low)
    win = wager if outcome is Outcome.WIN else 0
    return Settlement(outcome, high, low, wager, win, commission.on(win), foul=False)
