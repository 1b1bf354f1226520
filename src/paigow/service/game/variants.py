"""A table's variant (docs/rulebook.md#push-rules-face-up-and-the-dragon-hand): the settings a named
variant gives a new table, and the push rule, face up and the dragon hand a table posts beside its
commission."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paigow.errors import PaigowError
from paigow.ruleset import PushRule, Ruleset
from paigow.service.http_errors import Unprocessable

__all__ = ["posted_variant", "variant_settings"]


def variant_settings(name: str | None) -> dict[str, Any]:
    """The commission (as posted), push rule and face up of a named variant (None: Indiana's).

    >>> variant_settings("ez")
    {'commission': '0%', 'push': 'queen-high-pai-gow', 'face_up': False}
    >>> variant_settings("vegas")
    Traceback (most recent call last):
    ...
    paigow.service.http_errors.Unprocessable: no variant 'vegas' (variants: indiana, ez, commission-free, face-up)
    """
    try:
        rs = Ruleset.preset(name or "indiana")
    except PaigowError as exc:
        raise Unprocessable(str(exc), code="bad-variant") from None
    return {"commission": str(rs.commission), "push": rs.push.value, "face_up": rs.face_up}


def posted_variant(rs: Mapping[str, Any]) -> dict[str, Any]:
    """The variant a table posts beside its commission: its push rule (the rule's value and the
    words posted), whether the dealer's hand is dealt face up and whether the dragon hand (an
    empty spot's packet) is offered.

    >>> posted_variant({"push": "queen-high-pai-gow"})["push_posted"]
    "dealer's queen-high pai gow: every wager pushes"
    >>> posted_variant({})
    {'push': 'none', 'push_posted': None, 'face_up': False, 'dragon': False, 'price_settings': False}
    """
    push = PushRule(rs.get("push", PushRule.NONE.value))
    posted = None if push is PushRule.NONE else f"{push.words}: every wager pushes"
    return {
        "push": push.value,
        "push_posted": posted,
        "face_up": bool(rs.get("face_up", False)),
        "dragon": bool(rs.get("dragon", False)),
        "price_settings": bool(rs.get("price_settings", False)),
    }
