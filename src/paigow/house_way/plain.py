"""A house way in plain English (issue 50): numbered rules in words generated from the rules
themselves (never written by hand beside them), each with an example hand that rule sets.

>>> from paigow.house_way import HouseWay
>>> rules = plain_rules(HouseWay.preset("standard"))
>>> rules[0].text
'Four aces and the joker, and the highest pair is kings: the highest pair goes low.'
>>> rules[-1].text
'Every other hand: the second and third highest single cards go low.'
>>> rules[-1].example is not None
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from paigow.cards import ACE, JOKER, Card, sort_cards
from paigow.house_way.reader import HandReader
from paigow.house_way.rules import CATEGORIES, RANK_LETTERS, Condition, LowSpec, Rule
from paigow.ranking import Wheel
from paigow.setting import Setting

if TYPE_CHECKING:
    from paigow.house_way.way import HouseWay

__all__ = ["PlainRule", "condition_words", "low_words", "plain_rules", "plain_text"]

_PLURAL: Final = {
    2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens", 8: "eights",
    9: "nines", 10: "tens", 11: "jacks", 12: "queens", 13: "kings", 14: "aces",
}  # fmt: skip
_ONE: Final = {
    2: "a two", 3: "a three", 4: "a four", 5: "a five", 6: "a six", 7: "a seven", 8: "an eight",
    9: "a nine", 10: "a ten", 11: "a jack", 12: "a queen", 13: "a king", 14: "an ace",
}  # fmt: skip
_FLAGS: Final = {
    "five-aces": "four aces and the joker",
    "straight-flush": "a straight flush can be made",
    "flush": "a flush can be made",
    "straight": "a straight can be made",
    "quads": "four of a kind",
    "full-house": "three of a kind with a pair or another three",
    "two-trips": "two sets of three",
    "trips": "three of a kind and no pair",
    "three-pair": "three pairs",
    "two-pair": "two pair",
    "one-pair": "one pair",
    "no-pair": "no pair",
    "joker": "the joker",
}
_NUMBERS: Final = {
    "pairs": "the number of pairs",
    "threes": "the number of threes of a kind",
    "fours": "the number of fours of a kind",
    "aces": "the number of aces (the joker counted)",
    "high-pair": "the highest pair",
    "middle-pair": "the middle pair",
    "low-pair": "the lowest pair",
    "three": "the three of a kind",
    "low-three": "the lower three of a kind",
    "four": "the four of a kind",
    "straight-high": "the top card of the highest straight",
}
_ORDINAL: Final = {1: "highest", 2: "second highest", 3: "third highest", 4: "fourth highest",
                   5: "fifth highest"}  # fmt: skip
_OPS: Final = {"==": "is", "!=": "is not", "<": "is below", "<=": "is at most",
               ">": "is above", ">=": "is at least"}  # fmt: skip
_GROUPS: Final = {
    "high-pair": "the highest pair",
    "middle-pair": "the middle pair",
    "low-pair": "the lowest pair",
    "three": "two cards of the three of a kind",
    "low-three": "two cards of the lower three of a kind",
    "four": "two cards of the four of a kind",
}
_CATEGORY_WORDS: Final = {cat: name.replace("-", " ") for name, cat in CATEGORIES.items()}
_COUNTS: Final = ("pairs", "threes", "fours", "aces")


@dataclass(frozen=True)
class PlainRule:
    """One rule in plain words: its number, id, sentence and an example hand it sets (the
    seven cards and the setting), or None where none was found."""

    number: int
    id: str
    text: str
    example: tuple[tuple[Card, ...], Setting, str] | None


def _feature(name: str) -> str:
    if name.startswith("single") and name[6:].isdigit():
        return f"the {_ORDINAL[int(name[6:])]} single card"
    return _NUMBERS.get(name, name)


def _ranks(ranks: frozenset[int]) -> str:
    """``{7, 8, 9, 10}`` -> ``sevens to tens``; runs joined by commas."""
    runs: list[tuple[int, int]] = []
    for r in sorted(ranks):
        if runs and runs[-1][1] == r - 1:
            runs[-1] = (runs[-1][0], r)
        else:
            runs.append((r, r))
    words = [_PLURAL[a] if a == b else f"{_PLURAL[a]} to {_PLURAL[b]}" for a, b in runs]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def low_words(spec: LowSpec) -> str:
    """Which cards go low, in words.

    >>> from paigow.house_way.rules import parse_low
    >>> low_words(parse_low("A+single1")), low_words(parse_low("low-pair"))
    ('an ace (or the joker) and the highest other single card', 'the lowest pair')
    >>> low_words(parse_low("natural-A+natural-A")), low_words(parse_low("natural-A+K"))
    ('two natural aces', 'a natural ace (not the joker) and a king')
    """
    if spec.is_any:
        return "any two cards"
    kind, arg = spec.slots[0]
    if kind == "group":
        return _GROUPS[str(arg)]
    singles = sorted(int(a) for k, a in spec.slots if k == "single")
    if len(singles) == len(spec.slots) == 2:
        a, b = singles
        if (a, b) == (1, 2):
            return "the two highest single cards"
        return f"the {_ORDINAL[a].replace(' highest', '')} and {_ORDINAL[b]} single cards"
    parts = []
    for kind, arg in spec.slots:
        if kind == "rank":
            parts.append(_ONE[int(arg)] + (" (or the joker)" if int(arg) == ACE else ""))
        elif kind == "joker":
            parts.append("the joker")
        elif kind == "natural":
            parts.append("a natural ace (not the joker)")
        else:
            other = " other" if any(k in ("rank", "natural") for k, _ in spec.slots) else ""
            parts.append(f"the {_ORDINAL[int(arg)]}{other} single card")
    if len(parts) == 2 and parts[0] == parts[1]:
        natural = "natural " if spec.slots[0][0] == "natural" else ""
        return f"two {natural}{_PLURAL[int(spec.slots[0][1])]}"
    return " and ".join(parts)


def condition_words(c: Condition) -> str:
    """A ``when`` condition in words.

    >>> from paigow.house_way.rules import parse_condition
    >>> condition_words(parse_condition("two-pair and high-pair in J-K and not joker"))
    'two pair, and the highest pair is jacks to kings, and not the joker'
    >>> condition_words(parse_condition("one-pair and leaves(pair, straight|flush)"))
    'one pair, and the highest pair can go low with a straight or flush still high'
    """
    if c.kind == "true":
        return "every hand"
    if c.kind == "flag":
        if c.name.startswith("single-"):
            return f"a single {_ONE[RANK_LETTERS[c.name[7:]]].split()[1]}"
        return _FLAGS.get(c.name, c.name)
    if c.name == "straight-high" and c.kind in ("cmp", "in") and not c.other:
        return _height(c)
    if c.kind == "cmp":
        left = _feature(c.name)
        if c.other:
            right = _feature(c.other)
        elif c.name in _COUNTS:
            right = str(c.value)
        else:
            right = _PLURAL.get(c.value, "none") if c.value else "none"
        return f"{left} {_OPS[c.op]} {right}"
    if c.kind == "in":
        return f"{_feature(c.name)} is {_ranks(c.ranks)}"
    if c.kind == "not":
        return "not " + _wrapped(c.args[0])
    if c.kind == "and":
        return ", and ".join(_wrapped(a) for a in c.args)
    if c.kind == "or":
        return " or ".join(_wrapped(a) for a in c.args)
    if c.kind == "lows":
        a, b = (_best_low_words(x) for x in c.args)
        return f"{a} {_LOW_OPS[c.op]} {b}"
    assert c.low is not None
    cats = " or ".join(_CATEGORY_WORDS[x] for x in sorted(c.cats, key=int))
    verb = "can go low" if len(c.low.slots) != 1 else "can go low beside another card"
    return f"{low_words(c.low)} {verb} with a {cats} still high"


_LOW_OPS: Final = {">": "beats", ">=": "is at least as good as", "<": "is below",
                   "<=": "is no better than", "==": "ties", "!=": "differs from"}  # fmt: skip


def _best_low_words(c: Condition) -> str:
    """A ``best-low(...)`` in words.

    >>> from paigow.house_way.rules import parse_condition
    >>> condition_words(parse_condition("best-low(A+single2) > best-low(any, straight|flush)"))
    'the best low hand of an ace (or the joker) and the second highest other single card beats the best low hand of any two cards with a straight or flush still high'
    """
    assert c.low is not None
    cats = " or ".join(_CATEGORY_WORDS[x] for x in sorted(c.cats, key=int))
    beside = " beside another card" if len(c.low.slots) == 1 else ""
    still = f" with a {cats} still high" if cats else ""
    return f"the best low hand of {low_words(c.low)}{beside}{still}"


def _height(c: Condition) -> str:
    """``straight-high`` against ranks, in words.

    >>> from paigow.house_way.rules import parse_condition
    >>> _height(parse_condition("straight-high == A")), _height(parse_condition("straight-high > 0"))
    ('the highest straight is ace-high', 'a straight can be made')
    >>> _height(parse_condition("straight-high in 5-9"))
    'the highest straight is five-high to nine-high'
    """
    if c.kind == "in":
        runs = _ranks(c.ranks).split(", ")
        return "the highest straight is " + ", ".join(_high_words(r) for r in runs)
    if c.value == 0 and c.op in (">", "!="):
        return "a straight can be made"
    if c.value == 0 and c.op in ("==", "<="):
        return "no straight can be made"
    return f"the highest straight {_OPS[c.op]} {_ONE[c.value].split()[1]}-high"


def _high_words(run: str) -> str:
    """``sevens to tens or aces`` -> ``seven-high to ten-high or ace-high``."""
    singular = {_PLURAL[r]: _ONE[r].split()[1] for r in _PLURAL}
    return " ".join(f"{singular[w]}-high" if w in singular else w for w in run.split())


def _wrapped(c: Condition) -> str:
    text = condition_words(c)
    return f"({text})" if c.kind in ("and", "or") else text


def _action(rule: Rule) -> str:
    cats = " or ".join(_CATEGORY_WORDS[x] for x in sorted(rule.high, key=int))
    best = {"best-low": "the best low hand", "best-high": "the best high hand"}.get(rule.choose)
    if rule.low[0].is_any:
        among = f"the settings with a {cats} high" if rule.high else "the settings that do not foul"
        words = f"of {among}, play the one with {best}"
    else:
        words = "; failing that, ".join(_goes_low(low_words(spec)) for spec in rule.low)
        if rule.high:
            words += f", keeping a {cats} in the high hand"
        if best:
            words += f" (of those settings, the one with {best})"
    for cat, rid in rule.ids:
        words += f"; a {_CATEGORY_WORDS[cat]} kept high is called {rid}"
    return words


def _goes_low(cards: str) -> str:
    two = " and " in cards or cards.startswith(("the two", "two"))
    return f"{cards} {'go' if two else 'goes'} low"


def _sentence(rule: Rule, first: bool) -> str:
    when = condition_words(rule.when)
    if rule.when.kind == "true":
        when = "Every hand" if first else "Every other hand"
    else:
        when = when[0].upper() + when[1:]
    return f"{when}: {_action(rule)}."


# ----------------------------------------------------------------------------- examples
_SHAPES: Final = (
    (5, 2), (5, 1, 1), (4, 3), (4, 2, 1), (4, 1, 1, 1), (3, 3, 1), (3, 2, 2), (3, 2, 1, 1),
    (3, 1, 1, 1, 1), (2, 2, 2, 1), (2, 2, 1, 1, 1), (2, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1, 1),
)  # fmt: skip


def _hands(rng: random.Random) -> Iterator[tuple[Card, ...]]:
    """Seven-card hands of every shape in turn (five aces, four of a kind with a pair, ...,
    no pair), each with and without the joker and, where it can, a straight or a flush: the
    rare shapes as often as the common ones, so that each rule meets its hands."""
    while True:
        for shape in _SHAPES:
            for joker in (False, True):
                for extra in ("", "straight", "flush"):
                    hand = _hand(rng, shape, joker or shape[0] == 5, extra)
                    if hand is not None:
                        yield hand


def _hand(
    rng: random.Random, shape: Sequence[int], joker: bool, extra: str
) -> tuple[Card, ...] | None:
    if shape[0] == 5:  # four aces and the joker
        ranks = [ACE, *rng.sample(range(2, 14), len(shape) - 1)]
    elif extra == "straight":
        if len(shape) < 5:
            return None
        top = rng.randint(5, 14)
        window = [ACE if r == 1 else r for r in range(top - 4, top + 1)]
        others = [r for r in range(2, 15) if r not in window]
        ranks = window + rng.sample(others, len(shape) - 5)
        rng.shuffle(ranks)
    else:
        ranks = rng.sample(range(2, 15), len(shape))
    cards: list[Card] = []
    flush_suit = rng.randrange(4)
    singles_done = 0
    for rank, n in zip(ranks, shape, strict=True):
        count = 4 if n == 5 else n
        suits = rng.sample(range(4), count)
        if extra == "flush" and n == 1 and singles_done < 5:
            suits = [flush_suit]
            singles_done += 1
        cards += [Card.from_rank_suit(rank, s) for s in suits]
    if extra == "flush" and singles_done < 5:
        return None
    if joker:
        if shape[0] == 5:
            cards.append(JOKER)
        else:
            aces = [c for c in cards if c.rank == ACE]
            if not aces:
                return None
            cards[cards.index(aces[0])] = JOKER
    return tuple(cards) if len(set(cards)) == 7 else None


def _rule_of(way: HouseWay, seven: tuple[Card, ...]) -> tuple[int, Setting] | None:
    """The number of the rule that sets ``seven`` and its setting (None: no rule does)."""
    reader = HandReader(sort_cards(seven), Wheel.SECOND)
    for n, rule in enumerate(way.rules):
        if reader.holds(rule.when):
            made = reader.act(rule)
            if made is not None:
                return n, made[0]
    return None


def plain_rules(way: HouseWay, tries: int = 20_000, seed: int = 50) -> list[PlainRule]:
    """The house way's rules in plain words, numbered, each with an example hand it sets
    (found among ``tries`` hands of every shape, dealt from ``seed``)."""
    examples: dict[int, tuple[tuple[Card, ...], Setting]] = {}
    rng = random.Random(seed)  # nosec B311  # example hands, seeded to be the same each time
    for k, seven in enumerate(_hands(rng)):
        if k >= tries or len(examples) == len(way.rules):
            break
        found = _rule_of(way, seven)
        if found is not None and found[0] not in examples:
            examples[found[0]] = (sort_cards(seven), found[1])
    out = []
    for n, rule in enumerate(way.rules):
        example = None
        if n in examples:
            seven, setting = examples[n]
            high = setting.value(Wheel.SECOND).high.category
            example = (seven, setting, rule.id_for(high))
        out.append(PlainRule(n + 1, rule.id, _sentence(rule, n == 0), example))
    return out


def plain_text(way: HouseWay, tries: int = 20_000) -> str:
    """The house way as numbered rules in plain words, with an example under each."""
    lines = [f"The {way.name} house way" + (f": {way.title}" if way.title else ""), ""]
    lines.append("The dealer tries the rules in order; the first that fits sets the hand.")
    for r in plain_rules(way, tries):
        lines += ["", f"{r.number}. {r.text} [{r.id}]"]
        if r.example is None:
            lines.append("   (no example found)")
        else:
            seven, setting, rid = r.example
            high = " ".join(c.code for c in setting.high)
            low = " ".join(c.code for c in setting.low)
            tag = f" ({rid})" if rid != r.id else ""
            lines.append(f"   e.g. {' '.join(c.code for c in seven)}: high {high}, low {low}{tag}")
    return "\n".join(lines) + "\n"
