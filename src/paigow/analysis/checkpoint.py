"""Checkpoints of long exact runs: each finished chunk's sums, one JSON line each, appended as
the chunks finish. A killed run resumes from the lines that were written whole.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.checkpoint.jsonl"
>>> with Checkpoint(path) as ck:
...     ck.record("0:1", [3, 4])
>>> _ = path.open("a").write('{"chunk": "0:2", "su')  # a line cut short by a kill
>>> Checkpoint(path).done
{'0:1': [3, 4]}
"""

from __future__ import annotations

import json
from hashlib import sha256
from pathlib import Path
from types import TracebackType
from typing import Any


def checkpoint_path(folder: Path | str, kind: str, identity: Any) -> Path:
    """Where the chunks of a run of ``kind`` with this identity (anything JSON) are kept."""
    digest = sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]
    return Path(folder) / f"{kind}-{digest}.checkpoint.jsonl"


def read_checkpoint(path: Path) -> dict[str, list[int]]:
    """The finished chunks in ``path`` (none if it does not exist); damaged lines are skipped."""
    done: dict[str, list[int]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
                done[row["chunk"]] = [int(x) for x in row["sums"]]
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by an interruption: that chunk runs again
    return done


class Checkpoint:
    """An open checkpoint: ``done`` (chunk key -> sums) and ``record`` to add a finished chunk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = read_checkpoint(path)
        self._log: Any = None

    def __enter__(self) -> Checkpoint:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.path.open("a")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._log.close()
        self._log = None

    def record(self, key: str, sums: list[int]) -> None:
        """Keep one finished chunk (written and flushed at once)."""
        self._log.write(json.dumps({"chunk": key, "sums": sums}) + "\n")
        self._log.flush()
        self.done[key] = sums

    def discard(self) -> None:
        """Forget every chunk (a restart)."""
        self.path.unlink(missing_ok=True)
        self.done = {}
