"""``paigow serve`` says how to stop it, and stops cleanly on SIGTERM: the exact-edge pool the
floor started is shut down, so no "leaked semaphore objects" warning (issue 22, item 17)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


@pytest.mark.slow
def test_serve_tells_how_to_stop_and_leaks_nothing_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "PAIGOW_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "paigow.cli", "serve", "--port", "0", "--demo"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("paigow table server: http://127.0.0.1:"), line
        http = httpx.Client(base_url=line.split(": ", 1)[1].strip(), trust_env=False, verify=False)
        password = (tmp_path / "paigow-operator-password.txt").read_text().splitlines()[0]
        token = http.post(
            "api/auth/login", json={"username": "house", "password": password}
        ).json()["token"]
        # the floor starts the exact edges in a worker process (a ProcessPoolExecutor)
        floor = http.get("api/admin/floor", headers={"Authorization": f"Bearer {token}"})
        assert floor.status_code == 200
        names = [t["name"] for t in floor.json()["tables"]]
        assert {"Indiana 1", "Practice 1"} <= set(names), names  # the demo's tables
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.stderr is not None
    time.sleep(1.0)  # the resource tracker warns after the server has gone
    err = proc.stderr.read()
    assert "press Ctrl+C to stop" in err
    assert "leaked semaphore" not in err, err
    assert "Traceback" not in err, err
