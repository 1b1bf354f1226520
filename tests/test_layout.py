"""The shape of the code, checked: the README's layout table names every package of ``src/`` with
what it may import; every import in ``src/`` (lazy and type-only ones included) keeps to it, no
import circle exists between modules, and no module outgrows one idea.

The table is the authority: a package added to the tree without its line, or a line without its
package, fails here, and so does an import the line does not allow.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
README = ROOT / "README.md"

LONG_FILE_LINES = 500
ONE_IDEA = {
    # Files over LONG_FILE_LINES that are one idea each (the README's layout section says which).
    "paigow/round.py",
    "paigow/cli/play.py",
    "paigow/analysis/strategy.py",
}


def layout_table(text: str) -> dict[str, set[str]]:
    """The README's layout table: unit -> the units it may import (``*``: any unit).

    >>> layout_table('''## Layout
    ... | unit | owns | may import |
    ... |---|---|---|
    ... | `paigow` | the rules | nothing |
    ... | `paigow.cli` | commands | `*` |
    ... | `paigow.analysis` | kernels | `paigow` |
    ... ''')
    {'paigow': set(), 'paigow.cli': {'*'}, 'paigow.analysis': {'paigow'}}
    """
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    units: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        unit = cells[0].strip("`")
        units[unit] = set(re.findall(r"`([^`]+)`", cells[2]))
    return units


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if "migrations" in parts:  # Alembic's scripts, loaded by path
            continue
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def unit_of(module: str, units: dict[str, set[str]]) -> str:
    best = max((u for u in units if module == u or module.startswith(u + ".")), key=len)
    return best


def imports(path: Path, known: set[str], package: str) -> Iterator[str]:
    """Every module of ``known`` that ``path`` imports, anywhere in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # ``from pkg import sub`` imports the module ``pkg.sub``; ``from mod import name``
            # the module ``mod``
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                yield name


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    edges: dict[str, set[str]] = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        edges[mod] = {m for m in imports(path, known, package) if m != mod}
    return edges


def test_the_table_matches_the_tree() -> None:
    units = layout_table(README.read_text(encoding="utf-8"))
    packages = {
        ".".join(p.parent.relative_to(SRC).parts)
        for p in SRC.rglob("__init__.py")
        if "migrations" not in p.parts
    }
    assert set(units) - packages - set(modules()) == set(), "lines without a package"
    # each package of the root and of the service is a unit of its own; deeper packages are part
    # of theirs (``paigow.analysis.kernels`` of ``paigow.analysis``)
    top = {p for p in packages if p.count(".") <= 1 or p.startswith("paigow.service.")}
    top = {p for p in top if p.count(".") <= 2}
    assert top - set(units) == set(), "packages without a line in the README's layout table"
    for unit, allowed in units.items():
        assert allowed <= set(units) | {"*"}, (unit, allowed - set(units))


def test_imports_keep_to_the_table() -> None:
    units = layout_table(README.read_text(encoding="utf-8"))
    wrong = []
    for mod, targets in graph().items():
        mine = unit_of(mod, units)
        for target in targets:
            theirs = unit_of(target, units)
            if theirs == mine or "*" in units[mine] or theirs in units[mine]:
                continue
            wrong.append(f"{mod} imports {target} ({mine} may not import {theirs})")
    assert wrong == []


def test_the_game_reads_nothing_of_the_floor() -> None:
    """Issue 46: the floor sits above the game: it reads what the game wrote (the rounds a step
    ended, :class:`paigow.service.store.step.RoundEnded`), and the game imports nothing of it."""
    units = layout_table(README.read_text(encoding="utf-8"))
    assert "paigow.service.floor" not in units["paigow.service.game"]
    wrong = [
        f"{mod} imports {target}"
        for mod, targets in graph().items()
        if unit_of(mod, units) == "paigow.service.game"
        for target in targets
        if unit_of(target, units) == "paigow.service.floor"
    ]
    assert wrong == []


def test_no_import_circle() -> None:
    edges = graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                circles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert circles == []


def test_files_stay_one_idea() -> None:
    long = {
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if len(p.read_text(encoding="utf-8").splitlines()) > LONG_FILE_LINES
    }
    assert long <= ONE_IDEA, sorted(long - ONE_IDEA)
    text = README.read_text(encoding="utf-8")
    for name in ONE_IDEA:
        assert name in text, f"the README's layout section must say why {name} is one idea"


def test_no_two_modules_of_one_name_meet_in_an_import() -> None:
    """Issue 45: a module never imports two modules that share a name, nor one named as itself
    (``tables`` from the game beside ``tables`` from the routes, ``errors`` of the core beside the
    service's): each reads as what it is, with no alias to tell them apart."""
    mods = modules()
    met = []
    for mod, targets in graph().items():
        by_name: dict[str, set[str]] = {}
        for m in {*targets, mod}:
            by_name.setdefault(m.rpartition(".")[2], set()).add(m)
        met += [f"{mod}: {sorted(ms)}" for ms in by_name.values() if len(ms) > 1]
    assert met == [], met
    assert len(mods) > 150  # the whole package was read


def test_tests_reach_their_helpers_one_way() -> None:
    """Issue 45: a test imports its helpers from ``tests.helpers`` alone: not from another test
    module or a conftest, not by loading a file by its path, not through a fixture that hands
    out a namespace or a class."""
    tests = ROOT / "tests"
    found = []
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("tests/helpers/") or rel == "tests/test_layout.py":
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
            if module.startswith("tests") and not module.startswith("tests.helpers"):
                found.append(f"{rel}: from {module} import ...")
            if isinstance(node, ast.FunctionDef) and node.name in (
                "helpers",
                "api_class",
                "site_class",
            ):
                found.append(f"{rel}: fixture {node.name}")
        if "spec_from_file_location" in text:
            found.append(f"{rel}: a module loaded by its path")
    assert found == [], found
    assert (tests / "helpers" / "__init__.py").is_file()
