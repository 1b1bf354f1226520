"""The process's Prometheus metrics: counters, gauges and histograms kept in memory (no I/O when a
step records one), exported by the ``/metrics`` route with a ``process`` label (host:pid) added
to every sample at scrape time, so that each process of ``serve --workers N`` tells its own.

The figures read from the database (the ledger's balance, wallets, seated players) are set by the
route just before each scrape (:func:`set_books`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterable
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from paigow.ruleset import PushRule, Ruleset

PROCESS: Final = f"{socket.gethostname()}:{os.getpid()}"
"""This process's label: its host and process id."""

REGISTRY: Final = CollectorRegistry(auto_describe=True)
"""The service's own metrics (not the client library's default registry)."""

ROUNDS_DEALT: Final = Counter(
    "paigow_rounds_dealt", "Rounds dealt, by table kind.", ["kind"], registry=REGISTRY
)
ROUNDS_SETTLED: Final = Counter(
    "paigow_rounds_settled", "Rounds settled, by table kind.", ["kind"], registry=REGISTRY
)
ROUNDS_VOIDED: Final = Counter(
    "paigow_rounds_voided", "Rounds voided, by table kind.", ["kind"], registry=REGISTRY
)
STEP_SECONDS: Final = Histogram(
    "paigow_step_seconds",
    "Write steps' time from being handed to the writer to their commit, by kind.",
    ["kind"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
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
    "Database errors answered to a request (busy, disk-full, read-only, ...), by code.",
    ["code"],
    registry=REGISTRY,
)
DB_RETRIES: Final = Counter(
    "paigow_db_retries",
    "Steps retried after a deadlock, serialization failure or unique-key race.",
    registry=REGISTRY,
)
BACKGROUND_QUEUE: Final = Gauge(
    "paigow_background_queue",
    "The floor's background computations (exact edges, bonus counts) running or waiting.",
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


def table_kind(rules: Ruleset) -> str:
    """A table's kind for the round counters: ``dragon``, ``variant`` (a push rule or face up),
    ``side`` (side wagers offered) or ``plain``.

    >>> table_kind(Ruleset()), table_kind(Ruleset(face_up=True)), table_kind(Ruleset(dragon=True))
    ('plain', 'variant', 'dragon')
    """
    if rules.dragon:
        return "dragon"
    if rules.push is not PushRule.NONE or rules.face_up:
        return "variant"
    if rules.side_wagers:
        return "side"
    return "plain"


def counted(counter: Counter, rules: Ruleset) -> Callable[[], None]:
    """What increments ``counter`` for a table of ``rules`` (for a step's work after commit)."""
    child = counter.labels(table_kind(rules))
    return child.inc


def step_done(kind: str, seconds: float) -> None:
    """Record a write step of ``kind`` that took ``seconds``."""
    STEP_SECONDS.labels(kind).observe(seconds)


def refused(code: str) -> None:
    REFUSALS.labels(code).inc()


def set_books(imbalance: int, wallets: int, seated: int, queued: int) -> None:
    """The figures read at scrape time."""
    LEDGER_IMBALANCE.set(imbalance)
    WALLETS_TOTAL.set(wallets)
    SEATED.set(seated)
    BACKGROUND_QUEUE.set(queued)


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
    DB_ERRORS.labels(code).inc()
    REFUSALS.labels(code).inc()
