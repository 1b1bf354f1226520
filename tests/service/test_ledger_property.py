"""A property test: random interleavings of API calls (register, credit, debit, sit, leave,
wager, retried wagers, side wagers with the wager and apart (Fortune with Envy, a progressive
shared by the tables, its meter seeded and reset by the operator), settings good and bad, fouls,
closing tables, letting the dealer run) keep
the ledger's invariant after every step: every pair of entries balances, every balance is the sum
of its entries, no wallet is negative, and the accounts hold exactly what operators credited."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.setting import all_settings

HW = HouseWay.preset("standard")
JACKPOT = """
name = "prop-jackpot"
target = "player"
[pays]
flush = "100% of meter"
straight = "5% of meter"
three-of-a-kind = "$3"
[progressive]
share = "30%"
seed = "$10"
"""
OFFERS = [
    {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 1500},
    {
        "name": "jackpot",
        "paytable_toml": JACKPOT,
        "min_wager": 100,
        "max_wager": 500,
        "bank": "prop-bank",
    },
]


def make_machine(svc: Any) -> type[RuleBasedStateMachine]:
    class Casino(RuleBasedStateMachine):
        @initialize()
        def setup(self) -> None:
            self.op = svc.op
            self.credited = self.op.ok(self.op.get("/api/admin/ledger"))["credited"]
            self.players: list[Any] = []
            self.tables: list[int] = []
            self.last_wager: dict[str, tuple[int, dict[str, Any], dict[str, Any]]] = {}
            for _ in range(2):
                self._new_table()
            for _ in range(2):
                self._new_player(3000)

        def _new_table(self) -> None:
            self.tables.append(
                svc.new_table(
                    betting_time_ms=150,
                    setting_time_ms=300,
                    min_wager=100,
                    max_wager=2000,
                    side_wagers=OFFERS,
                )
            )

        def _new_player(self, credit: int) -> None:
            self.players.append(svc.player(credit=credit))
            self.credited += credit

        def _check(self, r: Any, *allowed: int) -> None:
            assert r.status_code < 500, r.text
            assert r.status_code in allowed, (r.request.url, r.status_code, r.text)

        @rule(credit=st.integers(0, 5000))
        def register(self, credit: int) -> None:
            if len(self.players) < 8:
                self._new_player(credit)

        @rule(i=st.integers(0, 7), amount=st.integers(1, 3000), debit=st.booleans())
        def move_money(self, i: int, amount: int, debit: bool) -> None:
            p = self.players[i % len(self.players)]
            kind = "debit" if debit else "credit"
            r = self.op.post(
                f"/api/admin/wallets/{p.username}/{kind}",
                {"amount": amount, "idempotency_key": secrets.token_hex(6)},
            )
            self._check(r, 200, 409)
            if r.status_code == 200:
                self.credited += -amount if debit else amount

        @rule(i=st.integers(0, 7), t=st.integers(0, 3), spot=st.integers(1, 6))
        def sit(self, i: int, t: int, spot: int) -> None:
            p = self.players[i % len(self.players)]
            self._check(
                p.post(f"/api/tables/{self.tables[t % len(self.tables)]}/sit", {"spot": spot}),
                200,
                409,
            )

        @rule(i=st.integers(0, 7), t=st.integers(0, 3))
        def leave(self, i: int, t: int) -> None:
            p = self.players[i % len(self.players)]
            self._check(p.post(f"/api/tables/{self.tables[t % len(self.tables)]}/leave"), 200, 409)

        @rule(
            i=st.integers(0, 7),
            t=st.integers(0, 3),
            side=st.dictionaries(
                st.sampled_from(["fortune", "jackpot", "nope"]), st.integers(0, 1600), max_size=2
            ),
            retry=st.booleans(),
        )
        def side_wagers(self, i: int, t: int, side: dict[str, int], retry: bool) -> None:
            p = self.players[i % len(self.players)]
            table = self.tables[t % len(self.tables)]
            body = {"side": side, "idempotency_key": secrets.token_hex(6)}
            r = p.post(f"/api/tables/{table}/side-wagers", body)
            self._check(r, 200, 409, 422)
            if r.status_code == 200 and retry:
                again = p.post(f"/api/tables/{table}/side-wagers", body)
                self._check(again, 200)
                assert again.json() == r.json()

        @rule(amount=st.integers(0, 3000), reset=st.booleans())
        def operator_moves_the_meter(self, amount: int, reset: bool) -> None:
            kind = "reset" if reset else "seed"
            r = self.op.post(f"/api/admin/progressives/prop-bank/{kind}", {"amount": amount})
            self._check(r, 200)

        @rule(
            i=st.integers(0, 7),
            t=st.integers(0, 3),
            amount=st.integers(0, 2500),
            retry=st.booleans(),
            side=st.one_of(
                st.none(),
                st.dictionaries(
                    st.sampled_from(["fortune", "jackpot"]), st.integers(50, 1600), max_size=2
                ),
            ),
        )
        def wager(
            self, i: int, t: int, amount: int, retry: bool, side: dict[str, int] | None
        ) -> None:
            p = self.players[i % len(self.players)]
            table = self.tables[t % len(self.tables)]
            if retry and p.username in self.last_wager:
                table, body, response = self.last_wager[p.username]
                r = p.post(f"/api/tables/{table}/wager", body)
                self._check(r, 200)
                assert r.json() == response
                return
            body: dict[str, Any] = {"amount": amount, "idempotency_key": secrets.token_hex(6)}
            if side:
                body["side"] = side
            r = p.post(f"/api/tables/{table}/wager", body)
            self._check(r, 200, 409, 422)
            if r.status_code == 200:
                self.last_wager[p.username] = (table, body, r.json())

        @rule(
            i=st.integers(0, 7),
            t=st.integers(0, 3),
            how=st.sampled_from(["house", "foul", "foul-confirm", "bad"]),
        )
        def set_hand(self, i: int, t: int, how: str) -> None:
            p = self.players[i % len(self.players)]
            table = self.tables[t % len(self.tables)]
            h = p.get(f"/api/tables/{table}/hand")
            self._check(h, 200, 404, 409)
            cards = h.json().get("cards") if h.status_code == 200 else None
            if not cards:
                low = ["As", "Kd"]
            elif how == "house":
                low = [c.code for c in HW.set_hand(parse_cards(cards)).setting.low]
            elif how.startswith("foul"):
                fouls = [s for s in all_settings(parse_cards(cards)) if s.is_foul]
                low = [c.code for c in fouls[0].low] if fouls else cards[:2]
            else:
                low = ["Zz", cards[0]]
            r = p.post(
                f"/api/tables/{table}/set", {"low": low, "confirm_foul": how == "foul-confirm"}
            )
            self._check(r, 200, 409, 422)

        @rule(t=st.integers(0, 3))
        def close_and_replace(self, t: int) -> None:
            if len(self.tables) < 4:
                self._new_table()
                return
            table = self.tables.pop(t % len(self.tables))
            self._check(self.op.post(f"/api/admin/tables/{table}/close"), 200)

        @rule(seconds=st.sampled_from([0.05, 0.2, 0.4]))
        def let_the_dealer_run(self, seconds: float) -> None:
            time.sleep(seconds)

        @invariant()
        def ledger_balances(self) -> None:
            if not hasattr(self, "op"):
                return
            report = self.op.ok(self.op.get("/api/admin/ledger"))
            assert report["balanced"], report["problems"]
            assert report["credited"] == self.credited
            assert report["sum_of_accounts"] == self.credited
            assert report["system_accounts"]["operator:credits"] == -self.credited

    return Casino


@pytest.mark.slow
def test_random_interleavings_keep_the_ledger_balanced(svc: Any, backend: str) -> None:
    machine = make_machine(svc)
    # Each example is a casino of 40 steps over HTTP (about two seconds). SQLite explores the
    # interleavings (15 examples); PostgreSQL runs the same machine on its own store, for which
    # 6 examples (every rule taken) suffice.
    machine.TestCase.settings = settings(
        max_examples=15 if backend == "sqlite" else 6,
        stateful_step_count=40,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    machine.TestCase().runTest()
    # and at the end, with the rounds replayed too
    deadline = time.time() + 10
    report = svc.verify()
    while not report["ok"] and time.time() < deadline:  # a round may be between steps
        time.sleep(0.2)
        report = svc.verify()
    assert report["ledger_balanced"] and not report["mismatches"], report
