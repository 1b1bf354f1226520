"""The events of a round's append-only log (docs/rulebook.md#the-record).

Every step of a round is one event; the log alone is enough to replay the round and re-derive
every result. Events are immutable and convert to and from JSON-ready dicts.

>>> e = WagerPlaced(spot=2, amount=1500)
>>> d = e.to_dict(); d
{'type': 'wager-placed', 'spot': 2, 'amount': 1500}
>>> event_from_dict(d) == e
True
>>> old = {"type": "dealer-set", "high": ["As", "Ks", "Qs", "Js", "9s"], "low": ["2c", "2d"],
...        "rule": "flush", "high_name": "flush, ace high", "low_name": "one pair, twos"}
>>> event_from_dict(old)
DealerSet(high=('As', 'Ks', 'Qs', 'Js', '9s'), low=('2c', '2d'), rule='flush')
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final

from paigow.errors import PaigowError

LOG_VERSION: Final = 2
"""The version of the log's format this engine writes (1: logs written before it was recorded)."""
LOG_VERSIONS: Final = frozenset({1, 2})
"""The versions this engine reads and replays."""


@dataclass(frozen=True)
class Event:
    """Base class: ``type`` names the event in the log."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Packet):
        return {"position": value.position, "spot": value.spot, "cards": list(value.cards)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


@dataclass(frozen=True)
class RoundStarted(Event):
    """A round opens for wagers under a ruleset and house way (both recorded in full);
    ``log_version``: the format of the log (a log that does not say is version 1)."""

    type: ClassVar[str] = "round-started"
    round_id: str
    ruleset: dict[str, Any]
    house_way: dict[str, Any]
    log_version: int = LOG_VERSION


@dataclass(frozen=True)
class WagerPlaced(Event):
    """A wager (minor units) on spot 1..6."""

    type: ClassVar[str] = "wager-placed"
    spot: int
    amount: int


@dataclass(frozen=True)
class Shuffled(Event):
    """The whole deck order after the shuffle. ``source``: ``csprng`` (the operating system's
    generator, the only one allowed at a table), ``seeded`` (simulation) or ``supplied``."""

    type: ClassVar[str] = "shuffled"
    deck: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class StartChosen(Event):
    """The starting position: three dice totalled (``dice``) or an RNG number 1..7 (``number``);
    ``position`` 1..7 counted counterclockwise from the dealer as 1."""

    type: ClassVar[str] = "start-chosen"
    method: str
    dice: tuple[int, ...] | None
    number: int
    position: int


@dataclass(frozen=True)
class Packet:
    """Seven cards dealt to a position (``spot`` None for the dealer)."""

    position: int
    spot: int | None
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Dealt(Event):
    """Seven packets from the starting position counterclockwise (``order``: the positions in the
    order dealt). Packets of positions without a wager are ``discarded`` unseen, as are the four
    ``leftover`` cards."""

    type: ClassVar[str] = "dealt"
    order: tuple[int, ...]
    packets: tuple[Packet, ...]
    discarded: tuple[Packet, ...]
    leftover: tuple[str, ...]


@dataclass(frozen=True)
class HandSet(Event):
    """A player's hand set: ``by`` ``player`` or ``house-way``; ``reason`` for the house way:
    ``timeout`` (not set within the time limit), ``left`` (the player left the table with the
    hand in play) or ``foul-reset`` (the foul rule ``reset``, with the player's ``submitted`` foul
    setting)."""

    type: ClassVar[str] = "hand-set"
    spot: int
    high: tuple[str, ...]
    low: tuple[str, ...]
    foul: bool
    by: str
    reason: str | None = None
    rule: str | None = None
    submitted: tuple[tuple[str, ...], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class DealerSet(Event):
    """The bank's hand set by the house way, with the rule id that set it (the hands' names are
    derived from the cards, never recorded)."""

    type: ClassVar[str] = "dealer-set"
    high: tuple[str, ...]
    low: tuple[str, ...]
    rule: str


@dataclass(frozen=True)
class SpotSettled(Event):
    """One spot's settlement (minor units); ``returned`` goes back to the player. ``outcome``
    (``win``, ``push``, ``loss``) and ``high``/``low`` (each hand against the dealer's: ``win``,
    ``loss``, ``copy``) are results, not display text."""

    type: ClassVar[str] = "spot-settled"
    spot: int
    outcome: str
    high: str
    low: str
    wager: int
    win: int
    commission: int
    returned: int
    foul: bool


@dataclass(frozen=True)
class RoundSettled(Event):
    """All spots settled: totals for the round."""

    type: ClassVar[str] = "round-settled"
    wagered: int
    returned: int
    commission: int


@dataclass(frozen=True)
class Voided(Event):
    """The round is void: every wager is returned (``returned`` by spot) and the fault recorded
    (``reason``: as given to :meth:`paigow.round.Round.void`, or ``irregular deck`` when the
    shuffle's deck was not the 53 distinct cards; version-1 logs add the parser's words after a
    colon)."""

    type: ClassVar[str] = "voided"
    reason: str
    returned: tuple[tuple[int, int], ...]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RoundStarted,
        WagerPlaced,
        Shuffled,
        StartChosen,
        Dealt,
        HandSet,
        DealerSet,
        SpotSettled,
        RoundSettled,
        Voided,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :meth:`Event.to_dict` output (e.g. parsed JSON). Keys that are not
    fields of the event (a log entry's ``seq``, a view's ``text``, version 1's display text) are
    ignored; a ``round-started`` without ``log_version`` is version 1."""
    try:
        cls = EVENT_TYPES[data["type"]]
    except (KeyError, TypeError):
        kind = data.get("type") if isinstance(data, dict) else data
        raise PaigowError(f"unknown event type {kind!r}") from None
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if cls is Dealt and f.name in ("packets", "discarded"):
            value = tuple(Packet(p["position"], p["spot"], tuple(p["cards"])) for p in value)
        elif f.name in ("ruleset", "house_way"):
            value = dict(value)
        else:
            value = _frozen(value)
        kwargs[f.name] = value
    if cls is RoundStarted and "log_version" not in data:
        kwargs["log_version"] = 1
    try:
        event = cls(**kwargs)
    except TypeError as exc:
        raise PaigowError(f"malformed {cls.type} event: {exc}") from None
    if isinstance(event, RoundStarted) and event.log_version not in LOG_VERSIONS:
        raise PaigowError(
            f"log version {event.log_version!r} is not one this engine reads "
            f"({', '.join(map(str, sorted(LOG_VERSIONS)))})"
        )
    return event
