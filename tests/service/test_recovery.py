"""Kill and restart: a real ``paigow serve`` process is killed with SIGKILL while a round is in
betting, in setting, after the dealer has set, and inside the settlement transaction; after a
restart every round resumes from its last committed step (or is voided with every wager returned)
exactly once, and the ledger balances. The table offers side wagers (Fortune with Envy, and a
progressive whose meter pays a straight or better, so that hits happen): every player places
both, and their money, records and the meter are checked after the restart too.

The moment to kill is made from outside the service: ``fault_server.py`` (beside this file, never
part of the package) starts ``paigow serve`` with the dealer stopped at a step, and says so in a
marker file."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from paigow.cards import parse_cards
from paigow.house_way import HouseWay
from paigow.round import Round
from paigow.service.accounts.operators import create_operator
from paigow.service.books.audit import verify
from paigow.service.floor import side_holds as floor_side
from paigow.service.store.bonus_models import RoundSideWager
from paigow.service.store.db import Database, LedgerTransaction, RoundEvent, RoundRow, RoundWager
from paigow.side_wagers import paid_from_meter
from tests.helpers.service import OPERATOR, Client, ServerProcess

HW = HouseWay.preset("standard")
JACKPOT = """
name = "kill-jackpot"
target = "player"
[pays]
flush = "100% of meter"
straight = "10% of meter"
three-of-a-kind = "$5"
[progressive]
share = "25%"
seed = "$20"
"""
SIDE_OFFERS = [
    {"name": "fortune", "paytable": "fortune-a", "min_wager": 100, "max_wager": 5000},
    {"name": "jackpot", "paytable_toml": JACKPOT, "min_wager": 100, "max_wager": 1000},
]
SIDE = {1: {"fortune": 500, "jackpot": 200}, 2: {"fortune": 300, "jackpot": 400}}
FAULT_SERVER = Path(__file__).with_name("fault_server.py")
pytestmark = pytest.mark.slow


def _db_state(db_url: str, round_id: str) -> dict[str, Any]:
    db = Database(db_url)
    try:
        with db.read() as s:
            row = s.get(RoundRow, round_id)
            assert row is not None
            kinds = [
                k
                for (k,) in s.execute(
                    sa.select(LedgerTransaction.kind).where(LedgerTransaction.reference == round_id)
                )
            ]
            wagers = {
                w.spot: (w.status, w.amount, w.returned)
                for w in s.execute(
                    sa.select(RoundWager).where(RoundWager.round_id == round_id)
                ).scalars()
            }
            sides = {
                (w.spot, w.name): (w.status, w.amount, w.returned, w.envy)
                for w in s.execute(
                    sa.select(RoundSideWager).where(RoundSideWager.round_id == round_id)
                ).scalars()
            }
            meter = floor_side.meters(s).get("kill-jackpot")
            events = [
                d
                for (d,) in s.execute(
                    sa.select(RoundEvent.data)
                    .where(RoundEvent.round_id == round_id)
                    .order_by(RoundEvent.seq)
                )
            ]
            return {
                "phase": row.phase,
                "kinds": kinds,
                "wagers": wagers,
                "sides": sides,
                "meter": meter,
                "events": events,
            }
    finally:
        db.dispose()


def _wait_db_phase(
    db_url: str, round_id: str, phases: tuple[str, ...], timeout: float = 20
) -> dict[str, Any]:
    deadline = time.time() + timeout
    state = _db_state(db_url, round_id)
    while state["phase"] not in phases and time.time() < deadline:
        time.sleep(0.05)
        state = _db_state(db_url, round_id)
    assert state["phase"] in phases, state
    return state


def _wait_file(path: Path, timeout: float = 20) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        assert time.time() < deadline, f"the dealer never stopped ({path.name})"
        time.sleep(0.02)


class Scene:
    """An operator, a table and two players on a database, served by processes started at will."""

    def __init__(self, db_url: str, tmp: Path) -> None:
        self.h, self.db_url, self.tmp = db_url, tmp
        create_operator(db_url, *OPERATOR)
        self.proc: Any = None

    def start(self, stop_at: str | None = None) -> Any:
        """A server process; ``stop_at``: its dealer stops at that step (``deal``, ``dealer``:
        just after it commits; ``settle``: inside the settlement, before it commits) and creates
        :attr:`marker`."""
        if stop_at is None:
            self.proc = self.h.ServerProcess(self.db_url)
        else:
            env = {"PAIGOW_TEST_FAULT": stop_at, "PAIGOW_TEST_FAULT_MARKER": str(self.marker)}
            self.proc = self.h.ServerProcess(self.db_url, env=env, launcher=(str(FAULT_SERVER),))
        self.op = self.login(*self.h.OPERATOR)
        return self.proc

    @property
    def marker(self) -> Path:
        return self.tmp / "stopped"

    def login(self, name: str, password: str) -> Any:
        c = self.h.Client(self.proc.url)
        data = c.ok(c.post("/api/auth/login", {"username": name, "password": password}))
        c.token, c.username = data["token"], name
        return c

    def setup(self, betting_ms: int = 60_000, setting_ms: int = 60_000) -> None:
        self.table = self.op.ok(
            self.op.post(
                "/api/admin/tables",
                {
                    "name": "t",
                    "betting_time_ms": betting_ms,
                    "setting_time_ms": setting_ms,
                    "side_wagers": SIDE_OFFERS,
                },
            ),
            201,
        )["id"]
        self.names = []
        for spot in (1, 2):
            name = f"p{spot}_{secrets.token_hex(2)}"
            c = self.h.Client(self.proc.url)
            c.ok(c.post("/api/auth/register", {"username": name, "password": "password-x"}), 201)
            self.op.ok(
                self.op.post(
                    f"/api/admin/wallets/{name}/credit", {"amount": 50_000, "idempotency_key": name}
                )
            )
            self.login(name, "password-x").sit(self.table, spot)
            self.names.append(name)

    def players(self) -> list[Any]:
        return [self.login(n, "password-x") for n in self.names]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


@pytest.fixture
def scene(db_url: str, tmp_path: Path) -> Any:
    s = Scene(db_url, tmp_path)
    yield s
    s.stop()


def _wager(p: Any, table: int, spot: int, amount: int) -> dict[str, Any]:
    """A main wager with the spot's side wagers (:data:`SIDE`), one request."""
    body = {"amount": amount, "side": SIDE[spot], "idempotency_key": secrets.token_hex(6)}
    return dict(p.ok(p.post(f"/api/tables/{table}/wager", body)))


def _finish_and_check(scene: Any, round_id: str, wagers: dict[int, int]) -> None:
    """After the restart: the round ends once; each player's wallet got exactly what the
    replayed log says, side wagers and Envy included; the meter moved once by what the log
    says; the ledger balances."""
    state = _wait_db_phase(scene.db_url, round_id, ("settled", "voided"))
    assert state["kinds"].count("settlement") + state["kinds"].count("void-refund") == 1, state
    assert state["kinds"].count("wager") == len(wagers)
    rnd = Round.replay(state["events"])
    side_back = rnd.side_returned()
    players = scene.players()
    for spot, p in zip((1, 2), players, strict=True):
        if spot in wagers:
            status, amount, returned = state["wagers"][spot]
            assert status in ("settled", "returned") and amount == wagers[spot]
            side_in = sum(SIDE[spot].values())
            side_out = 0
            for name, wager in SIDE[spot].items():
                s_status, s_amount, s_returned, s_envy = state["sides"][(spot, name)]
                envy = rnd.envy.get((spot, name))
                assert (s_status, s_amount) == (status, wager)
                assert s_returned == side_back[(spot, name)]
                assert s_envy == (envy.amount if envy else 0)
                side_out += s_returned + s_envy
            assert p.balance() == 50_000 - amount + returned - side_in + side_out
    shares = sum(SIDE[s]["jackpot"] // 4 for s in wagers)
    if rnd.phase.value == "settled":
        assert rnd.meters == {"kill-jackpot": 2_000 + shares}  # the shares added once
        assert state["meter"] == rnd.meters_after["kill-jackpot"]
    else:
        assert state["meter"] == 2_000
    report = verify(Database(scene.db_url))
    assert report["ok"], report
    audit = scene.op.get("/api/admin/audit").text
    assert '"action":"round-resumed"' in audit
    # a hit: a win paid from the meter (one paid at the seed leaves the meter where it was)
    hits = [e for e in rnd.side_results.values() if paid_from_meter(rnd.ruleset, e)]
    assert audit.count('"action":"jackpot-hit"') == len(hits)


def test_killed_in_betting(scene: Any) -> None:
    scene.start()
    scene.setup(betting_ms=1500, setting_ms=500)
    a, _ = scene.players()
    round_id = _wager(a, scene.table, 1, 1000)["round_id"]  # b has not wagered: betting stays open
    scene.proc.kill()
    assert _db_state(scene.db_url, round_id)["phase"] == "betting"
    scene.start()
    # betting closes at its deadline; a's hand is dealt; nobody sets: the house way does
    _wait_db_phase(scene.db_url, round_id, ("setting", "dealer", "settled"))
    _finish_and_check(scene, round_id, {1: 1000})


def test_killed_in_setting(scene: Any) -> None:
    scene.start(stop_at="deal")
    scene.setup()
    a, b = scene.players()
    round_id = _wager(a, scene.table, 1, 1000)["round_id"]
    _wager(b, scene.table, 2, 2000)
    _wait_file(scene.marker)
    assert _db_state(scene.db_url, round_id)["phase"] == "setting"  # the deal has committed
    h = a.wait_dealt(scene.table)
    a.ok(a.set(scene.table, [c.code for c in HW.set_hand(parse_cards(h["cards"])).setting.low]))
    scene.proc.kill()
    assert _db_state(scene.db_url, round_id)["phase"] == "setting"
    scene.start()
    a, b = scene.players()
    hb = b.hand(scene.table)
    assert hb["cards"] and hb["setting"] is None  # b's cards survived the crash
    assert a.hand(scene.table)["setting"]["by"] == "player"  # a's setting too
    b.ok(b.set(scene.table, [c.code for c in HW.set_hand(parse_cards(hb["cards"])).setting.low]))
    _finish_and_check(scene, round_id, {1: 1000, 2: 2000})


def test_killed_after_the_dealer_set(scene: Any) -> None:
    scene.start(stop_at="dealer")
    scene.setup(setting_ms=300)
    a, b = scene.players()
    round_id = _wager(a, scene.table, 1, 1000)["round_id"]
    _wager(b, scene.table, 2, 2000)
    _wait_file(scene.marker)
    assert _db_state(scene.db_url, round_id)["phase"] == "dealer"
    scene.proc.kill()
    scene.start()
    _finish_and_check(scene, round_id, {1: 1000, 2: 2000})


def test_killed_inside_the_settlement(scene: Any) -> None:
    scene.start(stop_at="settle")
    scene.setup(setting_ms=300)
    a, b = scene.players()
    round_id = _wager(a, scene.table, 1, 1000)["round_id"]
    _wager(b, scene.table, 2, 2000)
    _wait_file(scene.marker)  # the settlement's statements have run; its commit has not
    scene.proc.kill()
    state = _db_state(scene.db_url, round_id)
    assert state["phase"] == "dealer" and "settlement" not in state["kinds"]
    scene.start()
    _finish_and_check(scene, round_id, {1: 1000, 2: 2000})


def test_a_round_that_cannot_resume_is_voided(scene: Any, backend: str) -> None:
    scene.start(stop_at="deal")
    scene.setup()
    a, b = scene.players()
    round_id = _wager(a, scene.table, 1, 1000)["round_id"]
    _wager(b, scene.table, 2, 2000)
    _wait_file(scene.marker)
    scene.proc.kill()
    # damage the log: an event the rules engine cannot replay
    db = Database(scene.db_url)
    with db.engine.begin() as conn:
        n = conn.execute(
            sa.text("SELECT event_count FROM rounds WHERE id = :r"), {"r": round_id}
        ).scalar_one()
        conn.execute(
            sa.text(
                "INSERT INTO round_events (round_id, seq, type, data, created_at) VALUES (:r, :n, 'bogus', :d, 0)"
            ),
            {"r": round_id, "n": n, "d": '{"type": "bogus"}'},
        )
        conn.execute(
            sa.text("UPDATE rounds SET event_count = event_count + 1 WHERE id = :r"),
            {"r": round_id},
        )
    db.dispose()
    scene.start()
    state = _wait_db_phase(scene.db_url, round_id, ("voided",))
    assert state["kinds"].count("void-refund") == 1
    for p in scene.players():
        assert p.balance() == 50_000  # the side wagers returned too
    state = _db_state(scene.db_url, round_id)
    assert {v[0] for v in state["sides"].values()} == {"returned"} and state["meter"] == 2_000
    audit = scene.op.get("/api/admin/audit").text
    assert '"action":"dealer-fault"' in audit and '"action":"round-voided"' in audit
    report = verify(Database(scene.db_url))
    assert report["ledger_balanced"]
    # the damaged log is reported as such by verify (its round cannot be replayed)
    assert [m["round_id"] for m in report["mismatches"]] == [round_id]


def test_secrets_stay_out_of_the_logs(sqlite_url: str) -> None:
    create_operator(sqlite_url, *OPERATOR)
    proc = ServerProcess(sqlite_url, args=("--log-level", "info"))
    try:
        c = Client(proc.url)
        data = c.ok(
            c.post(
                "/api/auth/login",
                {"username": OPERATOR[0], "password": OPERATOR[1]},
            )
        )
        token = data["token"]
        c.token = token
        table = c.ok(c.post("/api/admin/tables", {"name": "t"}), 201)["id"]
        ws = c.ws(table)
        ws.wait_for(lambda m: m["type"] == "hello")
        ws.close()
        c.get("/api/me")
        time.sleep(0.3)
    finally:
        proc.stop()
    out = "".join(proc.lines)
    assert "GET /api/me" in out  # the access log is on
    assert token not in out and OPERATOR[1] not in out
    assert "token=<redacted>" in out or "WebSocket" in out


def test_no_fault_hooks_in_the_service() -> None:
    """Faults come from outside (``fault_server.py``): the package has no test hooks."""
    import inspect

    from paigow.service.config import ServiceConfig
    from paigow.service.game import rounds

    names = set(ServiceConfig.model_fields)
    assert not {n for n in names if "pause" in n}
    assert list(inspect.signature(rounds.settle).parameters) == ["tx", "table_id", "round_id"]
    src = Path(rounds.__file__).parents[2]  # the paigow package
    for path in src.rglob("*.py"):
        text = path.read_text()
        assert "test hook" not in text and "pause_at" not in text, path
