"""The examples of the README and of the docs/ pages it links to run as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
CLI_DOC = ROOT / "docs" / "cli.md"


def test_readme_python_examples() -> None:
    blocks = [
        block
        for doc in (README, *DOCS)
        for block in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
    ]
    assert blocks, "the README or its docs have Python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README block {i}", str(README), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_readme_deal_example_is_the_real_output() -> None:
    """The ``paigow deal`` example of docs/cli.md shows the event log the command prints (the
    narrator's words)."""
    from typer.testing import CliRunner

    from paigow.cli import app

    block = re.search(r"```\n\$ paigow deal (.*?)\n(.*?)```", CLI_DOC.read_text(), flags=re.S)
    assert block is not None, "docs/cli.md shows a paigow deal example"
    args, shown = block.group(1).split(), block.group(2).splitlines()
    result = CliRunner().invoke(app, ["deal", *args])
    assert result.exit_code == 0, result.output
    printed = [line.rstrip() for line in result.output.splitlines()]
    assert shown == printed[: len(shown)]
    assert len(shown) == 15 and shown[-1].startswith("14 round settled")


def test_the_readme_is_what_a_newcomer_needs() -> None:
    """The README opens with the two commands, says what you see and where to go next, and leaves
    the reference to the docs/ pages it links (it had grown to 58 KB of reference material)."""
    text = README.read_text()
    assert len(text.encode()) < 16_000, f"the README is {len(text.encode()):,} bytes"
    first = re.search(r"```sh\n(.*?)```", text, flags=re.S)
    assert first is not None and text.index(first.group(0)) < 20
    commands = [line for line in first.group(1).splitlines() if line.strip()]
    assert [c.split("#")[0].split() for c in commands] == [
        ["bash", "scripts/serve.sh"],
        ["bash", "scripts/test.sh"],
    ]
    headings = re.findall(r"(?m)^## (.+)$", text)
    assert headings[:2] == ["What you see", "Where to go next"]
    linked = set(re.findall(r"\]\((docs/[^)#\s]+\.md)", text))
    assert {f"docs/{p.name}" for p in DOCS} <= linked, "every docs page is linked from the README"
