"""The floors of the house import only the floors below them (docs/design.md); no package
has an import circle inside; nothing above `app/tables` changes a table.

engine (stdlib only) < wire (the wire catalog), fanout, store, mail < tables < api < main;
`config`, `inbox` (a one-reader queue) and `collector` (the garbage collector's schedule) are
the ground floor under all but the engine.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"

# What each package may import from inside `app`.
GROUND = {"config", "inbox", "collector", "jsontext"}
ALLOWED: dict[str, set[str]] = {
    "engine": {"engine"},
    "fanout": {"fanout", *GROUND},
    "store": {"store", "engine", *GROUND},
    "mail": {"mail", "store", "engine", *GROUND},
    "wire": {"wire", "engine", "jsontext"},  # pydantic and the engine: no table, no web stack
    "tables": {"tables", "wire", "engine", "fanout", "store", "mail", *GROUND},
    "api": {"api", "wire", "engine", "fanout", "store", "mail", "tables", *GROUND},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(package: str) -> list[Path]:
    return sorted((APP / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_the_floors_below(package: str) -> None:
    wrong = []
    for path in _modules(package):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "app" and len(parts) > 1 and parts[1] not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(APP)} imports {name}")
    assert not wrong, wrong


def test_engine_uses_only_the_standard_library() -> None:
    outside = []
    for path in _modules("engine"):
        for name in _imports(path):
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top not in ("app", "__future__"):
                outside.append(f"{path.relative_to(APP)} imports {name}")
    assert not outside, outside


_OP = r"(?:==|!=|<=|>=|<|>)"
STREET_NUMBER_TESTS = re.compile(
    rf"\bstreet\w*\s*{_OP}\s*\d"  # street == 3, self.street > 3
    rf"|\d\s*{_OP}\s*[\w.]*\bstreet\w*\b"  # 7 == street
    r"|\bstreet\w*\s+(?:not\s+)?in\s*[(\[{]\s*\d",  # street in (3, 4)
    re.IGNORECASE,
)
LOW_RULE_NAMES = re.compile(
    rf"\blow(?:_\w+)?(?:\.\w+)*\s*(?:{_OP}|\bis\b(?:\s+not)?)\s*[rbuf]*['\"]"  # low == "razz"
    rf"|['\"]\s*(?:==|!=)\s*[\w.]*\blow(?:_\w+)?(?:\.\w+)*\b"  # "eight" == spec.low
    r"|\blow(?:_\w+)?(?:\.\w+)*\s+(?:not\s+)?in\s*[(\[{]\s*[rbuf]*['\"]"  # low in ("razz",)
    r"|\bmatch\s+[\w.]*\blow(?:_\w+)?(?:\.\w+)*\s*:",  # match spec.low:
)


def _lines_matching(pattern: re.Pattern[str]) -> list[str]:
    return [
        f"{path.relative_to(APP)}:{number}: {line.strip()}"
        for path in sorted(APP.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]


def test_streets_and_low_rules_are_data_not_literals() -> None:
    """The flow reads the street table (app/engine/streets.py) and a variant's `LowRule`; it
    never asks which street number it is on or which low a game plays by name."""
    assert not _lines_matching(STREET_NUMBER_TESTS), _lines_matching(STREET_NUMBER_TESTS)
    assert not _lines_matching(LOW_RULE_NAMES), _lines_matching(LOW_RULE_NAMES)


@pytest.mark.parametrize(
    ("pattern", "line"),
    [
        (STREET_NUMBER_TESTS, "if street == 3:"),
        (STREET_NUMBER_TESTS, "elif self.street==7 or x:"),
        (STREET_NUMBER_TESTS, "self.unit = small if street <= 4 else big"),
        (STREET_NUMBER_TESTS, "if event.street > 3 and not shown_early:"),
        (STREET_NUMBER_TESTS, "shared = 7 == street and community"),
        (STREET_NUMBER_TESTS, "if hand.street in (3, 4):"),
        (LOW_RULE_NAMES, 'if spec.low == "eight":'),
        (LOW_RULE_NAMES, "razz_low = spec.low=='razz'"),
        (LOW_RULE_NAMES, 'if low_rule.name != "razz":'),
        (LOW_RULE_NAMES, 'if "razz" == spec.low:'),
        (LOW_RULE_NAMES, 'if spec.low in ("eight", "razz"):'),
        (LOW_RULE_NAMES, "match spec.low:"),
    ],
)
def test_the_literal_checks_see_a_literal(pattern: re.Pattern[str], line: str) -> None:
    assert pattern.search(line), line


@pytest.mark.parametrize(
    "line",
    [
        "if street.opener is Opener.BRING_IN:",
        "elif self._street.last or self.community is not None:",
        "after_betting = event.street != STREETS[0].number",
        "if spec.low is not None and p.low and p.low >= max(q.low for q in shown):",
        'return "-".join(sym) + " low"',
        'below = "razz"',
    ],
)
def test_the_literal_checks_pass_data(line: str) -> None:
    assert not STREET_NUMBER_TESTS.search(line), line
    assert not LOW_RULE_NAMES.search(line), line


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges(path: Path, known: set[str]) -> set[str]:
    """The modules of its own package that the module at `path` imports, at run time or for
    type checking alike (a circle of either kind is one)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found & known


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph`, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_import_circle_inside_a_package(package: str) -> None:
    modules = {_module_name(p): p for p in _modules(package)}
    known = set(modules)
    graph = {name: _edges(path, known) - {name} for name, path in modules.items()}
    # the package's __init__ re-exports its modules: importing a module never needs it
    init = f"app.{package}"
    graph = {name: edges - {init} for name, edges in graph.items()}
    assert _circle(graph) is None, " -> ".join(_circle(graph) or [])


MUTATORS = {"add", "append", "clear", "discard", "pop", "remove", "update", "setdefault"}


def _changes_a_table(node: ast.AST) -> bool:
    """`x.table.attr = …`, `table.attr += …`, `table.attr.add(…)` and the like."""

    def is_table(expr: ast.expr) -> bool:
        name = expr.id if isinstance(expr, ast.Name) else getattr(expr, "attr", "")
        return name == "table" or name.endswith("_table")

    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
        and isinstance(node.func.value, ast.Attribute)
    ):
        targets = [node.func.value]

    def of_a_table(target: ast.expr) -> bool:
        if isinstance(target, ast.Subscript):  # table.seats[1] = …
            target = target.value
        return isinstance(target, ast.Attribute) and is_table(target.value)

    return any(of_a_table(t) for t in targets)


def test_only_the_table_changes_a_table() -> None:
    """Nothing outside `app/tables` changes a table's state: it sends the table a message.
    (Only the floors above `tables` can hold a table: the api, the commands, main.)"""
    wrong = []
    above = [*_modules("api"), *_modules("cli"), APP / "main.py", APP / "__main__.py"]
    for path in above:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if _changes_a_table(node):
                line = getattr(node, "lineno", 0)
                wrong.append(f"{path.relative_to(APP)}:{line}")
    assert not wrong, wrong


def test_the_checks_would_see_a_circle_and_a_change() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) is None
    for code in ("table.members.add(1)", "conn.table.paused = True", "table.seats[1] = x"):
        assert any(_changes_a_table(n) for n in ast.walk(ast.parse(code))), code
    assert not any(_changes_a_table(n) for n in ast.walk(ast.parse("seats = table.seats")))
