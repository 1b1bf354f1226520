"""What a pay table pays: odds, fixed amounts and meter shares; Envy and the progressive.

>>> Pay.parse("2 to 1").text, Pay.parse("$1,000").text, Pay.parse("100% of meter").text
('2 to 1', '$1,000.00', '100% of meter')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from paigow.bonus.hand import BonusCategory
from paigow.errors import PayTableError
from paigow.money import format_money, parse_money

#: The default Envy minimum: a bonus wager of at least $5.
ENVY_MINIMUM: Final = 500

_ODDS = re.compile(r"(\d{1,9})\s*to\s*(\d{1,9})", re.IGNORECASE)
_METER = re.compile(r"(\d{1,3}(?:\.\d{1,4})?)\s*%\s*of\s*(?:the\s*)?meter", re.IGNORECASE)
PERCENT = re.compile(r"(\d{1,3}(?:\.\d{1,4})?)\s*%")
_PAY_HELP: Final = 'write "N to 1", "N to M", "$500" or "10% of meter"'


class Target(StrEnum):
    """Whose cards a side wager settles on."""

    PLAYER = "player"
    """The player's own seven cards."""
    DEALER = "dealer"
    """The dealer's seven cards."""
    DEALER_LOW = "dealer-low"
    """The dealer's two-card low hand as the house way sets it."""


class PayKind(StrEnum):
    ODDS = "odds"
    FIXED = "fixed"
    METER = "meter"


def percent_text(share: Fraction) -> str:
    """A share as a percentage.

    >>> percent_text(Fraction(1, 10)), percent_text(Fraction(3, 40))
    ('10%', '7.5%')
    """
    pct = share * 100
    if pct.denominator == 1:
        return f"{pct.numerator}%"
    text = format(Decimal(pct.numerator) / Decimal(pct.denominator), "f").rstrip("0")
    return f"{text}%"


def parse_percent(text: str) -> Fraction:
    """``"7.5"`` (percent) -> ``Fraction(3, 40)``."""
    return Fraction(Decimal(text)) / 100


@dataclass(frozen=True, slots=True)
class Pay:
    """What one category pays: odds (``ratio``), a fixed amount (``amount`` cents) or a share of the
    progressive meter (``share``).

    >>> Pay.parse("15 to 1").win(500), Pay.parse("3 to 2").win(101), Pay.parse("$500").win(100)
    (7500, 151, 50000)
    >>> Pay.parse("10% of meter").win(100, meter=1234567), Pay.parse("7.5% of meter").text
    (123456, '7.5% of meter')
    """

    kind: PayKind
    ratio: Fraction = Fraction(0)
    amount: int = 0
    share: Fraction = Fraction(0)

    @classmethod
    def odds(cls, to_win: int, per: int = 1) -> Pay:
        if to_win <= 0 or per <= 0:
            raise ValueError(f"odds must be positive, got {to_win} to {per}")
        return cls(PayKind.ODDS, ratio=Fraction(to_win, per))

    @classmethod
    def fixed(cls, cents: int) -> Pay:
        if cents <= 0:
            raise ValueError(f"a fixed pay must be more than zero, got {cents} cents")
        return cls(PayKind.FIXED, amount=cents)

    @classmethod
    def meter(cls, share: Fraction) -> Pay:
        if not 0 < share <= 1:
            raise ValueError("a meter pay must be more than 0% and at most 100% of the meter")
        return cls(PayKind.METER, share=share)

    @classmethod
    def parse(cls, text: object) -> Pay:
        """From ``"N to 1"``, ``"N to M"``, ``"$500"`` or ``"P% of meter"`` (ValueError otherwise)."""
        if not isinstance(text, str):
            raise ValueError(f"{text!r} is not a pay ({_PAY_HELP}; amounts in quotes)")
        raw = text.strip()
        if raw.startswith("-"):
            raise ValueError(f"{text!r} is negative: a pay must be more than zero")
        if m := _ODDS.fullmatch(raw):
            if int(m[1]) == 0 or int(m[2]) == 0:
                raise ValueError(f"{text!r} pays nothing: odds must be more than zero")
            return cls.odds(int(m[1]), int(m[2]))
        if m := _METER.fullmatch(raw):
            share = parse_percent(m[1])
            if not 0 < share <= 1:
                raise ValueError(f"{text!r}: a meter pay is more than 0% and at most 100%")
            return cls.meter(share)
        if raw.startswith("$"):
            try:
                cents = parse_money(raw)
            except ValueError as exc:
                raise ValueError(f"{text!r} is not an amount: {exc}") from None
            if cents <= 0:
                raise ValueError(f"{text!r} pays nothing: an amount must be more than zero")
            return cls.fixed(cents)
        raise ValueError(f"{text!r} is not a pay ({_PAY_HELP})")

    @property
    def text(self) -> str:
        """The pay as a pay table writes it (``parse(text)`` gives it back)."""
        if self.kind is PayKind.ODDS:
            return f"{self.ratio.numerator} to {self.ratio.denominator}"
        if self.kind is PayKind.FIXED:
            return format_money(self.amount)
        return f"{percent_text(self.share)} of meter"

    def value(self, wager: int, meter: int | None = None) -> Fraction:
        """The exact amount won (cents, before flooring)."""
        if self.kind is PayKind.ODDS:
            return wager * self.ratio
        if self.kind is PayKind.FIXED:
            return Fraction(self.amount)
        if meter is None:
            raise PayTableError(f"{self.text} needs the progressive meter's amount")
        return meter * self.share

    def win(self, wager: int, meter: int | None = None) -> int:
        """Cents won, the wager not included, floored to the cent."""
        return int(self.value(wager, meter) // 1)


@dataclass(frozen=True, slots=True)
class Envy:
    """Envy: ``amounts[c]`` cents paid to a player whose bonus wager is at least ``minimum``, for
    each other player's hand at the table holding ``c`` (the best such amount per hand)."""

    minimum: int = ENVY_MINIMUM
    amounts: Mapping[BonusCategory, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.minimum, bool) or not isinstance(self.minimum, int) or self.minimum < 0:
            raise ValueError(f"the Envy minimum must be cents >= 0, got {self.minimum!r}")
        if any(
            isinstance(a, bool) or not isinstance(a, int) or a <= 0 for a in self.amounts.values()
        ):
            raise ValueError("every Envy amount must be a positive number of cents")
        object.__setattr__(self, "amounts", MappingProxyType(dict(self.amounts)))

    def amount(self, held: Iterable[BonusCategory]) -> int:
        """Cents due for one other player's hand (0 when it holds no Envy category).

        >>> e = Envy(500, {BonusCategory.FIVE_ACES: 50000, BonusCategory.FOUR_OF_A_KIND: 5000})
        >>> e.amount({BonusCategory.FIVE_ACES, BonusCategory.FOUR_OF_A_KIND}), e.amount(set())
        (50000, 0)
        """
        return max((self.amounts.get(c, 0) for c in held), default=0)


@dataclass(frozen=True, slots=True)
class Progressive:
    """A progressive: ``share`` of each progressive wager goes to the meter, which starts (and is
    reset after a meter pay) at ``seed`` cents; ``wager`` is the fixed progressive wager if any."""

    share: Fraction
    seed: int
    wager: int | None = None

    @property
    def reset(self) -> int:
        """The meter's amount after a hit that pays from it: the seed."""
        return self.seed
