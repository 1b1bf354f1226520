"""What every command module shares: the common options (with readable metavars), the help
that shows them (:class:`ReadableGroup`), the consoles and the error exit."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperGroup, TyperOption

from paigow.commission import Commission
from paigow.errors import PaigowError
from paigow.house_way import HouseWay
from paigow.ranking import Wheel
from paigow.ruleset import VARIANTS, PushRule


# ------------------------------------------------------------------------------ readable help
class ReadableOption(TyperOption):
    """An option whose help shows what to type (its ``metavar``, its choices, or a name made
    from the option's), never a type name such as ``<str>`` or ``<int range>``; a flag shows
    nothing."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar or None
        if self.is_flag or self.count:
            return None
        desc = self.type_descriptor
        if desc.is_choice:
            return "[" + super().display_type(ctx).strip("<>") + "]"
        if desc.is_ranged and self.min is not None and self.max is not None:
            return f"{self.min}..{self.max}"
        if desc.is_path:
            return "FILE"
        return "N" if desc.annotation is int else (self.name or "value").upper()

    def _get_number_range_help_str(self) -> str | None:
        if self.min is not None and self.max is not None:
            return None  # the metavar shows it: 1..6
        if self.min is not None:
            return f"at least {self.min}"
        return None if self.max is None else f"at most {self.max}"


class ReadableArgument(TyperArgument):
    """An argument shown by its name in capitals (``CARDS...``), in the usage line as click
    writes it (``[OPTIONS] CARDS...``), with no type name."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.metavar or (self.name or "").upper()
        return [name if self.required else f"[{name}]"]


def readable_help(command: Any) -> None:
    """Make ``command`` and every command under it show readable help: each parameter (and the
    ``--help`` option) becomes its :class:`ReadableOption` or :class:`ReadableArgument` (Typer
    builds its parameters itself, with no hook for their class; these only change how help
    shows them), and a description's lines are joined within each paragraph (a docstring's
    line breaks are not the terminal's)."""
    help_option = command.get_help_option(typer.Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if type(param) is TyperOption:
            param.__class__ = ReadableOption
        elif type(param) is TyperArgument:
            param.__class__ = ReadableArgument
            if param.metavar is None:
                param.metavar = (param.name or "").upper() + ("..." if param.nargs != 1 else "")
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    for sub in getattr(command, "commands", {}).values():
        readable_help(sub)


class ReadableGroup(TyperGroup):
    """The ``paigow`` group: it makes itself and every command under it show readable help
    (:func:`readable_help`), so a command added later needs nothing to get it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        readable_help(self)


# ------------------------------------------------------------------------------ the options
class Player(StrEnum):
    """Who plays the player's hands: the house way, or the optimal setting of each hand."""

    HOUSE_WAY = "house-way"
    OPTIMAL = "optimal"


class SimPlayer(StrEnum):
    """Who plays the player's hands in a simulation: as :class:`Player`, or the best setting
    against the dealer's setting shown face up."""

    HOUSE_WAY = "house-way"
    OPTIMAL = "optimal"
    FACE_UP = "face-up"


DEFAULT_COMMISSION = "0.05"
"""``--commission``'s default (68 IAC 10-9-1(f): at most 5%)."""

HouseWayOpt = Annotated[
    str,
    typer.Option(
        "--house-way",
        metavar="NAME",
        help="A preset's name (paigow house-way list) or a house-way file (.toml/.json).",
    ),
]
WheelOpt = Annotated[Wheel, typer.Option("--wheel", help="Where A-2-3-4-5 ranks among straights.")]
CommissionOpt = Annotated[
    str, typer.Option("--commission", metavar="RATE", help="Commission rate, at most 0.05.")
]


class Variant(StrEnum):
    """The named variants of :meth:`paigow.ruleset.Ruleset.preset` (:data:`VARIANTS`)."""

    INDIANA = "indiana"
    EZ = "ez"
    COMMISSION_FREE = "commission-free"
    FACE_UP = "face-up"


VariantOpt = Annotated[
    Variant | None,
    typer.Option(
        "--variant",
        help="A commission-free game: ez, commission-free or face-up (commission 0 and its push "
        "rule; face-up also deals the dealer's cards face up); indiana, the default.",
    ),
]
PushOpt = Annotated[
    PushRule | None,
    typer.Option(
        "--push",
        help="The dealer's hand on which every wager pushes (instead of the variant's).",
    ),
]
DragonOpt = Annotated[
    bool, typer.Option("--dragon", help="Offer the dragon hand (an empty spot's packet).")
]
VariantCommissionOpt = Annotated[
    str | None,
    typer.Option(
        "--commission",
        metavar="RATE",
        help="Commission rate, at most 0.05 (default 0.05, or 0 with a commission-free --variant).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
"""``--json`` of the game's and the service's commands."""
AnalysisJsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
"""``--json`` of the analysis commands (cache, analyze, stats, simulate, edge, strategy)."""
WorkersOpt = Annotated[
    int, typer.Option("--workers", min=1, help="Threads here, or local cluster processes.")
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option("--scheduler", metavar="ADDRESS", help="Run on the Dask cluster at this address."),
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", metavar="local", help="Run on a local Dask cluster.")
]


def dollars_option(help: str) -> Any:
    """An amount in dollars (``25``, ``12.50``)."""
    return typer.Option(metavar="DOLLARS", help=help)


OutOpt = Annotated[Path, typer.Option("--out", metavar="FILE", help="The HTML file to write.")]
DatabaseOpt = Annotated[
    str,
    typer.Option(
        "--database",
        metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB (the source of truth).",
    ),
]


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
    """Print ``error: message`` on ``err()`` (its brackets as written: ``[[rule]]`` is no
    markup); the exit to raise (status ``code``)."""
    err().print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code)


def load_house_way(name: str, err: Callable[[], Console] = err_console) -> HouseWay:
    """The house way ``--house-way`` names, or exit with status 2 saying what is wrong."""
    try:
        return HouseWay.load(name)
    except PaigowError as exc:
        raise fail(str(exc), err=err) from None


def variant_rules(
    variant: Variant | None,
    push: PushRule | None,
    commission: str | None,
    err: Callable[[], Console] = err_console,
) -> tuple[Commission, PushRule, bool]:
    """The commission, push rule and face-up flag that ``--variant``, ``--push`` and
    ``--commission`` give together (an explicit ``--commission`` or ``--push`` wins over the
    variant's), or exit with status 2 saying what is wrong."""
    chosen: dict[str, Any] = dict(VARIANTS[variant.value]) if variant is not None else {}
    rate = (
        parse_commission(commission, err)
        if commission is not None
        else chosen.get("commission", Commission(DEFAULT_COMMISSION))
    )
    rule = push if push is not None else chosen.get("push", PushRule.NONE)
    return rate, rule, bool(chosen.get("face_up", False))


def parse_commission(rate: str, err: Callable[[], Console] = err_console) -> Commission:
    """The commission ``--commission`` gives, or exit with status 2 saying what is wrong."""
    try:
        return Commission(rate)
    except PaigowError as exc:
        raise fail(str(exc), err=err) from None
