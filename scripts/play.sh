#!/usr/bin/env bash
# Sets everything up (a venv in .venv) and starts the main job: the terminal game.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/paigow play "$@"
