"""Cards, the joker and the deck: parsing and formatting per docs/rulebook.md#card-notation."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paigow.cards import FULL_DECK, JOKER, Card, format_cards, parse_card, parse_cards
from paigow.errors import CardError, PaigowError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def std(rank: str, suit: str) -> Card:
    """A standard card from the rule book's letters, built without the parser."""
    return Card.from_rank_suit(RANKS.index(rank) + 2, SUITS.index(suit))


# ---------------------------------------------------------------- accepted input


@pytest.mark.parametrize("rank", RANKS)
@pytest.mark.parametrize("suit", SUITS)
def test_every_rank_and_suit_letter_parses(rank: str, suit: str) -> None:
    card = parse_card(rank + suit)
    assert card == std(rank, suit)
    assert card.rank == RANKS.index(rank) + 2
    assert card.suit == SUITS.index(suit)
    assert not card.is_joker


def test_a_cards_own_code_and_the_full_parse_agree() -> None:
    """A card's own code (how logs spell it) is looked up; any other spelling is parsed: both
    give the same card for all 53 (padding and case send a code the long way)."""
    for card in FULL_DECK:
        assert parse_card(card.code) == card
        assert parse_card(f" {card.code} ") == card
        assert parse_card(card.code.swapcase()) == card


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("10h", "Th"),
        ("10H", "Th"),
        ("10c", "Tc"),
        ("10d", "Td"),
        ("10s", "Ts"),
        ("Th", "Th"),
        ("th", "Th"),
        ("TH", "Th"),
    ],
)
def test_ten_is_accepted_as_10_or_t(token: str, code: str) -> None:
    assert parse_card(token).code == code


@pytest.mark.parametrize("suit", SUITS)
@pytest.mark.parametrize("rank", ["A", "K", "Q", "J", "T", "10", "9", "2"])
def test_suit_symbols_are_accepted(rank: str, suit: str) -> None:
    expected = std("T" if rank == "10" else rank, suit)
    assert parse_card(rank + SYMBOLS[suit]) == expected
    assert parse_card(rank.lower() + SYMBOLS[suit]) == expected


@pytest.mark.parametrize(
    ("token", "code"),
    [("As", "As"), ("as", "As"), ("AS", "As"), ("aS", "As"), ("kd", "Kd"), ("QC", "Qc")],
)
def test_input_is_case_insensitive(token: str, code: str) -> None:
    assert parse_card(token).code == code


@pytest.mark.parametrize(
    "token", ["Jk", "JK", "jk", "jK", "Joker", "joker", "JOKER", " Jk ", "Joker "]
)
def test_joker_spellings(token: str) -> None:
    card = parse_card(token)
    assert card is JOKER or card == JOKER
    assert card.is_joker
    assert card.code == "Jk"
    assert str(card) == "Jk"


def test_jack_of_clubs_and_spades_are_not_the_joker() -> None:
    # "Jk" is the joker, but J + a real suit letter is a jack in any case.
    for token in ("Jc", "jc", "JC", "Js", "JS", "js"):
        card = parse_card(token)
        assert not card.is_joker
        assert card.rank == 11


def test_joker_properties() -> None:
    assert JOKER.rank == 14  # counts as an ace unless it completes a straight or flush
    assert JOKER.suit == -1
    assert JOKER.index == 52
    assert repr(JOKER) == "Card('Jk')"


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("As Kd Qh", ["As", "Kd", "Qh"]),
        ("As,Kd,Qh", ["As", "Kd", "Qh"]),
        ("As, Kd ,  Qh", ["As", "Kd", "Qh"]),
        ("as 10d jk", ["As", "Td", "Jk"]),
        ("A♠ K♦ Q♥ J♣", ["As", "Kd", "Qh", "Jc"]),
        ("Joker 2c", ["Jk", "2c"]),
    ],
)
def test_parse_cards_from_text(text: str, codes: list[str]) -> None:
    assert [c.code for c in parse_cards(text)] == codes


def test_parse_cards_from_iterables_of_tokens_and_cards() -> None:
    assert parse_cards(["as", "10d", "JK"]) == (std("A", "s"), std("T", "d"), JOKER)
    assert parse_cards([std("A", "s"), "kd"]) == (std("A", "s"), std("K", "d"))
    assert parse_cards(iter(["2c", "3c"])) == (std("2", "c"), std("3", "c"))


def test_parse_cards_keeps_order() -> None:
    text = "2c Jk As 7d Th"
    assert format_cards(parse_cards(text)) == text


# ---------------------------------------------------------------- formatting


def test_output_notation() -> None:
    # Output uses T for ten, an upper-case rank, a lower-case suit letter, and Jk.
    assert format_cards(parse_cards("10h as KD joker")) == "Th As Kd Jk"
    assert str(parse_card("10♠")) == "Ts"
    assert repr(parse_card("qh")) == "Card('Qh')"
    assert format_cards([]) == ""


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("token", ["1s", "Xs", "Zh", "11d", "0c", "Ps"])
def test_unknown_rank_names_the_token(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    message = str(info.value)
    assert repr(token) in message
    assert "rank" in message


@pytest.mark.parametrize("token", ["Ax", "Kz", "10q", "Tb", "2e"])
def test_unknown_suit_names_the_token(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    message = str(info.value)
    assert repr(token) in message
    assert "suit" in message


@pytest.mark.parametrize("token", ["", "   ", "A", "s", "Jok", "Asx", "AsKdQ"])
def test_malformed_tokens_are_refused(token: str) -> None:
    with pytest.raises(CardError):
        parse_card(token)


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("As Kd Qx", "Qx"),
        ("As 1d Qh", "1d"),
        ("As,Kd,Zz", "Zz"),
        ("Jk Ks Qs Js Tx", "Tx"),
    ],
)
def test_parse_cards_error_names_the_offending_token(text: str, bad: str) -> None:
    with pytest.raises(CardError, match=repr(bad)):
        parse_cards(text)
    with pytest.raises(CardError, match=repr(bad)):
        parse_cards(text.replace(",", " ").split())


@pytest.mark.parametrize(
    ("text", "dupe"),
    [
        ("As Kd As", "As"),
        ("As Kd as", "As"),
        ("Th 10h", "Th"),
        ("Jk 2c JK", "Jk"),
        ("Joker jk", "Jk"),
        ("A♠ As", "As"),
    ],
)
def test_duplicate_card_is_refused_and_named(text: str, dupe: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert "duplicate" in str(info.value)
    assert repr(dupe) in str(info.value)


@pytest.mark.parametrize("count", [1, 2, 5, 6, 8])
def test_wrong_count_is_refused(count: int) -> None:
    seven = "As Kd Qh Jc 9s 7d 2c"
    assert len(parse_cards(seven, count=7)) == 7
    with pytest.raises(CardError, match=f"expected {count} cards, got 7"):
        parse_cards(seven, count=count)
    with pytest.raises(CardError, match="expected 7 cards, got 6"):
        parse_cards("As Kd Qh Jc 9s 7d", count=7)


def test_card_errors_are_value_errors() -> None:
    assert issubclass(CardError, PaigowError)
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize("index", [-1, 53, 100])
def test_card_index_out_of_range(index: int) -> None:
    with pytest.raises(CardError):
        Card(index)


@pytest.mark.parametrize(("rank", "suit"), [(1, 0), (15, 0), (14, 4), (2, -1)])
def test_from_rank_suit_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(CardError):
        Card.from_rank_suit(rank, suit)


def test_cards_are_immutable_and_hashable() -> None:
    card = parse_card("As")
    with pytest.raises(AttributeError):
        card._index = 0  # type: ignore[misc]
    assert {card, parse_card("as"), parse_card("A♠")} == {card}
    assert card != "As"
    assert pickle.loads(pickle.dumps(card)) == card


# ---------------------------------------------------------------- the deck


def test_deck_has_53_distinct_cards() -> None:
    assert len(FULL_DECK) == 53
    assert len(set(FULL_DECK)) == 53
    assert len({c.code for c in FULL_DECK}) == 53
    assert sum(c.is_joker for c in FULL_DECK) == 1
    assert JOKER in FULL_DECK


def test_deck_is_the_52_standard_cards_plus_the_joker() -> None:
    standard = [c for c in FULL_DECK if not c.is_joker]
    assert len(standard) == 52
    assert {(c.rank, c.suit) for c in standard} == {(r, s) for r in range(2, 15) for s in range(4)}
    assert Counter(c.rank for c in standard) == {r: 4 for r in range(2, 15)}
    assert Counter(c.suit for c in standard) == {s: 13 for s in range(4)}


@pytest.mark.parametrize("card", FULL_DECK, ids=[c.code for c in FULL_DECK])
def test_round_trip_code_and_card(card: Card) -> None:
    assert parse_card(card.code) == card
    assert parse_card(card.code.lower()) == card
    assert parse_card(card.code.upper()) == card
    assert parse_card(str(card)) == card
    assert Card(card.index) == card
    assert Card(card.index).code == card.code
    if not card.is_joker:
        assert Card.from_rank_suit(card.rank, card.suit) == card
        assert parse_card(card.code[0] + SYMBOLS[card.code[1]]) == card
        assert parse_card(SYMBOLS[card.code[1]] + card.code[0]) == card


def test_round_trip_whole_deck() -> None:
    text = format_cards(FULL_DECK)
    assert parse_cards(text, count=53) == FULL_DECK
    assert parse_cards(text.lower(), count=53) == FULL_DECK


@settings(max_examples=300, deadline=None)
@given(st.permutations(FULL_DECK), st.integers(1, 53), st.sampled_from([" ", ",", ", "]))
def test_round_trip_any_hand(deck: list[Card], n: int, sep: str) -> None:
    hand = tuple(deck[:n])
    text = sep.join(c.code for c in hand)
    assert parse_cards(text, count=n) == hand
    assert parse_cards(format_cards(hand)) == hand
    assert parse_cards([c.code for c in hand]) == hand
