"""What one step keeps for the rest of its work and its commit, in named fields
(:class:`StepContext`, a step's :attr:`paigow.service.store.unit.Tx.step`): the process's caches
it reads and refills, the rounds' rows it changed and the house accounts' movements (written
once, when its work is done), the progressive banks it holds locked, the rounds it leaves for
the cache, the rounds it counts once committed and the rounds it ended, for the floor's totals
(:class:`RoundEnded`, turned into them in the step's transaction, before its deferred writes, by
the process's :class:`paigow.service.store.unit.Projector`). The store defines the fields and
their types (protocols where the game's own classes fill them), the game and the books fill
them, and the unit of work's commit sequence (:class:`paigow.service.store.unit.Tx`) reads
them: no string keys, no lists of callbacks, nothing typed ``Any`` for mypy to miss.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from paigow.service.store.bus import Outbox

if TYPE_CHECKING:
    from paigow.events import DragonSettled, EnvyPaid, SideWagerSettled, SpotSettled
    from paigow.round import Round
    from paigow.ruleset import Ruleset


class RoundKeep(Protocol):
    """The process's rounds rebuilt from their logs, as a step takes them out and puts them
    back (:class:`paigow.service.game.rounds.cache.RoundCache`)."""

    def take_at_most(self, round_id: str, event_count: int) -> Round | None: ...

    def put(self, rnd: Round) -> None: ...


class FreshKeep(Protocol):
    """The process's events just committed, kept per table for the live feeds
    (:class:`paigow.service.game.rounds.cache.FreshEvents`)."""

    def put(
        self,
        table_id: int,
        round_id: str,
        number: int,
        start: int,
        events: list[dict[str, Any]],
        at: float,
        owners: dict[int, int],
    ) -> None: ...


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


class EndedTable(Protocol):
    """What the floor reads of the table a round ended at (its id, ruleset and house way: the
    configuration a round's step caches, or a table's row: the floor's ``TableLike``)."""

    @property
    def id(self) -> int: ...
    @property
    def ruleset(self) -> Any: ...
    @property
    def house_way(self) -> Any: ...


@dataclass(frozen=True)
class RoundEnded:
    """What a round's end leaves for the floor (the game writes it; the floor's projector reads
    it: :func:`paigow.service.floor.totals.project`). A settlement: ``hands`` (spot -> its
    settlement; the dragon hand at minus its player's spot), ``side`` (the side wagers settled,
    (spot, name) -> the event) and ``envy`` (Envy paid, likewise). A void: ``returned``, the
    main and dragon wagers it returned (None: a settlement)."""

    table: EndedTable
    hands: Mapping[int, SpotSettled | DragonSettled] = field(default_factory=dict)
    side: Mapping[tuple[int, str], SideWagerSettled] = field(default_factory=dict)
    envy: Mapping[tuple[int, str], EnvyPaid] = field(default_factory=dict)
    returned: int | None = None


@dataclass
class StepContext:
    """One step's own state beside its connection.

    ``rounds``: the process's round cache (None: a step without one, which replays each round's
    log); ``fresh``: the process's events just committed (None: none kept);
    ``round_heads``: the rounds' rows the step changed, to write when its work is done;
    ``house_deltas``: the house accounts' movements (account -> cents), applied when the step's
    work is done (:mod:`paigow.service.books.ledger`); ``rounds_kept``: the rounds as the step
    leaves them, for the round cache once its work is kept; ``rounds_counted``: the rounds the
    step dealt or ended (the table's mode, its ruleset, ``dealt``, ``settled`` or ``voided``),
    counted once it has committed; ``banks_locked``: the banks the step holds locked whole
    (bank -> :class:`LockedBank`); ``bank_tables``: each bank's tables as the step read them
    (read once a step); ``ended``: the rounds the step settled or voided, for the floor's
    totals (:class:`RoundEnded`); ``outbox``: what its commit announces (its notices, the
    wallets it changed, the events it appended: :mod:`paigow.service.store.bus`);
    ``balances``: the wallets it moved, as it left them (account -> cents:
    :func:`paigow.service.books.ledger.balance`); ``commit_sent``: its commit was sent (from
    there a lost connection may have committed it: not run again)."""

    rounds: RoundKeep | None = None
    fresh: FreshKeep | None = None
    round_heads: list[RowChanges] = field(default_factory=list)
    house_deltas: dict[str, int] = field(default_factory=dict)
    rounds_kept: list[Round] = field(default_factory=list)
    rounds_counted: list[tuple[str, Ruleset, str]] = field(default_factory=list)
    banks_locked: dict[str, LockedBank] = field(default_factory=dict)
    bank_tables: dict[str, list[int]] = field(default_factory=dict)
    ended: list[RoundEnded] = field(default_factory=list)
    outbox: Outbox = field(default_factory=Outbox)
    balances: dict[str, int] = field(default_factory=dict)
    commit_sent: bool = False
