"""The process's Prometheus metrics: counters, gauges and histograms kept in memory (no I/O when a
step records one), exported by the ``/metrics`` route with a ``process`` label (host:pid) added
to every sample at scrape time, so that each process of ``serve --workers N`` tells its own.

The figures read from the database (the ledger's balance, wallets, seated players) are set by the
route just before each scrape (:func:`set_books`).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from paigow.ruleset import PushRule, Ruleset

PROCESS: Final = f"{socket.gethostname()}:{os.getpid()}"
"""This process's label: its host and process id."""

REGISTRY: Final = CollectorRegistry(auto_describe=True)
"""The service's own metrics (not the client library's default registry)."""

TABLE_KINDS: Final = ("casino", "practice", "ez", "face_up")
"""The ``kind`` label of the round counters (see :func:`table_kind`)."""
OUTCOMES: Final = ("settled", "voided")
"""The ``outcome`` label of :data:`ROUNDS_ENDED`."""

ROUNDS_DEALT: Final = Counter(
    "paigow_rounds_dealt", "Rounds dealt, by table kind.", ["kind"], registry=REGISTRY
)
ROUNDS_ENDED: Final = Counter(
    "paigow_rounds_ended",
    "Rounds ended, by table kind and outcome (settled, voided).",
    ["kind", "outcome"],
    registry=REGISTRY,
)
STEP_SECONDS: Final = Histogram(
    "paigow_step_seconds",
    "Write steps' time from being handed to the writer to their commit, by kind.",
    ["kind"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0),
    registry=REGISTRY,
)
REFUSALS: Final = Counter(
    "paigow_refusals", "Requests refused, by error code.", ["code"], registry=REGISTRY
)
WEBSOCKETS: Final = Gauge(
    "paigow_websockets_open", "Table feeds' WebSockets open now.", registry=REGISTRY
)
NOTICE_LAG: Final = Histogram(
    "paigow_notice_lag_seconds",
    "Time from a step sealing its notice in one process to another process receiving it.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
    registry=REGISTRY,
)
DB_ERRORS: Final = Counter(
    "paigow_db_errors",
    "Database errors answered to a request (busy, storage-full, storage-read-only), by code.",
    ["code"],
    registry=REGISTRY,
)
DB_RETRIES: Final = Counter(
    "paigow_db_retries",
    "Steps retried, by kind (deadlock, serialization, unique-race, locked, connection-lost).",
    ["kind"],
    registry=REGISTRY,
)
DB_IN_USE: Final = Gauge(
    "paigow_db_connections_in_use",
    "Connections of each pool lent out now (SQLAlchemy's checkedout()), read at scrape.",
    ["pool"],
    registry=REGISTRY,
)
DB_WAITING: Final = Gauge(
    "paigow_db_steps_waiting",
    "Steps waiting for the writer (SQLite: its queue; PostgreSQL: a steps' pool connection).",
    registry=REGISTRY,
)
BACKGROUND: Final = Gauge(
    "paigow_background_jobs",
    "The floor's background computations (edge: exact holds, bonus: bonus counts) by state "
    "(waiting, running), read at scrape.",
    ["job", "state"],
    registry=REGISTRY,
)
BACKGROUND_DONE: Final = Counter(
    "paigow_background_jobs_done",
    "The floor's background computations finished, by job and outcome (ok, failed).",
    ["job", "outcome"],
    registry=REGISTRY,
)
LEDGER_IMBALANCE: Final = Gauge(
    "paigow_ledger_imbalance_cents",
    "The sum of every ledger account's balance (0 when the books balance), read at scrape.",
    registry=REGISTRY,
)
WALLETS_TOTAL: Final = Gauge(
    "paigow_wallets_total_cents",
    "The players' wallets together, read at scrape.",
    registry=REGISTRY,
)
HOUSE: Final = Gauge(
    "paigow_house_balance_cents",
    "The house's (system) ledger accounts summed by account kind (house:win, wagers-in-play, "
    "progressive:meter, ...), read at scrape.",
    ["account"],
    registry=REGISTRY,
)
SEATED: Final = Gauge(
    "paigow_seated_players", "Players seated at any table, read at scrape.", registry=REGISTRY
)
STORAGE_PAUSED: Final = Gauge(
    "paigow_storage_paused",
    "1 while this process sees the database refuse writes (play paused), by code; read at scrape.",
    ["code"],
    registry=REGISTRY,
)
STORAGE_CODES: Final = ("storage-full", "storage-read-only")

for _kind in TABLE_KINDS:  # every series from the start: rate() and increase() see the first
    ROUNDS_DEALT.labels(_kind)
    for _outcome in OUTCOMES:
        ROUNDS_ENDED.labels(_kind, _outcome)

_on = True


def enable(on: bool) -> None:
    """Turn recording on or off for the process (setting ``metrics``): off, the step path
    records nothing and ``/metrics`` answers 404."""
    global _on
    _on = on


def enabled() -> bool:
    """Whether this process records metrics."""
    return _on


def table_kind(mode: str, rules: Ruleset) -> str:
    """A table's kind for the round counters: ``face_up`` (the dealer's cards dealt face up),
    ``ez`` (a push rule: EZ, commission-free), else ``practice`` or ``casino`` by its mode (a
    face-up or push-rule table counts there whatever its mode).

    >>> table_kind("casino", Ruleset()), table_kind("practice", Ruleset())
    ('casino', 'practice')
    >>> table_kind("casino", Ruleset.preset("face-up")), table_kind("casino", Ruleset.preset("ez"))
    ('face_up', 'ez')
    """
    if rules.face_up:
        return "face_up"
    if rules.push is not PushRule.NONE:
        return "ez"
    return "practice" if mode == "practice" else "casino"


def _nothing() -> None:
    """What an uncounted round's step does after its commit (metrics off)."""


def dealt(mode: str, rules: Ruleset) -> Callable[[], None]:
    """What counts a round dealt at a table of ``mode`` and ``rules`` (a step's work once
    committed)."""
    return ROUNDS_DEALT.labels(table_kind(mode, rules)).inc if _on else _nothing


def ended(mode: str, rules: Ruleset, outcome: str) -> Callable[[], None]:
    """What counts a round ended (``settled`` or ``voided``) at a table of ``mode`` and
    ``rules`` (a step's work once committed)."""
    return ROUNDS_ENDED.labels(table_kind(mode, rules), outcome).inc if _on else _nothing


def step_done(kind: str, seconds: float) -> None:
    """Record a write step of ``kind`` that took ``seconds``."""
    if _on:
        STEP_SECONDS.labels(kind).observe(seconds)


def refused(code: str) -> None:
    """A request refused with ``code``."""
    if _on:
        REFUSALS.labels(code).inc()


def notice_heard(sealed_at: float) -> None:
    """A notice sealed at ``sealed_at`` (epoch seconds) in another process, heard now."""
    if _on:
        NOTICE_LAG.observe(max(time.time() - sealed_at, 0.0))


def retried(kind: str) -> None:
    """A step retried after a database error of ``kind``."""
    if _on:
        DB_RETRIES.labels(kind).inc()


def background_done(job: str, ok: bool) -> None:
    """A background computation (``edge`` or ``bonus``) finished."""
    if _on:
        BACKGROUND_DONE.labels(job, "ok" if ok else "failed").inc()


def set_books(imbalance: int, wallets: int, seated: int, house: Mapping[str, int]) -> None:
    """The ledger's figures read at scrape time (``house``: the house's balance by account
    kind)."""
    LEDGER_IMBALANCE.set(imbalance)
    WALLETS_TOTAL.set(wallets)
    SEATED.set(seated)
    for account, cents in house.items():
        HOUSE.labels(account).set(cents)


def set_db(in_use: Mapping[str, int], waiting: int) -> None:
    """The connection pools' connections lent out (by pool) and the steps waiting."""
    for pool, n in in_use.items():
        DB_IN_USE.labels(pool).set(n)
    DB_WAITING.set(waiting)


def set_background(jobs: Mapping[tuple[str, str], int]) -> None:
    """The background computations by (job, state)."""
    for job in ("edge", "bonus"):
        for state in ("waiting", "running"):
            BACKGROUND.labels(job, state).set(jobs.get((job, state), 0))


def set_storage(code: str | None) -> None:
    """Whether play is paused for the database's refusals (``code``; None: writes work)."""
    for each in STORAGE_CODES:
        STORAGE_PAUSED.labels(each).set(1 if code == each else 0)


class _Labelled(Collector):
    """:data:`REGISTRY`'s metrics with the ``process`` label added to every sample."""

    def collect(self) -> Iterable[Metric]:
        for family in REGISTRY.collect():
            out = Metric(family.name, family.documentation, family.type, family.unit)
            for s in family.samples:
                labels = {**s.labels, "process": PROCESS}
                out.add_sample(s.name, labels, s.value, s.timestamp, s.exemplar)
            yield out


_EXPORT: Final = CollectorRegistry(auto_describe=False)
_EXPORT.register(_Labelled())


def exposition() -> bytes:
    """Every metric in Prometheus' text format."""
    return generate_latest(_EXPORT)


def db_error(code: str) -> None:
    """A database error answered to a request (and its refusal: a 503 with ``code``)."""
    if _on:
        DB_ERRORS.labels(code).inc()
        REFUSALS.labels(code).inc()
