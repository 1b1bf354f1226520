"""A round of pai gow poker as a state machine that records every step as an event
(docs/rulebook.md#a-round).

Positions are numbered 1..7 counterclockwise: position 1 is the dealer, positions 2..7 are the six
betting spots (spot 1 at the dealer's far right is position 2). Every command appends the events it
emits to :attr:`Round.events` and returns them; :meth:`Round.replay` rebuilds a round from its log
alone and checks that every derived result is the same. Each command ``X`` comes as a trio:
``verify_X`` raises the coded :class:`~paigow.errors.RoundError` that ``X`` would (its ``code``
from :data:`paigow.errors.CODES`) and changes nothing, ``can_X`` answers whether ``X`` would be
accepted, and ``X`` verifies, then acts and returns its events.

>>> import random
>>> r = Round(round_id="demo")
>>> r.wager(1, 1000)
(WagerPlaced(spot=1, amount=1000),)
>>> _ = r.wager(4, 2500)
>>> [e.type for e in r.deal(random.Random(7))]  # a seeded generator: simulation and replay only
['shuffled', 'start-chosen', 'dealt']
>>> r.phase.value, sorted(r.hands)
('setting', [1, 4])
>>> for spot in r.spots_to_set(): _ = r.set_house_way(spot)
>>> [e.type for e in r.finish()]
['dealer-set', 'spot-settled', 'spot-settled', 'round-settled']
>>> r.phase.value
'settled'
>>> Round.replay(r.events).events == r.events
True
>>> r.can_void("late"), r.can_wager(2, 1000)
(False, False)
>>> try:
...     r.verify_wager(2, 1000)
... except RoundError as e:
...     print(e.code)
wrong-phase
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from enum import StrEnum
from typing import Any, Final

from paigow.bonus.hand import BonusHand, bonus_hand
from paigow.cards import FULL_DECK, Card, parse_cards
from paigow.errors import (
    CardError,
    PaigowError,
    ReplayMismatch,
    RoundError,
    RulesetError,
    SettingError,
)
from paigow.events import (
    LOG_VERSION,
    LOG_VERSIONS,
    DealerSet,
    Dealt,
    DragonAccepted,
    DragonDeclined,
    DragonOffered,
    DragonSet,
    DragonSettled,
    EnvyPaid,
    Event,
    HandSet,
    Packet,
    RoundSettled,
    RoundStarted,
    Shuffled,
    SideWagerPlaced,
    SideWagerSettled,
    SpotSettled,
    StartChosen,
    Voided,
    WagerPlaced,
    event_from_dict,
)
from paigow.house_way import HouseWay
from paigow.money import format_money
from paigow.ruleset import FoulRule, Ruleset, SideWagerOffer, StartMethod
from paigow.setting import Setting
from paigow.settlement import Outcome, Settlement, settle
from paigow.side_wagers import meter_shares, meters_in, settle_side_wagers
from paigow.variants import dragon_packet, offer_order, push_triggered

SPOTS: Final = range(1, 7)
SIDE_WAGERS_SINCE: Final = 3
"""The first log version that records side wagers."""
VARIANTS_SINCE: Final = 4
"""The first log version that records the variants (push rules, face up, the dragon hand)."""
DIGEST_SINCE: Final = 5
"""The first log version that records the house way's digest beside its rules."""
ASKED_SINCE: Final = 6
"""The first log version that records a hand the player asked the house to set as such."""
DEALER_POSITION: Final = 1
IRREGULAR_DECK: Final = "irregular deck"
"""The reason recorded when a shuffle's deck is not the 53 distinct cards."""

Events = tuple[Event, ...]
"""What a command emitted, in order."""


class Phase(StrEnum):
    """Where a round stands."""

    BETTING = "betting"
    SHUFFLED = "shuffled"
    STARTING = "starting"  # the starting position is chosen; the packets are not yet dealt
    SETTING = "setting"
    DEALER = "dealer"  # the dealer has set; settlement is next
    SETTLED = "settled"
    VOIDED = "voided"


def spot_position(spot: int) -> int:
    """Spot 1..6 -> position 2..7."""
    return spot + 1


def position_spot(position: int) -> int | None:
    """Position 1..7 -> spot 1..6, or None for the dealer."""
    return None if position == DEALER_POSITION else position - 1


def starting_position(total: int) -> int:
    """Count ``total`` positions counterclockwise from the dealer as 1 (9-1(d)(12), (14)).

    >>> [starting_position(t) for t in (1, 3, 7, 8, 14, 15, 18)]
    [1, 3, 7, 1, 7, 1, 4]
    """
    if total < 1:
        raise ValueError(f"a count must be positive, got {total}")
    return (total - 1) % 7 + 1


def fisher_yates(cards: Sequence[Card], rng: random.Random) -> tuple[Card, ...]:
    """An unbiased Fisher-Yates shuffle drawing from ``rng`` (``randrange`` is exact)."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.randrange(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def _source_of(rng: random.Random) -> str:
    return "csprng" if isinstance(rng, random.SystemRandom) else "seeded"


def verify_wager_amount(ruleset: Ruleset, amount: int) -> None:
    """Raise the coded :class:`RoundError` for a main wager outside the table's limits
    (``bad-amount``, ``outside-limits``): what a table checks before a round is open.

    >>> verify_wager_amount(Ruleset(), 500)
    >>> verify_wager_amount(Ruleset(), 100_001)
    Traceback (most recent call last):
    ...
    paigow.errors.RoundError: wager $1,000.01 is outside the table limits $5.00 to $1,000.00
    """
    _check_amount(amount)
    lo, hi = ruleset.min_wager, ruleset.max_wager
    if not lo <= amount <= hi:
        raise RoundError(
            f"wager {format_money(amount)} is outside the table limits "
            f"{format_money(lo)} to {format_money(hi)}",
            code="outside-limits",
        )


def _check_amount(amount: object) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise RoundError(
            f"a wager is a whole number of minor units, got {amount!r}", code="bad-amount"
        )


def _offer(ruleset: Ruleset, name: str) -> SideWagerOffer:
    try:
        return ruleset.offer(name)
    except RulesetError as exc:
        raise RoundError(str(exc), code="unknown-side-wager") from None


def verify_side_offer(
    ruleset: Ruleset, name: str, amount: int, offer: SideWagerOffer | None = None
) -> None:
    """Raise the coded :class:`RoundError` for a side wager ``name`` of ``amount`` that the
    ruleset does not offer (``unknown-side-wager``) or outside its limits (``bad-amount``,
    ``outside-limits``): what a table checks before a round is open.

    >>> from paigow.bonus.paytable import PayTable
    >>> from paigow.ruleset import SideWagerOffer
    >>> rs = Ruleset(side_wagers=(SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2500),))
    >>> verify_side_offer(rs, "fortune", 500)
    >>> verify_side_offer(rs, "fortune", 5000)
    Traceback (most recent call last):
    ...
    paigow.errors.RoundError: fortune wager $50.00 is outside its limits $1.00 to $25.00
    """
    offer = offer or _offer(ruleset, name)
    _check_amount(amount)
    lo, hi = offer.min_wager, offer.max_wager
    if not lo <= amount <= hi:
        raise RoundError(
            f"{name} wager {format_money(amount)} is outside its limits "
            f"{format_money(lo)} to {format_money(hi)}",
            code="outside-limits",
        )


class Round:
    """One round at a table of a dealer and six spots. ``log_version``: the format of the log
    it writes (the current one; a replay keeps the recorded log's)."""

    def __init__(
        self,
        ruleset: Ruleset | None = None,
        house_way: HouseWay | None = None,
        round_id: str | None = None,
        *,
        log_version: int = LOG_VERSION,
    ) -> None:
        if log_version not in LOG_VERSIONS:
            raise RoundError(
                f"log version {log_version!r} is not one this engine writes", code="log-version"
            )
        self.ruleset = ruleset or Ruleset()
        self.log_version = log_version
        if self.ruleset.side_wagers and log_version < SIDE_WAGERS_SINCE:
            raise RoundError(
                f"a version-{log_version} log cannot record side wagers", code="log-version"
            )
        rs = self.ruleset
        if (rs.push.value != "none" or rs.face_up or rs.dragon) and log_version < VARIANTS_SINCE:
            raise RoundError(
                f"a version-{log_version} log cannot record the variants", code="log-version"
            )
        self.house_way = house_way or HouseWay.load(self.ruleset.house_way)
        self.round_id = round_id or secrets.token_hex(8)
        self.events: list[Event] = []
        self.phase = Phase.BETTING
        self.wagers: dict[int, int] = {}
        self.deck: tuple[Card, ...] | None = None
        self.start: StartChosen | None = None
        self.hands: dict[int, tuple[Card, ...]] = {}
        self.dealer_cards: tuple[Card, ...] | None = None
        self.settings: dict[int, Setting] = {}
        self.dealer_setting: Setting | None = None
        self.results: dict[int, SpotSettled] = {}
        self.players: dict[int, str] = {}
        """Who holds each spot, where the wager said (an opaque id)."""
        self.side_wagers: dict[tuple[int, str], int] = {}
        """Side wagers by (spot, offer name)."""
        self.side_results: dict[tuple[int, str], SideWagerSettled] = {}
        self.envy: dict[tuple[int, str], EnvyPaid] = {}
        self.meters: dict[str, int] = {}
        """Each progressive bank's meter at settlement, as given (or as the log recorded)."""
        self.meters_after: dict[str, int] = {}
        """Each progressive bank's meter after this round's hits (and resets)."""
        self._logged_meters: dict[str, int] = {}
        self._bonus: dict[int | None, BonusHand] | None = None
        self.pushed: bool = False
        """Whether the dealer's hand triggered the ruleset's push rule (known at settlement)."""
        self.dragon_spot: int | None = None
        """The spot whose packet is the dragon hand (tables with the dragon hand, once dealt)."""
        self.dragon_cards: tuple[Card, ...] | None = None
        self.dragon_order: tuple[int, ...] | None = None
        """The spots the dragon hand is offered to, in turn (once offered)."""
        self.dragon_declined: list[int] = []
        self.dragon_by: int | None = None
        """The spot whose player wagered on the dragon hand, and the wager."""
        self.dragon_wager: int | None = None
        self.dragon_setting: Setting | None = None
        self.dragon_result: DragonSettled | None = None
        self._emit(
            RoundStarted(
                self.round_id,
                self.ruleset.to_dict(),
                self.house_way.to_dict(),
                log_version,
                self.house_way.digest if log_version >= DIGEST_SINCE else "",
            )
        )

    # ------------------------------------------------------------------ helpers
    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _since(self, mark: int) -> Events:
        """The events emitted since the log had ``mark`` events."""
        return tuple(self.events[mark:])

    def _expect(self, *phases: Phase) -> None:
        if self.phase not in phases:
            wanted = " or ".join(p.value for p in phases)
            raise RoundError(
                f"the round is in phase {self.phase.value!r}, not {wanted}", code="wrong-phase"
            )

    @staticmethod
    def _check_spot(spot: int) -> None:
        if not isinstance(spot, int) or isinstance(spot, bool) or spot not in SPOTS:
            raise RoundError(f"spot {spot!r} does not exist (spots are 1..6)", code="no-such-spot")

    @staticmethod
    def _can(verify: Callable[[], None]) -> bool:
        """Whether ``verify`` passes: what every ``can_X`` answers."""
        try:
            verify()
        except PaigowError:
            return False
        return True

    # ------------------------------------------------------------------ 1. wagers
    def verify_wager(self, spot: int, amount: int, *, player: str | None = None) -> None:
        """Raise the coded :class:`RoundError` that :meth:`wager` would; change nothing.

        >>> r = Round(round_id="demo")
        >>> r.can_wager(1, 100)
        False
        >>> r.verify_wager(1, 100)
        Traceback (most recent call last):
        ...
        paigow.errors.RoundError: wager $1.00 is outside the table limits $5.00 to $1,000.00
        >>> r.can_wager(1, 1000), r.events[-1].type
        (True, 'round-started')
        """
        self._expect(Phase.BETTING)
        self._check_spot(spot)
        if spot in self.wagers:
            raise RoundError(f"spot {spot} already has a wager", code="already-wagered")
        verify_wager_amount(self.ruleset, amount)
        if player is not None and (not isinstance(player, str) or not player):
            raise RoundError(
                f"a player id is a non-empty string, got {player!r}", code="bad-player"
            )

    def can_wager(self, spot: int, amount: int, *, player: str | None = None) -> bool:
        """Whether :meth:`wager` would be accepted now."""
        return self._can(lambda: self.verify_wager(spot, amount, player=player))

    def wager(self, spot: int, amount: int, *, player: str | None = None) -> Events:
        """Place a wager on ``spot`` within the posted limits (minor units); ``player``: an
        opaque id of who holds the spot (Envy never pays a player for their own hands)."""
        self.verify_wager(spot, amount, player=player)
        self.wagers[spot] = amount
        if player is not None:
            self.players[spot] = player
        event = WagerPlaced(spot, amount, player)
        self._emit(event)
        return (event,)

    def verify_side_wager(self, spot: int, name: str, amount: int) -> None:
        """Raise the coded :class:`RoundError` that :meth:`side_wager` would; change nothing.

        >>> from paigow.bonus.paytable import PayTable
        >>> from paigow.ruleset import SideWagerOffer
        >>> fortune = SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2500)
        >>> r = Round(Ruleset(side_wagers=(fortune,)), round_id="demo")
        >>> r.can_side_wager(2, "fortune", 500)
        False
        >>> try:
        ...     r.verify_side_wager(2, "fortune", 500)
        ... except RoundError as e:
        ...     print(e.code)
        no-main-wager
        """
        self._expect(Phase.BETTING)
        self._check_spot(spot)
        if self.log_version < SIDE_WAGERS_SINCE:
            raise RoundError(
                f"a version-{self.log_version} log cannot record side wagers", code="log-version"
            )
        if spot not in self.wagers:
            raise RoundError(
                f"spot {spot} has no wager: a side wager goes with the main wager",
                code="no-main-wager",
            )
        offer = _offer(self.ruleset, name)
        if (spot, name) in self.side_wagers:
            raise RoundError(f"spot {spot} already has a {name} wager", code="already-wagered")
        verify_side_offer(self.ruleset, name, amount, offer)

    def can_side_wager(self, spot: int, name: str, amount: int) -> bool:
        """Whether :meth:`side_wager` would be accepted now."""
        return self._can(lambda: self.verify_side_wager(spot, name, amount))

    def side_wager(self, spot: int, name: str, amount: int) -> Events:
        """Place the side wager ``name`` (an offer of the ruleset) beside the main wager on
        ``spot``, within the offer's limits: never without a main wager, once per spot.

        >>> from paigow.bonus.paytable import PayTable
        >>> from paigow.ruleset import SideWagerOffer
        >>> fortune = SideWagerOffer("fortune", PayTable.load("fortune-a"), 100, 2500)
        >>> r = Round(Ruleset(side_wagers=(fortune,)), round_id="demo")
        >>> r.side_wager(2, "fortune", 500)
        Traceback (most recent call last):
        ...
        paigow.errors.RoundError: spot 2 has no wager: a side wager goes with the main wager
        >>> _ = r.wager(2, 1000)
        >>> r.side_wager(2, "fortune", 500)
        (SideWagerPlaced(spot=2, name='fortune', amount=500),)
        """
        self.verify_side_wager(spot, name, amount)
        self.side_wagers[(spot, name)] = amount
        event = SideWagerPlaced(spot, name, amount)
        self._emit(event)
        return (event,)

    # ------------------------------------------------------------------ 2. shuffle
    def verify_shuffle(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`shuffle` (and :meth:`deal`) would.

        >>> r = Round(round_id="demo")
        >>> r.can_shuffle()
        False
        >>> r.verify_shuffle()
        Traceback (most recent call last):
        ...
        paigow.errors.RoundError: no wagers: nothing to deal
        """
        self._expect(Phase.BETTING)
        if not self.wagers:
            raise RoundError("no wagers: nothing to deal", code="no-wagers")

    def can_shuffle(self) -> bool:
        """Whether :meth:`shuffle` (and :meth:`deal`) would be accepted now."""
        return self._can(self.verify_shuffle)

    def shuffle(
        self,
        rng: random.Random | None = None,
        *,
        deck: Iterable[Card | str] | None = None,
        source: str | None = None,
    ) -> Events:
        """Close betting and shuffle a full deck with ``rng`` (default: the operating system's
        CSPRNG), or take a ``deck`` order as given (a shuffler's, or a replay's). A deck that is
        not exactly the 53 distinct cards voids the round."""
        self.verify_shuffle()
        mark = len(self.events)
        if deck is None:
            generator = rng if rng is not None else random.SystemRandom()
            cards = fisher_yates(FULL_DECK, generator)
            self._emit(Shuffled(tuple(c.code for c in cards), source or _source_of(generator)))
        else:
            items = list(deck)
            codes = tuple(c.code if isinstance(c, Card) else str(c) for c in items)
            self._emit(Shuffled(codes, source or "supplied"))
            try:
                cards = parse_cards(items)
                if len(cards) != 53:
                    raise CardError(f"a deck must hold 53 cards, got {len(cards)}")
            except CardError:
                self.void(IRREGULAR_DECK)  # what is wrong is in the recorded deck
                return self._since(mark)
        self.deck = cards
        self.phase = Phase.SHUFFLED
        return self._since(mark)

    # ------------------------------------------------------------------ 3. starting position
    def verify_choose_start(
        self, *, dice: Sequence[int] | None = None, number: int | None = None
    ) -> None:
        """Raise the coded :class:`RoundError` that :meth:`choose_start` would.

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.shuffle(random.Random(1))
        >>> r.can_choose_start(dice=(1, 2, 7)), r.can_choose_start(dice=(1, 2, 6))
        (False, True)
        >>> r.verify_choose_start(number=3)
        Traceback (most recent call last):
        ...
        paigow.errors.RoundError: this table chooses the start by dice, not an RNG number
        """
        self._expect(Phase.SHUFFLED)
        if self.ruleset.start is StartMethod.DICE:
            if number is not None:
                raise RoundError(
                    "this table chooses the start by dice, not an RNG number", code="bad-start"
                )
            if dice is not None:
                rolled = tuple(dice)
                if len(rolled) != 3 or any(
                    not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6 for d in rolled
                ):
                    raise RoundError(
                        f"three dice of 1..6 are needed, got {list(rolled)}", code="bad-start"
                    )
        else:
            if dice is not None:
                raise RoundError("this table chooses the start by RNG, not dice", code="bad-start")
            n = number
            if n is not None and (not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 7):
                raise RoundError(f"the RNG number must be 1..7, got {n!r}", code="bad-start")

    def can_choose_start(
        self, *, dice: Sequence[int] | None = None, number: int | None = None
    ) -> bool:
        """Whether :meth:`choose_start` would be accepted now."""
        return self._can(lambda: self.verify_choose_start(dice=dice, number=number))

    def choose_start(
        self,
        rng: random.Random | None = None,
        *,
        dice: Sequence[int] | None = None,
        number: int | None = None,
    ) -> Events:
        """Choose the starting position by the ruleset's method: three dice (the shaker) or an
        RNG number 1..7, drawn from ``rng`` (default the CSPRNG) unless given."""
        self.verify_choose_start(dice=dice, number=number)
        generator = rng if rng is not None else random.SystemRandom()
        if self.ruleset.start is StartMethod.DICE:
            rolled = (
                tuple(dice)
                if dice is not None
                else tuple(generator.randrange(1, 7) for _ in range(3))
            )
            total = sum(rolled)
            event = StartChosen("dice", rolled, total, starting_position(total))
        else:
            n = number if number is not None else generator.randrange(1, 8)
            event = StartChosen("rng", None, n, starting_position(n))
        self.start = event
        self._emit(event)
        self.phase = Phase.STARTING
        return (event,)

    # ------------------------------------------------------------------ 4-5. the deal
    def verify_deal_packets(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`deal_packets` would.

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.shuffle(random.Random(1))
        >>> r.can_deal_packets()
        False
        >>> _ = r.choose_start(dice=(1, 2, 3))
        >>> r.can_deal_packets(), [e.type for e in r.deal_packets()]
        (True, ['dealt'])
        """
        self._expect(Phase.STARTING)

    def can_deal_packets(self) -> bool:
        """Whether :meth:`deal_packets` would be accepted now."""
        return self._can(self.verify_deal_packets)

    def deal_packets(self) -> Events:
        """Deal seven packets of seven from the starting position counterclockwise; packets on
        spots without a wager and the four cards left over are discarded unseen."""
        self.verify_deal_packets()
        assert self.deck is not None and self.start is not None
        packets, discarded, order = [], [], []
        for k in range(7):
            position = (self.start.position - 1 + k) % 7 + 1
            cards = self.deck[7 * k : 7 * k + 7]
            spot = position_spot(position)
            order.append(position)
            packet = Packet(position, spot, tuple(c.code for c in cards))
            if spot is None:
                self.dealer_cards = cards
                packets.append(packet)
            elif spot in self.wagers:
                self.hands[spot] = cards
                packets.append(packet)
            else:
                discarded.append(packet)
        leftover = tuple(c.code for c in self.deck[49:])
        event = Dealt(tuple(order), tuple(packets), tuple(discarded), leftover)
        self._emit(event)
        self.phase = Phase.SETTING
        if self.ruleset.dragon:
            self.dragon_spot = dragon_packet(order, sorted(self.wagers))
            if self.dragon_spot is not None:
                k = order.index(spot_position(self.dragon_spot))
                self.dragon_cards = self.deck[7 * k : 7 * k + 7]
        if self.ruleset.face_up:  # the dealer's cards face up, set before any player sets
            return (event, *self._dealer_sets())
        return (event,)

    # ------------------------------------------------------------------ the dragon hand
    @property
    def dragon_turn(self) -> int | None:
        """The spot whose player may accept or decline the dragon hand now (None: no offer
        open)."""
        if self.dragon_order is None or self.dragon_by is not None:
            return None
        left = self.dragon_order[len(self.dragon_declined) :]
        return left[0] if left else None

    @property
    def dragon_pending(self) -> bool:
        """The table deals the dragon hand and its offer is not yet made or not yet closed."""
        if self.dragon_spot is None:
            return False
        return self.dragon_order is None or self.dragon_turn is not None

    def verify_offer_dragon(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`offer_dragon` would.

        >>> r = Round(round_id="demo")
        >>> r.can_offer_dragon()
        False
        >>> try:
        ...     r.verify_offer_dragon()
        ... except RoundError as e:
        ...     print(e.code, e)
        wrong-phase the round is in phase 'betting', not setting
        """
        self._expect(Phase.SETTING)
        if not self.ruleset.dragon:
            raise RoundError("this table does not deal the dragon hand", code="no-dragon")
        if self.dragon_spot is None:
            raise RoundError("every spot has a wager: there is no dragon hand", code="no-dragon")
        if self.dragon_order is not None:
            raise RoundError("the dragon hand has already been offered", code="dragon-offered")

    def can_offer_dragon(self) -> bool:
        """Whether :meth:`offer_dragon` would be accepted now."""
        return self._can(self.verify_offer_dragon)

    def offer_dragon(self) -> Events:
        """Offer the dragon hand (the packet of the first spot without a wager in dealing order)
        to the spots with a wager, in order from the starting position."""
        self.verify_offer_dragon()
        assert self.dragon_spot is not None
        self.dragon_order = offer_order(self._dealing_order(), sorted(self.wagers))
        event = DragonOffered(self.dragon_spot, self.dragon_order)
        self._emit(event)
        return (event,)

    def _dealing_order(self) -> tuple[int, ...]:
        assert self.start is not None
        return tuple((self.start.position - 1 + k) % 7 + 1 for k in range(7))

    def _dragon_turn_of(self, spot: int) -> None:
        self._expect(Phase.SETTING)
        self._check_spot(spot)
        turn = self.dragon_turn
        if turn is None:
            raise RoundError("no dragon hand is on offer", code="no-dragon-offer")
        if spot != turn:
            raise RoundError(
                f"the dragon hand is offered to spot {turn} now, not to your spot {spot}",
                code="not-your-turn",
            )

    def verify_decline_dragon(self, spot: int, reason: str | None = None) -> None:
        """Raise the coded :class:`RoundError` that :meth:`decline_dragon` would.

        >>> Round(round_id="demo").can_decline_dragon(1)
        False
        """
        self._dragon_turn_of(spot)
        if reason not in (None, "timeout", "left"):
            raise RoundError(
                f"a dragon hand is declined for 'timeout' or 'left', not {reason!r}",
                code="bad-reason",
            )

    def can_decline_dragon(self, spot: int, reason: str | None = None) -> bool:
        """Whether :meth:`decline_dragon` would be accepted now."""
        return self._can(lambda: self.verify_decline_dragon(spot, reason))

    def decline_dragon(self, spot: int, reason: str | None = None) -> Events:
        """The player on ``spot``, whose turn it is, declines the dragon hand (``reason``: the
        table declines for the player, ``timeout`` or ``left``)."""
        self.verify_decline_dragon(spot, reason)
        self.dragon_declined.append(spot)
        event = DragonDeclined(spot, reason)
        self._emit(event)
        return (event,)

    def verify_accept_dragon(self, spot: int, amount: int) -> None:
        """Raise the coded :class:`RoundError` that :meth:`accept_dragon` would.

        >>> Round(round_id="demo").can_accept_dragon(1, 500)
        False
        """
        self._dragon_turn_of(spot)
        _check_amount(amount)
        lo, hi = self.ruleset.min_wager, self.wagers[spot]
        if not lo <= amount <= hi:
            raise RoundError(
                f"spot {spot}: a dragon wager of {format_money(amount)} is outside "
                f"{format_money(lo)} (the table minimum) to {format_money(hi)} (your wager)",
                code="outside-limits",
            )

    def can_accept_dragon(self, spot: int, amount: int) -> bool:
        """Whether :meth:`accept_dragon` would be accepted now."""
        return self._can(lambda: self.verify_accept_dragon(spot, amount))

    def accept_dragon(self, spot: int, amount: int) -> Events:
        """The player on ``spot``, whose turn it is, wagers ``amount`` on the dragon hand:
        between the table minimum and the spot's own wager. The house way sets it at once."""
        self.verify_accept_dragon(spot, amount)
        assert self.dragon_cards is not None and self.dragon_spot is not None
        self.dragon_by, self.dragon_wager = spot, amount
        hw = self.house_way.set_hand(self.dragon_cards, self.ruleset.wheel)
        self.dragon_setting = hw.setting
        d = hw.setting.to_dict()
        accepted = DragonAccepted(spot, amount)
        dragon = DragonSet(self.dragon_spot, tuple(d["high"]), tuple(d["low"]), hw.rule)
        self._emit(accepted)
        self._emit(dragon)
        return (accepted, dragon)

    def verify_deal(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`deal` would (as :meth:`shuffle`).

        >>> r = Round(round_id="demo")
        >>> r.can_deal()
        False
        >>> _ = r.wager(1, 1000)
        >>> r.verify_deal()
        >>> [e.type for e in r.deal(random.Random(7))]
        ['shuffled', 'start-chosen', 'dealt']
        """
        self.verify_shuffle()

    def can_deal(self) -> bool:
        """Whether :meth:`deal` would be accepted now."""
        return self._can(self.verify_deal)

    def deal(self, rng: random.Random | None = None) -> Events:
        """Shuffle, choose the starting position and deal, all from ``rng`` (default CSPRNG)."""
        emitted = self.shuffle(rng)
        if self.phase is Phase.SHUFFLED:
            emitted += self.choose_start(rng)
            emitted += self.deal_packets()
        return emitted

    # ------------------------------------------------------------------ 6. players set
    def spots_to_set(self) -> list[int]:
        """Spots still to set their hands, in settlement order."""
        return [s for s in sorted(self.hands) if s not in self.settings]

    def _hand_for(self, spot: int) -> tuple[Card, ...]:
        self._expect(Phase.SETTING)
        self._check_spot(spot)
        if spot not in self.hands:
            raise RoundError(f"spot {spot} has no hand in this round", code="no-hand")
        if spot in self.settings:
            raise RoundError(f"spot {spot} has already set its hand", code="already-set")
        return self.hands[spot]

    def verify_set_hand(self, spot: int, setting: Setting) -> None:
        """Raise the coded :class:`RoundError` that :meth:`set_hand` would (a foul is no
        error: the ruleset says what it does).

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.wager(2, 1000); _ = r.deal(random.Random(7))
        >>> mine = Setting.from_low(r.hands[1], r.hands[1][:2])
        >>> r.can_set_hand(1, mine), r.can_set_hand(2, mine)
        (True, False)
        >>> try:
        ...     r.verify_set_hand(2, mine)
        ... except RoundError as e:
        ...     print(e.code)
        bad-setting
        >>> [e.type for e in r.set_hand(1, mine)]
        ['hand-set']
        """
        cards = self._hand_for(spot)
        if set(setting.cards) != set(cards):
            raise RoundError(
                f"that setting does not use the seven cards dealt to spot {spot}",
                code="bad-setting",
            )

    def can_set_hand(self, spot: int, setting: Setting) -> bool:
        """Whether :meth:`set_hand` would be accepted now."""
        return self._can(lambda: self.verify_set_hand(spot, setting))

    def set_hand(self, spot: int, setting: Setting) -> Events:
        """The player on ``spot`` sets the hand. A foul is accepted: under the Indiana rule it
        loses; under the ``reset`` rule the house way sets the hand instead (recorded)."""
        self.verify_set_hand(spot, setting)
        cards = self.hands[spot]
        high = tuple(c.code for c in setting.high)
        low = tuple(c.code for c in setting.low)
        if setting.is_foul and self.ruleset.foul is FoulRule.RESET:
            hw = self.house_way.set_hand(cards, self.ruleset.wheel)
            self.settings[spot] = hw.setting
            d = hw.setting.to_dict()
            event = HandSet(
                spot,
                tuple(d["high"]),
                tuple(d["low"]),
                False,
                "house-way",
                "foul-reset",
                hw.rule,
                (high, low),
            )
        else:
            self.settings[spot] = setting
            event = HandSet(spot, high, low, setting.is_foul, "player")
        self._emit(event)
        return (event,)

    def verify_set_low(self, spot: int, low: Iterable[Card | str]) -> None:
        """Raise the coded :class:`RoundError` that :meth:`set_low` would (``bad-setting``: the
        low cards are not two of the spot's seven).

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.deal(random.Random(7))
        >>> low = [c.code for c in r.hands[1][:2]]
        >>> r.can_set_low(1, low), r.can_set_low(2, low), r.can_set_low(1, ["Zz", "As"])
        (True, False, False)
        >>> try:
        ...     r.verify_set_low(2, low)
        ... except RoundError as e:
        ...     print(e.code, e)
        no-hand spot 2 has no hand in this round
        >>> _ = r.set_low(1, low)
        >>> r.can_set_low(1, low)
        False
        """
        cards = self._hand_for(spot)
        try:
            Setting.from_low(cards, low)
        except (CardError, SettingError) as exc:
            raise RoundError(f"bad setting: {exc}", code="bad-setting") from None

    def can_set_low(self, spot: int, low: Iterable[Card | str]) -> bool:
        """Whether :meth:`set_low` would be accepted now."""
        return self._can(lambda: self.verify_set_low(spot, low))

    def set_low(self, spot: int, low: Iterable[Card | str]) -> Events:
        """Set the hand on ``spot`` by naming its two low cards."""
        named = list(low)
        self.verify_set_low(spot, named)
        return self.set_hand(spot, Setting.from_low(self.hands[spot], named))

    def verify_set_house_way(self, spot: int) -> None:
        """Raise the coded :class:`RoundError` that :meth:`set_house_way` would (as
        :meth:`time_out` and :meth:`left`: the spot has a hand still to set).

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.wager(2, 1000); _ = r.deal(random.Random(7))
        >>> r.can_set_house_way(1), r.can_time_out(2), r.can_left(3)
        (True, True, False)
        >>> _ = r.set_house_way(1); _ = r.time_out(2)
        >>> r.can_set_house_way(1), r.can_left(2)
        (False, False)
        >>> try:
        ...     r.verify_left(2)
        ... except RoundError as e:
        ...     print(e.code, e)
        already-set spot 2 has already set its hand
        """
        self._hand_for(spot)

    def can_set_house_way(self, spot: int) -> bool:
        """Whether :meth:`set_house_way` would be accepted now."""
        return self._can(lambda: self.verify_set_house_way(spot))

    def set_house_way(self, spot: int) -> Events:
        """The player on ``spot`` asks the house to set the hand, as casinos allow: the house
        way sets it, recorded as such (``hand-set`` by ``house-way``, reason ``asked``, with the
        rule; a log before version 6 recorded it as the player's own setting). Refused once the
        hand is set (``already-set``).

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.deal(random.Random(7))
        >>> (e,) = r.set_house_way(1)
        >>> e.by, e.reason, e.rule is not None
        ('house-way', 'asked', True)
        >>> r.can_set_house_way(1)
        False
        """
        self.verify_set_house_way(spot)
        if self.log_version >= ASKED_SINCE:
            return self._house_sets(spot, "asked")
        hw = self.house_way.set_hand(self._hand_for(spot), self.ruleset.wheel)
        return self.set_hand(spot, hw.setting)

    def verify_time_out(self, spot: int) -> None:
        """Raise the coded :class:`RoundError` that :meth:`time_out` would."""
        self._hand_for(spot)

    def can_time_out(self, spot: int) -> bool:
        """Whether :meth:`time_out` would be accepted now."""
        return self._can(lambda: self.verify_time_out(spot))

    def time_out(self, spot: int) -> Events:
        """The player on ``spot`` did not set within the time limit: the house way sets it."""
        return self._house_sets(spot, "timeout")

    def verify_left(self, spot: int) -> None:
        """Raise the coded :class:`RoundError` that :meth:`left` would."""
        self._hand_for(spot)

    def can_left(self, spot: int) -> bool:
        """Whether :meth:`left` would be accepted now."""
        return self._can(lambda: self.verify_left(spot))

    def left(self, spot: int) -> Events:
        """The player on ``spot`` left the table with the hand in play: the house way sets it
        at once (as a dealer sets an abandoned hand), so nobody waits for the time limit."""
        return self._house_sets(spot, "left")

    def _house_sets(self, spot: int, reason: str) -> Events:
        hw = self.house_way.set_hand(self._hand_for(spot), self.ruleset.wheel)
        self.settings[spot] = hw.setting
        d = hw.setting.to_dict()
        event = HandSet(
            spot, tuple(d["high"]), tuple(d["low"]), False, "house-way", reason, hw.rule
        )
        self._emit(event)
        return (event,)

    # ------------------------------------------------------------------ 7. the dealer sets
    def verify_set_dealer(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`set_dealer` would.

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.deal(random.Random(7))
        >>> r.can_set_dealer()
        False
        >>> r.verify_set_dealer()
        Traceback (most recent call last):
        ...
        paigow.errors.RoundError: spots [1] have not set their hands yet
        >>> _ = r.set_house_way(1)
        >>> r.can_set_dealer()
        True
        """
        self._expect(Phase.SETTING)
        if self.ruleset.face_up:
            raise RoundError("this table's dealer set face up right after the deal", code="face-up")
        self._check_all_set()

    def can_set_dealer(self) -> bool:
        """Whether :meth:`set_dealer` would be accepted now."""
        return self._can(self.verify_set_dealer)

    def set_dealer(self) -> Events:
        """The dealer sets the bank's hand by the house way, after every player has set (and
        the dragon hand's offer is closed). A face-up table's dealer set right after the deal."""
        self.verify_set_dealer()
        event = self._dealer_sets()
        self.phase = Phase.DEALER
        return event

    def _check_all_set(self) -> None:
        waiting = self.spots_to_set()
        if waiting:
            raise RoundError(f"spots {waiting} have not set their hands yet", code="not-all-set")
        if self.dragon_pending:
            raise RoundError(
                "the dragon hand must be offered first, and accepted or declined by every spot",
                code="not-all-set",
            )

    def _dealer_sets(self) -> Events:
        assert self.dealer_cards is not None
        hw = self.house_way.set_hand(self.dealer_cards, self.ruleset.wheel)
        self.dealer_setting = hw.setting
        d = hw.setting.to_dict()
        event = DealerSet(tuple(d["high"]), tuple(d["low"]), hw.rule)
        self._emit(event)
        return (event,)

    # ------------------------------------------------------------------ 8. settlement
    def verify_settle(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`settle` would for the round's state
        (the ``meters`` it is given are checked when it settles, before anything is emitted).

        >>> Round(round_id="demo").can_settle()
        False
        """
        if self.ruleset.face_up and self.phase is Phase.SETTING:
            self._check_all_set()
        else:
            self._expect(Phase.DEALER)

    def can_settle(self) -> bool:
        """Whether :meth:`settle` would be accepted now."""
        return self._can(self.verify_settle)

    def settle(self, meters: Mapping[str, int] | None = None) -> Events:
        """Settle every spot from the far right (spot 1) counterclockwise, then the side
        wagers in spot order, then name order (:func:`paigow.side_wagers.settle_side_wagers`;
        ``meters``: each progressive bank's meter at settlement, this round's shares added)."""
        self.verify_settle()
        mark = len(self.events)
        assert self.dealer_setting is not None and self.dealer_cards is not None
        rules = self.ruleset
        self.pushed = push_triggered(rules.push, self.dealer_cards, self.dealer_setting)
        reason = rules.push.value if self.pushed else None
        side: list[SideWagerSettled | EnvyPaid] = []
        meters_after: dict[str, int] = {}
        if self.side_wagers:  # everything checked before anything is emitted
            bonus = self.bonus_hands()
            side, meters_after = settle_side_wagers(
                rules,
                self.side_wagers,
                {s: h for s, h in bonus.items() if s is not None},
                bonus[None],
                self.dealer_setting.low,
                self.players,
                meters,
            )
        totals = [0, 0, 0]
        dragon = [0, 0, 0]
        spots = set(self.settings)
        if self.dragon_by is not None and self.dragon_spot is not None:
            spots.add(self.dragon_spot)  # settled like a spot, in its place
        for spot in sorted(spots):
            setting = self.settings.get(spot) or self.dragon_setting
            wager = self.wagers[spot] if spot in self.settings else self.dragon_wager
            assert setting is not None and wager is not None
            s = self._settle_one(setting, wager)
            why = reason if s.outcome is Outcome.PUSH and self.pushed and not s.foul else None
            if spot not in self.settings:
                assert self.dragon_by is not None
                self.dragon_result = DragonSettled(
                    spot,
                    self.dragon_by,
                    s.outcome.value,
                    s.high.value,
                    s.low.value,
                    s.wager,
                    s.win,
                    s.commission,
                    s.returned,
                    why,
                )
                self._emit(self.dragon_result)
                dragon = [s.wager, s.returned, s.commission]
                continue
            event = SpotSettled(
                spot,
                s.outcome.value,
                s.high.value,
                s.low.value,
                s.wager,
                s.win,
                s.commission,
                s.returned,
                s.foul,
                why,
            )
            self.results[spot] = event
            self._emit(event)
            totals[0] += s.wager
            totals[1] += s.returned
            totals[2] += s.commission
        side_totals = [0, 0, 0]
        for e in side:
            self._emit(e)
            if isinstance(e, SideWagerSettled):
                self.side_results[(e.spot, e.name)] = e
                side_totals[0] += e.wager
                side_totals[1] += e.returned
            else:
                self.envy[(e.spot, e.name)] = e
                side_totals[2] += e.amount
        self.meters = {b: (meters or {})[b] for b in meters_after}
        self.meters_after = meters_after
        self._emit(RoundSettled(*totals, *side_totals, *dragon))
        self.phase = Phase.SETTLED
        return self._since(mark)

    def _settle_one(self, setting: Setting, wager: int) -> Settlement:
        """One wager against the dealer's setting, the push rule applied (never to a foul)."""
        assert self.dealer_setting is not None
        rules = self.ruleset
        s = settle(
            setting,
            self.dealer_setting,
            wager,
            rules.commission,
            rules.wheel,
            foul_loses=rules.foul is FoulRule.LOSES,
        )
        if self.pushed and not s.foul:
            return Settlement(Outcome.PUSH, s.high, s.low, s.wager, 0, 0)
        return s

    def verify_finish(self) -> None:
        """Raise the coded :class:`RoundError` that :meth:`finish` would.

        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000); _ = r.deal(random.Random(7))
        >>> r.can_finish()
        False
        >>> _ = r.set_house_way(1)
        >>> r.verify_finish()
        >>> [e.type for e in r.finish()][-1]
        'round-settled'
        """
        if self.ruleset.face_up:
            self.verify_settle()
        else:
            self.verify_set_dealer()

    def can_finish(self) -> bool:
        """Whether :meth:`finish` would be accepted now."""
        return self._can(self.verify_finish)

    def finish(self, meters: Mapping[str, int] | None = None) -> Events:
        """The dealer sets (unless set face up after the deal) and the round is settled
        (``meters``: as :meth:`settle` takes)."""
        if self.ruleset.face_up:
            return self.settle(meters)
        return self.set_dealer() + self.settle(meters)

    # ------------------------------------------------------------------ void
    def verify_void(self, reason: str) -> None:
        """Raise the coded :class:`RoundError` that :meth:`void` would.

        >>> r = Round(round_id="demo")
        >>> r.can_void("shuffler fault"), r.can_void("")
        (True, False)
        >>> _ = r.void("shuffler fault")
        >>> try:
        ...     r.verify_void("again")
        ... except RoundError as e:
        ...     print(e.code)
        wrong-phase
        """
        self._expect(Phase.BETTING, Phase.SHUFFLED, Phase.STARTING, Phase.SETTING, Phase.DEALER)
        if not reason:
            raise RoundError("a void needs a reason", code="bad-reason")

    def can_void(self, reason: str) -> bool:
        """Whether :meth:`void` would be accepted now."""
        return self._can(lambda: self.verify_void(reason))

    def void(self, reason: str) -> Events:
        """Void the round: every wager, side wagers included, is returned and the fault
        recorded."""
        self.verify_void(reason)
        side = tuple((spot, name, a) for (spot, name), a in sorted(self.side_wagers.items()))
        dragon = None
        if self.dragon_by is not None and self.dragon_wager is not None:
            dragon = (self.dragon_by, self.dragon_wager)
        event = Voided(reason, tuple(sorted(self.wagers.items())), side, dragon)
        self._emit(event)
        self.phase = Phase.VOIDED
        return (event,)

    # ------------------------------------------------------------------ views
    @property
    def is_over(self) -> bool:
        return self.phase in (Phase.SETTLED, Phase.VOIDED)

    def returned(self) -> dict[int, int]:
        """What goes back to each spot's player (minor units), once the round is over."""
        if self.phase is Phase.SETTLED:
            return {spot: e.returned for spot, e in self.results.items()}
        if self.phase is Phase.VOIDED:
            return dict(self.wagers)
        raise RoundError("the round is not over", code="not-over")

    def side_returned(self) -> dict[tuple[int, str], int]:
        """What goes back on each side wager (its win and the wager, 0 on a loss; the wager on
        a void), once the round is over. Envy is apart (:attr:`envy`)."""
        if self.phase is Phase.SETTLED:
            return {key: e.returned for key, e in self.side_results.items()}
        if self.phase is Phase.VOIDED:
            return dict(self.side_wagers)
        raise RoundError("the round is not over", code="not-over")

    def dragon_returned(self) -> tuple[int, int] | None:
        """What goes back on the dragon hand, (the wagering spot, amount), once the round is
        over; None when no one wagered on it."""
        if self.dragon_by is None:
            return None
        if self.phase is Phase.SETTLED:
            assert self.dragon_result is not None
            return (self.dragon_by, self.dragon_result.returned)
        if self.phase is Phase.VOIDED:
            assert self.dragon_wager is not None
            return (self.dragon_by, self.dragon_wager)
        raise RoundError("the round is not over", code="not-over")

    def bonus_hands(self) -> dict[int | None, BonusHand]:
        """The bonus hand of each spot's seven cards and of the dealer's (key None), once
        dealt."""
        if self.dealer_cards is None:
            raise RoundError("the cards are not dealt yet", code="not-over")
        if self._bonus is None:
            found: dict[int | None, BonusHand] = {s: bonus_hand(c) for s, c in self.hands.items()}
            found[None] = bonus_hand(self.dealer_cards)
            self._bonus = found
        return dict(self._bonus)

    def meter_shares(self) -> dict[str, int]:
        """What this round's progressive wagers add to each bank's meter (each wager's share,
        rounded down to the cent)."""
        return meter_shares(self.ruleset, self.side_wagers)

    def log(self) -> list[dict[str, Any]]:
        """The event log as JSON-ready dicts, each with its sequence number."""
        return [{"seq": i, **e.to_dict()} for i, e in enumerate(self.events)]

    # ------------------------------------------------------------------ replay
    @classmethod
    def replay(cls, events: Sequence[Event | dict[str, Any]]) -> Round:
        """Rebuild a round from its log alone, re-deriving every result; raise
        :class:`ReplayMismatch` where the log disagrees with what the rules give. Logs of every
        version in :data:`paigow.events.LOG_VERSIONS` replay; display text is never compared."""
        log = _read(events)
        if not log or not isinstance(log[0], RoundStarted):
            raise ReplayMismatch("a round's log starts with round-started")
        first = log[0]
        try:
            way = HouseWay.from_dict(first.house_way)
        except PaigowError as exc:
            raise ReplayMismatch(f"the log cannot be replayed: {exc}") from None
        if first.house_way_digest and first.house_way_digest != way.digest:
            raise ReplayMismatch(
                f"the log's house way {way.name!r} says its digest is {first.house_way_digest}, "
                f"but its rules' digest is {way.digest}: the rules were changed"
            )
        try:
            rnd = cls(
                Ruleset.from_dict(first.ruleset),
                way,
                first.round_id,
                log_version=first.log_version,
            )
        except PaigowError as exc:
            raise ReplayMismatch(f"the log cannot be replayed: {exc}") from None
        rnd._go_on(log, 0)
        return rnd

    def follow(self, events: Sequence[Event | dict[str, Any]]) -> None:
        """Go on with the events logged after this round's own (another process's step),
        re-deriving them and checking them as :meth:`replay` checks a whole log (raising
        :class:`ReplayMismatch` where they disagree; the round is then unusable and must be
        rebuilt from its log): the same round as replaying the whole log.

        >>> import random
        >>> r = Round(round_id="demo")
        >>> _ = r.wager(1, 1000)
        >>> behind = Round.replay(r.events)
        >>> _ = r.deal(random.Random(7))
        >>> behind.follow([e.to_dict() for e in r.events[len(behind.events):]])
        >>> behind.events == r.events and behind.hands == r.hands
        True
        >>> behind.follow([r.events[-1]])  # an event it has already
        Traceback (most recent call last):
        ...
        paigow.errors.ReplayMismatch: the log cannot be replayed: ...
        """
        self._go_on(_read(events), len(self.events))

    def _go_on(self, log: list[Event], base: int) -> None:
        """Apply ``log``, the events from sequence number ``base`` on, and compare what the
        rules derive with it (events an earlier one derived are compared, not applied)."""
        self._logged_meters = meters_in(self.ruleset, log)
        try:
            for i, event in enumerate(log, start=base):
                if i < len(self.events):
                    continue  # derived by an earlier step; compared below
                self._apply(event)
        except ReplayMismatch:
            raise
        except PaigowError as exc:
            raise ReplayMismatch(f"the log cannot be replayed: {exc}") from None
        for i, want in enumerate(log, start=base):
            got = self.events[i] if i < len(self.events) else None
            if got is None:
                break
            if not _agrees(want, got):
                raise ReplayMismatch(
                    f"event {i} differs: recorded {want.to_dict()}, replayed {got.to_dict()}"
                )
            if isinstance(want, RoundStarted):
                self.events[i] = want  # the house way as it was written (either format)
        if len(self.events) != base + len(log):
            raise ReplayMismatch(
                f"the log has {base + len(log)} events, the replay {len(self.events)}"
            )

    def _apply(self, event: Event) -> None:
        match event:
            case WagerPlaced(spot=spot, amount=amount, player=player):
                self.wager(spot, amount, player=player)
            case SideWagerPlaced(spot=spot, name=name, amount=amount):
                self.side_wager(spot, name, amount)
            case Shuffled(deck=deck, source=source):
                self.shuffle(deck=deck, source=source)
            case StartChosen(method="dice", dice=dice):
                self.choose_start(dice=dice)
            case StartChosen(number=number):
                self.choose_start(number=number)
            case Dealt():
                self.deal_packets()
            case HandSet(by="player", spot=spot, high=high, low=low):
                self.set_hand(spot, Setting(parse_cards(high), parse_cards(low)))
            case HandSet(reason="foul-reset", spot=spot, submitted=(high, low)):
                self.set_hand(spot, Setting(parse_cards(high), parse_cards(low)))
            case HandSet(reason="asked", spot=spot):
                self.set_house_way(spot)
            case HandSet(reason="timeout", spot=spot):
                self.time_out(spot)
            case HandSet(reason="left", spot=spot):
                self.left(spot)
            case DealerSet():
                self.set_dealer()
            case DragonOffered():
                self.offer_dragon()
            case DragonDeclined(spot=spot, reason=reason):
                self.decline_dragon(spot, reason)
            case DragonAccepted(spot=spot, amount=amount):
                self.accept_dragon(spot, amount)
            case SpotSettled() | DragonSettled() | SideWagerSettled() | EnvyPaid() | RoundSettled():
                self.settle(self._logged_meters)
            case Voided(reason=reason):
                self.void(reason)
            case _:
                raise ReplayMismatch(f"event {event.to_dict()} cannot be replayed here")


def _read(events: Sequence[Event | dict[str, Any]]) -> list[Event]:
    try:
        return [e if isinstance(e, Event) else event_from_dict(e) for e in events]
    except (PaigowError, TypeError, KeyError, AttributeError) as exc:
        raise ReplayMismatch(f"the log cannot be read: {exc}") from None


def _agrees(recorded: Event, replayed: Event) -> bool:
    """Whether a recorded event states the same facts as the replay's. Only the words a version-1
    log added to an irregular deck's void (the card parser's message), and how a house way was
    written (the first format or the rule language), are not compared."""
    if recorded == replayed:
        return True
    if isinstance(recorded, RoundStarted) and isinstance(replayed, RoundStarted):
        # a house way recorded in the first format (two_pair, quads) is the same house way as
        # its rules in the rule language: compare what they set, not how they were written
        try:
            same_way = HouseWay.from_dict(recorded.house_way) == HouseWay.from_dict(
                replayed.house_way
            )
        except PaigowError:
            return False
        return same_way and replace(recorded, house_way=replayed.house_way) == replayed
    return (
        isinstance(recorded, Voided)
        and isinstance(replayed, Voided)
        and replayed.reason == IRREGULAR_DECK
        and recorded.reason.startswith(IRREGULAR_DECK + ":")
        and recorded.returned == replayed.returned
    )
