"""The dealer's transactions a round (:class:`paigow.service.process.dealer.Dealer`): a look
takes the step it finds due in its own transaction, and the dealer waits from the table as that
step left it, so that a round with nothing late in it costs the dealer three transactions (the
look that deals, the look that sets the bank's hand, the settlement) instead of a look before
and after each of its steps."""

from __future__ import annotations

import time
from typing import Any

import pytest

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.service.process import dealer as dealer_module
from tests.helpers.service import Service


def _house_low(cards: list[str]) -> list[str]:
    way = HouseWay.preset("standard")
    return [c.code for c in way.set_hand(parse_cards(cards)).setting.low]


def _wait_settled(dealer_steps: list[str], rounds: int, timeout: float = 15) -> None:
    deadline = time.time() + timeout
    while dealer_steps.count("act:settle") < rounds:
        assert time.time() < deadline, f"round {rounds} never settled: {' '.join(dealer_steps)}"
        time.sleep(0.03)


def _one_player(db_url: str, setting_time_ms: int) -> tuple[Any, int, Any]:
    """A server, a table and one player sat at it. The dealer's looks without a notice come
    every 10 polls (30 s): none in these tests."""
    svc = Service(db_url, dealer_poll_s=3.0)
    try:
        table = svc.new_table(betting_time_ms=20_000, setting_time_ms=setting_time_ms)
        p = svc.player()
        p.sit(table, 1)
    except BaseException:
        svc.stop()
        raise
    return svc, table, p


@pytest.fixture
def dealer_steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The dealer's transactions, by kind: a look (with the step it took, if any) or a step
    of its own."""
    seen: list[str] = []
    Dealer = dealer_module.Dealer
    look, act = Dealer._look, Dealer._act

    def counted_look(self: Any, tx: Any, free_seats: bool) -> Any:
        found = look(self, tx, free_seats)
        seen.append(f"look:{found.step}" if found.done else "look")
        return found

    async def counted_act(self: Any, step: Any, view: Any) -> bool:
        done = bool(await act(self, step, view))
        seen.append(f"act:{step}")  # once done: a round counted settled has ended
        return done

    on_notice = Dealer._on_notice

    def heard(self: Any, notice: Any) -> None:
        seen.append(f"notice:{notice.kind}")
        on_notice(self, notice)

    monkeypatch.setattr(Dealer, "_on_notice", heard)
    monkeypatch.setattr(Dealer, "_look", counted_look)
    monkeypatch.setattr(Dealer, "_act", counted_act)
    return seen


def test_a_round_costs_the_dealer_three_transactions(db_url: str, dealer_steps: list[str]) -> None:
    svc, table, p = _one_player(db_url, setting_time_ms=20_000)
    try:
        for n in range(3):
            p.ok(p.wager(table, 1000))
            cards = p.wait_dealt(table)["cards"]
            p.ok(p.set(table, _house_low(cards)))
            _wait_settled(dealer_steps, n + 1)
        # each round: the wager's notice, a look that deals at once (every seated player
        # wagered); the setting's notice, a look that sets the bank's hand; then the settlement
        # (before the first round, the dealer's looks at the table as it opened and was sat at)
        transactions = [s for s in dealer_steps if not s.startswith("notice:")]
        rounds = transactions[transactions.index("look:deal") :]
        taken = [s for s in rounds if s != "look"]
        assert taken == ["look:deal", "look:dealer", "act:settle"] * 3, " ".join(dealer_steps)
        # a look that takes nothing only where a notice came while a step was under way (its
        # effect may be in what the step read, or not: the dealer looks again to be sure)
        assert rounds.count("look") <= 2, " ".join(dealer_steps)
        report = svc.verify()
        assert report["ok"], report
    finally:
        svc.stop()


def test_the_dealer_waits_from_the_table_as_its_step_left_it(
    db_url: str, dealer_steps: list[str]
) -> None:
    # the player never sets: nothing but the setting time, read by the look that dealt, brings
    # the dealer back, to set the hand by the house way, its own and settle
    svc, table, p = _one_player(db_url, setting_time_ms=700)
    try:
        p.ok(p.wager(table, 1000))
        started = time.time()
        p.wait_dealt(table)
        _wait_settled(dealer_steps, 1)
        assert time.time() - started < 10  # the setting time (0.7 s), not a look every 30 s
        transactions = [s for s in dealer_steps if not s.startswith("notice:")]
        after_deal = transactions[transactions.index("look:deal") :]
        taken = [s for s in after_deal if s != "look"]
        assert taken == ["look:deal", "look:dealer", "act:settle"], " ".join(dealer_steps)
        assert after_deal.count("look") <= 1, " ".join(dealer_steps)  # (as above)
        # no step after the wager woke the dealer: the one notice of a due step is the wager's
        # (the last seated player's), which a slow machine may deliver after the look that
        # dealt had already seen the wager committed
        assert dealer_steps.count("notice:due") == 1, " ".join(dealer_steps)
        report = svc.verify()
        assert report["ok"], report
    finally:
        svc.stop()
