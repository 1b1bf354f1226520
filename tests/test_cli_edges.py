"""The rough edges a newcomer hit in the terminal (issue 22, items 13 to 15): readable ``--help``
for every command, wagers outside the limits in dollars, progress and honest messages from the
analysis commands. (Item 16 is in test_play.py, item 17 in service/test_serve_stop.py.)"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from paigow.cli import app

runner = CliRunner()


def all_commands() -> list[list[str]]:
    """Every command and group of the ``paigow`` app, as the words that name it (the root:
    [])."""
    found: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def help_of(words: list[str], columns: int = 100) -> str:
    result = runner.invoke(app, [*words, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


TYPE_NAME = re.compile(
    r"<[^<>\s]*>"  # <bool>, <str>, <list[str]>, <second|lowest>, <%Y-%m-%d>
    r"|<(?:int|float) range>"
    r"|\[?-?\d*<=?x<=?-?\d*\]?|\bx>=\d"  # [1<=x<=6], [x>=1]
    r"|\{\w+\}"  # usage {cards}...
)


@pytest.mark.parametrize("words", all_commands(), ids=lambda w: " ".join(w) or "paigow")
def test_every_help_shows_readable_metavars(words: list[str]) -> None:
    text = help_of(words)
    assert TYPE_NAME.search(text) is None, f"{' '.join(words)}: {TYPE_NAME.findall(text)}"
    assert "Show this message and exit." in text


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(w) for w in all_commands()}
    assert {"hand", "deal", "play", "analyze", "edge", "serve", "bots", "report floor"} <= names
    assert {"report sheet", "cache build", "strategy explain", "admin create"} <= names


def test_help_lists_choices_and_what_to_type() -> None:
    flat = {" ".join(w): " ".join(help_of(w).split()) for w in all_commands()}
    assert "--strategy [house-way|optimal]" in flat["hand"]
    assert "--player [house-way|optimal|face-up]" in flat["simulate"]
    assert "--player [house-way|optimal|face-up]" in flat["edge"]
    for command in ("deal", "play", "simulate", "edge", "report sheet"):
        wide = " ".join(help_of(command.split(), columns=250).split())
        assert "--variant [indiana|ez|commission-free|face-up]" in wide, command
        assert "--push [none|queen-high-pai-gow|nine-high-low|ace-high-pai-gow]" in wide, command
    assert "--dragon" in flat["deal"]
    assert "--wheel [second|lowest]" in flat["analyze"]
    assert "--format [csv|json|html]" in flat["report floor"]
    assert "--spot 1..6" in flat["play"] and "--bankroll DOLLARS" in flat["play"]
    assert "--wager DOLLARS" in flat["deal"]
    assert "Usage: paigow hand [OPTIONS] CARDS..." in flat["hand"]
    assert "--workers N [at least 1]" in flat["stats"]
    # ``paigow report --out FILE`` is the default: the group's help names it, and the sheet's
    # own options are in ``report sheet``'s help (not printed again under ``report``)
    assert "--out FILE" in flat["report"] and "--rounds N" not in flat["report"]
    assert "--out FILE" in flat["report sheet"] and "--rounds N" in flat["report sheet"]


def test_descriptions_wrap_where_the_terminal_does() -> None:
    """A docstring's own line breaks never reach the terminal: at 400 columns every command's
    summary in its group's list is one line."""
    for words in all_commands():
        group = typer.main.get_command(app)
        for w in words:
            group = group.commands[w]  # type: ignore[attr-defined]
        subs = getattr(group, "commands", {})
        if not subs:
            continue
        lines = help_of(words, columns=400).splitlines()
        for name, sub in subs.items():
            first = " ".join((sub.help or "").split("\n\n")[0].split())
            assert any(first in line for line in lines), f"{' '.join([*words, name])}: {first!r}"


def test_bad_choices_say_what_is_allowed() -> None:
    result = runner.invoke(
        app, ["simulate", "--rounds", "10", "--player", "psychic"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 2
    assert "'psychic' is not one of 'house-way', 'optimal'" in " ".join(result.output.split())


# ------------------------------------------------------------------ 14. wagers in dollars
def test_a_wager_outside_the_limits_is_told_in_dollars() -> None:
    result = runner.invoke(app, ["deal", "--seed", "1", "--wager", "0.5"])
    assert result.exit_code == 2
    assert "wager $0.50 is outside the table limits $5.00 to $1,000.00" in result.output
    result = runner.invoke(app, ["play", "--min-wager", "10", "--max-wager", "5"])
    assert result.exit_code == 2
    assert "max_wager $5.00 is below min_wager $10.00" in result.output


# ------------------------------------------------------------------ 15. progress and messages
def test_compiling_shows_the_size_and_a_bar_with_an_estimate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from paigow.analysis import compiled as C
    from paigow.cli import jobs
    from paigow.house_way import HouseWay
    from paigow.ranking import Wheel

    screen = io.StringIO()
    monkeypatch.setattr(
        jobs,
        "terminal_err_console",
        lambda: Console(file=screen, force_terminal=True, width=160, highlight=False),
    )
    monkeypatch.setattr(C, "cache_path", lambda way, wheel, folder=None: tmp_path / "none.bin")

    def fake_open(*args: Any, progress: Any = None, **kwargs: Any) -> str:
        for _ in range(4):
            progress(C.HANDS // 4)
            time.sleep(0.3)
        return "opened"

    monkeypatch.setattr(C.CompiledHouseWay, "open", fake_open)
    assert jobs.open_compiled(HouseWay.preset("standard"), Wheel.SECOND) == "opened"
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.getvalue())
    assert f"{C.FILE_SIZE / 1e6:,.0f} MB" in text and str(tmp_path) in text
    assert "154,143,080 hands" in text
    assert re.search(
        r"compiling .*38,535,770/154,143,080 .*elapsed, about \d+:\d\d:\d\d left", text
    )


def test_report_says_what_it_is_doing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from paigow.analysis import par_sheet, simulate, stats, strategy
    from paigow.cli import report_commands as cli_report
    from paigow.errors import PaigowError

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise PaigowError("not built")

    monkeypatch.setattr(cli_report, "prepare_job", lambda *a: (None, None))
    monkeypatch.setattr(stats, "compute_stats", lambda spec, run, advance: advance(1) or "stats")
    monkeypatch.setattr(simulate, "simulate", lambda *a: "sim")
    monkeypatch.setattr(strategy.CompiledStrategy, "open", fail)
    monkeypatch.setattr(par_sheet, "exact_edges", lambda *a: [])
    monkeypatch.setattr(par_sheet, "render", lambda *a: "<html></html>")
    result = runner.invoke(app, ["report", "--out", str(tmp_path / "sheet.html"), "--rounds", "9"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "sheet.html").read_text() == "<html></html>"
    text = " ".join(result.output.split())
    assert "par sheet 1/3: the frequencies of all 154,143,080 hands" in text
    assert "par sheet 2/3: the edge by simulation, 9 rounds" in text
    assert "par sheet 3/3" in text and "wrote" in text


@pytest.mark.parametrize(("done", "reused"), [(3, True), (1, False)])
def test_edge_says_when_it_reused_a_saved_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, done: int, reused: bool
) -> None:
    from fractions import Fraction

    from paigow.analysis import checkpoint
    from paigow.analysis import edge as E
    from paigow.cli import analysis
    from paigow.commission import Commission

    ck = tmp_path / "edge-house-way.jsonl"
    result = E.EdgeResult("house-way", 100, 40, 20, 40, Commission(), 0.01, {})
    monkeypatch.setattr(analysis, "prepare_job", lambda *a: ("spec", None))
    monkeypatch.setattr(E, "checkpoint_path", lambda *a: ck)
    monkeypatch.setattr(E, "chunks_for", lambda spec, **push: [1, 2, 3])
    monkeypatch.setattr(checkpoint, "read_checkpoint", lambda path: dict.fromkeys(range(done)))
    monkeypatch.setattr(E, "house_way_edge", lambda *a, **k: result)
    monkeypatch.setattr(E, "save_result", lambda spec, r: tmp_path / "edge.json")
    out = runner.invoke(app, ["edge"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert f"(= {Fraction(40 - 38, 100)})" in text
    if reused:
        assert f"reused the saved result in {ck} (nothing computed" in text
        assert "saved to" not in text and "resuming" not in text
    else:
        assert "resuming: 1 of 3 chunks already done" in text
        assert f"saved to {tmp_path / 'edge.json'}" in text and "reused the" not in text


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["strategy", "explain", "--house-way", "foxwoods"],
         "paigow strategy build --house-way foxwoods`"),
        (["simulate", "--player", "optimal", "--wheel", "lowest", "--commission", "0.04"],
         "paigow strategy build --wheel lowest --commission 0.04`"),
        (["hand", "As Kd Qh Jc 9s 7d Jk", "--strategy", "optimal", "--house-way", "foxwoods"],
         "paigow strategy build --house-way foxwoods`"),
    ],
)  # fmt: skip
def test_a_missing_strategy_names_the_build_it_needs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], command: str
) -> None:
    from paigow.analysis import strategy
    from paigow.cli import analysis, jobs

    monkeypatch.setattr(jobs, "table_spec", lambda *a: "spec")
    monkeypatch.setattr(analysis, "prepare_job", lambda *a: ("spec", None))
    monkeypatch.setattr(strategy, "strategy_path", lambda spec, rate, *push: tmp_path / "none.bin")
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert command in " ".join(result.output.split())
