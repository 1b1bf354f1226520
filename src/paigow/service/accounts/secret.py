"""The token-signing secret: never in the database. It comes from ``PAIGOW_SECRET`` (or the
``secret`` setting), else from a file the first server creates in its data folder with owner-only
permissions (0600): beside the SQLite file, or in ``--data-dir`` (default: the user's data folder,
``$XDG_DATA_HOME/paigow`` or ``~/.local/share/paigow``) for PostgreSQL. Every process of one
deployment must read the same secret: the same ``PAIGOW_SECRET``, or the same file. A new secret
ends every token issued before.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> first = load_or_create(d / "s.secret")
>>> first == load_or_create(d / "s.secret") and len(first) == 64
True
>>> oct((d / "s.secret").stat().st_mode & 0o777)
'0o600'
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path

from paigow.service.store.db import Database

MIN_CHARS = 32


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paigow"


def secret_path(db: Database, data_dir: str | None = None) -> Path:
    """Where the secret of ``db`` lives: ``<file>.secret`` beside a SQLite file (unless a data
    folder is given); for PostgreSQL a file named after the database and schema in the data
    folder (one secret per database: a token of one deployment is worthless at another)."""
    if data_dir is None and db.path is not None:
        return db.path.with_name(db.path.name + ".secret")
    folder = Path(data_dir) if data_dir else default_data_dir()
    return folder / f"paigow-{db.channel().removeprefix('paigow_')}.secret"


def load_or_create(path: Path) -> str:
    """The secret in ``path``, created (atomically, mode 0600) if there is none."""
    for _ in range(50):
        try:
            text = path.read_text().strip()
        except FileNotFoundError:
            text = None
        if text is not None:
            if len(text) < MIN_CHARS:
                raise ValueError(f"the secret file {path} holds fewer than {MIN_CHARS} characters")
            if path.stat().st_mode & 0o077:
                raise ValueError(
                    f"the secret file {path} may be read by others: chmod 600 {path} "
                    "(and replace the secret: every token is then refused)"
                )
            return text
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)  # atomic: the first process to get here wins
        finally:
            tmp.unlink(missing_ok=True)
        time.sleep(0.001)
    raise ValueError(f"cannot create the secret file {path}")
