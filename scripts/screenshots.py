"""Regenerate the screenshots in ``docs/`` from the browser tests.

Runs ``tests/web/test_one_screen.py`` (a test server, Debian's Chromium at /usr/bin/chromium; it
plays a round through every phase at 1366x768, 375x812 and 812x375 and saves each phase in
``artifacts/screenshots/``), then copies the phases the docs show into ``docs/``. Run it from the
repository with the project's Python::

    PYTHONPATH=src python scripts/screenshots.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
TEST = "test_every_phase_fits_one_screen"
DOCS = {
    "docs/table.png": f"{TEST}-1366x768-results.png",
    "docs/table-phone.png": f"{TEST}-375x812-setting.png",
    "docs/table-phone-landscape.png": f"{TEST}-812x375-results.png",
    "docs/table-side.png": f"{TEST}-1366x768-side-results.png",
}


def main() -> int:
    test = ["tests/web/test_one_screen.py", "-p", "no:cacheprovider", "-q"]
    done = subprocess.run([sys.executable, "-m", "pytest", *test], cwd=ROOT, check=False)
    if done.returncode:
        print("the one-screen test failed: docs/ left as they were", file=sys.stderr)
        return done.returncode
    for target, name in DOCS.items():
        shutil.copyfile(SHOTS / name, ROOT / target)
        print(f"{target} <- artifacts/screenshots/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
