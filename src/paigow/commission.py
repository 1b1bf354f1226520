"""The commission (vigorish) taken from winning player wagers (docs/rulebook.md#commission, 9-1(f)).

The rate is an exact fraction; the commission on a win is rounded down to the minor unit, in the
player's favour. Money is always integer minor units (cents).

>>> c = Commission("0.05")
>>> c.on(1000), c.on(1019), c.on(19), str(c)
(50, 50, 0, '5%')
>>> Commission("0.06")
Traceback (most recent call last):
...
paigow.errors.RulesetError: commission rate 6% exceeds the 5% maximum of 68 IAC 10-9-1(f)
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Final

from paigow.errors import RulesetError

MAX_RATE: Final = Fraction(5, 100)
"""The highest commission 68 IAC 10-9-1(f) allows."""


def _to_fraction(rate: str | int | Decimal | Fraction | float) -> Fraction:
    if isinstance(rate, bool):
        raise RulesetError("commission rate must be a number, not a boolean")
    if isinstance(rate, Fraction):
        return rate
    if isinstance(rate, float):
        rate = repr(rate)  # 0.05 -> "0.05": the decimal the caller wrote, not the binary double
    if isinstance(rate, str):
        text = rate.strip()
        try:
            if text.endswith("%"):
                return Fraction(Decimal(text[:-1].strip())) / 100
            if "/" in text:
                return Fraction(text)
            return Fraction(Decimal(text))
        except (InvalidOperation, ValueError, ZeroDivisionError):
            raise RulesetError(f"commission rate {rate!r} is not a number") from None
    return Fraction(rate)


def format_rate(rate: Fraction) -> str:
    """``Fraction(1, 20)`` -> ``'5%'``; ``Fraction(1, 40)`` -> ``'2.5%'``."""
    pct = rate * 100
    if pct.denominator == 1:
        return f"{pct.numerator}%"
    return f"{Decimal(pct.numerator) / Decimal(pct.denominator):.4f}".rstrip("0").rstrip(".") + "%"


class Commission:
    """A commission rate between 0 and 5%, applied to wins in integer minor units."""

    __slots__ = ("rate",)
    rate: Fraction

    def __init__(self, rate: str | int | Decimal | Fraction | float = "0.05") -> None:
        value = _to_fraction(rate)
        if value < 0:
            raise RulesetError(f"commission rate {format_rate(value)} is negative")
        if value > MAX_RATE:
            raise RulesetError(
                f"commission rate {format_rate(value)} exceeds the 5% maximum of 68 IAC 10-9-1(f)"
            )
        object.__setattr__(self, "rate", value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Commission is immutable")

    def __reduce__(self) -> tuple[type[Commission], tuple[Fraction]]:
        """Pickled as its rate (a ruleset travels to a worker process as itself).

        >>> import pickle
        >>> pickle.loads(pickle.dumps(Commission("1/30")))
        Commission('1/30')
        """
        return (Commission, (self.rate,))

    def on(self, win: int) -> int:
        """Commission on a win of ``win`` minor units, rounded down."""
        if not isinstance(win, int) or isinstance(win, bool):
            raise TypeError("money is integer minor units")
        if win < 0:
            raise ValueError("commission is taken on wins only")
        return (win * self.rate.numerator) // self.rate.denominator

    def __str__(self) -> str:
        return format_rate(self.rate)

    def __repr__(self) -> str:
        return f"Commission({self.as_str()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Commission) and other.rate == self.rate

    def __hash__(self) -> int:
        return hash(self.rate)

    def as_str(self) -> str:
        """The exact rate as a string that parses back to it: ``"0.05"`` (or ``"1/30"``)."""
        den = self.rate.denominator
        while den % 2 == 0:
            den //= 2
        while den % 5 == 0:
            den //= 5
        if den != 1:
            return f"{self.rate.numerator}/{self.rate.denominator}"
        d = Decimal(self.rate.numerator) / Decimal(self.rate.denominator)
        return format(d.normalize(), "f")
