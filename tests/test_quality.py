"""Static checks as tests: ruff check and ruff format on the tree, mypy --strict on src/."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_ruff_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", "src", "tests", "benchmarks", "scripts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_clean() -> None:
    result = subprocess.run(
        [_tool("ruff"), "format", "--check", "src", "tests", "benchmarks", "scripts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "src"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_bandit_clean() -> None:
    """bandit over src/ (its configuration in pyproject.toml) reports nothing."""
    result = subprocess.run(
        [_tool("bandit"), "-q", "-r", "src", "-c", "pyproject.toml", "-f", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    report = json.loads(result.stdout)
    found = [f"{r['filename']}:{r['line_number']} {r['test_id']}" for r in report["results"]]
    assert found == [] and not report["errors"], (found, report["errors"])
    assert report["metrics"]["_totals"]["loc"] > 10_000  # it did scan the tree
    assert result.returncode == 0, result.stderr
