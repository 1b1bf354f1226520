"""The exceptions the core raises; each message says what is wrong."""

from __future__ import annotations


class PaigowError(ValueError):
    """Base class of every error the rules engine raises for bad input or a bad state."""


class CardError(PaigowError):
    """A malformed card token, a duplicate card or a wrong number of cards."""


class RulesetError(PaigowError):
    """A ruleset that the rule book does not allow (e.g. commission above 5%, a player-banker)."""


class HouseWayError(PaigowError):
    """An unknown house way preset or an invalid operator preset file."""


class SettingError(PaigowError):
    """A setting that does not fit the seven cards it is made from."""


class RoundError(PaigowError):
    """An action that the round does not allow in its current state (out of order, wrong spot,
    a wager outside the posted limits)."""


class ReplayMismatch(PaigowError):
    """Replaying a round's event log gave a different result from the one recorded."""


class PayTableError(PaigowError):
    """An unknown side-wager pay table or an invalid pay-table file (the message names the line)."""
