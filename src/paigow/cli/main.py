"""The ``paigow`` command line, built from its groups of commands.

- :mod:`paigow.cli.game`: ``hand``, ``deal``, ``play`` (the terminal table, :mod:`paigow.cli.play`);
- :mod:`paigow.cli.house_way_commands`: ``house-way`` (the presets, a house way's rules, the check of a
  file over every hand), with ``house-way test`` (:mod:`paigow.cli.house_way_cases`: a cases
  file of expected settings) and ``house-way card`` (:mod:`paigow.cli.house_way_card`: the
  dealer's card); ``house-way diff`` (:mod:`paigow.cli.house_way_diff_commands`: two side by side);
- :mod:`paigow.cli.analysis`: ``analyze``, ``stats``, ``simulate``, ``edge``; with
  :mod:`paigow.cli.cache` (``cache``), :mod:`paigow.cli.strategy_commands` (``strategy``) and
  :mod:`paigow.cli.report_commands` (``report``: the par sheet, ``report floor``) and
  :mod:`paigow.cli.bonus_commands` (``bonus``: side wagers' pay tables and their exact returns);
- :mod:`paigow.cli.service`: ``serve``, ``bots`` (the load client, :mod:`paigow.cli.bots`),
  ``admin``, ``audit``; :mod:`paigow.cli.backup_commands`: ``backup`` and ``restore``.

Every module imports its heavy dependencies (numba, the service, FastAPI) inside the commands, so
that ``paigow --help`` stays fast.
"""

from __future__ import annotations

import typer

from paigow.cli import (
    analysis,
    backup_commands,
    game,
    house_way_card,
    house_way_cases,
    house_way_diff_commands,
    service,
)
from paigow.cli.bonus_commands import bonus_app
from paigow.cli.cache import cache_app
from paigow.cli.common import ReadableGroup
from paigow.cli.house_way_commands import house_way_app
from paigow.cli.report_commands import report_app
from paigow.cli.strategy_commands import strategy_app

app = typer.Typer(
    cls=ReadableGroup,  # readable help for every command, those added later too
    name="paigow",
    help="Pai gow poker under Indiana's 68 IAC 10-9: hands, rounds and a terminal table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# The commands, in the order ``paigow --help`` lists them (before the groups).
app.command("hand")(game.hand)
app.command("deal")(game.deal)
app.command("play")(game.play)
app.command("analyze")(analysis.analyze_command)
app.command("stats")(analysis.stats_command)
app.command("simulate")(analysis.simulate_command)
app.command("edge")(analysis.edge_command)
app.command("serve")(service.serve)
app.command("bots")(service.bots)
app.command("backup")(backup_commands.backup_command)
app.command("restore")(backup_commands.restore_command)

# house-way's commands kept in modules of their own
house_way_app.command("test")(house_way_cases.test_command)
house_way_app.command("card")(house_way_card.card_command)
house_way_app.command("diff")(house_way_diff_commands.diff_command)

# The groups.
app.add_typer(house_way_app, name="house-way")
app.add_typer(cache_app, name="cache")
app.add_typer(strategy_app, name="strategy")
app.add_typer(report_app, name="report")
app.add_typer(bonus_app, name="bonus")
app.add_typer(service.admin_app, name="admin")
app.add_typer(service.audit_app, name="audit")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
