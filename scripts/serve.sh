#!/usr/bin/env bash
# Sets everything up (a venv in .venv, with only what serving needs: no test tools, no analysis
# extras) and starts the main job: the table server on its embedded SQLite default
# (./paigow-tables.sqlite3), printing the URL of the lobby to open. On the first run it creates an
# operator (password in ./paigow-operator-password.txt) and two tables.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/paigow serve --demo "$@"
