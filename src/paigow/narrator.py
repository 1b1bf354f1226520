"""Round events in words: the one place where the facts of a round's log become text (the
``paigow deal`` log, the terminal game, and the ``text`` the server sends the browser).

Everything said is derived from the events (hand names from the cards, under the wheel the
round's ruleset records), so the words can change without touching any stored log. A ``viewer``
(the spots whose cards the reader may see) narrates without revealing anyone else's cards; no
viewer means the complete log (the CLI, an operator's recall).

>>> from paigow.events import DealerSet, SpotSettled
>>> narrate(DealerSet(("9h", "9d", "7h", "3s", "2d"), ("Jk", "8c"), "one-pair"))
'dealer sets by the house way, rule one-pair: 9h 9d 7h 3s 2d (one pair, nines) / Jk 8c (high card, ace-eight)'
>>> narrate(SpotSettled(1, "win", "win", "win", 1000, 1000, 50, 1950, False))
'spot 1: won $10.00, commission $0.50, returned $19.50 (high win, low win)'
>>> narrate(SpotSettled(3, "push", "loss", "win", 1000, 0, 0, 1000, False))
'spot 3: push, $10.00 returned (high loss, low win)'
>>> narrate(SpotSettled(4, "loss", "loss", "copy", 1000, 0, 0, 0, False))
'spot 4: lost $10.00 (high loss, low copy)'
>>> narrate(SpotSettled(5, "push", "win", "win", 1000, 0, 0, 1000, False, "queen-high-pai-gow"))
"spot 5: push, $10.00 returned (dealer's queen-high pai gow: all wagers push)"
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from paigow.bonus.hand import BonusCategory
from paigow.cards import Card, parse_cards
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.events import (
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
    RoundSettled,
    RoundStarted,
    Shuffled,
    SideWagerPlaced,
    SideWagerSettled,
    SpotSettled,
    StartChosen,
    Voided,
    WagerPlaced,
)
from paigow.money import format_money
from paigow.ranking import Wheel, evaluate_five, evaluate_two
from paigow.ruleset import PushRule

__all__ = [
    "FOUL_LOSES",
    "hand_names",
    "hands_compared",
    "narrate",
    "narrate_log",
    "position_name",
    "push_words",
    "settlement_line",
    "side_line",
    "start_line",
    "wheel_of",
]

FOUL_LOSES: Final = "foul: loses"
"""How a fouled hand's settlement reads everywhere (the browser, the terminal game, the logs):
under the Indiana rule the foul loses whatever the hands' comparisons."""

_REASONS: Final = {
    "asked": "at the player's request",
    "timeout": "time-out",
    "foul-reset": "foul reset",
    "left": "the player left",
}
_SOURCES: Final = {
    "csprng": "the operating system's secure generator",
    "seeded": "a seeded generator, for simulation and replay",
    "supplied": "an order supplied",
}


def position_name(position: int) -> str:
    """Position 1 is the dealer, positions 2..7 are spots 1..6.

    >>> position_name(1), position_name(5)
    ('dealer', 'spot 4')
    """
    return "dealer" if position == 1 else f"spot {position - 1}"


@lru_cache(maxsize=4096)
def _names(high: tuple[str, ...], low: tuple[str, ...], wheel: Wheel) -> tuple[str, str]:
    return (
        evaluate_five(parse_cards(high), wheel).name,
        evaluate_two(parse_cards(low)).name,
    )


def hand_names(
    high: Sequence[Card | str], low: Sequence[Card | str], wheel: Wheel = Wheel.SECOND
) -> tuple[str, str]:
    """The names of a five-card high hand and a two-card low hand.

    >>> hand_names(["Qs", "Qh", "9s", "6h", "5s"], ["Jh", "Jc"])
    ('one pair, queens', 'one pair, jacks')
    >>> hand_names("Ah 2c 3d 4s 5h".split(), ["Kd", "9c"], Wheel.LOWEST)
    ('straight, ace to five', 'high card, king-nine')
    """
    return _names(_codes(high), _codes(low), Wheel(wheel))


def _codes(cards: Sequence[Card | str]) -> tuple[str, ...]:
    return tuple(c.code if isinstance(c, Card) else str(c) for c in cards)


def _setting(high: Sequence[str], low: Sequence[str], wheel: Wheel) -> str:
    try:
        hn, ln = hand_names(high, low, wheel)
    except PaigowError:  # cards no hand can hold: shown as recorded, unnamed
        return f"{' '.join(high)} / {' '.join(low)}"
    return f"{' '.join(high)} ({hn}) / {' '.join(low)} ({ln})"


def start_line(event: StartChosen) -> str:
    """The dice (or the RNG number) and the count to the starting position.

    >>> start_line(StartChosen("dice", (5, 6, 1), 12, 5))
    'dice 5 + 6 + 1 = 12: counting 12 positions counterclockwise from the dealer as 1 reaches position 5 (spot 4), where the first packet goes'
    >>> start_line(StartChosen("rng", None, 1, 1))
    'RNG number 1: counting 1 position counterclockwise from the dealer as 1 reaches position 1 (dealer), where the first packet goes'
    """
    if event.dice is not None:
        shown = f"dice {' + '.join(map(str, event.dice))} = {event.number}"
    else:
        shown = f"RNG number {event.number}"
    plural = "" if event.number == 1 else "s"
    return (
        f"{shown}: counting {event.number} position{plural} counterclockwise from the dealer as 1 "
        f"reaches position {event.position} ({position_name(event.position)}), where the first "
        "packet goes"
    )


def hands_compared(event: SpotSettled) -> str:
    """Why a spot settled as it did: each hand against the dealer's, or the foul.

    >>> hands_compared(SpotSettled(2, "loss", "loss", "win", 500, 0, 0, 0, True))
    'foul: loses'
    >>> hands_compared(SpotSettled(3, "push", "loss", "win", 500, 0, 0, 500, False))
    'high loss, low win'
    """
    if event.foul:
        return FOUL_LOSES
    if event.reason is not None:
        return push_words(event.reason)
    return f"high {event.high}, low {event.low}"


def settlement_line(event: SpotSettled) -> str:
    """One spot's settlement: what was won (and its commission), pushed or lost.

    >>> settlement_line(SpotSettled(2, "loss", "win", "win", 500, 0, 0, 0, True))
    'spot 2: lost $5.00 (foul: loses)'
    """
    if event.outcome == "win":
        money = (
            f"won {format_money(event.win)}, commission {format_money(event.commission)}, "
            f"returned {format_money(event.returned)}"
        )
    elif event.outcome == "push":
        money = f"push, {format_money(event.returned)} returned"
    else:
        money = f"lost {format_money(event.wager)}"
    return f"spot {event.spot}: {money} ({hands_compared(event)})"


def push_words(reason: str) -> str:
    """A push by the push rule in words (a reason this engine does not know: as recorded).

    >>> push_words("nine-high-low")
    "dealer's nine-high low hand: all wagers push"
    """
    try:
        return f"{PushRule(reason).words}: all wagers push"
    except ValueError:
        return reason


def _dragon_settled(event: DragonSettled) -> str:
    line = settlement_line(
        SpotSettled(
            event.spot,
            event.outcome,
            event.high,
            event.low,
            event.wager,
            event.win,
            event.commission,
            event.returned,
            False,
            event.reason,
        )
    )
    return f"dragon hand (spot {event.spot}'s packet) of spot {event.by}:" + line.split(":", 1)[1]


def _variants(ruleset: Mapping[str, Any]) -> str:
    """The variants a recorded ruleset deals, for the round's opening line."""
    text = ""
    push = ruleset.get("push", "none")
    if push != "none":
        try:
            text += f"; {PushRule(push).words}: every wager pushes"
        except ValueError:
            text += f"; push rule {push}"
    if ruleset.get("face_up"):
        text += "; face up: the dealer's cards dealt face up and set before the players set"
    if ruleset.get("dragon"):
        text += "; the dragon hand offered"
    return text


def _category(value: str) -> str:
    try:
        return BonusCategory(value).label
    except ValueError:  # not a category this engine knows: shown as recorded
        return value


def side_line(event: SideWagerSettled, pays: Mapping[str, str] | None = None) -> str:
    """One side wager's settlement; ``pays``: its pay table's pays by category (the ruleset's
    record), to say what the hand pays.

    >>> side_line(SideWagerSettled(3, "fortune", 500, "four-of-a-kind", 12500, 13000),
    ...           {"four-of-a-kind": "25 to 1"})
    'spot 3 fortune: four of a kind pays 25 to 1, won $125.00, returned $130.00'
    >>> side_line(SideWagerSettled(2, "fortune", 500, None, 0, 0))
    'spot 2 fortune: nothing, lost $5.00'
    >>> side_line(SideWagerSettled(1, "jackpot", 100, "seven-card-straight-flush", 1200000,
    ...                            1200100, 1200000, 1000000))
    'spot 1 jackpot: seven-card straight flush, won $12,000.00, returned $12,001.00; meter $12,000.00, after $10,000.00'
    """
    head = f"spot {event.spot} {event.name}: "
    if event.hand is None or event.returned == 0:
        text = head + f"nothing, lost {format_money(event.wager)}"
    else:
        pay = (pays or {}).get(event.hand)
        paid = f" pays {pay}" if pay else ""
        text = head + (
            f"{_category(event.hand)}{paid}, won {format_money(event.win)}, "
            f"returned {format_money(event.returned)}"
        )
    if event.meter is not None:
        text += f"; meter {format_money(event.meter)}"
        if event.meter_after is not None and event.meter_after != event.meter:
            text += f", after {format_money(event.meter_after)}"
    return text


def _envy(event: EnvyPaid) -> str:
    hands = " and ".join(f"spot {s}'s {_category(c)}" for s, c in event.hands)
    return f"spot {event.spot} {event.name} Envy: {format_money(event.amount)} for {hands}"


def _offers(ruleset: Mapping[str, Any]) -> str:
    """The side wagers a recorded ruleset offers, for the round's opening line."""
    shown = []
    for offer in ruleset.get("side_wagers", ()):
        lo, hi = offer["min_wager"], offer["max_wager"]
        limits = format_money(lo) if lo == hi else f"{format_money(lo)}-{format_money(hi)}"
        bank = f", bank {offer['bank']}" if offer.get("bank") else ""
        shown.append(f"{offer['name']} {limits} ({offer['table']['name']}{bank})")
    return f"; side wagers: {', '.join(shown)}" if shown else ""


def _pays(ruleset: Mapping[str, Any]) -> dict[str, Mapping[str, str]]:
    return {o["name"]: o["table"]["pays"] for o in ruleset.get("side_wagers", ())}


def _hand_set(event: HandSet, wheel: Wheel, shown: bool) -> str:
    reason = _REASONS.get(event.reason or "", event.reason or "")
    if not shown:
        if event.by == "player":
            return f"spot {event.spot} has set its hand"
        return f"spot {event.spot}'s hand is set by the house way ({reason})"
    cards = _setting(event.high, event.low, wheel)
    if event.by == "player":
        foul = "; FOUL: the low hand outranks the high hand" if event.foul else ""
        return f"spot {event.spot} sets: {cards}{foul}"
    if event.reason == "foul-reset" and event.submitted is not None:
        fouled = f"{' '.join(event.submitted[0])} / {' '.join(event.submitted[1])}"
        return (
            f"spot {event.spot} submits a foul ({fouled}); the house way sets it instead, "
            f"rule {event.rule}: {cards}"
        )
    return f"spot {event.spot} is set by the house way ({reason}), rule {event.rule}: {cards}"


def _dealt(event: Dealt, viewer: Collection[int] | None, dragon: bool = False) -> str:
    """The deal in words; at a table with the dragon hand, its packet is set aside (never said
    to be discarded).

    >>> from paigow.events import Packet
    >>> cards = ("2c",) * 7
    >>> e = Dealt((1, 2, 3, 4, 5, 6, 7), (Packet(1, None, cards), Packet(2, 1, cards)),
    ...           tuple(Packet(p, p - 1, cards) for p in range(3, 8)), ("2c",) * 4)
    >>> _dealt(e, None, dragon=True).split("; ", 1)[1]
    "discarded unseen: spot 3, spot 4, spot 5, spot 6 and the 4 cards left over; spot 2's packet set aside face down: the dragon hand"
    """
    from paigow.variants import dragon_packet

    playing = ", ".join(position_name(p.position) for p in event.packets)
    text = f"seven packets dealt counterclockwise from position {event.order[0]}: {playing}"
    wagered = [p.spot for p in event.packets if p.spot is not None]
    kept = dragon_packet(event.order, wagered) if dragon else None
    discarded = [p for p in event.discarded if kept is None or p.spot != kept]
    if discarded:
        empty = ", ".join(position_name(p.position) for p in discarded)
        text += f"; discarded unseen: {empty} and the 4 cards left over"
    else:
        text += "; the 4 cards left over discarded unseen"
    if kept is not None:
        text += f"; spot {kept}'s packet set aside face down: the dragon hand"
    if viewer is not None:
        for p in event.packets:
            if p.spot is not None and p.spot in viewer:
                text += f"; your cards (spot {p.spot}): {' '.join(p.cards)}"
    return text


def narrate(
    event: Event,
    wheel: Wheel = Wheel.SECOND,
    viewer: Collection[int] | None = None,
    pays: Mapping[str, Mapping[str, str]] | None = None,
    dragon: bool = False,
) -> str:
    """One event in words. ``wheel``: the round's (see :func:`wheel_of`); ``viewer``: the spots
    whose cards the reader may see (None: everything, as in the complete log); ``pays``: each
    side wager's pays by category (from the round's ruleset, as :func:`narrate_log` reads it);
    ``dragon``: the table deals the dragon hand (its packet is set aside, not discarded).

    >>> from paigow.events import HandSet
    >>> e = HandSet(2, ("Ks", "Kd", "9c", "5h", "2s"), ("Ad", "Th"), False, "player")
    >>> narrate(e)
    'spot 2 sets: Ks Kd 9c 5h 2s (one pair, kings) / Ad Th (high card, ace-ten)'
    >>> narrate(e, viewer={4})
    'spot 2 has set its hand'
    """
    match event:
        case RoundStarted(round_id=rid, ruleset=rs, house_way=hw):
            return (
                f"round {rid} opens: commission {Commission(rs['commission'])} (posted), limits "
                f"{format_money(rs['min_wager'])}-{format_money(rs['max_wager'])}, house way "
                f"{hw['name']}, start by {rs['start']}, foul {rs['foul']}, wheel {rs['wheel']}"
                + _offers(rs)
                + _variants(rs)
            )
        case WagerPlaced(spot=spot, amount=amount):
            return f"spot {spot} wagers {format_money(amount)}"
        case SideWagerPlaced(spot=spot, name=name, amount=amount):
            return f"spot {spot} wagers {format_money(amount)} on {name}"
        case SideWagerSettled():
            return side_line(event, (pays or {}).get(event.name))
        case EnvyPaid():
            return _envy(event)
        case Shuffled(source=source):
            return f"53 cards (52 and the joker) shuffled by {_SOURCES.get(source, source)}"
        case StartChosen():
            return start_line(event)
        case Dealt():
            return _dealt(event, viewer, dragon)
        case HandSet():
            return _hand_set(event, wheel, viewer is None or event.spot in viewer)
        case DealerSet(high=high, low=low, rule=rule):
            return f"dealer sets by the house way, rule {rule}: {_setting(high, low, wheel)}"
        case SpotSettled():
            return settlement_line(event)
        case DragonOffered(spot=spot, order=order):
            return (
                f"the dragon hand (the packet of spot {spot}) is offered, in turn, to spot"
                f"{'s' if len(order) > 1 else ''} {', '.join(map(str, order))}"
            )
        case DragonDeclined(spot=spot, reason=reason):
            why = {"timeout": " (no answer in time)", "left": " (the player left)"}
            return f"spot {spot} declines the dragon hand{why.get(reason or '', '')}"
        case DragonSet(spot=spot) if viewer is not None:  # face down until the showdown
            return f"the dragon hand (spot {spot}'s packet) is set by the house way, face down"
        case DragonAccepted(spot=spot, amount=amount):
            return f"spot {spot} wagers {format_money(amount)} on the dragon hand"
        case DragonSet(spot=spot, high=high, low=low, rule=rule):
            return (
                f"the dragon hand (spot {spot}'s packet) is set by the house way, rule {rule}: "
                f"{_setting(high, low, wheel)}"
            )
        case DragonSettled():
            return _dragon_settled(event)
        case RoundSettled(wagered=w, returned=r, commission=c):
            text = (
                f"round settled: wagered {format_money(w)}, returned {format_money(r)}, "
                f"commission {format_money(c)}"
            )
            if event.dragon_wagered:
                text += (
                    f"; dragon hand: wagered {format_money(event.dragon_wagered)}, returned "
                    f"{format_money(event.dragon_returned)}, commission "
                    f"{format_money(event.dragon_commission)}"
                )
            if event.side_wagered:
                text += (
                    f"; side wagers: wagered {format_money(event.side_wagered)}, returned "
                    f"{format_money(event.side_returned)}, Envy paid "
                    f"{format_money(event.envy_paid)}"
                )
            return text
        case Voided(reason=reason, returned=returned, side_returned=side):
            back = ", ".join(f"spot {s} {format_money(a)}" for s, a in returned)
            back += "".join(f", spot {s} {n} {format_money(a)}" for s, n, a in side)
            if event.dragon is not None:
                back += f", spot {event.dragon[0]} dragon {format_money(event.dragon[1])}"
            return f"round void ({reason}): " + (
                f"every wager returned ({back})" if back else "no wager to return"
            )
    return event.type


def wheel_of(events: Iterable[Event]) -> Wheel:
    """The wheel the round's ruleset records (the default when the log does not start)."""
    for event in events:
        if isinstance(event, RoundStarted):
            return Wheel(event.ruleset.get("wheel", Wheel.SECOND))
        break
    return Wheel.SECOND


def narrate_log(events: Sequence[Event], viewer: Collection[int] | None = None) -> list[str]:
    """Every event of a round's log in words, in order."""
    wheel = wheel_of(events)
    pays: dict[str, Mapping[str, str]] = {}
    dragon = False
    for event in events:
        if isinstance(event, RoundStarted):
            pays = _pays(event.ruleset)
            dragon = bool(event.ruleset.get("dragon"))
        break
    return [narrate(e, wheel, viewer, pays, dragon) for e in events]
