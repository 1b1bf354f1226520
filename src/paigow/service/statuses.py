"""The service's statuses, roles, modes and dealer steps as enums.

Each is a :class:`~enum.StrEnum`: a member equals its string, so the values stored in the database
are the same strings as ever (no migration) and rows read back compare equal to the members. A
round's phase is the rules engine's :class:`paigow.round.Phase`.

>>> TableStatus.OPEN == "open", WagerStatus("in-play") is WagerStatus.IN_PLAY
(True, True)
>>> [str(p) for p in ENDED]
['settled', 'voided']
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from paigow.round import Phase

__all__ = [
    "ENDED",
    "OPEN_STATUSES",
    "DealerStep",
    "DragonStatus",
    "Phase",
    "Role",
    "TableMode",
    "TableStatus",
    "WagerStatus",
]


class TableStatus(StrEnum):
    """A table's life: open for wagers; closing (no new wagers, the round in play finishes);
    closed."""

    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


class TableMode(StrEnum):
    """A casino table, or a practice table (hints and the exact EV allowed)."""

    CASINO = "casino"
    PRACTICE = "practice"


class WagerStatus(StrEnum):
    """A wager in a round: in play until it is settled or returned (a void)."""

    IN_PLAY = "in-play"
    SETTLED = "settled"
    RETURNED = "returned"


class DragonStatus(StrEnum):
    """A round's dragon hand before (or without) a wager on it; once wagered on, its wager's
    :class:`WagerStatus`."""

    OFFERED = "offered"
    DECLINED = "declined"


class Role(StrEnum):
    """An account's role."""

    PLAYER = "player"
    OPERATOR = "operator"


class DealerStep(StrEnum):
    """What a table's dealer does next (:func:`paigow.service.game.rounds.next_step`)."""

    DEAL = "deal"
    DEALER = "dealer"  # late hands set by the house way, then the bank's hand
    DRAGON = "dragon"  # the dragon hand's turn ran out: that player declines (a timeout)
    SETTLE = "settle"
    VOID = "void"
    CLOSE = "close"  # a closing table whose round is over is closed
    STOP = "stop"  # the table is closed: the dealer ends


OPEN_STATUSES: Final = (TableStatus.OPEN, TableStatus.CLOSING)
"""Tables a dealer deals."""
ENDED: Final = (Phase.SETTLED, Phase.VOIDED)
"""The phases of a round that is over."""
