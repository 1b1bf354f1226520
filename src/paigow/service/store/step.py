"""What one step keeps for the rest of its work and its commit, in named fields
(:class:`StepContext`, a step's :attr:`paigow.service.store.unit.Tx.step`): the process's round
cache it reads and refills, the rounds' rows it changed (written once, when its work is done),
the progressive banks it holds locked. The store defines the fields and their types (protocols
where the game's own classes fill them), the game fills them: no string keys, nothing typed
``Any`` for mypy to miss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from paigow.round import Round


class RoundKeep(Protocol):
    """The process's rounds rebuilt from their logs, as a step takes them out and puts them
    back (:class:`paigow.service.game.rounds.cache.RoundCache`)."""

    def take_at_most(self, round_id: str, event_count: int) -> Round | None: ...

    def put(self, rnd: Round) -> None: ...


class RowChanges(Protocol):
    """A round's row the step changed (:class:`paigow.service.game.rounds.head.RoundHead`):
    its id and the columns to write (name -> value), written in one ``UPDATE`` when the step's
    work is done."""

    id: str
    changed: dict[str, Any]


@dataclass
class LockedBank:
    """A progressive bank a step holds locked whole (its row and every table's: see
    :mod:`paigow.service.game.side_offers`): its base and version, and each table's
    contribution (this step's shares in) and version."""

    base: int
    version: int
    tables: dict[int, tuple[int, int]]

    @property
    def meter(self) -> int:
        return self.base + sum(c for c, _ in self.tables.values())

    @property
    def meter_version(self) -> int:
        return self.version + sum(v for _, v in self.tables.values())


@dataclass
class StepContext:
    """One step's own state beside its connection.

    ``rounds``: the process's round cache (None: a step without one, which replays each round's
    log); ``round_heads``: the rounds' rows the step changed, to write when its work is done;
    ``banks_locked``: the banks the step holds locked whole (bank -> :class:`LockedBank`);
    ``bank_tables``: each bank's tables as the step read them (read once a step)."""

    rounds: RoundKeep | None = None
    round_heads: list[RowChanges] = field(default_factory=list)
    banks_locked: dict[str, LockedBank] = field(default_factory=dict)
    bank_tables: dict[str, list[int]] = field(default_factory=dict)
