"""The standard house way's exact counts over every deal, published (docs/cli.md: ``paigow edge
[--variant NAME]``), and what ``paigow edge`` saves of them: the floor's tests read these rather
than count every deal (a minute of two cores; the count is the full-deck lane's, and the suite
checks the same kernel against brute force on reduced decks, ``tests/test_edge.py``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from paigow.analysis.edge import saved_name
from paigow.analysis.kernels import edge_digest
from paigow.house_way import HouseWay

STANDARD = HouseWay.preset("standard")
DEALS = 8_250_459_031_214_400
"""Every deal of two seven-card hands from the 53 cards."""
HOUSE_WAY_COUNTS = {  # docs/cli.md: `paigow edge [--variant NAME]`, standard house way, every deal
    "none": (2_358_120_164_000_604, 3_427_552_624_666_108),
    "queen-high-pai-gow": (2_231_196_776_738_748, 3_556_179_423_924_688),
    "nine-high-low": (2_255_932_016_236_580, 3_532_017_836_392_976),
    # face-up's push rule: without it a look at a face-up table's floor (the operator's pages
    # of the browser walks) started its count in the test process's background worker, minutes
    # of two cores, niced, until the test process ended
    "ace-high-pai-gow": (1_879_847_282_188_332, 3_980_427_888_832_384),
}
"""(win, push) of house way against house way under each push rule."""


def saved_result(push: str = "none") -> dict[str, Any]:
    """What ``paigow edge`` saves of the standard house way's exact counts under ``push``."""
    win, pushes = HOUSE_WAY_COUNTS[push]
    return {
        "player": "house-way",
        "deals": DEALS,
        "win": win,
        "push": pushes,
        "loss": DEALS - win - pushes,
        "house_way": STANDARD.to_dict(),
        "wheel": "second",
        "deck": 53,
        "code": edge_digest("house-way"),
        **({} if push == "none" else {"push_rule": push}),
    }


def save_counts(folder: Path, push: str = "none") -> Path:
    """Save the standard house way's counts under ``push`` in ``folder`` as ``paigow edge``
    does (the floor reads them from its cache folder at once); the file's path."""
    path = folder / saved_name(STANDARD, "second", "house-way", push)
    part = path.with_name(f"{path.name}.{os.getpid()}.part")  # whole or not at all: test workers
    part.write_text(json.dumps(saved_result(push)))  # write the shared folder's at once
    os.replace(part, path)
    return path
