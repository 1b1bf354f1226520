"""Cards, the joker and the 53-card deck (docs/rulebook.md#cards-and-the-joker).

A card is a small integer: ``(rank - 2) * 4 + suit`` for the 52 standard cards (ranks 2..14, ace
high; suits clubs, diamonds, hearts, spades = 0..3) and 52 for the joker. :class:`Card` wraps that
integer with parsing and formatting in the rule book's notation.

>>> parse_cards("As 10d jk")
(Card('As'), Card('Td'), Card('Jk'))
>>> str(parse_card("♥q"))
'Qh'
>>> len(FULL_DECK), len(set(FULL_DECK))
(53, 53)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from paigow.errors import CardError

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS: Final = {
    "♣": "c",
    "♧": "c",
    "♦": "d",
    "♢": "d",
    "♥": "h",
    "♡": "h",
    "♠": "s",
    "♤": "s",
}
RANK_NAMES: Final = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
RANK_PLURALS: Final = {r: ("sixes" if r == 6 else name + "s") for r, name in RANK_NAMES.items()}
ACE: Final = 14
JOKER_INDEX: Final = 52
JOKER_NAMES: Final = frozenset({"jk", "joker", "bug"})


class Card:
    """One of the 53 cards: immutable, hashable, ordered by its index.

    >>> c = Card.from_rank_suit(14, 3)
    >>> c, c.rank, c.suit, c.index
    (Card('As'), 14, 3, 51)
    >>> Card(52).is_joker, Card(52).code
    (True, 'Jk')
    """

    __slots__ = ("_index",)
    _index: int

    def __init__(self, index: int) -> None:
        if not 0 <= index <= JOKER_INDEX:
            raise CardError(f"card index {index} is out of range 0..52")
        object.__setattr__(self, "_index", index)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @classmethod
    def from_rank_suit(cls, rank: int, suit: int) -> Card:
        """The standard card of ``rank`` (2..14) and ``suit`` (0..3: c, d, h, s)."""
        if not 2 <= rank <= ACE or not 0 <= suit <= 3:
            raise CardError(f"no card of rank {rank} and suit {suit}")
        return cls((rank - 2) * 4 + suit)

    @property
    def index(self) -> int:
        """0..51 for standard cards, 52 for the joker."""
        return self._index

    @property
    def is_joker(self) -> bool:
        return self._index == JOKER_INDEX

    @property
    def rank(self) -> int:
        """2..14 (ace high); the joker reports 14, as it counts as an ace unless it completes a
        straight or flush."""
        return ACE if self.is_joker else self._index // 4 + 2

    @property
    def suit(self) -> int:
        """0..3 (clubs, diamonds, hearts, spades); -1 for the joker."""
        return -1 if self.is_joker else self._index % 4

    @property
    def code(self) -> str:
        """Two-character notation: ``As``, ``Td``, ``Jk``."""
        if self.is_joker:
            return "Jk"
        return RANK_CHARS[self._index // 4] + SUIT_CHARS[self._index % 4]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other._index == self._index

    def __hash__(self) -> int:
        return self._index

    def __lt__(self, other: Card) -> bool:
        return self._index < other._index

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self._index,))


JOKER: Final = Card(JOKER_INDEX)
FULL_DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(53))
"""The 53 cards in index order (2c, 2d, 2h, 2s, 3c, ..., As, Jk)."""
_BY_CODE: Final[dict[str, Card]] = {c.code: c for c in FULL_DECK}
"""Each card by its own code (``As``, ``Jk``): how logs and notices spell them."""


def parse_card(token: str) -> Card:
    """Parse one card: rank ``2-9 T J Q K A`` (or ``10``) and suit ``c d h s`` (or a suit symbol),
    either order, any case; the joker is ``Jk``, ``JK`` or ``Joker``.

    >>> parse_card("ah"), parse_card("10S"), parse_card("Joker")
    (Card('Ah'), Card('Ts'), Card('Jk'))
    >>> parse_card("1x")
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: '1x' is not a card: unknown rank '1'
    """
    if not isinstance(token, str):
        raise CardError(f"{token!r} is not a card: expected a code such as 'As' or 'Jk'")
    known = _BY_CODE.get(token)
    if known is not None:  # a card's own code: what logs and notices carry
        return known
    raw = token
    text = token.strip()
    if not text:
        raise CardError("empty card token")
    if text.lower() in JOKER_NAMES:
        return JOKER
    for symbol, letter in SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    folded = text.lower()
    # Accept suit first ("hQ" from "♥Q") as well as rank first.
    if len(folded) >= 2 and folded[0] in SUIT_CHARS and folded[1:].upper() in {*RANK_CHARS, "10"}:
        text, folded = text[1:] + text[0], folded[1:] + folded[0]
    if len(text) < 2 or folded in ("10", "1"):
        raise CardError(f"{raw!r} is not a card: a card is a rank and a suit, e.g. As or Td")
    rank_text, suit_text = folded[:-1], folded[-1:]
    if rank_text == "10":
        rank_text = "t"
    if len(rank_text) != 1 or rank_text.upper() not in RANK_CHARS:
        raise CardError(f"{raw!r} is not a card: unknown rank {text[:-1]!r}")
    if suit_text not in SUIT_CHARS:
        raise CardError(f"{raw!r} is not a card: unknown suit {text[-1]!r}")
    return Card.from_rank_suit(RANK_CHARS.index(rank_text.upper()) + 2, SUIT_CHARS.index(suit_text))


def _tokens(text: str) -> list[str]:
    for sep in ",;":
        text = text.replace(sep, " ")
    tokens = text.split()
    if len(tokens) == 1 and len(tokens[0]) > 3 and tokens[0].lower() not in JOKER_NAMES:
        # A run of two-character codes without spaces: "AsKdQh".
        run = tokens[0]
        if len(run) % 2 == 0:
            return [run[i : i + 2] for i in range(0, len(run), 2)]
    return tokens


def parse_cards(cards: str | Iterable[str | Card], count: int | None = None) -> tuple[Card, ...]:
    """Parse several distinct cards from a string (spaces or commas between them) or an iterable.

    ``count`` requires exactly that many cards. Errors name the offending token.

    >>> parse_cards("As,Kd Qh")
    (Card('As'), Card('Kd'), Card('Qh'))
    >>> parse_cards("As Kd As")
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: duplicate card 'As'
    >>> parse_cards("As Kd", count=7)
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: expected 7 cards, got 2
    """
    items: list[str | Card] = list(_tokens(cards)) if isinstance(cards, str) else list(cards)
    out: list[Card] = []
    seen: set[Card] = set()
    for item in items:
        card = item if isinstance(item, Card) else parse_card(item)
        if card in seen:
            raise CardError(f"duplicate card {card.code!r}")
        seen.add(card)
        out.append(card)
    if count is not None and len(out) != count:
        raise CardError(f"expected {count} cards, got {len(out)}")
    return tuple(out)


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated codes.

    >>> format_cards(parse_cards("as kd"))
    'As Kd'
    """
    return " ".join(c.code for c in cards)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Highest first: the joker, then by rank and suit (spades before hearts, diamonds, clubs).

    >>> format_cards(sort_cards(parse_cards("2c Jk Ad Ks As")))
    'Jk As Ad Ks 2c'
    """
    return tuple(sorted(cards, key=lambda c: c.index, reverse=True))


def validate_deck(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` unless ``cards`` are exactly the 53 distinct cards.

    >>> validate_deck(FULL_DECK)
    >>> validate_deck(FULL_DECK[:52])
    Traceback (most recent call last):
    ...
    paigow.errors.CardError: a deck must hold 53 cards, got 52
    """
    if len(cards) != 53:
        raise CardError(f"a deck must hold 53 cards, got {len(cards)}")
    if len(set(cards)) != 53:
        dupes = sorted({c.code for c in cards if list(cards).count(c) > 1})
        raise CardError(f"a deck must hold 53 distinct cards; repeated: {', '.join(dupes)}")
