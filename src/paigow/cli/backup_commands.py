"""``paigow backup`` (while the service serves) and ``paigow restore`` (into an empty database,
or in place of one with ``--replace``): :mod:`paigow.service.store.backup`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from paigow.cli.common import DatabaseOpt, fail, out_console, terminal_err_console

if TYPE_CHECKING:
    from paigow.service.store.backup import Manifest


@contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int], None]]:
    """A Rich progress line on a terminal's standard error (none in a pipe): a pulse while
    pg_dump/pg_restore run, the SQLite copy's pages done of all as it goes."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    console = terminal_err_console()
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pages"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _summary(verb: str, m: Manifest, where: str) -> None:
    out_console().print(
        f"{verb} {where}: {m.backend}, schema version {m.schema_version}, taken {m.created_at}; "
        f"{m.rounds} rounds, {m.users} users, {m.tables} tables; "
        f"{m.data_bytes:,} bytes of data\n"
        f"sha256 {m.sha256}\nlast round {m.last_round or '(none)'}",
        highlight=False,
        soft_wrap=True,
    )


def backup_command(
    database: DatabaseOpt,
    out: Annotated[
        Path, typer.Option("--to", "--out", metavar="FILE", help="The new backup file.")
    ],
) -> None:
    """Back up the table service's database while it serves (SQLite: the online backup API;
    PostgreSQL: pg_dump -Fc under one snapshot); prints the data's SHA-256 and the last round's
    id. A full disk removes the partial file and says so."""
    from paigow.service.http_errors import ServiceError
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
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Put the backup in place of what the database holds (stop the service first).",
        ),
    ] = False,
) -> None:
    """Restore a backup into an empty database (refuses one that holds tables unless
    --replace), after checking its digest and schema version; then migrate it to this
    release's schema."""
    from paigow.service.http_errors import ServiceError
    from paigow.service.store.backup import head_revision, restore

    try:
        with _progress("restoring") as progress:
            manifest = restore(database, source, progress, replace=replace)
    except (ServiceError, ValueError) as exc:
        raise fail(str(exc)) from None
    _summary("restored from", manifest, str(source))
    if manifest.schema_version != (head := head_revision()):
        out_console().print(f"migrated from schema version {manifest.schema_version} to {head}")
