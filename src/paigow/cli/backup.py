"""``paigow backup`` (while the service serves) and ``paigow restore`` (into an empty database):
:mod:`paigow.service.store.backup`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from paigow.cli.common import DatabaseOpt, fail, out_console, terminal_err_console

if TYPE_CHECKING:
    from paigow.service.store.backup import Manifest

BIG_PAGES = 25_000
"""A SQLite copy of more pages than this (about 100 MB) shows a progress bar."""


@contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int], None]]:
    from rich.progress import Progress, TaskID

    with Progress(console=terminal_err_console(), transient=True) as bar:
        task: list[TaskID] = []

        def update(done: int, total: int) -> None:
            if total < BIG_PAGES:
                return
            if not task:
                task.append(bar.add_task(label, total=total))
            bar.update(task[0], completed=done, total=total)

        yield update


def _summary(verb: str, m: Manifest, where: str) -> None:
    out_console().print(
        f"{verb} {where}: {m.backend}, schema version {m.schema_version}, taken {m.created_at}; "
        f"{m.rounds} rounds, {m.users} users, {m.tables} tables; "
        f"{m.data_bytes:,} bytes of data (sha256 {m.sha256[:12]})"
    )


def backup_command(
    database: DatabaseOpt,
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The new backup file.")],
) -> None:
    """Back up the table service's database while it serves (SQLite: the online backup API;
    PostgreSQL: pg_dump -Fc under one snapshot)."""
    from paigow.service.errors import ServiceError
    from paigow.service.store.backup import backup

    try:
        with _progress("backing up") as progress:
            manifest = backup(database, out, progress)
    except (ServiceError, ValueError) as exc:
        raise fail(str(exc)) from None
    _summary("backed up into", manifest, str(out))


def restore_command(
    database: DatabaseOpt,
    source: Annotated[
        Path, typer.Option("--from", metavar="FILE", help="A file `paigow backup` wrote.")
    ],
) -> None:
    """Restore a backup into an empty database (refuses one that holds the service's tables),
    then migrate it to this release's schema."""
    from paigow.service.errors import ServiceError
    from paigow.service.store.backup import restore

    try:
        with _progress("restoring") as progress:
            manifest = restore(database, source, progress)
    except (ServiceError, ValueError) as exc:
        raise fail(str(exc)) from None
    _summary("restored from", manifest, str(source))
