"""The exact edges of the floor, computed in the background: a ruleset's (house way, wheel, push
rule) counts of house way against house way over every deal, in one worker process per server
(:class:`EdgeWorker`), kept in ``floor_edges``; when they become known the flags of the ruleset's
tables are checked again."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.orm import Session

from paigow.analysis.cache_folder import held
from paigow.analysis.compiled import cache_dir
from paigow.analysis.edge import is_current, saved_name
from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.service.floor.hold import table_ident
from paigow.service.floor.totals import check_flag
from paigow.service.ops import telemetry
from paigow.service.orphans import exit_with_parent
from paigow.service.statuses import TableStatus
from paigow.service.store.db import Database, GameTable, now
from paigow.service.store.floor_models import FloorEdge, FloorTable

log = logging.getLogger("paigow.service.floor.edges")

FULL_DECK: Final = 53
FULL_DEALS: Final = comb(53, 7) * comb(46, 7)
"""Every deal of two seven-card hands from the 53 cards: 8,250,459,031,214,400."""
EdgeKey = tuple[dict[str, Any], str, str]
"""What the exact counts of a ruleset depend on: its house way, wheel and push rule."""
RETRY_FAILED_S: Final = 600.0
"""A failed computation of an exact edge is tried again by a floor view this much later."""


def compute_edge_counts(
    way: HouseWay, wheel: str, workers: int = 2, push: str = "none"
) -> dict[str, Any]:
    """In a worker process: compile the house way if needed and count house way against house
    way over every deal exactly under the push rule ``push``
    (:func:`paigow.analysis.edge.house_way_edge`; minutes on the full deck with a push rule,
    checkpointed); add the optimal player's saved edges (by commission rate) when ``paigow
    edge --player optimal`` left them."""
    from paigow.analysis import edge as E
    from paigow.analysis.compiled import cache_dir
    from paigow.analysis.runner import Runner, TableSpec
    from paigow.ranking import Wheel
    from paigow.ruleset import PushRule

    saved = saved_house_way(cache_dir(), way, wheel, push)
    if saved is not None:
        return saved
    # one count at a time on this machine: another server's worker (or a test's) counting the
    # same ruleset is waited for and its saved result read, not counted again beside it
    with held(_saved_path(cache_dir(), way, wheel, "house-way", push)):
        saved = saved_house_way(cache_dir(), way, wheel, push)
        if saved is not None:
            return saved
        spec = TableSpec.of(way, Wheel(wheel))
        spec.open()
        result = E.house_way_edge(spec, Runner(workers=workers), push=PushRule(push))
        E.save_result(spec, result)  # the next server (another database) reads it at once
    return {
        "deals": result.deals,
        "win": result.win,
        "push": result.push,
        "loss": result.loss,
        "optimal": saved_optimal(cache_dir(), way, wheel, push),
    }


def compute_bonus_counts(way: HouseWay, wheel: str, workers: int = 2) -> bool:
    """In a worker process: count every hand's bonus categories for the house way (compiled if
    needed) and cache them on disk, where the floor reads them
    (:func:`paigow.service.floor.side_holds.cached_counts`)."""
    from paigow.analysis.bonus_counts import open_counts
    from paigow.ranking import Wheel

    open_counts(way, Wheel(wheel), workers=workers)
    return True


def _saved_path(folder: Path, way: HouseWay, wheel: str, player: str, push: str) -> Path:
    """Where ``paigow edge`` saves a result for this house way (by its name and the digest of
    its rules: :func:`paigow.analysis.edge.saved_name`)."""
    return folder / saved_name(way, wheel, player, push)


def _same_way(saved: object, way: HouseWay) -> bool:
    """Whether a saved file's house way (as the file keeps it) is ``way``, by name and digest."""
    if not isinstance(saved, Mapping):
        return False
    ident = HouseWay.identity_of(saved)
    return (ident["name"], ident["digest"]) == (way.name, way.digest)


def saved_house_way(
    folder: Path, way: HouseWay, wheel: str, push: str = "none"
) -> dict[str, Any] | None:
    """The exact counts ``paigow edge`` (or an earlier server) saved in ``folder`` for this
    house way, wheel and push rule over the full deck, with the optimal player's saved edges;
    None when there is no such result, or it is for another house way, wheel, push rule or
    deck, or was counted by other code than today's (its ``code`` digest differs, or it has
    none: :func:`paigow.analysis.edge.is_current`), or its counts do not add up (then the
    worker computes them).

    >>> import tempfile
    >>> saved_house_way(Path(tempfile.mkdtemp()), HouseWay.preset("standard"), "second") is None
    True
    """
    saved = _saved_path(folder, way, wheel, "house-way", push)
    if not saved.exists():
        return None
    try:
        data = json.loads(saved.read_text())
        deals, win, pushes, loss = (int(data[k]) for k in ("deals", "win", "push", "loss"))
        if (
            not _same_way(data.get("house_way"), way)
            or data.get("wheel") != wheel
            or data.get("push_rule", "none") != push
            or data.get("player") != "house-way"
            or not is_current(data)
            or data.get("deck", FULL_DECK) != FULL_DECK
            or deals != FULL_DEALS
            or min(win, pushes, loss) < 0
            or win + pushes + loss != deals
        ):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {
        "deals": deals,
        "win": win,
        "push": pushes,
        "loss": loss,
        "optimal": saved_optimal(folder, way, wheel, push),
    }


def saved_optimal(
    folder: Path, way: HouseWay, wheel: str, push: str = "none"
) -> dict[str, str] | None:
    """The optimal player's exact edge by commission rate, from the result ``paigow edge
    --player optimal`` saved in ``folder`` for this house way, wheel and push rule (None if
    there is none, or it was counted by other code than today's)."""
    saved = _saved_path(folder, way, wheel, "optimal", push)
    if not saved.exists():
        return None
    try:
        data = json.loads(saved.read_text())
        if (
            not _same_way(data.get("house_way"), way)
            or data.get("wheel") != wheel
            or data.get("push_rule", "none") != push
            or data.get("player") != "optimal"
            or not is_current(data)
        ):
            return None
        return {str(Commission(data["commission"]).rate): str(Fraction(data["house_edge_exact"]))}
    except (ValueError, KeyError, TypeError, ArithmeticError):
        return None


BACKGROUND_NICE: Final = 10
"""How much lower the floor's worker process runs than the server (a saturated server's steps
come first; the exact edges and the players' ratings take the CPU left)."""


def background_worker(parent: int) -> None:
    """The worker process's ``initializer``: it ends with ``parent`` and runs at a lower
    priority than the server."""
    exit_with_parent(parent)
    with contextlib.suppress(OSError):  # not allowed here: at the server's priority
        os.nice(BACKGROUND_NICE)


class EdgeWorker:
    """Runs :func:`compute_edge_counts` in one worker process (``spawn``: never on the event loop,
    never in a request's thread) and stores the result in ``floor_edges``. One per server
    process; a ruleset already being computed here is not submitted twice."""

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._running: dict[str, Future[dict[str, Any]]] = {}
        self._closing = False

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._closing = False  # a new server of this process: its results are kept
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=background_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    @property
    def started(self) -> bool:
        """Whether the worker process runs (a look at the floor or the players started it)."""
        return self._pool is not None

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        """Run ``fn(*args)`` in the worker process, behind what it is computing (the players'
        ratings)."""
        with self._lock:
            return self._executor().submit(fn, *args)

    def running(self, ident: str) -> bool:
        with self._lock:
            return ident in self._running

    def states(self) -> dict[tuple[str, str], int]:
        """The computations here now by (job: ``edge`` or ``bonus``, state: ``waiting`` or
        ``running``); running: handed to the worker process (its executor hands on one more
        than it runs, so one waiting may show as running)."""
        out: dict[tuple[str, str], int] = {}
        with self._lock:
            for key, fut in self._running.items():
                at = ("bonus" if key.startswith("bonus:") else "edge", _state(fut))
                out[at] = out.get(at, 0) + 1
        return out

    def ensure(self, db: Database, missing: Mapping[str, EdgeKey], *, min_hands: int) -> list[str]:
        """Start computing every ruleset of ``missing`` (ident -> (house way, wheel, push
        rule)) not computed yet nor running here (``min_hands``: the tables' flags are re-checked
        once it is known, see :func:`store_counts`) (one that failed, again after
        :data:`RETRY_FAILED_S`). A ruleset whose exact counts are already saved on disk (by
        ``paigow edge`` or an earlier server: :func:`saved_house_way`) is stored at once, with
        no worker; returns those rulesets."""
        stored: list[str] = []
        for ident, (way, wheel, push) in missing.items():
            with self._lock:
                if ident in self._running:
                    continue
                try:
                    house_way = HouseWay.from_dict(way)  # the table's, read once here
                except PaigowError:
                    log.warning("table %s: its house way cannot be read", ident)
                    continue
                saved = saved_house_way(cache_dir(), house_way, wheel, push)
                with db.write() as s:
                    edge = s.get(FloorEdge, ident)
                    if edge is not None and edge.status == "ready":
                        continue
                    if saved is not None:
                        store_counts(s, ident, way, wheel, saved, min_hands=min_hands)
                        stored.append(ident)
                        continue
                    if (
                        edge is not None
                        and edge.status == "failed"
                        and now() - (edge.finished_at or 0.0) < RETRY_FAILED_S
                    ):
                        continue
                    if edge is not None:
                        edge.status, edge.error = "computing", None
                    if edge is None:
                        s.add(
                            FloorEdge(
                                ident=ident,
                                house_way=way,
                                wheel=wheel,
                                status="computing",
                                started_at=now(),
                            )
                        )
                    else:
                        edge.started_at = now()
                fut = self._executor().submit(
                    compute_edge_counts,
                    house_way,  # pickled as itself
                    wheel,
                    self.workers,
                    push,
                )
                self._running[ident] = fut
            fut.add_done_callback(functools.partial(self._done, db, ident, min_hands))
        return stored

    def _done(self, db: Database, ident: str, min_hands: int, fut: Future[dict[str, Any]]) -> None:
        try:
            if self._closing:  # stopped by shutdown: still "computing", for the next server
                return
            try:
                counts = fut.result()
                error = None
            except Exception as exc:  # the worker failed: shown, and retried on demand
                counts, error = None, f"{type(exc).__name__}: {exc}"
                log.warning("exact edge %s failed: %s", ident, error)
            with db.write() as s:
                edge = s.get(FloorEdge, ident)
                if edge is None:
                    return
                if counts is None:
                    edge.status, edge.error, edge.finished_at = "failed", error, now()
                    telemetry.background_done("edge", ok=False)
                    return
                store_counts(s, ident, edge.house_way, edge.wheel, counts, min_hands=min_hands)
            telemetry.background_done("edge", ok=True)
        except Exception:
            log.exception("storing the exact edge %s", ident)
        finally:
            with self._lock:
                self._running.pop(ident, None)

    def ensure_bonus(self, missing: Mapping[str, tuple[dict[str, Any], str]]) -> None:
        """Count the bonus hands of every house way of ``missing`` (ident -> (house way,
        wheel)) not being counted here yet, in the worker process (the side wagers' exact
        holds); a failed count is logged and tried again by a later look."""
        for ident, (way, wheel) in missing.items():
            key = "bonus:" + ident
            with self._lock:
                if key in self._running:
                    continue
                fut = self._executor().submit(
                    compute_bonus_counts, HouseWay.from_dict(way), wheel, self.workers
                )
                self._running[key] = fut  # type: ignore[assignment]
            fut.add_done_callback(functools.partial(self._bonus_done, key))

    def _bonus_done(self, key: str, fut: Future[bool]) -> None:
        try:
            if not self._closing:
                failed = fut.exception() is not None
                if failed:
                    log.warning("bonus counts %s failed: %s", key, fut.exception())
                telemetry.background_done("bonus", ok=not failed)
        except Exception:  # cancelled at shutdown  # nosec B110
            pass
        finally:
            with self._lock:
                self._running.pop(key, None)

    def shutdown(self) -> None:
        """Stop the worker process and release the pool (its queues' semaphores among them: a
        server stopped by SIGTERM leaks none). A computation in progress is dropped; its
        finished chunks are checkpointed, and the next server goes on from them."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._closing = pool is not None
        if pool is None:
            return
        # No public way to stop a busy worker before Python 3.14 (terminate_workers).
        for process in list((pool._processes or {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def store_counts(
    session: Session,
    ident: str,
    house_way: Mapping[str, Any],
    wheel: str,
    counts: Mapping[str, Any],
    *,
    min_hands: int,
) -> None:
    """Keep the exact counts of a ruleset (from :func:`compute_edge_counts`) and re-check the
    flags of its tables (``min_hands``: the ``floor_flag_min_hands`` setting)."""
    edge = session.get(FloorEdge, ident)
    if edge is None:
        edge = FloorEdge(ident=ident, house_way=dict(house_way), wheel=wheel, started_at=now())
        session.add(edge)
    edge.status, edge.error, edge.finished_at = "ready", None, now()
    edge.deals, edge.win = int(counts["deals"]), int(counts["win"])
    edge.push, edge.loss = int(counts["push"]), int(counts["loss"])
    edge.optimal = counts.get("optimal")
    session.flush()
    _recheck(session, ident, min_hands)


def _recheck(session: Session, ident: str, min_hands: int) -> None:
    """Flags of every open table of a ruleset whose exact edge has just become known."""
    for t, row in session.execute(
        sa.select(GameTable, FloorTable)
        .join(FloorTable, FloorTable.table_id == GameTable.id)
        .where(GameTable.status != TableStatus.CLOSED)
    ).all():
        if table_ident(t) == ident:
            check_flag(session, t, row, min_hands)


_worker: EdgeWorker | None = None
_worker_lock = threading.Lock()


def _state(fut: Future[Any]) -> str:
    return "running" if fut.running() else "waiting"


def edge_worker() -> EdgeWorker:
    """This process's :class:`EdgeWorker`."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = EdgeWorker()
        return _worker


def shutdown_edge_worker() -> None:
    """Stop this process's :class:`EdgeWorker`, if it was ever started (the server's
    shutdown)."""
    with _worker_lock:
        worker = _worker
    if worker is not None:
        worker.shutdown()


def wait_for_edges(db: Database, timeout: float = 300.0) -> None:
    """Block until no ruleset is computing here (tests, the CLI)."""
    deadline = time.monotonic() + timeout
    w = edge_worker()
    while time.monotonic() < deadline:
        with w._lock:
            if not w._running:
                return
        time.sleep(0.1)
    raise TimeoutError("the exact edges are still computing")
