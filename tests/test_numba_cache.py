"""Numba's cache shared by processes (paigow.analysis.kernels.numba_cache): a signature's machine
code is filed under a name of its own, so two processes compiling two signatures of one function
at once can never leave the index pointing at the other's code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from numba.core import caching

from paigow.analysis.kernels import numba_cache


def test_the_package_files_machine_code_by_its_key() -> None:
    assert caching.IndexDataCacheFile.save is numba_cache._save


def test_two_processes_saving_two_signatures_at_once_keep_each_its_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race as numba's own save loses it: A and B each read the index empty, A writes its
    index, B writes its index and its code, then A writes its code. Numba numbers both files 1,
    so B's index points at A's code; here each file holds its own key's code."""
    a, b = (caching.IndexDataCacheFile(str(tmp_path), "kernel-12.py311", "stamp") for _ in "ab")
    for f in (a, b):  # neither sees what the other writes
        monkeypatch.setattr(f, "_load_index", dict)
    sig_a, sig_b = ("(int64,)", "x86_64"), ("(float64,)", "x86_64")
    save_a_data = a._save_data

    def b_between(name: str, data: Any) -> None:
        b.save(sig_b, "code for float64")
        save_a_data(name, data)

    monkeypatch.setattr(a, "_save_data", b_between)
    a.save(sig_a, "code for int64")
    later = caching.IndexDataCacheFile(str(tmp_path), "kernel-12.py311", "stamp")
    assert later.load(sig_b) == "code for float64"  # numba's own: "code for int64"
    assert later.load(sig_a) is None  # B's index won: A's entry lost, compiled again when needed
    assert len(list(tmp_path.glob("kernel-12.py311.*.nbc"))) == 2
