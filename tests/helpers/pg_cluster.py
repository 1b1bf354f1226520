"""Private PostgreSQL 15 clusters for the tests that break a database (outage, failover, full disk).

A :class:`Cluster` is ``initdb`` in a temporary folder (owned by ``postgres``), started with
``pg_ctl`` as the ``postgres`` user (``runuser -u postgres --``; the tests run as root) on a free
port of 127.0.0.1, trust auth, a database ``test``. ``stop(mode)``, ``kill()`` (SIGKILL the
postmaster), ``start()`` again and ``promote()``; ``remove()`` stops it and deletes its folder.
:func:`standby_pair` makes a primary and a synchronous streaming standby (``pg_basebackup -R``,
``synchronous_standby_names`` naming it, so an acknowledged commit is on both; or asynchronous,
and then :meth:`Cluster.stop_receiving` makes it lag for certain). Use as context
managers::

    with cluster() as pg:                 # one cluster
        url = pg.url()
    with standby_pair() as (primary, standby):
        url = multi_host_url(primary, standby)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")
HOST = "127.0.0.1"
DB = "test"


def available() -> bool:
    """Whether private clusters can be made here (the binaries and the ``postgres`` user)."""
    return (BIN / "initdb").exists() and shutil.which("runuser") is not None and _has_postgres()


def _has_postgres() -> bool:
    import pwd

    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _as_postgres(*args: str, check: bool = True, timeout: float = 120) -> str:
    r = subprocess.run(
        ["runuser", "-u", "postgres", "--", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd="/tmp",
    )
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


class Cluster:
    """One private PostgreSQL cluster (see the module's docstring)."""

    def __init__(self, root: Path | None = None, port: int | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="paigow-pg-"))
        os.chmod(self.root, 0o755)
        shutil.chown(self.root, "postgres", "postgres")
        self.data = self.root / "data"
        self.log = self.root / "log"
        self.port = port or free_port()

    # ------------------------------------------------------------------ making one
    def init(self, **settings: str) -> Cluster:
        """``initdb`` (trust auth), with ``settings`` appended to postgresql.conf."""
        _as_postgres(
            str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8"
        )
        self.configure(
            port=str(self.port),
            listen_addresses=f"'{HOST}'",
            unix_socket_directories=f"'{self.root}'",
            fsync="off",
            full_page_writes="off",
            wal_level="replica",
            max_wal_senders="5",
            shared_buffers="32MB",
            max_connections="100",
            **settings,
        )
        with open(self.data / "pg_hba.conf", "a") as f:
            f.write(f"host replication all {HOST}/32 trust\n")
        return self

    def configure(self, **settings: str) -> None:
        """Append ``settings`` to postgresql.conf (a later line wins; reload or restart after)."""
        with open(self.data / "postgresql.conf", "a") as f:
            for k, v in settings.items():
                f.write(f"{k} = {v}\n")

    # ------------------------------------------------------------------ running it
    def start(self, timeout: float = 60) -> None:
        """``pg_ctl start``; when its port was taken meanwhile (another test's cluster, on a
        loaded machine), once more on a new port. A failure says what the server logged."""
        for attempt in (1, 2):
            done = len(self.log_text())
            try:
                _as_postgres(
                    str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                    "-t", str(int(timeout)), "start",
                )  # fmt: skip
                break
            except RuntimeError as exc:
                logged = self.log_text()[done:]
                if attempt == 1 and "could not bind" in logged:
                    self.port = free_port()
                    self.configure(port=str(self.port))
                    continue
                raise RuntimeError(f"{exc}\nthe server's log:\n{logged[-3000:]}") from None
        self.wait_ready(timeout)

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m mode`` (smart, fast, immediate); nothing if it is not running."""
        if self.running():
            _as_postgres(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def pid(self) -> int | None:
        """The postmaster's pid, or None."""
        try:
            return int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def running(self) -> bool:
        pid = self.pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill(self) -> None:
        """SIGKILL the postmaster (its backends end as they lose it); waits until it is gone."""
        pid = self.pid()
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.time() + 30
        while time.time() < deadline and self.running():
            time.sleep(0.05)
        # the orphaned backends notice within a moment; a new postmaster refuses while they live
        deadline = time.time() + 30
        while time.time() < deadline and self._orphans():
            time.sleep(0.1)

    def _orphans(self) -> bool:
        r = subprocess.run(["pgrep", "-u", "postgres", "-f", str(self.data)], capture_output=True)
        return r.returncode == 0

    def promote(self) -> None:
        """``pg_ctl promote`` (a standby becomes a primary); waits until it accepts writes."""
        _as_postgres(str(BIN / "pg_ctl"), "-D", str(self.data), "-w", "promote")
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.sql("SELECT pg_is_in_recovery()").strip() == "f":
                return
            time.sleep(0.1)
        raise RuntimeError("the standby did not leave recovery")

    def stop_receiving(self, primary: Cluster, timeout: float = 30) -> None:
        """A standby stops streaming from ``primary``: its ``primary_conninfo`` emptied and
        reloaded (the WAL receiver ends, what it had not yet received is never received);
        waits until ``primary`` has no standby connected."""
        self.sql("ALTER SYSTEM SET primary_conninfo = ''")
        self.sql("SELECT pg_reload_conf()")
        deadline = time.time() + timeout
        while time.time() < deadline:
            if primary.sql("SELECT count(*) FROM pg_stat_replication").strip() == "0":
                return
            time.sleep(0.05)
        raise RuntimeError("the standby still streams")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = subprocess.run(
                [str(BIN / "pg_isready"), "-h", HOST, "-p", str(self.port)], capture_output=True
            )
            if r.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL on port {self.port} is not ready:\n{self.log_text()}")

    def sql(self, query: str, db: str = DB) -> str:
        """One statement by psql (unaligned, tuples only); its output."""
        return _as_postgres(
            "psql", "-h", HOST, "-p", str(self.port), "-U", "postgres", "-d", db,
            "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query,
        )  # fmt: skip

    def create_db(self, name: str = DB) -> None:
        self.sql(f"CREATE DATABASE {name}", db="postgres")

    def url(self, db: str = DB) -> str:
        """The service's URL of database ``db`` here."""
        return f"postgresql://postgres@{HOST}:{self.port}/{db}"

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def remove(self) -> None:
        """Stop it (immediate) and delete its folder."""
        with contextlib.suppress(Exception):
            self.stop("immediate")
        if self.running():
            self.kill()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def cluster(**settings: str) -> Iterator[Cluster]:
    """A started cluster with a database ``test``; removed afterwards."""
    c = Cluster().init(**settings)
    try:
        c.start()
        c.create_db()
        yield c
    finally:
        c.remove()


def make_standby(primary: Cluster, name: str = "standby1") -> Cluster:
    """A streaming standby of the running ``primary`` (``pg_basebackup -R``), started."""
    s = Cluster()
    _as_postgres(
        str(BIN / "pg_basebackup"), "-h", HOST, "-p", str(primary.port), "-U", "postgres",
        "-D", str(s.data), "-R", "-X", "stream", "-c", "fast",
    )  # fmt: skip
    s.configure(port=str(s.port), unix_socket_directories=f"'{s.root}'", hot_standby="on")
    # pg_basebackup -R wrote primary_conninfo to postgresql.auto.conf (read last): name it there
    conninfo = f"host={HOST} port={primary.port} user=postgres application_name={name}"
    with open(s.data / "postgresql.auto.conf", "a") as f:
        f.write(f"primary_conninfo = '{conninfo}'\n")
    s.start()
    return s


@contextlib.contextmanager
def standby_pair(
    name: str = "standby1", synchronous: bool = True
) -> Iterator[tuple[Cluster, Cluster]]:
    """A primary with database ``test`` and its synchronous standby (``synchronous_commit = on``,
    ``synchronous_standby_names`` = the standby): a commit is acknowledged once the standby has
    flushed it. ``synchronous=False``: an asynchronous standby (no standby named), a commit
    acknowledged before the standby has it. Both removed afterwards."""
    primary = Cluster().init(synchronous_commit="on")
    standby: Cluster | None = None
    try:
        primary.start()
        primary.create_db()
        standby = make_standby(primary, name)
        primary.configure(synchronous_standby_names=f"'{name}'" if synchronous else "''")
        primary.sql("SELECT pg_reload_conf()")
        deadline = time.time() + 60
        while time.time() < deadline:
            state = primary.sql(
                f"SELECT sync_state FROM pg_stat_replication WHERE application_name = '{name}'"
            ).strip()
            if state == ("sync" if synchronous else "async"):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"the standby is not {'a synchronous' if synchronous else 'an'} one")
        yield primary, standby
    finally:
        if standby is not None:
            standby.remove()
        primary.remove()


def multi_host_url(*clusters: Cluster, db: str = DB) -> str:
    """One URL naming every cluster's host, libpq picking the one that accepts writes."""
    hosts = ",".join(HOST for _ in clusters)
    ports = ",".join(str(c.port) for c in clusters)
    # libpq's lists (host=a,b&port=p,q): SQLAlchemy's psycopg dialect, psycopg's asyncio
    # connections and the service's own conninfo (locks, LISTEN) all pass them through
    return f"postgresql://postgres@/{db}?host={hosts}&port={ports}&target_session_attrs=read-write"
