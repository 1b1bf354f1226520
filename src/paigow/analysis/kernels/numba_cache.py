"""Where numba keeps the kernels it compiled: a folder named by the digest of every kernel's
source (``<cache>/numba/<digest>`` in :func:`paigow.analysis.cache_folder.cache_dir`;
``NUMBA_CACHE_DIR``, when set, wins).

Numba checks only a function's own file before reusing its machine code, so a kernel calling
one from an edited file (the house-way program inlined into the strategy kernels, say) would
otherwise run the old code against new data. Imported by the package before any kernel.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

from paigow.analysis.cache_folder import cache_dir


def kernels_digest() -> str:
    """A digest of the kernels' source files (any edit makes a new cache folder).

    >>> len(kernels_digest())
    16
    """
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(cache_dir() / "numba" / kernels_digest())  # type: ignore[attr-defined]
