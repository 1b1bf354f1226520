"""A deliberately simple reference evaluator for pai gow poker hands (docs/rulebook.md#ranking).

This module is test-only evidence for the production evaluator in ``paigow.ranking``. It is written
independently of it, works on plain card code strings (``"As"``, ``"Td"``, ``"2c"``, joker ``"Jk"``)
and aims to be obviously correct rather than fast:

* :func:`plain_five` is a textbook 52-card poker evaluator.
* :func:`reference_five` handles the joker literally as docs/rulebook.md#the-joker says: the best of
  "the joker is an ace" and "the joker is any real card that completes a straight, flush,
  straight flush or royal flush" (every one of the 52 real cards is tried).
* :func:`reference_two` ranks two-card hands (the joker is an ace).

Every evaluator returns a tuple ``(category, tiebreak...)``; Python's tuple order is the hand order
and equal tuples are copies. Categories::

    0 high card, 1 one pair, 2 two pair, 3 three of a kind, 4 straight, 5 flush,
    6 full house, 7 four of a kind, 8 straight flush, 9 royal flush, 10 five aces

>>> reference_five("As Ad Ac Ah Jk".split())
(10,)
>>> reference_five("Jk Kh Qh Jh Th".split())
(9,)
>>> reference_two(["Jk", "As"]) > reference_two(["Kd", "Kc"])
True
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
JOKER = "Jk"
ACE = 14

RANK_VALUE = {ch: value for value, ch in enumerate(RANK_CHARS, start=2)}  # "2" -> 2 ... "A" -> 14

#: The 52 real cards, e.g. "2c", "2d", ..., "As".
REAL_CARDS: tuple[str, ...] = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
#: The 53-card pai gow deck.
DECK: tuple[str, ...] = (*REAL_CARDS, JOKER)

HIGH_CARD = 0
ONE_PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
FOUR_OF_A_KIND = 7
STRAIGHT_FLUSH = 8
ROYAL_FLUSH = 9
FIVE_ACES = 10

CATEGORY_NAMES = {
    HIGH_CARD: "high card",
    ONE_PAIR: "one pair",
    TWO_PAIR: "two pair",
    THREE_OF_A_KIND: "three of a kind",
    STRAIGHT: "straight",
    FLUSH: "flush",
    FULL_HOUSE: "full house",
    FOUR_OF_A_KIND: "four of a kind",
    STRAIGHT_FLUSH: "straight flush",
    ROYAL_FLUSH: "royal flush",
    FIVE_ACES: "five aces",
}

#: Categories the joker may complete as "any card" (docs/rulebook.md#the-joker).
JOKER_COMPLETES = frozenset({STRAIGHT, FLUSH, STRAIGHT_FLUSH, ROYAL_FLUSH})

WHEELS = ("second", "lowest")

WHEEL_RANKS = frozenset({ACE, 2, 3, 4, 5})


def _straights_low_to_high(wheel: str) -> list[frozenset[int]]:
    """The ten straights (as rank sets), weakest first, for the given wheel setting."""
    by_top_card = [frozenset(range(top - 4, top + 1)) for top in range(6, 15)]  # 6-high .. A-high
    if wheel == "lowest":
        return [WHEEL_RANKS, *by_top_card]
    if wheel == "second":
        # A-2-3-4-5 sits below A-K-Q-J-T and above K-Q-J-T-9.
        return [*by_top_card[:-1], WHEEL_RANKS, by_top_card[-1]]
    raise ValueError(f"wheel must be 'second' or 'lowest', not {wheel!r}")


STRAIGHT_ORDER = {wheel: _straights_low_to_high(wheel) for wheel in WHEELS}


def parse(code: str) -> tuple[int, str]:
    """``"Td"`` -> ``(10, "d")``. Real cards only."""
    if len(code) != 2 or code[0] not in RANK_VALUE or code[1] not in SUIT_CHARS:
        raise ValueError(f"not a real card code: {code!r}")
    return RANK_VALUE[code[0]], code[1]


def _check_distinct(cards: Sequence[str], size: int) -> None:
    if len(cards) != size:
        raise ValueError(f"expected {size} cards, got {len(cards)}: {cards!r}")
    if len(set(cards)) != size:
        raise ValueError(f"duplicate cards: {cards!r}")


@cache
def _classify(ranks: tuple[int, ...], is_flush: bool, wheel: str) -> tuple[int, ...]:
    """Value of five cards given their ranks (sorted high to low) and whether they share a suit.

    A pure function of its arguments, so it is memoised (there are only a few thousand inputs).
    """
    counts = Counter(ranks)
    # Ranks ordered by (how many, rank), most important first: e.g. K K 7 7 3 -> [13, 7, 3].
    grouped = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)

    if shape == [5]:
        # Only reachable as four aces plus the joker read as an ace.
        assert grouped == [ACE], ranks
        return (FIVE_ACES,)

    straight_index = None
    rank_set = frozenset(ranks)
    if len(rank_set) == 5:
        order = STRAIGHT_ORDER[wheel]
        if rank_set in order:
            straight_index = order.index(rank_set)

    if straight_index is not None and is_flush:
        if rank_set == frozenset({10, 11, 12, 13, ACE}):
            return (ROYAL_FLUSH,)
        return (STRAIGHT_FLUSH, straight_index)
    if shape == [4, 1]:
        return (FOUR_OF_A_KIND, *grouped)
    if shape == [3, 2]:
        return (FULL_HOUSE, *grouped)
    if is_flush:
        return (FLUSH, *ranks)
    if straight_index is not None:
        return (STRAIGHT, straight_index)
    if shape == [3, 1, 1]:
        return (THREE_OF_A_KIND, *grouped)
    if shape == [2, 2, 1]:
        return (TWO_PAIR, *grouped)
    if shape == [2, 1, 1, 1]:
        return (ONE_PAIR, *grouped)
    assert shape == [1, 1, 1, 1, 1], ranks
    return (HIGH_CARD, *ranks)


def _value_of(rank_suit_pairs: Iterable[tuple[int, str]], wheel: str) -> tuple[int, ...]:
    pairs = list(rank_suit_pairs)
    ranks = tuple(sorted((r for r, _ in pairs), reverse=True))
    suits = {s for _, s in pairs}
    return _classify(ranks, len(suits) == 1, wheel)


def plain_five(cards: Sequence[str], wheel: str = "second") -> tuple[int, ...]:
    """Standard poker value of five real cards (no joker).

    >>> plain_five("Ah 2c 3d 4s 5h".split()) > plain_five("Kh Qc Jd Ts 9h".split())
    True
    >>> low = "lowest"
    >>> plain_five("Ah 2c 3d 4s 5h".split(), low) < plain_five("2h 3c 4d 5s 6h".split(), low)
    True
    """
    _check_distinct(cards, 5)
    if wheel not in WHEELS:
        raise ValueError(f"wheel must be 'second' or 'lowest', not {wheel!r}")
    return _value_of((parse(c) for c in cards), wheel)


def reference_five(cards: Sequence[str], wheel: str = "second") -> tuple[int, ...]:
    """Value of a five-card pai gow hand, joker allowed (docs/rulebook.md#the-joker, literally)."""
    _check_distinct(cards, 5)
    if JOKER not in cards:
        return plain_five(cards, wheel)
    if wheel not in WHEELS:
        raise ValueError(f"wheel must be 'second' or 'lowest', not {wheel!r}")

    others = [c for c in cards if c != JOKER]
    other_pairs = [parse(c) for c in others]

    # Reading 1: the joker is an ace of no particular suit ("*"), so as an ace it never makes a
    # flush by itself. This is what makes pairs/trips/quads of aces and five aces.
    candidates = [_value_of([*other_pairs, (ACE, "*")], wheel)]

    # Reading 2: the joker is any real card not already in the hand, but only where that
    # completes a straight, flush, straight flush or royal flush.
    for real in REAL_CARDS:
        if real in others:
            continue
        value = plain_five([*others, real], wheel)
        if value[0] in JOKER_COMPLETES:
            candidates.append(value)

    return max(candidates)


def reference_two(cards: Sequence[str]) -> tuple[int, ...]:
    """Value of a two-card hand: ``(1, rank)`` for a pair, ``(0, high, low)`` otherwise.

    The joker is an ace.

    >>> reference_two(["Jk", "9c"]) == reference_two(["Ad", "9s"])
    True
    """
    _check_distinct(cards, 2)
    ranks = sorted((ACE if c == JOKER else parse(c)[0] for c in cards), reverse=True)
    if ranks[0] == ranks[1]:
        return (1, ranks[0])
    return (0, ranks[0], ranks[1])


def all_hands(size: int) -> Iterable[tuple[str, ...]]:
    """Every ``size``-card hand of the 53-card deck."""
    return itertools.combinations(DECK, size)
