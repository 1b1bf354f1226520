"""A full disk, for real: a small tmpfs (root is needed) and a file that fills it."""

from __future__ import annotations

import contextlib
import errno
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(size_mb: int, owner: str | None = None) -> Iterator[Path]:
    """A small tmpfs mounted on a fresh folder (root is needed), unmounted afterwards."""
    path = Path(tempfile.mkdtemp(prefix="paigow-full-"))
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        path.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        if owner:
            shutil.chown(path, owner, owner)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)
        with contextlib.suppress(OSError):
            path.rmdir()


def fill(folder: Path) -> Path:
    """A file taking every free byte of ``folder``'s filesystem; its path."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for chunk in (1 << 20, 1 << 12, 1 << 9):
            block = b"\0" * chunk
            while True:
                try:
                    f.write(block)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    assert shutil.disk_usage(folder).free < 1 << 12
    return filler
