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

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any, Final, cast

import orjson

from paigow.bonus.paytable import PayTable
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


class PushRule(StrEnum):
    """A dealer's hand on which every player's main wager pushes (docs/rulebook.md#push-rules),
    the rule of the commission-free games; a fouled hand still loses."""

    NONE = "none"
    """Indiana's default: no such hand."""
    QUEEN_HIGH_PAI_GOW = "queen-high-pai-gow"
    """EZ pai gow: the dealer's seven cards are a pai gow, queen high (never with the joker)."""
    NINE_HIGH_LOW = "nine-high-low"
    """Commission-free: the dealer's low hand, set by the house way, is a nine and a lower card."""
    ACE_HIGH_PAI_GOW = "ace-high-pai-gow"
    """Face Up: the dealer's seven cards are a pai gow, ace high (the joker counting as an ace)."""

    @property
    def words(self) -> str:
        """The dealer's hand in words, as posted.

        >>> PushRule.QUEEN_HIGH_PAI_GOW.words
        "dealer's queen-high pai gow"
        """
        return _PUSH_WORDS[self]


_PUSH_WORDS: Final = {
    PushRule.NONE: "no push rule",
    PushRule.QUEEN_HIGH_PAI_GOW: "dealer's queen-high pai gow",
    PushRule.NINE_HIGH_LOW: "dealer's nine-high low hand",
    PushRule.ACE_HIGH_PAI_GOW: "dealer's ace-high pai gow",
}


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


_OFFER_NAME: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


def _cents(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesetError(f"{name} must be an integer, got {value!r}")
    return value


@dataclass(frozen=True)
class SideWagerOffer:
    """A side wager a table offers: its id at the table (``name``), its pay table and its limits
    (minor units). A progressive offer's meter is its ``bank``'s, shared by the tables whose
    offers name the same bank (default: the pay table's name); other offers have no bank.
    Envy is not an offer of its own: it is the envy section of a pay table."""

    name: str
    table: PayTable
    min_wager: int = 100
    max_wager: int = 10_000
    bank: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _OFFER_NAME.fullmatch(self.name):
            raise RulesetError(
                f"side wager name {self.name!r} must be 1-40 lower-case letters, digits or "
                "hyphens, starting with a letter or digit"
            )
        if not isinstance(self.table, PayTable):
            raise RulesetError(f"side wager {self.name!r}: table must be a PayTable")
        lo = _cents(self.min_wager, f"side wager {self.name!r}: min_wager")
        hi = _cents(self.max_wager, f"side wager {self.name!r}: max_wager")
        if lo <= 0:
            raise RulesetError(f"side wager {self.name!r}: min_wager must be at least one cent")
        if hi < lo:
            raise RulesetError(f"side wager {self.name!r}: max_wager {hi} is below min_wager {lo}")
        if self.table.progressive is None:
            if self.bank is not None:
                raise RulesetError(
                    f"side wager {self.name!r}: only a progressive has a bank "
                    f"({self.table.name!r} is not one)"
                )
        else:
            fixed = self.table.progressive.wager
            if fixed is not None and not lo == hi == fixed:
                raise RulesetError(
                    f"side wager {self.name!r}: the progressive's wager is {fixed} exactly; "
                    f"its limits must both be {fixed}"
                )
            if self.bank is None:
                object.__setattr__(self, "bank", self.table.name)
            elif not isinstance(self.bank, str) or not self.bank:
                raise RulesetError(f"side wager {self.name!r}: bank must be a non-empty name")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, the pay table in full (a round's log never needs the preset files)."""
        out: dict[str, Any] = {
            "name": self.name,
            "table": self.table.to_dict(),
            "min_wager": self.min_wager,
            "max_wager": self.max_wager,
        }
        if self.bank is not None:
            out["bank"] = self.bank
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SideWagerOffer:
        """Inverse of :meth:`to_dict`; unknown keys are refused."""
        if not isinstance(data, Mapping):
            raise RulesetError(f"a side wager offer is a mapping, got {data!r}")
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise RulesetError(f"unknown side wager setting(s): {', '.join(unknown)}")
        if "name" not in data or "table" not in data:
            raise RulesetError("a side wager offer needs a name and a table")
        values = dict(data)
        values["table"] = PayTable.from_dict(values["table"])
        return cls(**values)


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
    side_wagers: tuple[SideWagerOffer, ...] = ()
    """The side wagers offered (none under Indiana's default), each posted with its pay table."""
    push: PushRule = PushRule.NONE
    """The dealer's hand on which every main wager pushes (none under Indiana's default)."""
    face_up: bool = False
    """The dealer's seven cards are dealt face up and set before the players set."""
    dragon: bool = False
    """The dragon hand: one empty spot's packet offered to the seated players."""
    price_settings: bool = False
    """The price of each setting shown to the player after each round (the exact EV of the
    setting played, of the best and of the house way's): a practice table always shows it, a
    casino table only when the operator offers it (off by default, posted with the rules)."""

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
        object.__setattr__(self, "push", _enum(PushRule, self.push, "push rule"))
        for name in ("face_up", "dragon", "price_settings"):
            if not isinstance(getattr(self, name), bool):
                raise RulesetError(f"{name} must be true or false, got {getattr(self, name)!r}")
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
        offers = tuple(self.side_wagers)
        for offer in offers:
            if not isinstance(offer, SideWagerOffer):
                raise RulesetError(f"side_wagers holds SideWagerOffer items, got {offer!r}")
        names = [o.name for o in offers]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise RulesetError(f"side wager(s) offered twice: {', '.join(twice)}")
        object.__setattr__(self, "side_wagers", offers)

    def offer(self, name: str) -> SideWagerOffer:
        """The side wager offered as ``name``.

        >>> Ruleset().offer("fortune")
        Traceback (most recent call last):
        ...
        paigow.errors.RulesetError: no side wager 'fortune' at this table (offered: none)
        """
        for offer in self.side_wagers:
            if offer.name == name:
                return offer
        offered = ", ".join(o.name for o in self.side_wagers) or "none"
        raise RulesetError(f"no side wager {name!r} at this table (offered: {offered})")

    @classmethod
    def indiana(cls) -> Ruleset:
        """The Indiana defaults of docs/rulebook.md#ruleset-settings."""
        return cls()

    @classmethod
    def preset(cls, name: str, **changes: Any) -> Ruleset:
        """A named variant (:data:`VARIANTS`): ``indiana``, or a commission-free game with its
        push rule (``ez``, ``commission-free``, ``face-up``); ``changes`` on top.

        >>> r = Ruleset.preset("ez")
        >>> str(r.commission), r.push.value, r.face_up
        ('0%', 'queen-high-pai-gow', False)
        >>> Ruleset.preset("face-up").face_up
        True
        >>> Ruleset.preset("ez", commission=Commission("0.05")).posted_push()
        "dealer's queen-high pai gow: every wager pushes"
        >>> Ruleset.preset("vegas")
        Traceback (most recent call last):
        ...
        paigow.errors.RulesetError: no variant 'vegas' (variants: indiana, ez, commission-free, face-up)
        """
        if name not in VARIANTS:
            raise RulesetError(f"no variant {name!r} (variants: {', '.join(VARIANTS)})")
        return replace(cls(), **{**VARIANTS[name], **changes})

    def posted_push(self) -> str | None:
        """The push rule as posted at the table (None without one)."""
        if self.push is PushRule.NONE:
            return None
        return f"{self.push.words}: every wager pushes"

    def with_(self, **changes: Any) -> Ruleset:
        """A copy with some settings changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the commission as an exact string; the side wagers, when any are
        offered, with their pay tables in full): a new copy each call, read from the ruleset's
        own JSON, built once (every round's log starts with it, and a side wager's pay table in
        full is about 20 times the rest to build).

        >>> r = Ruleset(min_wager=1000)
        >>> r.to_dict() == r.to_dict() and r.to_dict() is not r.to_dict()
        True
        """
        return cast(dict[str, Any], orjson.loads(self._json))

    @functools.cached_property
    def _json(self) -> bytes:
        out: dict[str, Any] = {
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
        if self.side_wagers:
            out["side_wagers"] = [o.to_dict() for o in self.side_wagers]
        # the variants only when chosen: a default ruleset's record is as before (logs 1-3)
        if self.push is not PushRule.NONE:
            out["push"] = self.push.value
        if self.face_up:
            out["face_up"] = True
        if self.dragon:
            out["dragon"] = True
        if self.price_settings:
            out["price_settings"] = True
        return orjson.dumps(out)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Inverse of :meth:`to_dict`; unknown keys are refused. A ruleset read before is not
        read again (a ruleset is immutable: the same record gives the same one, found by its
        JSON with the keys sorted; its side wagers' pay tables are most of the reading).

        >>> d = Ruleset(min_wager=1000).to_dict()
        >>> Ruleset.from_dict(d) is Ruleset.from_dict(dict(reversed(d.items())))
        True
        >>> Ruleset.from_dict({**d, "min_wager": "1000"})
        Traceback (most recent call last):
        ...
        paigow.errors.RulesetError: min_wager must be an integer, got '1000'
        """
        try:
            key: bytes | None = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # not JSON (a Commission, say): read it, not kept
            key = None
        if key is not None and (known := _READ.get(key)) is not None:
            return known
        ruleset = cls._read(data)
        if key is not None:
            if len(_READ) >= _READ_KEPT:
                _READ.clear()
            _READ[key] = ruleset
        return ruleset

    @classmethod
    def _read(cls, data: dict[str, Any]) -> Ruleset:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesetError(f"unknown ruleset setting(s): {', '.join(unknown)}")
        values = dict(data)
        if "commission" in values:
            values["commission"] = Commission(values["commission"])
        if "side_wagers" in values:
            offers = values["side_wagers"]
            if not isinstance(offers, (list, tuple)):
                raise RulesetError(f"side_wagers must be a list of offers, got {offers!r}")
            values["side_wagers"] = tuple(SideWagerOffer.from_dict(o) for o in offers)
        return cls(**values)


_READ: dict[bytes, Ruleset] = {}
"""The rulesets :meth:`Ruleset.from_dict` has read, by their record's JSON (keys sorted)."""
_READ_KEPT: Final = 256


VARIANTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "indiana": {},
    "ez": {"commission": Commission("0"), "push": PushRule.QUEEN_HIGH_PAI_GOW},
    "commission-free": {"commission": Commission("0"), "push": PushRule.NINE_HIGH_LOW},
    "face-up": {
        "commission": Commission("0"),
        "push": PushRule.ACE_HIGH_PAI_GOW,
        "face_up": True,
    },
}
"""The named variants of :meth:`Ruleset.preset`: the settings each changes from Indiana's."""
