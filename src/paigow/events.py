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

LOG_VERSION: Final = 6
"""The version of the log's format this engine writes (1: logs written before it was recorded;
2: the dealer's hand names no longer stored; 3: side wagers, and the player who holds a spot;
4: the variants: a push by the push rule, the dealer set face up, the dragon hand; 5: the house
way's identity, the digest of its rules, beside them in ``round-started``; 6: a hand the player
asked the house to set, ``hand-set`` by ``house-way`` with the reason ``asked``, where earlier
versions recorded the house way's setting as the player's own). A round without the variants
writes the same events as version 3, but for the digest and a hand set on request."""
LOG_VERSIONS: Final = frozenset({1, 2, 3, 4, 5, 6})
"""The versions this engine reads and replays."""


@dataclass(frozen=True)
class Event:
    """Base class: ``type`` names the event in the log."""

    type: ClassVar[str] = "event"
    optional: ClassVar[frozenset[str]] = frozenset()
    """Fields added after version 2, left out of :meth:`to_dict` while they hold their default
    (so a round without side wagers writes the same log as before)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in self.optional and value == f.default:
                continue
            out[f.name] = _plain(value)
        return out

    def __repr__(self) -> str:
        """As a dataclass shows itself, less the optional fields that hold their default."""
        shown = (
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.name not in self.optional or getattr(self, f.name) != f.default
        )
        return f"{type(self).__name__}({', '.join(shown)})"


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
    ``log_version``: the format of the log (a log that does not say is version 1);
    ``house_way_digest``: the house way's identity, the digest of its rules (version 5)."""

    type: ClassVar[str] = "round-started"
    optional: ClassVar[frozenset[str]] = frozenset({"house_way_digest"})
    round_id: str
    ruleset: dict[str, Any]
    house_way: dict[str, Any]
    log_version: int = LOG_VERSION
    house_way_digest: str = ""


@dataclass(frozen=True, repr=False)
class WagerPlaced(Event):
    """A wager (minor units) on spot 1..6; ``player``: an opaque id of who holds the spot (Envy
    never pays a player for their own hands), left out of the log when not given."""

    type: ClassVar[str] = "wager-placed"
    optional: ClassVar[frozenset[str]] = frozenset({"player"})
    spot: int
    amount: int
    player: str | None = None


@dataclass(frozen=True)
class SideWagerPlaced(Event):
    """A side wager (minor units) on the offer ``name`` of the ruleset, beside spot's main wager.

    >>> SideWagerPlaced(3, "fortune", 500).to_dict()
    {'type': 'side-wager-placed', 'spot': 3, 'name': 'fortune', 'amount': 500}
    """

    type: ClassVar[str] = "side-wager-placed"
    spot: int
    name: str
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
    ``asked`` (the player asked the house to set it), ``timeout`` (not set within the time
    limit), ``left`` (the player left the table with the hand in play) or ``foul-reset`` (the foul rule ``reset``, with the player's ``submitted`` foul
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


@dataclass(frozen=True, repr=False)
class SpotSettled(Event):
    """One spot's settlement (minor units); ``returned`` goes back to the player. ``outcome``
    (``win``, ``push``, ``loss``) and ``high``/``low`` (each hand against the dealer's: ``win``,
    ``loss``, ``copy``) are results, not display text."""

    type: ClassVar[str] = "spot-settled"
    optional: ClassVar[frozenset[str]] = frozenset({"reason"})
    spot: int
    outcome: str
    high: str
    low: str
    wager: int
    win: int
    commission: int
    returned: int
    foul: bool
    reason: str | None = None
    """Why a push is one whatever the hands: the push rule the dealer's hand triggered (a
    :class:`paigow.ruleset.PushRule` value); None otherwise (left out of the log)."""


@dataclass(frozen=True)
class DragonOffered(Event):
    """The dragon hand offered: the packet dealt to ``spot`` (a spot without a wager), to the
    spots with a wager in ``order`` (from the starting position), one at a time."""

    type: ClassVar[str] = "dragon-offered"
    spot: int
    order: tuple[int, ...]


@dataclass(frozen=True, repr=False)
class DragonDeclined(Event):
    """The player on ``spot``, whose turn it was, declines the dragon hand; ``reason`` when the
    table declined for the player: ``timeout`` (no answer within the turn's time) or ``left``
    (the player left the table); None (left out of the log): the player's own answer."""

    type: ClassVar[str] = "dragon-declined"
    optional: ClassVar[frozenset[str]] = frozenset({"reason"})
    spot: int
    reason: str | None = None


@dataclass(frozen=True)
class DragonAccepted(Event):
    """The player on ``spot`` wagers ``amount`` on the dragon hand (between the table minimum
    and the spot's own wager); the offer is closed."""

    type: ClassVar[str] = "dragon-accepted"
    spot: int
    amount: int


@dataclass(frozen=True)
class DragonSet(Event):
    """The dragon hand (the packet of ``spot``) set by the house way, with its rule id."""

    type: ClassVar[str] = "dragon-set"
    spot: int
    high: tuple[str, ...]
    low: tuple[str, ...]
    rule: str


@dataclass(frozen=True, repr=False)
class DragonSettled(Event):
    """The dragon hand settled like a spot: the packet of ``spot``, wagered by the player on
    ``by``; the fields as :class:`SpotSettled`'s."""

    type: ClassVar[str] = "dragon-settled"
    optional: ClassVar[frozenset[str]] = frozenset({"reason"})
    spot: int
    by: int
    outcome: str
    high: str
    low: str
    wager: int
    win: int
    commission: int
    returned: int
    reason: str | None = None


@dataclass(frozen=True, repr=False)
class SideWagerSettled(Event):
    """One side wager settled from the seven cards, however they were set (a foul included):
    ``hand`` the paid category (a :class:`paigow.bonus.hand.BonusCategory` value; None: nothing
    paid), ``win`` (the wager not included) and ``returned`` (wager + win, or 0). A progressive
    records its bank's running ``meter`` before this wager and ``meter_after`` it (a meter pay
    deducted, the meter topped up to its seed by the house); other wagers leave them None."""

    type: ClassVar[str] = "side-wager-settled"
    optional: ClassVar[frozenset[str]] = frozenset({"meter", "meter_after"})
    spot: int
    name: str
    wager: int
    hand: str | None
    win: int
    returned: int
    meter: int | None = None
    meter_after: int | None = None


@dataclass(frozen=True)
class EnvyPaid(Event):
    """Envy on the side wager ``name`` of ``spot``: ``amount`` for the other spots' qualifying
    ``hands`` ((spot, category) each; never the player's own spots, never the dealer's)."""

    type: ClassVar[str] = "envy-paid"
    spot: int
    name: str
    amount: int
    hands: tuple[tuple[int, str], ...]


@dataclass(frozen=True, repr=False)
class RoundSettled(Event):
    """All spots settled: totals for the round (the side wagers' apart: ``side_wagered``,
    ``side_returned`` and ``envy_paid``; the dragon hand's apart: ``dragon_wagered``,
    ``dragon_returned``, ``dragon_commission``; each left out of the log when 0)."""

    type: ClassVar[str] = "round-settled"
    optional: ClassVar[frozenset[str]] = frozenset(
        {
            "side_wagered",
            "side_returned",
            "envy_paid",
            "dragon_wagered",
            "dragon_returned",
            "dragon_commission",
        }
    )
    wagered: int
    returned: int
    commission: int
    side_wagered: int = 0
    side_returned: int = 0
    envy_paid: int = 0
    dragon_wagered: int = 0
    dragon_returned: int = 0
    dragon_commission: int = 0


@dataclass(frozen=True, repr=False)
class Voided(Event):
    """The round is void: every wager is returned (``returned`` by spot) and the fault recorded
    (``reason``: as given to :meth:`paigow.round.Round.void`, or ``irregular deck`` when the
    shuffle's deck was not the 53 distinct cards; version-1 logs add the parser's words after a
    colon). ``side_returned``: each side wager returned, (spot, name, amount); ``dragon``: the
    dragon hand's wager returned, (the wagering spot, amount)."""

    type: ClassVar[str] = "voided"
    optional: ClassVar[frozenset[str]] = frozenset({"side_returned", "dragon"})
    reason: str
    returned: tuple[tuple[int, int], ...]
    side_returned: tuple[tuple[int, str, int], ...] = ()
    dragon: tuple[int, int] | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RoundStarted,
        WagerPlaced,
        SideWagerPlaced,
        Shuffled,
        StartChosen,
        Dealt,
        HandSet,
        DealerSet,
        SpotSettled,
        DragonOffered,
        DragonDeclined,
        DragonAccepted,
        DragonSet,
        DragonSettled,
        SideWagerSettled,
        EnvyPaid,
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
