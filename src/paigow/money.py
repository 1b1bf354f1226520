"""Money: integer minor units (cents), parsed and shown without floats.

>>> parse_money("12.50"), parse_money("$1,000"), format_money(1250), format_money(-75)
(1250, 100000, '$12.50', '-$0.75')
>>> parse_money("1.005")
Traceback (most recent call last):
...
ValueError: '1.005' has more than two decimal places
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_AMOUNT = re.compile(r"\d{1,15}(\.\d+)?|\.\d+")


def parse_money(text: str) -> int:
    """Dollars as typed (``"25"``, ``"12.50"``, ``"$1,000"``) -> cents; never negative.

    >>> parse_money("1e9")
    Traceback (most recent call last):
    ...
    ValueError: '1e9' is not an amount of money
    """
    cleaned = text.strip().replace(",", "").removeprefix("$").strip()
    if not _AMOUNT.fullmatch(cleaned):
        raise ValueError(f"{text!r} is not an amount of money")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:  # pragma: no cover - the pattern admits only plain decimals
        raise ValueError(f"{text!r} is not an amount of money") from None
    cents = value * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"{text!r} has more than two decimal places")
    return int(cents)


def format_money(cents: int) -> str:
    """Cents -> ``$1,234.56`` (``-$0.75`` for negatives)."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"
