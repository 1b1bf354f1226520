"""Fixtures of the browser tests: a real server on a free port (uvicorn in a thread, a temporary
SQLite database, an operator), Debian's Chromium driven by pytest-playwright, and a screenshot of
every test in ``artifacts/screenshots``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.web import CHROMIUM, SHOTS, Site


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": ["--no-sandbox"]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("web")
    s = Site(f"sqlite:///{folder / 'tables.sqlite3'}")
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Any:
    """``shot(page)`` saves ``artifacts/screenshots/<test name>.png`` (full page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def save(page: Any, suffix: str = "") -> Path:
        path = SHOTS / f"{request.node.originalname}{suffix}.png"
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
