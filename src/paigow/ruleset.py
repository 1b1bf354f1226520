"""The ruleset: every choice the rule book leaves to the operator, with Indiana's defaults
(docs/rulebook.md#ruleset-settings).

>>> r = Ruleset()
>>> r.commission.on(10000), r.wheel.value, r.foul.value, r.start.value, r.banker
(500, 'second', 'loses', 'dice', 'house')
>>> Ruleset(banker="player")
Traceback (most recent call last):
...
paigow.errors.RulesetError: banker 'player' is not allowed: under 68 IAC 10-9-1(e) the house is always the banker (no player-banker or co-bank)
>>> Ruleset.from_dict(Ruleset(commission=Commission("0.04")).to_dict()).commission
Commission('0.04')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any

from paigow.commission import Commission
from paigow.errors import RulesetError
from paigow.money import format_money
from paigow.ranking import Wheel


class FoulRule(StrEnum):
    """What happens to a fouled player hand."""

    LOSES = "loses"
    """Indiana, 9-13(a): the foul hand loses."""
    RESET = "reset"
    """Used elsewhere: the hand is set by the house way instead."""


class StartMethod(StrEnum):
    """How the starting position is chosen (9-1(d)(12), (14))."""

    DICE = "dice"
    """The shaker: three dice, totalled."""
    RNG = "rng"
    """A random number generator showing 1..7."""


BANKERS = ("house",)
REFUSED_BANKERS = {
    "player": "player-banker",
    "player-banker": "player-banker",
    "co-bank": "co-bank",
    "cobank": "co-bank",
}


def _enum(kind: type[Enum], value: object, name: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = " | ".join(str(m.value) for m in kind)
        raise RulesetError(f"{name} {value!r} is not one of: {allowed}") from None


@dataclass(frozen=True)
class Ruleset:
    """The rules a table runs under. Defaults are Indiana's; money is in minor units (cents)."""

    commission: Commission = field(default_factory=Commission)
    banker: str = "house"
    wheel: Wheel = Wheel.SECOND
    foul: FoulRule = FoulRule.LOSES
    start: StartMethod = StartMethod.DICE
    house_way: str = "standard"
    set_time_limit: int = 60
    min_wager: int = 500
    max_wager: int = 100_000

    def __post_init__(self) -> None:
        if not isinstance(self.commission, Commission):
            object.__setattr__(self, "commission", Commission(self.commission))
        banker = str(self.banker).strip().lower()
        if banker in REFUSED_BANKERS or banker not in BANKERS:
            raise RulesetError(
                f"banker {self.banker!r} is not allowed: under 68 IAC 10-9-1(e) the house is "
                "always the banker (no player-banker or co-bank)"
            )
        object.__setattr__(self, "wheel", _enum(Wheel, self.wheel, "wheel"))
        object.__setattr__(self, "foul", _enum(FoulRule, self.foul, "foul rule"))
        object.__setattr__(self, "start", _enum(StartMethod, self.start, "start"))
        for name in ("set_time_limit", "min_wager", "max_wager"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesetError(f"{name} must be an integer, got {value!r}")
        if self.set_time_limit <= 0:
            raise RulesetError("set_time_limit must be positive (seconds)")
        if self.min_wager <= 0:
            raise RulesetError("min_wager must be at least one minor unit")
        if self.max_wager < self.min_wager:
            raise RulesetError(
                f"max_wager {format_money(self.max_wager)} is below min_wager "
                f"{format_money(self.min_wager)}"
            )
        if not self.house_way:
            raise RulesetError("house_way must name a preset")

    @classmethod
    def indiana(cls) -> Ruleset:
        """The Indiana defaults of docs/rulebook.md#ruleset-settings."""
        return cls()

    def with_(self, **changes: Any) -> Ruleset:
        """A copy with some settings changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the commission as an exact string)."""
        return {
            "commission": self.commission.as_str(),
            "banker": self.banker,
            "wheel": self.wheel.value,
            "foul": self.foul.value,
            "start": self.start.value,
            "house_way": self.house_way,
            "set_time_limit": self.set_time_limit,
            "min_wager": self.min_wager,
            "max_wager": self.max_wager,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Inverse of :meth:`to_dict`; unknown keys are refused."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesetError(f"unknown ruleset setting(s): {', '.join(unknown)}")
        values = dict(data)
        if "commission" in values:
            values["commission"] = Commission(values["commission"])
        return cls(**values)
