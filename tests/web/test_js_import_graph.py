"""The browser's ES modules (``paigow/service/web/*.js``, loaded as they are, no build) import one
another without a circle: the router (``app.js``) imports the views, and no view imports it back
(the views get what the page offers them from the router's ``shell``). No browser needed."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "paigow" / "service" / "web"

_COMMENTS = re.compile(r"/\*.*?\*/|^\s*//[^\n]*", re.S | re.M)
_FROM = re.compile(r"""\b(?:import|export)\b[^;'"]*?\bfrom\s*(["'])(\./[^"']+)\1""", re.S)
_BARE = re.compile(r"""\bimport\s*\(?\s*(["'])(\./[^"']+)\1""")


def imports_of(text: str) -> set[str]:
    """The sibling modules one module imports (static ``import``/``export ... from``, bare and
    dynamic ``import``), by file name.

    >>> sorted(imports_of('import { a, b } from "./x.js";\\nexport * from \\'./y.js\\';\\n'
    ...                   'import "./z.js";\\nconst m = await import("./w.js");\\n'
    ...                   '// import { c } from "./commented.js";\\nimport { d }\\n  from "./multi.js";'))
    ['multi.js', 'w.js', 'x.js', 'y.js', 'z.js']
    """
    code = _COMMENTS.sub("", text)
    found = {m.group(2) for m in _FROM.finditer(code)} | {m.group(2) for m in _BARE.finditer(code)}
    return {name.removeprefix("./") for name in found}


def import_graph(folder: Path = WEB) -> dict[str, set[str]]:
    """Each module of ``folder`` and the sibling modules it imports."""
    return {p.name: imports_of(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.js"))}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports (its modules, the first repeated at the end), or None.

    >>> find_cycle({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": set()}) is None
    True
    >>> find_cycle({"app.js": {"view.js", "api.js"}, "view.js": {"api.js", "app.js"}, "api.js": set()})
    ['app.js', 'view.js', 'app.js']
    >>> find_cycle({"a.js": {"a.js"}})
    ['a.js', 'a.js']
    """
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            cycle = visit(nxt)
            if cycle is not None:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle is not None:
            return cycle
    return None


def test_js_import_graph() -> None:
    graph = import_graph()
    assert "app.js" in graph and {"table.js", "floor.js", "api.js"} <= graph["app.js"]
    for module, targets in graph.items():
        missing = targets - graph.keys()
        assert not missing, f"{module} imports {sorted(missing)}, which are not in {WEB}"
    cycle = find_cycle(graph)
    assert cycle is None, "the browser's modules import in a circle: " + " -> ".join(cycle or [])
    assert not any("app.js" in targets for targets in graph.values()), "a view imports app.js"


MAX_LINES = 400


def test_no_module_over_400_lines() -> None:
    """Each browser module stays one idea (issue 49: the table page in panels, not one closure)."""
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in WEB.glob("*.js")}
    long = {name: n for name, n in sorted(lines.items()) if n > MAX_LINES}
    assert not long, f"ES modules over {MAX_LINES} lines: {long}"
