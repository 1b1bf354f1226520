#!/usr/bin/env bash
# Sets everything up (a venv in .venv) and runs the whole test suite, exhaustive checks on reduced
# decks included. `--quick`: the fast lane (no exhaustive or slow tests, no browser);
# `--full-deck`: the checks over every hand of the full deck (minutes each: the suite checks the
# same code on reduced decks); any other arguments go to pytest.
set -euo pipefail
lane=(-m "not full_deck")
if [ "${1:-}" = "--quick" ]; then
    shift
    lane=(-m "not exhaustive and not slow and not full_deck")
elif [ "${1:-}" = "--full-deck" ]; then
    shift
    lane=(-m "full_deck")
fi
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# The browser tests (not in the quick lane) drive Debian's Chromium, never a downloaded browser;
# the alert rules are checked by Prometheus' own promtool (Debian's `prometheus`).
need=()
if [ "${lane[1]}" = "not full_deck" ]; then
    command -v chromium >/dev/null 2>&1 || need+=(chromium)
    command -v promtool >/dev/null 2>&1 || need+=(prometheus)
fi
if [ ${#need[@]} -gt 0 ]; then
    as_root=()
    [ "$(id -u)" = 0 ] || as_root=(sudo)
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Three workers on two cores: with two, the cores sat idle 16% of the full suite (tests waiting on
# servers, browsers and databases); with three, 6% (docs/evidence.md, "How much work the suite is").
.venv/bin/python -m pytest -n 3 --dist loadfile -p no:cacheprovider "${lane[@]}" "$@"
