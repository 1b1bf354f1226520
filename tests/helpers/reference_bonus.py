"""An independent, deliberately plain classifier of the bonus hand, to check paigow.bonus.hand.

It shares nothing with the fast one but the Card type and the category names. The joker is
replaced in turn by every standard card not in the hand; a straight, flush, straight flush,
royal flush, seven-card straight flush or royal match that any replacement makes is held (the
joker completes straights and flushes). Pairs and the like count the joker as an ace. The royal
match never uses the joker. Pai gow: nothing of the above under any replacement and no pair.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from paigow.bonus.hand import BonusCategory as B
from paigow.cards import Card

NAMES = {14: "ace", 13: "king", 12: "queen", 11: "jack", 10: "ten", 9: "nine", 8: "eight"}
NAMES |= {7: "seven", 6: "six", 5: "five", 4: "four", 3: "three"}


RUNS = {n: [frozenset(range(low, low + n)) for low in range(1, 16 - n)] for n in (5, 7)}


def has_run(ranks: set[int], length: int) -> bool:
    """``length`` consecutive ranks among ``ranks`` (an ace may also be low, before the two)."""
    values = ranks | {1} if 14 in ranks else ranks
    for run in RUNS[length]:  # noqa: SIM110 (the hot spot: a loop is faster than any())
        if run <= values:
            return True
    return False


#: A natural card as the reference reads it: (rank 2..14, suit 0..3).
Plain = tuple[int, int]


def straight_and_flush_kinds(seven: Sequence[Plain], joker_card: Plain | None) -> set[B]:
    """The straight/flush categories of seven natural cards (``joker_card``: the joker's stand-in)."""
    found: set[B] = set()
    if has_run({rank for rank, _ in seven}, 5):
        found.add(B.STRAIGHT)
    suits: dict[int, list[Plain]] = {}
    for card in seven:
        suits.setdefault(card[1], []).append(card)
    for suit, suited in suits.items():
        if len(suited) < 5:
            continue
        found.add(B.FLUSH)
        ranks = {rank for rank, _ in suited}
        if has_run(ranks, 5):
            found.add(B.STRAIGHT_FLUSH)
        if {10, 11, 12, 13, 14} <= ranks:
            found.add(B.ROYAL_FLUSH)
            rest = [c for c in seven if not (c[1] == suit and c[0] >= 10)]
            if (
                len(rest) == 2
                and joker_card not in rest
                and sorted(rank for rank, _ in rest) == [12, 13]
                and rest[0][1] == rest[1][1] != suit
            ):
                found.add(B.ROYAL_MATCH)
        if len(suited) == 7 and has_run(ranks, 7):
            natural = joker_card is None
            found.add(B.SEVEN_CARD_STRAIGHT_FLUSH if natural else B.WILD_SEVEN_CARD_STRAIGHT_FLUSH)
    return found


#: The 52 standard cards, each as (rank, suit): the joker's stand-ins.
STANDARD: list[Plain] = [(c.rank, c.suit) for c in (Card(index) for index in range(52))]


def reference_held(cards: Sequence[Card]) -> frozenset[B]:
    """Every category the seven cards hold."""
    assert len(cards) == 7 and len(set(cards)) == 7
    naturals = [(c.rank, c.suit) for c in cards if not c.is_joker]
    held: set[B] = set()
    if len(naturals) == 7:
        held |= straight_and_flush_kinds(naturals, None)
    else:
        for stand_in in STANDARD:
            if stand_in not in naturals:
                held |= straight_and_flush_kinds([*naturals, stand_in], stand_in)
    counts = Counter(14 if c.is_joker else c.rank for c in cards)
    most = counts.most_common()
    if counts[14] == 5:
        held.add(B.FIVE_ACES)
    if most[0][1] >= 4:
        held.add(B.FOUR_OF_A_KIND)
    if most[0][1] >= 3:
        held.add(B.THREE_OF_A_KIND)
        if most[1][1] >= 2:
            held.add(B.FULL_HOUSE)
    if not held and most[0][1] == 1:
        top = max(counts)
        held.add(B(f"pai-gow-{NAMES[top]}-high"))
    return frozenset(held)


def reference_low(low: Sequence[Card]) -> B | None:
    """The low hand's category: the higher card of a non-pair, the joker an ace."""
    a, b = (14 if c.is_joker else c.rank for c in low)
    if a == b:
        return None
    return B(f"low-{NAMES[max(a, b)]}-high")
