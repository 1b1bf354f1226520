"""Issue 50: ``paigow house-way test`` (a cases file of expected settings) and ``paigow
house-way card`` (the dealer's card), docs/house-way.md#expected-settings and
docs/house-way.md#the-dealers-card."""

from __future__ import annotations

import re
import shutil
from html import escape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paigow.cli import app
from paigow.cli import house_way_card as card_module
from paigow.house_way import BUILTIN_PRESETS, HouseWay
from paigow.house_way.cases import preset_cases, read_cases, run_cases
from paigow.house_way.plain import plain_rules

runner = CliRunner()
SHIPPED = Path(card_module.__file__).parents[1] / "presets" / "house_ways"


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception  # a clean exit, never a traceback
    return result.exit_code, result.output


def cases_file(tmp_path: Path, text: str, name: str = "cases.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


AGREES = """
[[case]]
hand = "Th Tc 8s 8d As 9h 3c"
high = "Th Tc 8s 8d 3c"
low = "As 9h"
rule = "two-pair.keep-ace"
"""
DISAGREES = """
[[case]]
hand = "Qs Qh 9c 9d 5s 3h 2c"
low = "Q Q"
rule = "two-pair.keep"
why = "our manual: 'queens up: the queens go low'"
"""
PREFIX = 'house_way = "standard"' + AGREES + "\n[[case]]\n"


# ------------------------------------------------------------------------------ house-way test
@pytest.mark.parametrize("name", BUILTIN_PRESETS)
def test_every_preset_passes_its_shipped_cases(name: str) -> None:
    code, out = run("house-way", "test", name)
    n = len(preset_cases(name).cases)  # type: ignore[union-attr]
    assert code == 0, out
    assert f"{name}.cases.toml: {n} cases, {n} agree" in out
    assert "disagree" not in out


def test_agreement_exits_0_and_counts(tmp_path: Path) -> None:
    code, out = run("house-way", "test", "standard", str(cases_file(tmp_path, AGREES)))
    assert code == 0, out
    assert out.strip().endswith("cases.toml: 1 case, 1 agree")


def test_a_disagreement_names_the_hand_the_expectation_the_setting_and_its_rule(
    tmp_path: Path,
) -> None:
    path = cases_file(tmp_path, AGREES + DISAGREES)
    code, out = run("house-way", "test", "standard", str(path))
    assert code == 1, out
    way = HouseWay.preset("standard")
    number = run_cases(way, read_cases(path.read_text("utf-8")))[1].rule_number
    assert way.rules[number - 1].id == "two-pair.split" and number > 17  # not the first such rule
    assert f"{path}:8: case 2: Qs Qh 9c 9d 5s 3h 2c" in out  # the file, its line, the hand
    assert "expected: low Q Q by rule two-pair.keep" in out
    assert "got:      high Qs Qh 5s 3h 2c, low 9d 9c by rule two-pair.split" in out
    assert f"(rule {number}, {way.where(way.rules[number - 1])})" in out
    assert "differs:  low: expected Q Q, got 9d 9c" in out
    assert "rule: expected two-pair.keep (no rule of this house way has it)" in out
    assert "why:      our manual: 'queens up: the queens go low'" in out
    assert "case 1:" not in out  # the case that agrees is not listed
    assert out.strip().endswith("2 cases, 1 agree, 1 disagree")


def test_another_presets_cases_catch_where_the_house_ways_part() -> None:
    """``foxwoods`` splits two pair of jacks to kings with a small pair even with an ace; the
    Trump Plaza case in ``standard``'s file keeps them."""
    code, out = run("house-way", "test", "foxwoods", str(SHIPPED / "standard.cases.toml"))
    assert code == 1
    assert "note: these cases were written for 'standard'" in out
    assert "Js Jh 4c 4d As 9h 2c" in out
    assert "expected: low As 9h by rule two-pair.keep-ace" in out
    assert "by rule two-pair.split (rule " in out and "presets/house_ways/foxwoods.toml:" in out


def test_a_changed_rule_fails_the_presets_cases(tmp_path: Path) -> None:
    """A casino's file copied from a preset and edited: the preset's cases find the change."""
    text = (SHIPPED / "foxwoods-published.toml").read_text("utf-8")
    text = text.replace('name = "foxwoods-published"', 'name = "mine"')
    edited = text.replace('low = "A+single1"', 'low = "single1+single2"', 1)
    assert edited != text
    way = cases_file(tmp_path, edited, "mine.toml")
    code, out = run("house-way", "test", str(way), str(SHIPPED / "foxwoods-published.cases.toml"))
    assert code == 1
    assert "As Ah Ad Kc 9s 5h 2c" in out and "expected: low As Kc by rule trips.aces" in out


def test_cases_left_out_are_the_presets_or_those_beside_the_file(tmp_path: Path) -> None:
    way = cases_file(tmp_path, HouseWay.preset("standard").to_toml().replace(
        'name = "standard"', 'name = "mine"'), "mine.toml")  # fmt: skip
    code, out = run("house-way", "test", str(way))
    assert code == 2 and "error: no cases for 'mine'" in out and "mine.cases.toml" in out
    cases_file(tmp_path, DISAGREES, "mine.cases.toml")
    code, out = run("house-way", "test", str(way))
    assert code == 1 and "mine.cases.toml:2: case 1" in out


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ('hand = "Th Tc 8s 8d As 9h Xc"\nlow = "As 9h"', ":9: case 2: hand 'Th Tc 8s 8d As 9h Xc'"),
        (
            'hand = "Th Tc 8s 8d As 9h"\nlow = "As 9h"',
            ":9: case 2: hand 'Th Tc 8s 8d As 9h': expected 7 cards, got 6",
        ),
        ('hand = "Th Tc 8s 8d As 9h Th"\nlow = "As 9h"', "duplicate card 'Th'"),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nlow = "As 9d"',
            ":10: case 2: low 'As 9d': 9d is not in the hand",
        ),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nlow = "As 9h 3c"',
            "low 'As 9h 3c': expected 2 cards, got 3",
        ),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nlow = "K 9h"',
            ":10: case 2: low 'K 9h': names 1 card of rank K, the hand holds none",
        ),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nlow = "As 9h"\nhigh = "Th Tc 8s 8d 9h"',
            ":11: case 2: 9h is both low and high",
        ),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nlo = "As 9h"',
            ":10: case 2: unknown key 'lo' (did you mean 'low'?)",
        ),
        (
            'hand = "Th Tc 8s 8d As 9h 3c"\nrule = "two-pair.keep-ace"',
            ":8: case 2: expected neither low nor high",
        ),
        ('low = "As 9h"', ":8: case 2: no hand"),
        ('hand = "Th Tc 8s 8d As 9h 3c"\nlow = ["As", "9h"]', ":10: case 2: low must be text"),
    ],
)
def test_a_malformed_cases_file_is_refused_saying_which_case_and_what(
    tmp_path: Path, case: str, said: str
) -> None:
    path = cases_file(tmp_path, PREFIX + case + "\n")  # case 2's [[case]] on line 8
    code, out = run("house-way", "test", "standard", str(path))
    flat = " ".join(out.split())
    assert code == 2, out
    assert flat.startswith(f"error: {path}")
    assert said in flat
    assert "Traceback" not in out


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[case]\n", "not valid TOML"),
        ('house_way = "standard"\n', "a cases file holds [[case]] tables (none found)"),
        ('houseway = "standard"\n' + AGREES, "unknown key 'houseway' (did you mean 'house_way'?)"),
    ],
)
def test_a_cases_file_that_is_no_cases_file_is_refused(
    tmp_path: Path, text: str, said: str
) -> None:
    code, out = run("house-way", "test", "standard", str(cases_file(tmp_path, text)))
    assert code == 2 and said in " ".join(out.split())
    code, out = run("house-way", "test", "standard", str(tmp_path / "nowhere.toml"))
    assert code == 2 and "error: cannot read cases file" in out


# ------------------------------------------------------------------------------ house-way card
def _items(page: str) -> dict[int, str]:
    return {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r'<li id="rule-(\d+)">(.*?)</li>', page, re.S)
    }


def test_the_card_has_every_rule_in_plain_words_with_its_example(tmp_path: Path) -> None:
    name = "gold-star-school"  # the longest preset
    out = tmp_path / "card.html"
    code, said = run("house-way", "card", name, "-o", str(out))
    assert code == 0, said
    page = out.read_text("utf-8")
    assert page.startswith("<!DOCTYPE html>") and "@media print" in page
    assert "<script" not in page and "http" not in page.split("</header>")[1]  # self-contained
    way = HouseWay.preset(name)
    rules = plain_rules(way)
    items = _items(page)
    assert sorted(items) == list(range(1, len(way.rules) + 1))
    for r in rules:
        item = items[r.number]
        assert escape(r.text) in item and f"[{r.id}]" in item
        assert r.example is not None, r.id
        _, setting, _ = r.example
        high, low = item.split(">HIGH<")[1].split(">LOW<")
        assert [f'title="{c.code}"' in high for c in setting.high] == [True] * 5
        assert [f'title="{c.code}"' in low for c in setting.low] == [True] * 2


def test_the_card_is_generated_from_the_files_own_rules(tmp_path: Path) -> None:
    way = cases_file(tmp_path, """name = "mine"
title = "Mine's posted house way"

[[rule]]
id = "mine.pairs-low"
when = "one-pair"
low = "pair"

[[rule]]
id = "mine.rest"
choose = "best-low"
""", "mine.toml")  # fmt: skip
    code, page = run("house-way", "card", str(way))  # no -o: the HTML on standard output
    assert code == 0
    items = _items(page)
    assert sorted(items) == [1, 2]
    assert "One pair: the highest pair goes low." in items[1] and "[mine.pairs-low]" in items[1]
    assert "[mine.rest]" in items[2] and "best low hand" in items[2]
    assert "The mine house way: Mine&#x27;s posted house way" in page
    assert "[pai-gow]" not in page


def test_the_card_refuses_what_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run("house-way", "card", "standard", "-o", str(tmp_path / "card.txt"))
    assert code == 2 and "error: the card is written as .html or .pdf, not '.txt'" in out
    monkeypatch.setattr(card_module, "_BROWSERS", ("no-such-browser-here",))
    code, out = run("house-way", "card", "standard", "-o", str(tmp_path / "card.pdf"))
    flat = " ".join(out.split())
    assert code == 2 and "no Chromium found" in flat
    assert "write the HTML (-o card.html) and print it from a browser" in flat
    assert not (tmp_path / "card.pdf").exists()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Chromium to print a PDF")
def test_the_card_prints_to_one_or_two_pages_of_pdf(tmp_path: Path) -> None:
    out = tmp_path / "card.pdf"
    code, said = run("house-way", "card", "gold-star-school", "-o", str(out))
    assert code == 0, said
    data = out.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = [int(n) for n in re.findall(rb"/Count (\d+)", data)]  # the page tree's count
    assert pages and 1 <= max(pages) <= 2


# ------------------------------------------------------------------------------ the docs
def test_the_docs_cases_file_and_its_run_are_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (Path(__file__).parents[1] / "docs" / "house-way.md").read_text("utf-8")
    part = text.split("## Expected settings", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```toml\n(.*?)```.*?```text\n\$ paigow (.*?)\n(.*?)```", part, re.S)
    assert found is not None
    toml_text, command, shown = found.groups()
    cases = read_cases(toml_text, "manual.toml")
    assert [c.rule for c in cases.cases] == ["two-pair.keep-ace", None]
    assert cases.cases[1].low is not None and cases.cases[1].low.ranks == (14, 14)
    monkeypatch.chdir(tmp_path)
    Path("manual.toml").write_text(toml_text, "utf-8")
    code, out = run(*command.split())
    assert code == 1 and out == shown


def test_an_error_prints_its_brackets_as_written(tmp_path: Path) -> None:
    """Every command's ``error:`` prints a message's ``[[rule]]`` as it is (no markup)."""
    bare = tmp_path / "bare.toml"
    bare.write_text('name = "bare"\n', "utf-8")
    code, out = run("house-way", "show", str(bare))
    assert code == 2 and "no [[rule]] tables" in out, out
