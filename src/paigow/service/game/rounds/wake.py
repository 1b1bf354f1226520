"""The dealer's wake rule: the kind of notice a step on a round sends its table.

A table's dealer sleeps until its deadline or a notice that a step of its may be due
(:attr:`Kind.DUE`); a notice of kind :attr:`Kind.ROUND` (events appended) does not wake it. The
rule, for each step that changes a round:

- a wager: due when it opened the round (the betting deadline starts) or was the last of the
  seated players' (betting may close at once);
- side wagers: never due (the main wager that came first decided);
- a hand set: due once every hand is set;
- a player leaving: due once every hand is set and no dragon hand waits;
- an answer to the dragon hand, or its turn timing out: always due (the next turn's deadline,
  or the setting's close);
- the dealer's own steps (deal, set, settle, void): never due (the dealer that took them looks
  again by its own deadline).

>>> from types import SimpleNamespace
>>> done = SimpleNamespace(spots_to_set=lambda: [], dragon_pending=True)
>>> [str(wake(s, done)) for s in (Step.SET, Step.LEAVE, Step.DRAGON)]
['due', 'round', 'due']
>>> str(wake(Step.WAGER, done, opened=True)), str(wake(Step.WAGER, done))
('due', 'round')
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from paigow.service.store.bus import Kind

if TYPE_CHECKING:
    from paigow.round import Round


class Step(StrEnum):
    """A step that changes a round, as the wake rule tells them apart."""

    WAGER = "wager"
    SIDE_WAGERS = "side-wagers"
    SET = "set"
    LEAVE = "leave"
    DRAGON = "dragon"
    DEALER = "dealer"


def wake(step: Step, rnd: Round | Any, *, opened: bool = False, last: bool = False) -> Kind:
    """The kind of the table's notice after ``step`` on ``rnd`` (the round after it: None for
    a dealer's step on a log that cannot be replayed); ``opened``: the wager opened the round;
    ``last``: it was the last seated player's."""
    if step is Step.WAGER:
        due = opened or last
    elif step is Step.SET:
        due = not rnd.spots_to_set()
    elif step is Step.LEAVE:
        due = not rnd.spots_to_set() and not rnd.dragon_pending
    else:
        due = step is Step.DRAGON
    return Kind.DUE if due else Kind.ROUND
