"""What every command module shares: the common options, the consoles and the error exit."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer
from rich.console import Console

from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel

HouseWayOpt = Annotated[
    str, typer.Option("--house-way", help="Preset name (standard, foxwoods) or a .toml/.json file.")
]
WheelOpt = Annotated[Wheel, typer.Option("--wheel", help="Where A-2-3-4-5 ranks among straights.")]
CommissionOpt = Annotated[str, typer.Option("--commission", help="Commission rate, at most 0.05.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
"""``--json`` of the game's and the service's commands."""
AnalysisJsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
"""``--json`` of the analysis commands (cache, analyze, stats, simulate, edge, strategy)."""


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, highlight=False, width=None if stream.isatty() else 120)


def out_console() -> Console:
    """A console on standard output; 120 columns wide when it is not a terminal (pipes, files,
    tests)."""
    return _console(stderr=False)


def err_console() -> Console:
    """A console on standard error; 120 columns wide when it is not a terminal (the game's and
    the service's commands)."""
    return _console(stderr=True)


def terminal_err_console() -> Console:
    """A console on standard error as wide as the terminal (``COLUMNS``, else a standard stream's
    terminal, else 80 columns): the analysis commands' notices, progress bars and errors."""
    return Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2, err: Callable[[], Console] = err_console) -> typer.Exit:
    """Print ``error: message`` on ``err()``; the exit to raise (status ``code``)."""
    err().print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def load_house_way(name: str, err: Callable[[], Console] = err_console) -> HouseWay:
    """The house way ``--house-way`` names, or exit with status 2 saying what is wrong."""
    try:
        return HouseWay.load(name)
    except PaigowError as exc:
        raise fail(str(exc), err=err) from None


def parse_commission(rate: str, err: Callable[[], Console] = err_console) -> Commission:
    """The commission ``--commission`` gives, or exit with status 2 saying what is wrong."""
    try:
        return Commission(rate)
    except PaigowError as exc:
        raise fail(str(exc), err=err) from None
