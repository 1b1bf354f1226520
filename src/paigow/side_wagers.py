"""A round's side wagers settled (docs/rulebook.md#side-wagers): each from the seven cards
however they were set (a foul included), Envy for the other players' qualifying hands, bets on
the dealer's seven cards or on the house way's low hand, and progressive meters.

Pure: it reads the offers, the wagers, the bonus hands and the meters, and returns the events
:meth:`paigow.round.Round.settle` records, in spot order, then name order.

>>> from paigow.bonus.hand import bonus_hand
>>> from paigow.cards import parse_cards
>>> from paigow.ruleset import Ruleset, SideWagerOffer
>>> from paigow.bonus.paytable import PayTable
>>> rules = Ruleset(side_wagers=(SideWagerOffer("fortune", PayTable.load("fortune-a")),))
>>> hands = {1: bonus_hand(parse_cards("9c 9d 9h 9s Js Qd 2c")),
...          2: bonus_hand(parse_cards("Ac Kd 8h 6s 5s 3d 2h"))}
>>> dealer = bonus_hand(parse_cards("Ah Kh Qh 7c 6d 4c 3s"))
>>> events, _ = settle_side_wagers(rules, {(1, "fortune"): 500, (2, "fortune"): 500}, hands,
...                                dealer, parse_cards("7c 6d"), {}, None)
>>> [(e.type, e.spot, e.win if e.type == "side-wager-settled" else e.amount) for e in events]
[('side-wager-settled', 1, 12500), ('side-wager-settled', 2, 0), ('envy-paid', 2, 500)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from paigow.bonus.hand import ORDER, BonusCategory, BonusHand, low_hand_category
from paigow.bonus.paytable import PayKind, PayTable, Target
from paigow.bonus.settle import envy_due, settle_bonus
from paigow.cards import Card
from paigow.errors import RoundError, RulesetError
from paigow.events import EnvyPaid, Event, SideWagerSettled
from paigow.ruleset import Ruleset, SideWagerOffer

__all__ = [
    "banks_of",
    "meter_pay",
    "meter_shares",
    "meters_in",
    "paid_from_meter",
    "settle_side_wagers",
]

SideKey = tuple[int, str]
"""A side wager's key: (spot, the offer's name)."""


def banks_of(ruleset: Ruleset, wagers: Iterable[SideKey]) -> list[str]:
    """The progressive banks the side ``wagers`` need a meter of, sorted."""
    banks = {ruleset.offer(name).bank for _, name in wagers}
    return sorted(b for b in banks if b is not None)


def meter_shares(ruleset: Ruleset, wagers: Mapping[SideKey, int]) -> dict[str, int]:
    """What the progressive wagers add to each bank's meter: each wager's configured share,
    rounded down to the cent (the service adds them before the round settles).

    >>> from paigow.bonus.paytable import PayTable
    >>> from paigow.ruleset import SideWagerOffer
    >>> table = PayTable.from_toml('''name = "jackpot"
    ... target = "player"
    ... pays = { seven-card-straight-flush = "100% of meter", flush = "$50" }
    ... progressive = { share = "15.5%", seed = "$10000" }''')
    >>> rules = Ruleset(side_wagers=(SideWagerOffer("jackpot", table, 100, 500),))
    >>> meter_shares(rules, {(1, "jackpot"): 100, (3, "jackpot"): 500})  # 15 + 77 (77.5)
    {'jackpot': 92}
    """
    shares: dict[str, int] = {}
    for (_, name), amount in sorted(wagers.items()):
        offer = ruleset.offer(name)
        progressive = offer.table.progressive
        if offer.bank is None or progressive is None:
            continue
        share = progressive.share * amount
        shares[offer.bank] = shares.get(offer.bank, 0) + share.numerator // share.denominator
    return shares


def meter_pay(table: PayTable, category: BonusCategory | None, win: int) -> int:
    """The part of a ``win`` paid from the progressive meter: all of it when the category pays a
    share of the meter, none when it pays odds or a fixed amount (the house's money)."""
    if category is None or table.progressive is None:
        return 0
    return win if table.pays[category].kind is PayKind.METER else 0


def paid_from_meter(ruleset: Ruleset, settled: SideWagerSettled) -> int:
    """The part of a settled side wager's win paid from its bank's meter (:func:`meter_pay`): a
    jackpot hit when above 0, even one paid at the seed, which leaves the meter where it was
    (the house tops it up)."""
    hand = None if settled.hand is None else BonusCategory(settled.hand)
    return meter_pay(ruleset.offer(settled.name).table, hand, settled.win)


def meters_in(ruleset: Ruleset, events: Iterable[Event]) -> dict[str, int]:
    """The meters a logged settlement started from: each bank's first recorded ``meter``."""
    found: dict[str, int] = {}
    for event in events:
        if isinstance(event, SideWagerSettled) and event.meter is not None:
            try:
                bank = ruleset.offer(event.name).bank
            except RulesetError:  # an unknown offer: the replay itself says so
                continue
            if bank is not None:
                found.setdefault(bank, event.meter)
    return found


def _envy(
    offer: SideWagerOffer,
    spot: int,
    wager: int,
    hands: Mapping[int, BonusHand],
    players: Mapping[int, str],
) -> EnvyPaid | None:
    envy = offer.table.envy
    if envy is None:
        return None
    me = players.get(spot)
    paid: list[tuple[int, str]] = []
    total = 0
    for other in sorted(hands):
        if other == spot or (me is not None and players.get(other) == me):
            continue
        held = hands[other].held
        amount = envy_due(offer.table, wager, [held])
        if amount <= 0:
            continue
        qualifying = [c for c in held if c in envy.amounts]
        best = max(qualifying, key=lambda c: (envy.amounts[c], -ORDER[c]))
        paid.append((other, best.value))
        total += amount
    if total <= 0:
        return None
    return EnvyPaid(spot, offer.name, total, tuple(paid))


def settle_side_wagers(
    ruleset: Ruleset,
    wagers: Mapping[SideKey, int],
    hands: Mapping[int, BonusHand],
    dealer: BonusHand,
    dealer_low: Sequence[Card],
    players: Mapping[int, str],
    meters: Mapping[str, int] | None,
) -> tuple[list[SideWagerSettled | EnvyPaid], dict[str, int]]:
    """Settle every side wager, in spot order, then name order; with the meters after.

    ``hands``: the bonus hand of every spot with a hand (the Envy counts them all); ``dealer``:
    the dealer's; ``dealer_low``: the dealer's low hand as the house way set it (a bet on the
    dealer settles on the dealer's seven cards and that low hand's category, as
    :func:`paigow.bonus.settle.held_for` says); ``players``:
    who holds each spot (Envy never pays for a hand of the same player); ``meters``: each
    progressive bank's meter at settlement (this round's shares already added). Hits are
    applied in order, each meter pay deducted from the running meter, which the house tops up
    to its seed (a 100% hit resets it to the seed). A progressive wager without its meter is a
    :class:`RoundError`.
    """
    running = dict(meters or {})
    missing = [b for b in banks_of(ruleset, wagers) if b not in running]
    if missing:
        raise RoundError(f"the progressive meter of bank(s) {', '.join(missing)} is needed")
    for bank, value in running.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RoundError(f"bank {bank!r}: a meter is a whole number of cents, got {value!r}")
    low = low_hand_category(dealer_low)
    events: list[SideWagerSettled | EnvyPaid] = []
    for (spot, name), wager in sorted(wagers.items()):
        offer = ruleset.offer(name)
        table = offer.table
        if table.target is Target.PLAYER:
            held = hands[spot].held
        else:  # the dealer's seven cards (a dealer bonus), and the house way's low hand
            held = dealer.held if table.target is Target.DEALER else frozenset()
            if low is not None:
                held |= {low}
        before: int | None = None
        after: int | None = None
        if offer.bank is not None:
            before = running[offer.bank]
        result = settle_bonus(table, wager, held, before)
        if offer.bank is not None and before is not None and table.progressive is not None:
            paid = meter_pay(table, result.category, result.win)
            after = max(before - paid, table.progressive.seed) if paid else before
            running[offer.bank] = after
        hand = None if result.category is None else result.category.value
        events.append(
            SideWagerSettled(spot, name, wager, hand, result.win, result.returned, before, after)
        )
        envy = _envy(offer, spot, wager, hands, players)
        if envy is not None:
            events.append(envy)
    return events, {bank: running[bank] for bank in banks_of(ruleset, wagers)}
