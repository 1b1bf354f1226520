"""The process's cache of rounds (:class:`paigow.service.game.rounds.cache.RoundCache`) as the
steps use it: six players wagering at once at one table never make a step replay the round's
log (on PostgreSQL each step puts its round back before its commit is sent, so the next step
at the table, woken by that commit, finds it), and a copy behind the log (another process's
steps, their notices not heard yet) is brought up by the events it lacks, not replayed."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from paigow.round import Round
from paigow.service.game.rounds import log as round_log


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rounds replayed from their whole log by the steps (``load_round``), by id."""
    seen: list[str] = []
    real = Round.replay

    def counted(events: Any) -> Round:
        rnd = real(events)
        seen.append(rnd.round_id)
        return rnd

    monkeypatch.setattr(round_log.Round, "replay", staticmethod(counted))
    return seen


def _six_at_one_table(svc: Any) -> tuple[int, list[Any]]:
    table = svc.new_table(betting_time_ms=60_000)
    players = [svc.player() for _ in range(6)]
    for spot, p in enumerate(players, start=1):
        p.sit(table, spot)
    return table, players


def _two_wagers_copy_taken(svc: Any) -> tuple[int, list[Any], Any, str, Round]:
    """Two wagers at a table of six, and the server's cached copy of the round taken out
    (round-started and the two wagers)."""
    table, players = _six_at_one_table(svc)
    round_id = players[0].ok(players[0].wager(table, 1000))["round_id"]
    players[1].ok(players[1].wager(table, 1000))
    rt = svc.server.app.state.rt
    copy = rt.rounds.take(round_id, 3)
    assert copy is not None
    return table, players, rt, round_id, copy


def test_wagers_at_once_never_replay_the_round(svc: Any, replays: list[str]) -> None:
    table, players = _six_at_one_table(svc)
    round_id = players[0].ok(players[0].wager(table, 1000))["round_id"]  # opens the round
    start = threading.Barrier(5)
    answers: list[int] = []

    def wager(p: Any) -> None:
        start.wait()
        answers.append(p.wager(table, 1000).status_code)

    threads = [threading.Thread(target=wager, args=(p,)) for p in players[1:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [200] * 5
    assert round_id not in replays
    assert svc.verify()["ok"]


def test_a_copy_behind_the_log_follows_the_events_it_lacks(svc: Any, replays: list[str]) -> None:
    table, players, rt, round_id, copy = _two_wagers_copy_taken(svc)
    behind = Round.replay(copy.events[:2])  # as if the second wager came from another process
    replays.clear()
    rt.rounds.put(behind)
    players[2].ok(players[2].wager(table, 1000))
    assert replays == []  # the copy followed the third event instead
    now = rt.rounds.take(round_id, 4)
    assert now is behind and now.wagers == {1: 1000, 2: 1000, 3: 1000}
    rt.rounds.put(now)
    assert svc.verify()["ok"]


def test_a_copy_the_log_does_not_follow_on_from_is_replayed(svc: Any, replays: list[str]) -> None:
    table, players, rt, round_id, copy = _two_wagers_copy_taken(svc)
    wrong = Round.replay(copy.events[:1])
    wrong.wager(2, 500)  # not the log's second event: its third (spot 2) cannot follow
    replays.clear()
    rt.rounds.put(wrong)
    players[2].ok(players[2].wager(table, 1000))
    assert replays == [round_id]  # rebuilt from the whole log, not the wrong copy
    now = rt.rounds.take(round_id, 4)
    assert now is not wrong and now is not None and now.wagers == {1: 1000, 2: 1000, 3: 1000}
    assert svc.verify()["ok"]
