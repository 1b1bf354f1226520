"""The analysis engine's cache folder: compiled tables, strategies, saved edges, checked house
ways and numba's compiled kernels all live under it."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$PAIGOW_CACHE_DIR``, else ``$XDG_CACHE_HOME/paigow``, else ``~/.cache/paigow``."""
    env = os.environ.get("PAIGOW_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "paigow"
