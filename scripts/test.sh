#!/usr/bin/env bash
# Sets everything up (a venv in .venv) and runs the whole test suite, exhaustive checks included.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
.venv/bin/python -m pytest -n 2 --dist loadfile -p no:cacheprovider "$@"
