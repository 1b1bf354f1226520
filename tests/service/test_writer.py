"""The writer (:mod:`paigow.service.store.writer`): on SQLite the steps waiting commit together, each in
a savepoint of its own (one that fails leaves nothing, its neighbours commit), a failed commit
fails every step of its group and writes nothing, and a step is answered only once its commit
is on disk; on PostgreSQL a step is retried on a serialization failure. A step's notices and
its work after the commit (its events for the live feeds) come only when it commits; a kept refusal (``Refused``) commits what
the step wrote, then raises its error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Final, cast

import pytest
import sqlalchemy as sa

from paigow.service.config import ServiceConfig
from paigow.service.runtime import Runtime
from paigow.service.store.bus import Channel, Notice, appended, notify
from paigow.service.store.db import Database, ServerSetting
from paigow.service.store.statements import Sql
from paigow.service.store.unit import Refused, Tx
from tests.helpers.service import pg_schema, run_on_own_loop

_SETTINGS: Final = cast(sa.Table, ServerSetting.__table__)
_PUT: Final = Sql(
    sa.insert(_SETTINGS).values(key=sa.bindparam("k"), value=sa.bindparam("v", type_=sa.Text))
)


def _keys(url: str) -> set[str]:
    db = Database(url)
    try:
        with db.read() as s:
            return {k for (k,) in s.execute(sa.select(ServerSetting.key)) if k.startswith("t-")}
    finally:
        db.dispose()


async def _running(url: str) -> Runtime:
    rt = Runtime(ServiceConfig(url))
    await asyncio.to_thread(rt.db.migrate)
    await rt.bus.start()
    rt.writer.start(asyncio.get_running_loop())
    return rt


async def _close(rt: Runtime) -> None:
    await rt.writer.aclose()
    await rt.bus.stop()
    rt.db.dispose()


def test_steps_waiting_commit_together_each_alone_in_its_savepoint(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    heard: list[int] = []
    after: list[int] = []

    def step(i: int) -> Any:
        def fn(tx: Tx) -> int:
            tx.run(_PUT, {"k": f"t-{i}", "v": str(i)})
            notify(tx, 1000 + i)
            appended(tx, 2000 + i, f"r-{i}", 1, 0, [{"type": "round-started"}], {})
            if i == 13:
                raise ValueError("step 13 refuses")
            if i == 17:  # refuses, and keeps what it wrote (its record of the refusal)
                raise Refused(PermissionError("step 17 refuses"))
            return i

        return fn

    async def main() -> list[Any]:
        rt = await _running(url)
        try:
            for i in range(30):
                rt.bus.subscribe(
                    Channel.table(1000 + i), lambda n: heard.append(n.channel.id - 1000)
                )
            out = await asyncio.gather(
                *(rt.step(step(i)) for i in range(30)), return_exceptions=True
            )
            after.extend(i for i in range(30) if rt.fresh.latest(2000 + i) is not None)
            return [out, rt.writer.groups]
        finally:
            await _close(rt)

    out, groups = run_on_own_loop(main())
    assert isinstance(out[13], ValueError) and isinstance(out[17], PermissionError)
    assert [x for i, x in enumerate(out) if i not in (13, 17)] == [
        i for i in range(30) if i not in (13, 17)
    ]
    assert _keys(url) == {f"t-{i}" for i in range(30) if i != 13}  # 13 left nothing
    assert sorted(after) == sorted(heard) == [i for i in range(30) if i != 13]
    assert groups < 30  # steps waiting were committed together


def test_a_failed_commit_fails_every_step_of_its_group_and_writes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    heard: list[Notice] = []

    def good(i: int) -> Any:
        def fn(tx: Tx) -> int:
            tx.run(_PUT, {"k": f"t-{i}", "v": "x"})
            notify(tx, 1)
            return i

        return fn

    def breaks_the_commit(tx: Tx) -> None:
        # a foreign key checked at the commit (deferred): the whole group's commit fails
        tx.text("PRAGMA defer_foreign_keys = ON")
        tx.text("INSERT INTO seats (table_id, spot, user_id, sat_at) VALUES (999999, 1, 999999, 0)")

    async def main() -> list[Any]:
        rt = await _running(url)
        try:
            rt.bus.subscribe(Channel.table(1), heard.append)
            jobs = [rt.step(good(i)) for i in range(5)] + [rt.step(breaks_the_commit)]
            out = await asyncio.gather(*jobs, return_exceptions=True)
            later = await rt.step(good(99))  # the writer goes on
            return [out, later]
        finally:
            await _close(rt)

    out, later = run_on_own_loop(main())
    assert all(isinstance(x, sa.exc.IntegrityError) for x in out), out
    assert later == 99
    assert _keys(url) == {"t-99"}
    assert len(heard) == 1  # only the step that committed was announced


def test_a_step_is_answered_once_its_commit_is_on_disk(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"

    async def main() -> list[bool]:
        rt = await _running(url)
        seen = []
        try:
            for i in range(5):
                await rt.step(lambda tx, i=i: tx.run(_PUT, {"k": f"t-{i}", "v": "x"}))
                seen.append(f"t-{i}" in _keys(url))  # another connection sees it at once
        finally:
            await _close(rt)
        return seen

    assert run_on_own_loop(main()) == [True] * 5


def test_postgres_steps_are_retried_on_a_serialization_failure() -> None:
    class Conflict(Exception):
        sqlstate = "40001"

    with pg_schema() as url:
        attempts: list[int] = []

        def step(tx: Tx) -> str:
            attempts.append(1)
            tx.later(_PUT, {"k": f"t-{len(attempts)}", "v": "x"})
            if len(attempts) == 1:
                tx.scalar(Sql(sa.select(sa.literal(1))))  # the insert is sent, then undone
                raise sa.exc.OperationalError("a step", {}, Conflict())
            return "done"

        async def main() -> str:
            rt = await _running(url)
            try:
                return await rt.step(step)
            finally:
                await _close(rt)

        assert run_on_own_loop(main()) == "done"
        assert len(attempts) == 2
        assert _keys(url) == {"t-2"}  # the first attempt's insert was rolled back


def test_a_kept_refusal_commits_what_its_step_wrote_then_raises(tmp_path: Path) -> None:
    """A step that refuses with ``Refused`` (a limit's refusal and its audit record) keeps what
    it wrote, on either writer and in ``Runtime.write``; its caller gets the refusal's error."""

    def refuses(tx: Tx) -> None:
        tx.later(_PUT, {"k": "t-refused", "v": "x"})
        raise Refused(PermissionError("no"))

    def check(url: str) -> None:
        async def main() -> Any:
            rt = await _running(url)
            try:
                with pytest.raises(PermissionError):
                    await rt.step(refuses)
                with pytest.raises(PermissionError), rt.write() as tx:
                    tx.run(_PUT, {"k": "t-cold", "v": "x"})
                    raise Refused(PermissionError("no"))
            finally:
                await _close(rt)

        run_on_own_loop(main())
        assert _keys(url) == {"t-refused", "t-cold"}

    check(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    with pg_schema() as url:
        check(url)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_reads_on_the_event_loop(backend: str, tmp_path: Path) -> None:
    def scenario(url: str) -> None:
        async def main() -> tuple[int, int]:
            rt = await _running(url)
            try:
                before = await rt.reading(lambda tx: int(tx.scalar(_COUNT)))
                await rt.step(lambda tx: tx.run(_PUT, {"k": "t-read", "v": "x"}))
                after = await rt.reading(lambda tx: int(tx.scalar(_COUNT)))
                return before, after
            finally:
                await _close(rt)

        before, after = run_on_own_loop(main())
        assert after == before + 1

    if backend == "sqlite":
        scenario(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    else:
        with pg_schema() as url:
            scenario(url)


_COUNT: Final = Sql(sa.select(sa.func.count()).select_from(_SETTINGS))


def test_the_writer_stops_promptly_with_steps_still_waiting(tmp_path: Path) -> None:
    """A stop asked for while steps wait (or a group is under way) lets them finish and ends
    the writer's thread; it is never missed (a server that shuts down does not hang)."""
    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"

    async def main() -> list[int]:
        answered = []
        for attempt in range(25):
            rt = await _running(url)
            steps = [
                asyncio.ensure_future(
                    rt.step(
                        lambda tx, i=i, a=attempt: tx.run(_PUT, {"k": f"t-{a}-{i}", "v": "x"}) or i
                    )
                )
                for i in range(5)
            ]
            await asyncio.sleep(0)  # the steps are queued; the writer wakes
            await asyncio.wait_for(rt.writer.aclose(), 10)
            done = await asyncio.gather(*steps, return_exceptions=True)
            answered.append(sum(1 for d in done if isinstance(d, int)))
            await rt.bus.stop()
            rt.db.dispose()
        return answered

    assert run_on_own_loop(main()) == [5] * 25


def test_postgres_kept_work_runs_before_the_commit_and_a_failed_commit_clears_it() -> None:
    """On PostgreSQL a step's work once kept (its round back in the cache) is done before its
    commit is sent; a commit that then fails (here a deferred unique key, checked at the
    commit) clears the cache, so no copy of what was never committed stays."""
    from paigow.round import Round

    with pg_schema() as url:
        seen: list[bool] = []

        async def main() -> None:
            rt = await _running(url)
            try:
                await rt.step(
                    lambda tx: tx.text(
                        "CREATE TABLE t_deferred (k INTEGER, CONSTRAINT u_k UNIQUE (k) "
                        "DEFERRABLE INITIALLY DEFERRED)"
                    )
                )
                rt.rounds.put(Round(round_id="other"))  # an earlier step's round

                def kept_then_committed(tx: Tx) -> None:
                    tx.step.rounds_kept.append(Round(round_id="mine"))

                await rt.step(kept_then_committed)
                seen.append(rt.rounds.take("mine", 1) is not None)
                assert seen == [True]  # in the cache by the time the commit was answered

                def fails_at_commit(tx: Tx) -> None:
                    tx.text("INSERT INTO t_deferred VALUES (1), (1)")  # checked at the commit
                    tx.step.rounds_kept.append(Round(round_id="never"))

                with pytest.raises(sa.exc.IntegrityError):
                    await rt.step(fails_at_commit)
                assert rt.rounds.take("never", 1) is None
                assert rt.rounds.take("other", 1) is None  # the whole cache: cleared
            finally:
                await _close(rt)

        run_on_own_loop(main())
