"""The exceptions the core raises; each message says what is wrong and each carries a stable
``code`` from :data:`CODES` (docs/rulebook.md#error-codes lists them; a test keeps it in step).

>>> e = RoundError("spot 3 already has a wager", code="already-wagered")
>>> e.code, str(e)
('already-wagered', 'spot 3 already has a wager')
>>> CardError("bad token").code
'bad-card'
>>> RoundError("?", code="no-such-code")
Traceback (most recent call last):
...
ValueError: unknown error code 'no-such-code'
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Final

CODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        # a round's commands (paigow.round)
        "wrong-phase": "The round is not in a phase that allows the command (out of order).",
        "no-such-spot": "The spot does not exist (spots are 1..6).",
        "bad-amount": "A wager that is not a whole number of minor units.",
        "outside-limits": "A wager outside its limits: the table's, a side wager's, or the "
        "dragon hand's (the table minimum to the spot's own wager).",
        "already-wagered": "The spot already has that wager (main or side) this round.",
        "bad-player": "A player id that is not a non-empty string.",
        "no-main-wager": "A side wager on a spot without a main wager.",
        "unknown-side-wager": "A side wager the table does not offer.",
        "log-version": "The round's log version cannot record what is asked (side wagers, "
        "variants), or is not one this engine writes.",
        "no-wagers": "Betting closed with no wager: nothing to deal.",
        "bad-start": "A starting position chosen the wrong way (dice at an RNG table, or "
        "the reverse) or with dice or a number out of range.",
        "no-dragon": "The table does not deal the dragon hand, or every spot has a wager.",
        "dragon-offered": "The dragon hand has already been offered.",
        "no-dragon-offer": "No dragon hand is on offer.",
        "not-your-turn": "The dragon hand is offered to another spot now.",
        "bad-reason": "A reason the command does not take (a dragon decline's, an empty void's).",
        "no-hand": "The spot has no hand in this round.",
        "already-set": "The spot has already set its hand.",
        "bad-setting": "A setting that is not of the spot's seven cards, or that does not fit "
        "the cards it is made from.",
        "face-up": "A face-up table's dealer set right after the deal: no separate step.",
        "not-all-set": "Spots still to set, or the dragon hand's offer still open.",
        "not-over": "The round is not over (or not dealt) yet: its results are not known.",
        "replay-mismatch": "Replaying a round's log gave another result, or the log cannot be "
        "read.",
        # the parts the round is made of
        "bad-card": "A malformed card token, a duplicate card or a wrong number of cards.",
        "bad-ruleset": "A ruleset the rule book does not allow.",
        "bad-house-way": "An unknown house way preset or an invalid house way.",
        "bad-paytable": "An unknown side-wager pay table or an invalid pay-table file.",
        "invalid": "Any other bad input or state the core refuses.",
    }
)
"""Every code a core error carries, with its meaning: the one list (docs/rulebook.md)."""


class PaigowError(ValueError):
    """Base class of every error the rules engine raises for bad input or a bad state;
    ``code``: one of :data:`CODES` (the class's own unless given)."""

    default_code: ClassVar[str] = "invalid"

    def __init__(self, message: str = "", *, code: str | None = None) -> None:
        super().__init__(message)
        chosen = code or self.default_code
        if chosen not in CODES:
            raise ValueError(f"unknown error code {chosen!r}")
        self.code: str = chosen


class CardError(PaigowError):
    """A malformed card token, a duplicate card or a wrong number of cards."""

    default_code = "bad-card"


class RulesetError(PaigowError):
    """A ruleset that the rule book does not allow (e.g. commission above 5%, a player-banker)."""

    default_code = "bad-ruleset"


class HouseWayError(PaigowError):
    """An unknown house way preset or an invalid operator preset file."""

    default_code = "bad-house-way"


class SettingError(PaigowError):
    """A setting that does not fit the seven cards it is made from."""

    default_code = "bad-setting"


class RoundError(PaigowError):
    """An action that the round does not allow in its current state (out of order, wrong spot,
    a wager outside the posted limits)."""

    default_code = "wrong-phase"


class ReplayMismatch(PaigowError):
    """Replaying a round's event log gave a different result from the one recorded."""

    default_code = "replay-mismatch"


class PayTableError(PaigowError):
    """An unknown side-wager pay table or an invalid pay-table file (the message names the line)."""

    default_code = "bad-paytable"
