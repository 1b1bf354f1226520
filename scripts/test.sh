#!/usr/bin/env bash
# Sets everything up (a venv in .venv) and runs the whole test suite, exhaustive checks included.
# `--quick`: the fast lane (no exhaustive or slow tests, no browser: a few minutes); any other
# arguments go to pytest.
set -euo pipefail
quick=()
if [ "${1:-}" = "--quick" ]; then
    shift
    quick=(-m "not exhaustive and not slow")
fi
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# The browser tests (not in the quick lane) drive Debian's Chromium, never a downloaded browser.
if [ ${#quick[@]} -eq 0 ] && ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    fi
fi
.venv/bin/python -m pytest -n 2 --dist loadfile -p no:cacheprovider "${quick[@]}" "$@"
