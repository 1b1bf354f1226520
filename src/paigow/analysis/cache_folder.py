"""The analysis engine's cache folder: compiled tables, strategies, saved edges, checked house
ways and numba's compiled kernels all live under it."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_dir() -> Path:
    """``$PAIGOW_CACHE_DIR``, else ``$XDG_CACHE_HOME/paigow``, else ``~/.cache/paigow``."""
    env = os.environ.get("PAIGOW_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "paigow"


@contextmanager
def held(path: Path) -> Iterator[None]:
    """An exclusive lock beside ``path`` (``<path>.lock``), held by one process of this machine
    at a time (the others wait): one computes what ``path`` keeps, the others then read it.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "result.json"
    >>> with held(target):
    ...     _ = target.write_text("{}")
    >>> sorted(p.name for p in target.parent.iterdir())
    ['result.json', 'result.json.lock']
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(path.name + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield  # released when the file closes, an error or not
