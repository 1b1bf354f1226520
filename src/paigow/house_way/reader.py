"""One hand read for the house-way rules (docs/house-way.md#reading-the-hand): its rank groups,
the features a condition reads, and the settings a rule's action may choose. The plain reading
of the rules that :mod:`paigow.house_way` applies (the reference beside the compiled program).

>>> from paigow.cards import parse_cards, sort_cards
>>> r = HandReader(sort_cards(parse_cards("Jk Kh 9c 7d 5s 3h 2c")), Wheel.SECOND)
>>> r.feature("single1"), r.flag("single-A"), r.flag("no-pair")
(14, True, True)
"""

from __future__ import annotations

from paigow.cards import ACE, Card
from paigow.errors import HouseWayError
from paigow.house_way.rules import RANK_NAMES, Condition, LowSpec, Rule
from paigow.ranking import Category, HandValue, TwoCardValue, Wheel, evaluate_five, evaluate_two
from paigow.setting import Setting, all_settings, low_outranks_high


class HandReader:
    """One hand read by rank groups (the joker counts with the aces): its features, and the
    settings a rule's action may choose. The plain reading of docs/house-way.md."""

    def __init__(self, seven: tuple[Card, ...], wheel: Wheel) -> None:
        self.seven = seven  # highest first, joker first
        self.wheel = wheel
        groups: dict[int, list[Card]] = {}
        for card in seven:
            groups.setdefault(card.rank, []).append(card)  # the joker's rank is the ace's
        self.groups = groups
        self._settings: list[tuple[Setting, HandValue, TwoCardValue]] | None = None
        by = {n: sorted((r for r, cs in groups.items() if len(cs) == n), reverse=True)
              for n in (1, 2, 3, 4, 5)}  # fmt: skip
        self.by_count = by
        self._categories: set[Category] | None = None

    def settings(self) -> list[tuple[Setting, HandValue, TwoCardValue]]:
        """The 21 settings with their hands' values."""
        if self._settings is None:
            self._settings = [
                (s, evaluate_five(s.high, self.wheel), evaluate_two(s.low))
                for s in all_settings(self.seven)
            ]
        return self._settings

    def categories(self) -> set[Category]:
        """The categories some five of the seven make."""
        if self._categories is None:
            self._categories = {high.category for _, high, _ in self.settings()}
        return self._categories

    def feature(self, name: str) -> int:
        """A number feature's value (docs/house-way.md#features)."""
        by = self.by_count
        pairs, threes = by[2], by[3]
        singles = by[1]
        if name == "pairs":
            return len(pairs)
        if name == "threes":
            return len(threes)
        if name == "fours":
            return len(by[4])
        if name == "aces":
            return len(self.groups.get(ACE, []))
        if name == "high-pair":
            return pairs[0] if pairs else 0
        if name == "middle-pair":
            return pairs[1] if len(pairs) == 3 else 0
        if name == "low-pair":
            return pairs[-1] if pairs else 0
        if name == "three":
            return threes[0] if threes else 0
        if name == "low-three":
            return threes[-1] if threes else 0
        if name == "four":
            return by[4][0] if by[4] else 0
        if name == "straight-high":
            return self.straight_high()
        if name.startswith("single") and name[6:].isdigit():
            n = int(name[6:])
            return singles[n - 1] if len(singles) >= n else 0
        raise HouseWayError(f"unknown feature {name!r}")  # pragma: no cover - parse checks

    def straight_high(self) -> int:
        """The top rank of the highest five ranks in a row among the seven (the joker filling
        one that is missing; A-2-3-4-5 is 5), whatever their suits; 0 where there are none."""
        natural = {c.rank for c in self.seven if not c.is_joker}
        wild = 1 if any(c.is_joker for c in self.seven) else 0
        for top in range(ACE, 4, -1):
            ranks = (ACE, 2, 3, 4, 5) if top == 5 else range(top - 4, top + 1)
            if sum(r not in natural for r in ranks) <= wild:
                return top
        return 0

    def flag(self, name: str) -> bool:
        """A true-or-false feature's value."""
        by = self.by_count
        n2, n3, n4 = len(by[2]), len(by[3]), len(by[4])
        five = bool(by[5])
        if name == "five-aces":
            return five
        if name == "straight-flush":
            return bool(self.categories() & {Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH})
        if name == "flush":
            return Category.FLUSH in self.categories()
        if name == "straight":
            return Category.STRAIGHT in self.categories()
        if name == "quads":
            return n4 > 0
        if name == "full-house":
            return n3 >= 1 and n2 + n3 >= 2
        if name == "two-trips":
            return n3 == 2
        if name == "trips":
            return n3 == 1 and n2 == 0 and n4 == 0
        if name == "three-pair":
            return n2 == 3
        if name == "two-pair":
            return n2 == 2 and n3 == 0 and n4 == 0
        if name == "one-pair":
            return n2 == 1 and n3 == 0 and n4 == 0 and not five
        if name == "no-pair":
            return n2 == 0 and n3 == 0 and n4 == 0 and not five
        if name == "joker":
            return any(c.is_joker for c in self.seven)
        if name.startswith("single-"):
            return _rank_of(name[7:]) in by[1]
        raise HouseWayError(f"unknown feature {name!r}")  # pragma: no cover - parse checks

    def holds(self, c: Condition) -> bool:
        """Whether a condition holds for this hand."""
        if c.kind == "true":
            return True
        if c.kind == "flag":
            return self.flag(c.name)
        if c.kind == "cmp":
            left = self.feature(c.name)
            right = self.feature(c.other) if c.other else c.value
            return {
                "==": left == right,
                "!=": left != right,
                "<": left < right,
                "<=": left <= right,
                ">": left > right,
                ">=": left >= right,
            }[c.op]
        if c.kind == "in":
            return self.feature(c.name) in c.ranks
        if c.kind == "not":
            return not self.holds(c.args[0])
        if c.kind == "and":
            return all(self.holds(a) for a in c.args)
        if c.kind == "or":
            return any(self.holds(a) for a in c.args)
        if c.kind == "leaves":
            assert c.low is not None
            return any(high.category in c.cats for _, high, _ in self.matching(c.low))
        if c.kind == "lows":
            a, b = (self.best_low(x) for x in c.args)
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[c.op]  # fmt: skip
        raise AssertionError(c.kind)  # pragma: no cover

    def best_low(self, c: Condition) -> int:
        """A ``best-low(CARDS[, CATEGORIES])``'s value: the key of the best low hand among the
        placements with ``CARDS`` low and (where given) a high hand of ``CATEGORIES``, fouls
        left out; -1, below every low hand, where there is none.

        >>> from paigow.cards import parse_cards, sort_cards
        >>> from paigow.house_way.rules import parse_condition
        >>> r = HandReader(sort_cards(parse_cards("Ks Kh Ac Qd Jh Ts 3c")), Wheel.SECOND)
        >>> r.holds(parse_condition("best-low(A+single2) > best-low(any, straight)"))
        True
        >>> r.best_low(parse_condition("best-low(pair, flush) < best-low(A)").args[0])
        -1
        """
        assert c.low is not None
        keys = [
            low.key
            for _, high, low in self.matching(c.low)
            if (not c.cats or high.category in c.cats) and not low_outranks_high(high, low)
        ]
        return max(keys, default=-1)

    def slot_rank(self, slot: tuple[str, int | str]) -> int | None:
        """The rank a low spec's slot asks for (14 for the joker), None if the hand has none."""
        kind, arg = slot
        if kind == "group":
            rank = self.feature(str(arg))
            return rank or None
        if kind == "single":
            singles = self.by_count[1]
            return singles[int(arg) - 1] if len(singles) >= int(arg) else None
        if kind == "rank":
            return int(arg) if int(arg) in self.groups else None
        if kind == "natural":  # an ace that is not the joker
            return ACE if any(c.rank == ACE and not c.is_joker for c in self.seven) else None
        return ACE if any(c.is_joker for c in self.seven) else None  # the joker

    def matching(self, spec: LowSpec) -> list[tuple[Setting, HandValue, TwoCardValue]]:
        """The settings whose low hand fits ``spec`` (any setting not a foul for ``any``)."""
        if spec.is_any:
            return [t for t in self.settings() if not low_outranks_high(t[1], t[2])]
        wants = [self.slot_rank(s) for s in spec.slots]
        if any(w is None for w in wants):
            return []
        joker = [s[0] == "joker" for s in spec.slots]
        natural = [s[0] == "natural" for s in spec.slots]

        def fits(card: Card, n: int) -> bool:
            if card.rank != wants[n]:
                return False
            return not card.is_joker if natural[n] else card.is_joker or not joker[n]

        out = []
        for t in self.settings():
            a, b = t[0].low
            if len(spec.slots) == 1:
                if fits(a, 0) or fits(b, 0):
                    out.append(t)
            elif (fits(a, 0) and fits(b, 1)) or (fits(a, 1) and fits(b, 0)):
                out.append(t)
        return out

    def act(self, rule: Rule) -> tuple[Setting, HandValue] | None:
        """The setting a rule's action chooses, or None when no candidate can be made."""
        best: tuple[tuple[int, int], Setting, HandValue] | None = None
        for spec in rule.low:
            for setting, high, low in self.matching(spec):
                if rule.high and high.category not in rule.high:
                    continue
                # best-low: the low hand first; first (within a spec: the strongest high
                # hand) and best-high: the high hand first
                best_low = rule.choose == "best-low"
                key = (low.key, high.key) if best_low else (high.key, low.key)
                if best is None or key > best[0]:
                    best = (key, setting, high)
            if rule.choose == "first" and best is not None:
                break
        return None if best is None else (best[1], best[2])


def _rank_of(letter: str) -> int:
    return next(r for r, name in RANK_NAMES.items() if name == letter)
