"""Where numba keeps the kernels it compiled: a folder named by the digest of every kernel's
source (``<cache>/numba/<digest>`` in :func:`paigow.analysis.cache_folder.cache_dir`;
``NUMBA_CACHE_DIR``, when set, wins).

Numba checks only a function's own file before reusing its machine code, so a kernel calling
one from an edited file (the house-way program inlined into the strategy kernels, say) would
otherwise run the old code against new data. Imported by the package before any kernel.

Several processes share the folder (a Dask cluster's workers, the service's rating process, the
test workers), and numba's own cache is not safe for that: it names a new signature's machine
code by the next number free in the function's index as it read it, so two processes compiling
two signatures of one function at once both write ``<function>.1.nbc``, and the index one of
them leaves can point at the other's code (seen here: a reduced deck's structures compiled
beside the house way's edge gave negative counts until the cache was cleared). Here a
signature's file is named by the digest of its key instead (:func:`_save`): a file only ever
holds the code of its own signature; two processes writing the index at once can at worst
drop an entry, which is compiled again when next needed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numba
from numba.core import caching

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


def data_number(key: bytes) -> int:
    """The number in the name of the file holding the machine code of the key pickled as
    ``key`` (its signature, target and the function's bytecode): from the key alone, never from
    what else is in the index, so different keys get different files in every process.

    >>> data_number(b"(int64,)") == data_number(b"(int64,)")
    True
    >>> data_number(b"(int64,)") != data_number(b"(float64,)")
    True
    """
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


def _save(self: Any, key: Any, data: Any) -> None:
    """``numba.core.caching.IndexDataCacheFile.save``, the data file named by
    :func:`data_number` rather than by the first number the index leaves free."""
    overloads = self._load_index()
    data_name = overloads.get(key)
    if data_name is None:
        data_name = self._data_name(data_number(self._dump(key)))
        overloads[key] = data_name
        self._save_index(overloads)
    self._save_data(data_name, data)


_NEEDS = ("_load_index", "_save_index", "_save_data", "_data_name", "_dump")
# numba 0.68 has them (checked); a numba without keeps its own save (tests/test_numba_cache.py fails)
if all(hasattr(caching.IndexDataCacheFile, name) for name in _NEEDS):
    caching.IndexDataCacheFile.save = _save  # type: ignore[method-assign]

if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(cache_dir() / "numba" / kernels_digest())  # type: ignore[attr-defined]
