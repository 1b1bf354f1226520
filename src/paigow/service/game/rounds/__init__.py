"""Rounds at a table: the rules engine's :class:`paigow.round.Round` driven through its steps, with
its events persisted as the round's append-only log in the same transaction as the money movement
of that step.

Every step runs in one write transaction that first locks the table's row, rebuilds the round from
its persisted log (``Round.replay``: the database is the only source of truth), checks that the step
is still due, applies it, appends the new events and moves the money. A step that finds the round
already past it does nothing, so a step retried (by a restarted process, or by a second dealer in
the moment a lock changes hands) never happens twice.

Steps: a wager opens a round if none is open (``betting``); the dealer deals (``setting``: shuffle,
starting position and packets in one step), then sets the bank's hand after every player has set
or the time limit has passed, the late hands set by the house way (``dealer``), then settles
(``settled``). A round that cannot go on is voided and every wager returned.

The package: :mod:`.head` (the table and its round as a step locks, reads and writes them),
:mod:`.log` (the round's log), :mod:`.players` (player commands), :mod:`.dragon` (the dragon
hand: its offer, the players' answers, its money), :mod:`.steps` (the dealer's steps) and
:mod:`.recall` (game recall), :mod:`.wake` (the dealer's wake rule: which notice a step sends); callers use the names re-exported here
(``rounds.settle``), so a wrapper set on this package is the one the dealer calls.
"""

from paigow.service.game.rounds.dragon import answer as answer_dragon
from paigow.service.game.rounds.dragon import answer_ahead as dragon_ahead
from paigow.service.game.rounds.dragon import time_out as dragon_time_out
from paigow.service.game.rounds.log import (
    SYSTEM,
    InconsistentRound,
    current_row,
    load_events,
    load_round,
)
from paigow.service.game.rounds.players import (
    hint,
    leave,
    my_hand,
    place_side_wagers,
    place_wager,
    set_ahead,
    set_by_house_way,
    set_hand,
    wager_ahead,
)
from paigow.service.game.rounds.recall import last_rounds, round_view
from paigow.service.game.rounds.steps import (
    TableView,
    close_table,
    deal,
    dealer_sets,
    finish_close,
    next_step,
    peek,
    reopen_table,
    settle,
    void,
)

__all__ = [
    "SYSTEM",
    "InconsistentRound",
    "TableView",
    "answer_dragon",
    "close_table",
    "current_row",
    "deal",
    "dealer_sets",
    "dragon_ahead",
    "dragon_time_out",
    "finish_close",
    "hint",
    "last_rounds",
    "leave",
    "load_events",
    "load_round",
    "my_hand",
    "next_step",
    "peek",
    "place_side_wagers",
    "place_wager",
    "reopen_table",
    "round_view",
    "set_ahead",
    "set_by_house_way",
    "set_hand",
    "settle",
    "void",
    "wager_ahead",
]
