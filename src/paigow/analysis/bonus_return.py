"""The exact return of a side wager's pay table, from the bonus counts
(:mod:`paigow.analysis.bonus_counts`): every figure a :class:`~fractions.Fraction`.

A hand is paid as the best-paid category it holds (ties: the declared order), at the wager and
meter given; the wager is lost on a hand the table does not pay. The return per unit wagered is

    sum over signatures of  P(signature) * win(best category) / wager   -  P(not paid)

where the probabilities are exact counts over the 154,143,080 hands: the seven-card
distribution for bets on the player's seven cards; for bets on the dealer, the same joined with
the low hand the house way sets from each hand (the dealer's seven cards are dealt from the same
shuffled deck, so they are a uniform seven-card hand too). Pays are taken exactly (the settlement floors
each win to the cent; at whole-dollar wagers and "N to 1" odds the two agree).

>>> from paigow.bonus import PayTable
>>> from paigow.cards import parse_cards
>>> from paigow.house_way import HouseWay
>>> deck = parse_cards("As Ks Qs Js Ts 9s 8s Ah Kh Qh Jh Th 9h 8h Jk")
>>> counts = deck_counts(deck, HouseWay.load("standard"))
>>> a = analyze(PayTable.load("fortune-a"), counts)
>>> a.hands, a.paid_hands, a.paid_return > 0
(6435, 4455, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from paigow.analysis.bonus_counts import BonusCounts, deck_counts
from paigow.bonus import BonusCategory, Pay, PayKind, PayTable, Target
from paigow.bonus.hand import ORDER
from paigow.money import format_money

MAX_PLAYERS: Final = 6
"""Betting spots at a table: Envy is paid for up to five other players."""

__all__ = [
    "MAX_PLAYERS",
    "BonusAnalysis",
    "PaidLine",
    "analyze",
    "break_even_meter",
    "decimal",
    "deck_counts",
    "default_wager",
]


def decimal(value: Fraction, places: int = 6) -> str:
    """An exact fraction as a decimal rounded half away from zero to ``places``.

    >>> decimal(Fraction(-1, 3)), decimal(Fraction(2, 3), 4), decimal(Fraction(5))
    ('-0.333333', '0.6667', '5.000000')
    """
    scaled = abs(value) * 10**places
    whole = int(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and whole else ""
    text = str(whole).rjust(places + 1, "0")
    return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"


def _value(pay: Pay, wager: int, meter: Fraction) -> Fraction:
    """What ``pay`` wins at ``wager`` cents and a meter of ``meter`` cents, exactly."""
    if pay.kind is PayKind.ODDS:
        return wager * pay.ratio
    if pay.kind is PayKind.FIXED:
        return Fraction(pay.amount)
    return meter * pay.share


def _best(
    table: PayTable, held: Iterable[BonusCategory], wager: int, meter: Fraction
) -> BonusCategory | None:
    """As :meth:`PayTable.best`, at any (fractional) meter."""
    paid = [c for c in held if c in table.pays]
    if not paid:
        return None
    return min(paid, key=lambda c: (-_value(table.pays[c], wager, meter), ORDER[c]))


def default_wager(table: PayTable) -> int:
    """The wager (cents) figures are given at when none is: the progressive's fixed wager,
    else the Envy minimum (the smallest wager Envy is paid on), else $1."""
    if table.progressive is not None and table.progressive.wager is not None:
        return table.progressive.wager
    if table.envy is not None:
        return table.envy.minimum
    return 100


def _distribution(table: PayTable, counts: BonusCounts) -> dict[frozenset[BonusCategory], int]:
    """Hands by what they hold, for the table's target."""
    if table.target is Target.DEALER_LOW:
        return {
            frozenset() if c is None else frozenset({c}): n for c, n in counts.dealer_low.items()
        }
    if table.target is Target.DEALER:
        return counts.dealer
    return counts.signatures


@dataclass(frozen=True)
class PaidLine:
    """One paid category: its pay, the hands paid as it and what each wins per unit wagered."""

    category: BonusCategory
    pays: str
    hands: int
    win: Fraction

    def contribution(self, total: int) -> Fraction:
        """Its part of the return per unit wagered."""
        return Fraction(self.hands, total) * self.win


@dataclass(frozen=True)
class BonusAnalysis:
    """A pay table's exact figures over every hand (see the module's docstring)."""

    table: PayTable
    hands: int
    wager: int
    meter: int | None
    lines: tuple[PaidLine, ...]
    envy_per_other: Fraction | None
    """Envy's expected cents per other player at the table (None: no Envy)."""
    break_even: Fraction | None
    """The meter (cents) at which the return is zero (None: no meter pay)."""
    house_way: str = ""

    @property
    def paid_hands(self) -> int:
        return sum(line.hands for line in self.lines)

    @property
    def paid_return(self) -> Fraction:
        """The return per unit wagered on the table's own pays (negative: the house's edge)."""
        won = sum((line.win * line.hands for line in self.lines), Fraction(0))
        return (won - (self.hands - self.paid_hands)) / self.hands

    @property
    def envy_qualifies(self) -> bool:
        return self.table.envy is not None and self.wager >= self.table.envy.minimum

    def envy_return(self, players: int) -> Fraction:
        """Envy's part of the return per unit wagered with ``players`` at the table (you
        included): by linearity, (players - 1) times its value per other player."""
        if not 1 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 1..{MAX_PLAYERS}, got {players}")
        if self.envy_per_other is None or not self.envy_qualifies:
            return Fraction(0)
        return (players - 1) * self.envy_per_other / self.wager

    def total_return(self, players: int = 1) -> Fraction:
        """The return per unit wagered, Envy included, with ``players`` at the table."""
        return self.paid_return + self.envy_return(players)

    def to_dict(self, players: int = 1) -> dict[str, Any]:
        """JSON-ready: decimals for reading, exact fractions as strings beside them."""
        t = self.table
        out: dict[str, Any] = {
            "pay_table": t.name,
            "title": t.title,
            "target": t.target.value,
            "house_way": self.house_way if t.target is Target.DEALER_LOW else None,
            "hands": self.hands,
            "wager": format_money(self.wager),
            "meter": None if self.meter is None else format_money(self.meter),
            "lines": [
                {
                    "category": line.category.value,
                    "pays": line.pays,
                    "hands": line.hands,
                    "probability": float(Fraction(line.hands, self.hands)),
                    "win_per_unit": str(line.win),
                    "return": float(line.contribution(self.hands)),
                }
                for line in self.lines
            ],
            "losing_hands": self.hands - self.paid_hands,
            "return": float(self.paid_return),
            "return_exact": str(self.paid_return),
            "house_edge": float(-self.paid_return),
        }
        if self.envy_per_other is not None:
            out["envy"] = {
                "minimum": format_money(t.envy.minimum) if t.envy else None,
                "qualifies": self.envy_qualifies,
                "per_other_player_cents": float(self.envy_per_other),
                "per_other_player_exact": str(self.envy_per_other),
                "by_players": {
                    str(n): {
                        "return": float(self.total_return(n)),
                        "return_exact": str(self.total_return(n)),
                    }
                    for n in range(1, MAX_PLAYERS + 1)
                },
            }
        out["players"] = players
        out["total_return"] = float(self.total_return(players))
        out["total_return_exact"] = str(self.total_return(players))
        if self.break_even is not None:
            out["break_even_meter"] = format_money(int(-(-self.break_even // 1)))
            out["break_even_meter_exact_cents"] = str(self.break_even)
        return out


def _lines(
    table: PayTable, dist: Mapping[frozenset[BonusCategory], int], wager: int, meter: Fraction
) -> tuple[PaidLine, ...]:
    paid: dict[BonusCategory, int] = {}
    for held, n in dist.items():
        best = _best(table, held, wager, meter)
        if best is not None:
            paid[best] = paid.get(best, 0) + n
    return tuple(
        PaidLine(c, p.text, paid.get(c, 0), _value(p, wager, meter) / wager)
        for c, p in table.pays.items()
    )


def _linear(
    table: PayTable, dist: Mapping[frozenset[BonusCategory], int], wager: int, meter: Fraction
) -> tuple[Fraction, Fraction]:
    """(c0, c1): the return per unit is c0 + c1 * m for meters m where each hand's best
    category is the one it has at ``meter``."""
    total = sum(dist.values())
    c0, c1 = Fraction(0), Fraction(0)
    for held, n in dist.items():
        best = _best(table, held, wager, meter)
        if best is None:
            c0 -= Fraction(n, total)
            continue
        pay = table.pays[best]
        if pay.kind is PayKind.METER:
            c1 += Fraction(n, total) * pay.share / wager
        else:
            c0 += Fraction(n, total) * _value(pay, wager, meter) / wager
    return c0, c1


def break_even_meter(
    table: PayTable, dist: Mapping[frozenset[BonusCategory], int], wager: int
) -> Fraction | None:
    """The smallest meter (cents, exact) at which the return per unit is zero; None when the
    table pays nothing from a meter. The return is piecewise linear in the meter, its pieces cut
    where a meter pay overtakes another pay; each piece is solved exactly.

    >>> from paigow.bonus import BonusCategory as C
    >>> t = PayTable.from_dict({"name": "p", "target": "player", "pays": {"flush": "100% of meter"},
    ...     "progressive": {"share": "10%", "seed": "$1"}})
    >>> break_even_meter(t, {frozenset({C.FLUSH}): 1, frozenset(): 9}, 100)
    Fraction(900, 1)
    """
    shares = [p.share for p in table.pays.values() if p.kind is PayKind.METER]
    if not shares:
        return None
    cuts = {Fraction(0)}
    for share in shares:
        for pay in table.pays.values():
            if pay.kind is not PayKind.METER:
                cuts.add(_value(pay, wager, Fraction(0)) / share)
    points = sorted(cuts)
    for lo, hi in zip(points, [*points[1:], None], strict=True):
        probe = lo + 1 if hi is None else (lo + hi) / 2
        c0, c1 = _linear(table, dist, wager, probe)
        if c1 == 0:
            if c0 >= 0:
                return lo
            continue
        root = -c0 / c1
        if root <= lo:
            return lo
        if hi is None or root <= hi:
            return root
    return None  # pragma: no cover - the last piece always has a root


def analyze(
    table: PayTable,
    counts: BonusCounts,
    wager: int | None = None,
    meter: int | None = None,
) -> BonusAnalysis:
    """The exact figures of ``table`` over the hands ``counts`` counts, at ``wager`` cents
    (default :func:`default_wager`) and, for a progressive, a meter of ``meter`` cents (default
    the seed)."""
    stake = default_wager(table) if wager is None else wager
    if stake <= 0:
        raise ValueError(f"the wager must be more than zero, got {stake} cents")
    if meter is None and table.progressive is not None:
        meter = table.progressive.seed
    if meter is not None and meter < 0:
        raise ValueError(f"the meter cannot be negative, got {meter} cents")
    dist = _distribution(table, counts)
    hands = sum(dist.values())
    at = Fraction(meter or 0)
    envy = None
    if table.envy is not None:
        amounts = sum((table.envy.amount(held) * n for held, n in counts.signatures.items()), 0)
        envy = Fraction(amounts, counts.hands)
    return BonusAnalysis(
        table=table,
        hands=hands,
        wager=stake,
        meter=meter,
        lines=_lines(table, dist, stake, at),
        envy_per_other=envy,
        break_even=break_even_meter(table, dist, stake),
        house_way=counts.house_way,
    )
