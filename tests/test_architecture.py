"""The floors of the house import only the floors below them (DESIGN.md).

engine (stdlib only) < wire (the wire catalog), fanout, store, mail < tables < api < main;
`config`, `inbox` (a one-reader queue) and `collector` (the garbage collector's schedule) are
the ground floor under all but the engine.
"""

from __future__ import annotations

import ast
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
