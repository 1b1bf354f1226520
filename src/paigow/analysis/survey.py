"""What a run of a house way over every seven-card hand finds (:class:`Survey`): the hands each
rule set, the hands no rule set and those set into a foul, each with an example hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from paigow.analysis import kernels as K
from paigow.analysis.program import Program
from paigow.cards import FULL_DECK

HANDS: Final = 154_143_080  # C(53, 7)


@dataclass(frozen=True)
class Survey:
    """A house way run over every seven-card hand: the hands each rule id set (``reach``,
    by outcome number as :attr:`Program.outcomes`), the hands no rule set and those set into
    a foul, each with the first such hand (its colex index, -1 where none)."""

    program: Program
    reach: tuple[int, ...]
    unset: int
    first_unset: int
    fouls: int
    first_foul: int
    foul_outcome: int
    seconds: float

    @property
    def complete(self) -> bool:
        """Whether every hand ran (a sweep stopped at its first problem did not)."""
        return sum(self.reach) + self.unset == HANDS

    def reach_by_id(self) -> dict[str, int]:
        """Hands set by each rule id (the rules sharing an id together)."""
        out: dict[str, int] = {}
        for rid, n in zip(self.program.outcomes, self.reach, strict=True):
            out[rid] = out.get(rid, 0) + n
        return out

    def by_rule(self) -> list[int]:
        """Hands set by each rule (its position in the house way), its ids together."""
        out = [0] * len(self.program.way.rules)
        for outcome, n in enumerate(self.reach):
            out[self.program.rule_of[outcome]] += n
        return out

    def problems(self) -> list[str]:
        """What makes the house way unfit for a table, each with its file and line and an
        example hand: a hand no rule sets, a hand set into a foul, a rule that sets no hand."""
        way = self.program.way
        out = []
        more = "" if self.complete else " or more"  # a check that stopped at the first problem
        if self.unset:
            out.append(
                f"{way.origin}: {self.unset:,}{more} hands have no rule, e.g. "
                f"{hand_text(self.first_unset)}: add a rule for them (a last rule with no "
                "'when' sets every hand the others leave)"
            )
        if self.fouls:
            rule = way.rules[self.program.rule_of[self.foul_outcome]]
            out.append(
                f"{way.where(rule)}: rule {rule.id!r} sets {self.fouls:,}{more} hands into a foul "
                f"(the low hand above the high hand), e.g. {hand_text(self.first_foul)}"
            )
        for rule, n in zip(way.rules, self.by_rule(), strict=True):
            if not self.complete:  # stopped early: not every hand ran
                break
            if n == 0:
                out.append(
                    f"{way.where(rule)}: rule {rule.id!r} is unreachable: it sets no hand "
                    "(the rules before it take every hand it names, or its condition never "
                    "holds)"
                )
        return out


def hand_text(index: int) -> str:
    """The seven cards of a colex index, as codes."""
    left, cards = index, []
    for k in range(7, 0, -1):
        c = k - 1
        while K.BINOM[c + 1, k] <= left:
            c += 1
        left -= int(K.BINOM[c, k])
        cards.append(FULL_DECK[c].code)
    return " ".join(cards)
