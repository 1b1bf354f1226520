"""The words added to the house-way language for the gaps the published house ways found (issue
50; docs/house-way.md#the-rule-language): each read alike by the reference reading
(:mod:`paigow.house_way.reader`) and by the compiled program, on a sample of hands quickly and on
reduced decks exhaustively (``slow``); each in plain words, with "did you mean" for its near
misses."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import numpy as np
import pytest

from paigow.analysis.house_way_diff import diff_hands
from paigow.analysis.kernels import way_program as KP
from paigow.analysis.program import compile_way, set_hand
from paigow.cards import FULL_DECK, Card, parse_cards, sort_cards
from paigow.errors import HouseWayError
from paigow.house_way import HouseWay
from paigow.house_way.plain import plain_rules
from paigow.house_way.reader import HandReader
from paigow.ranking import Wheel, evaluate_five, evaluate_two

#: Rules in the new words, before a catch-all: each form a condition can take.
NEW_WORDS = """name = "new-words"
[bands]
high = "J-A"

[[rule]]
id = "ace-front-better"
when = "one-pair and single-A and best-low(A+single2) > best-low(any, straight|flush|straight-flush|royal-flush)"
low = "A+single2"

[[rule]]
id = "pair-front-as-good"
when = "pairs >= 2 and best-low(low-pair) >= best-low(A, two-pair|trips)"
low = "low-pair"

[[rule]]
id = "five-natural"
when = "five-aces and pair != K"
low = "natural-A+natural-A"

[[rule]]
id = "aces-natural"
when = "trips and three == A"
low = "natural-A+single1"

[[rule]]
id = "natural-leaves"
when = "one-pair and pair == A and joker and leaves(natural-A, straight|flush|straight-flush)"
low = "natural-A+single1"
high = "straight|flush|straight-flush|royal-flush"

[[rule]]
id = "ace-high"
when = "straight-high == A and pair == A and joker"
low = "single1+single2"

[[rule]]
id = "wheel"
when = "straight-high == 5"
high = "straight|straight-flush"
choose = "best-low"

[[rule]]
id = "broadway-band"
when = "straight-high in high and one-pair"
low = "pair"
high = "straight|flush|straight-flush|royal-flush"

[[rule]]
id = "above-pair"
when = "pairs > 0 and straight-high > high-pair and not flush"
low = "low-pair"
high = "straight|straight-flush|royal-flush"

[[rule]]
id = "low-straight"
when = "straight-high in {6-8} or (straight-high != 0 and straight-high <= single1)"
high = "straight|straight-flush"
choose = "best-high"

[[rule]]
id = "rest"
choose = "best-low"
"""

#: Reduced decks rich in straights (with and without the joker), wheels and pairs.
DECKS = [
    "Jk As Ks Qs Js Ts 9h 5d 4c 3h 2s Ah Kh Qd",
    "Jk Ad 2d 3d 4d 5d 6h 7h 8s 8h 9c 6c 2c Tc",
]


def _new_words() -> HouseWay:
    return HouseWay.from_text(NEW_WORDS, "new-words.toml")


def _rich(rng: random.Random, n: int) -> list[list[Card]]:
    """Hands of random cards, of the top cards, with the joker, and of ranks in a row."""
    out = [rng.sample(FULL_DECK, 7) for _ in range(n)]
    out += [rng.sample(FULL_DECK[28:], 7) for _ in range(n)]
    out += [[FULL_DECK[52], *rng.sample(FULL_DECK[:52], 6)] for _ in range(n)]
    out += [[*FULL_DECK[48:], *rng.sample(FULL_DECK[:48], 2)] for _ in range(n // 10)]  # 5 aces
    out += [[FULL_DECK[52], rng.choice(FULL_DECK[48:52]), *rng.sample(FULL_DECK[:48], 5)]
            for _ in range(n // 2)]  # fmt: skip  # the joker and one natural ace
    for _ in range(n):  # five to seven ranks in a row (the wheel among them), the joker at times
        top = rng.randint(3, 12)  # the top card's rank number (0: a two, 12: an ace)
        ranks = [(top - k) % 13 for k in range(5)]  # the wheel's ace is 12
        pool = [c for c in FULL_DECK[:52] if (c.index >> 2) in ranks]
        hand = rng.sample(pool, 5) + rng.sample(FULL_DECK, 2)
        if rng.random() < 0.4:
            hand[rng.randrange(5)] = FULL_DECK[52]
        if len({c.index for c in hand}) == 7:
            out.append(hand)
    return out


def _disagree(way: HouseWay, hands: list[list[Card]], wheel: Wheel) -> list[str]:
    program = compile_way(way)
    bad = []
    for cards in hands:
        ref = way.set_hand(cards, wheel)
        high, low, rule = set_hand(program, cards, wheel)
        got = (evaluate_five(high, wheel).key, evaluate_two(low).key, rule)
        want = (evaluate_five(ref.setting.high, wheel).key, evaluate_two(ref.setting.low).key)
        if got != (*want, ref.rule):
            bad.append(f"{' '.join(c.code for c in cards)}: {ref.rule} / {rule}")
    return bad


# ------------------------------------------------------------------------------ straight-high
def _kernel_features(cards: list[Card]) -> Any:
    s = np.array(sorted((c.index for c in cards), reverse=True), dtype=np.int64)
    w = KP.work_array()
    KP._features(s, w)
    return w


def test_straight_high_is_read_alike_by_the_reader_and_the_kernel() -> None:
    seen = set()
    for cards in _rich(random.Random("straight-high"), 600):
        want = HandReader(sort_cards(cards), Wheel.SECOND).feature("straight-high")
        assert _kernel_features(cards)[KP.N_STRAIGHT_HIGH] == want, cards
        seen.add(want)
    assert seen == {0, *range(5, 15)}  # every height met, the wheel's 5 among them


@pytest.mark.parametrize(
    ("hand", "height"),
    [("Jk As Kd Qc Th 6s 2c", 14), ("As Kd Qc Jh Ts 9s 8c", 14), ("Jk 5d 4c 3h Ah 9c Kd", 5),
     ("Jk 5d 4c 3h 6h 9c Kd", 7), ("9h 8h 7h 6h 5h 4h Kd", 9), ("Ah Kh Qh Jh 9h 8c 2d", 0),
     ("Jk Jd Ts 9c 8d 2s 2c", 12)],
)  # fmt: skip
def test_straight_high_is_the_top_of_the_highest_straight(hand: str, height: int) -> None:
    assert (
        HandReader(sort_cards(parse_cards(hand)), Wheel.SECOND).feature("straight-high") == height
    )


def test_the_new_words_are_compiled_as_they_read_on_a_sample() -> None:
    way = _new_words()
    rng = random.Random("new-words")
    hands = _rich(rng, 250)
    assert _disagree(way, hands, Wheel.SECOND) == []
    assert _disagree(way, _rich(rng, 60), Wheel.LOWEST) == []
    ids = {way.set_hand(h).rule for h in hands}
    assert ids == {r.id for r in way.rules}  # every rule met


@pytest.mark.slow
def test_the_new_words_are_compiled_as_they_read_on_reduced_decks() -> None:
    way = _new_words()
    hands = [list(h) for deck in DECKS for h in itertools.combinations(parse_cards(deck), 7)]
    assert len(hands) == 2 * 3432
    assert _disagree(way, hands, Wheel.SECOND) == []


@pytest.mark.slow  # tens of seconds on two cores: the full suite's
def test_ballys_rule_in_straight_high_sets_hands_as_the_rule_it_replaced() -> None:
    """The ``ballys-ac`` rule written with ``straight-high`` against its first writing (the wheel
    ruled out by the singles): no hand of a large sample set otherwise (the full deck: 0 hands,
    docs/house-way-sources.md)."""
    now = HouseWay.preset("ballys-ac")
    text = now.to_toml().replace('name = "ballys-ac"', 'name = "ballys-ac-before"')
    old_when = (
        "one-pair and pair == A and joker and (straight or straight-flush) and not leaves(A, "
        "straight|flush|straight-flush|royal-flush) and not ((single-2 and single-3 and "
        "single-4) or (single-2 and single-3 and single-5) or (single-2 and single-4 and "
        "single-5) or (single-3 and single-4 and single-5))"
    )
    data = HouseWay.from_text(text, "before.toml").to_dict()
    for rule in data["rules"]:
        if rule["id"] == "straight.joker-ace-high":
            assert "straight-high == A" in " ".join(rule["when"].split())
            rule["when"] = old_when
    before = HouseWay.from_dict(data)
    hands = _rich(random.Random("ballys"), 3000)
    assert diff_hands(before, now, hands).differ == 0
    assert sum(now.set_hand(h).rule == "straight.joker-ace-high" for h in hands) > 20


# ------------------------------------------------------------------------------ natural-A
@pytest.mark.parametrize(
    ("hand", "low", "rule"),
    [("Jk As Ah Ad Ac 9h 8c", "As Ah", "five-natural"),
     ("Jk As Ah 9d 8c 3h 2c", "As 9d", "aces-natural"),
     ("Jk Ah Ks Qd Jd 9d 8d", "Ah Ks", "natural-leaves")],
)  # fmt: skip
def test_a_natural_ace_is_never_the_joker(hand: str, low: str, rule: str) -> None:
    """The reference and the compiled program send the same cards low: a natural ace, the
    joker kept high (where ``A`` would let the joker go, the high hand as strong)."""
    way, cards = _new_words(), list(parse_cards(hand))
    ref = way.set_hand(cards)
    high, got_low, rid = set_hand(compile_way(way), cards)
    assert (ref.rule, rid) == (rule, rule)
    assert {c.code for c in ref.setting.low} == {c.code for c in got_low} == set(low.split())
    assert any(c.is_joker for c in high)


def test_natural_a_without_a_natural_ace_passes_the_hand_on() -> None:
    way = _new_words()
    cards = list(parse_cards("Jk Kd Kc Kh 9d 8c 2c"))  # trips of kings: not aces
    assert way.set_hand(cards).rule == set_hand(compile_way(way), cards)[2] == "rest"
    lone = list(parse_cards("Jk Jd Tc Qh 9d 8c 2c"))  # the joker alone: no natural ace
    assert way.set_hand(lone).rule == set_hand(compile_way(way), lone)[2] != "natural-leaves"


# ------------------------------------------------------------------------------ words and errors
def test_the_new_words_read_in_plain_words() -> None:
    every = [r.text for r in plain_rules(_new_words(), tries=4000)]
    texts = every[5:]
    assert texts[0].startswith("The highest straight is ace-high, and the highest pair is aces")
    assert texts[1].startswith("The highest straight is five-high:")
    assert "the highest straight is jacks to aces" not in texts[2]
    assert texts[2].startswith("The highest straight is jack-high to ace-high")
    assert "the top card of the highest straight is above the highest pair" in texts[3]
    assert every[0].startswith(
        "One pair, and a single ace, and the best low hand of an ace (or the joker) and the "
        "second highest other single card beats the best low hand of any two cards with a "
        "straight or flush or straight flush or royal flush still high"
    )
    natural = every[2:5]
    assert natural[0].endswith(": two natural aces go low.")
    assert "a natural ace (not the joker) and the highest other single card go low" in natural[1]
    assert "a natural ace (not the joker) can go low beside another card" in natural[2]


def test_the_best_lows_two_actions_leave_are_compared() -> None:
    """``best-low(...)``: the best low hand a spec leaves (fouls left out; none is below every
    low hand), compared as Foxwoods' "if the front hand can be improved" reads."""
    way = _new_words()
    # A-Q in front beats the best front a straight leaves (K-3): the ace goes low
    assert way.set_hand(parse_cards("Ks Kh Ac Qd Jh Ts 3c")).rule == "ace-front-better"
    # no straight or flush: no low keeps one, so A + the next card beats "none"
    assert way.set_hand(parse_cards("Ks Kh Ac Qd 8h 5s 3c")).rule == "ace-front-better"
    # T-T cannot go low with the straight high, but A-T leaves it (A-9 is no better): rule passed
    assert way.set_hand(parse_cards("Ts Th As 9d 8h 7s 6c")).rule != "ace-front-better"
    # two pair without an ace: no low holds the ace, so the low pair is at least as good
    assert way.set_hand(parse_cards("Ks Kh 5c 5d 8h 7s 3c")).rule == "pair-front-as-good"


def test_foxwoods_rule_in_best_low_sets_hands_as_its_seven_clauses() -> None:
    """``foxwoods-published``'s "if the front hand can be improved", written with ``best-low``,
    against its first writing (seven ``leaves`` clauses): every hand of a reduced deck rich in
    aces, big pairs, straights and flushes set alike (the full deck: 0 hands apart, by
    ``paigow house-way diff``, docs/house-way-sources.md)."""
    now = HouseWay.preset("foxwoods-published")
    data = now.to_dict()
    data["name"] = "foxwoods-published-before"
    for rule in data["rules"]:
        if rule["id"] == "straight.ace-exception":
            assert "best-low(A+single2) > best-low(any," in rule["when"]
            rule["when"] = (
                "one-pair and pair in T-K and single-A and (straight or flush or straight-flush)"
                " and not leaves(pair, straight|flush|straight-flush|royal-flush)"
                " and not leaves(A+single2, straight|flush|straight-flush|royal-flush)"
                " and not (pair == K and leaves(A+K, straight|flush|straight-flush|royal-flush))"
                " and not (pair == Q and single2 < Q and leaves(A+Q, straight|flush|straight-flush|royal-flush))"
                " and not (pair == J and single2 < J and leaves(A+J, straight|flush|straight-flush|royal-flush))"
                " and not (pair == T and single2 < T and leaves(A+T, straight|flush|straight-flush|royal-flush))"
            )
    before = HouseWay.from_dict(data)
    assert before.digest != now.digest
    deck = parse_cards("Jk As Ah Ks Kh Qs Qh Js Jh Ts Th 9s 8s 7d 3s 2s")
    hands = [list(h) for h in itertools.combinations(deck, 7)]
    assert diff_hands(before, now, hands).differ == 0
    # the rule is met, not only passed over (every fourth hand by the reference reading: 303)
    fired = sum(now.set_hand(h).rule == "straight.ace-exception" for h in hands[::4])
    assert fired > 100


@pytest.mark.parametrize(
    ("text", "words"),
    [("best-low(A) > pair", "compared with another best-low"),
     ("best-low(A)", "is a low hand: compare it"),
     ("best-low(A, staright) > best-low(any)", "did you mean 'straight'?"),
     ("best-low(, straight) > best-low(any)", "takes a low spec first"),
     ("best-low(bestlow) < best-low(any)", "low spec 'bestlow': unknown card")],
)  # fmt: skip
def test_a_malformed_best_low_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(HouseWayError, match=re.escape(words)):
        HouseWay.from_text(
            f'name = "x"\n[[rule]]\nid = "x"\nwhen = "{text}"\nlow = "pair"\n'
            '[[rule]]\nid = "y"\nchoose = "best-low"\n',
            "x.toml",
        )


@pytest.mark.parametrize(
    ("line", "hint"),
    [('when = "straight-hihg == A"', "did you mean 'straight-high'?"),
     ('when = "straight-high"', "is a number"),
     ('low = "natral-A+K"', "did you mean 'natural-A'?"),
     ('when = "leaves(natural-a, straight)"', "did you mean 'natural-A'?")],
)  # fmt: skip
def test_a_near_miss_of_a_new_word_is_named(line: str, hint: str) -> None:
    with pytest.raises(HouseWayError, match=re.escape(hint)):
        HouseWay.from_text(
            f'name = "x"\n[[rule]]\nid = "x"\n{line}\n'
            + ("" if line.startswith("low") else 'low = "pair"\n')
            + '[[rule]]\nid = "y"\nchoose = "best-low"\n',
            "x.toml",
        )
