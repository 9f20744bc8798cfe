"""The floors of the house import only the floors below them (docs/design.md); no module
of the repository's Python or of the browser client is part of an import circle; nothing
above `app/tables` changes a table; no function in `app` is longer than a screen.

engine (stdlib only) < wire (the wire catalog), fanout, store, mail < tables < tournaments
< api < main;
`config`, `inbox` (a one-reader queue), `collector` (the garbage collector's schedule),
`metrics` (Prometheus) and `logs` (the log lines' format) are the ground floor under all but
the engine.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api import ws
from app.wire import client
from tests.sources import parse

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
FRONTEND = ROOT / "frontend" / "js"

# What each package may import from inside `app`.
GROUND = {"config", "inbox", "collector", "jsontext", "metrics", "logs"}
ALLOWED: dict[str, set[str]] = {
    "engine": {"engine"},
    "fanout": {"fanout", *GROUND},
    "store": {"store", "engine", *GROUND},
    "mail": {"mail", "store", "engine", *GROUND},
    "wire": {"wire", "engine", "jsontext"},  # pydantic and the engine: no table, no web stack
    "tables": {"tables", "wire", "engine", "fanout", "store", "mail", *GROUND},
    "tournaments": {"tournaments", "tables", "wire", "engine", "fanout", "store", "mail", *GROUND},
    "api": {"api", "wire", "engine", "fanout", "store", "mail", "tables", "tournaments", *GROUND},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(parse(path)):
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
_GAME = r"[rbuf]*['\"](?:stud8?|razz)['\"]"  # a game's name ("rotation" is a tournament's)
VARIANT_NAME_TESTS = re.compile(
    rf"\bvariant\w*(?:\.\w+)*\s*(?:{_OP}|\bis\b(?:\s+not)?)\s*{_GAME}"  # variant == "razz"
    rf"|{_GAME}\s*(?:==|!=)\s*[\w.]*\bvariant\w*\b"  # "stud8" == hand.variant
    rf"|\bvariant\w*(?:\.\w+)*\s+(?:not\s+)?in\s*[(\[{{]\s*{_GAME}",  # variant in ("razz",)
)


def _lines_matching(pattern: re.Pattern[str]) -> list[str]:
    return [
        f"{path.relative_to(APP)}:{number}: {line.strip()}"
        for path in sorted(APP.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]


def test_streets_and_low_rules_are_data_not_literals() -> None:
    """Everything in `app` reads the street table (app/engine/streets.py) and a variant's
    spec (app/engine/variants.py: its `LowRule`, `high`, …); nothing asks which street
    number it is on, which low a game plays or which game it is by name."""
    assert not _lines_matching(STREET_NUMBER_TESTS), _lines_matching(STREET_NUMBER_TESTS)
    assert not _lines_matching(LOW_RULE_NAMES), _lines_matching(LOW_RULE_NAMES)
    assert not _lines_matching(VARIANT_NAME_TESTS), _lines_matching(VARIANT_NAME_TESTS)


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
        (VARIANT_NAME_TESTS, 'if self.hand.variant == "stud8":'),
        (VARIANT_NAME_TESTS, "razz = variant=='razz'"),
        (VARIANT_NAME_TESTS, 'if "razz" != spec.variant:'),
        (VARIANT_NAME_TESTS, 'if h.variant in ("stud8", "razz"):'),
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
        'rotation = self.variant == "rotation"',
        "if spec is not None and not spec.high:",
    ],
)
def test_the_literal_checks_pass_data(line: str) -> None:
    assert not STREET_NUMBER_TESTS.search(line), line
    assert not LOW_RULE_NAMES.search(line), line
    assert not VARIANT_NAME_TESTS.search(line), line


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges(path: Path, known: set[str]) -> set[str]:
    """The modules of its own package that the module at `path` imports, at run time or for
    type checking alike (a circle of either kind is one)."""
    found: set[str] = set()
    for node in ast.walk(parse(path)):
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


def _python_graph() -> dict[str, set[str]]:
    """Every module of app/, benchmarks/ and tests/ and the ones of those it imports, at
    module level or inside a function (an import put off until called still closes a
    circle); `from package import name` counts as importing the module `name` when there is
    one, else the package."""
    paths = {
        _dotted(path): path
        for top in ("app", "benchmarks", "tests")
        for path in sorted((ROOT / top).rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
                continue
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""
            if node.level:  # relative: from the module's package, one level up per extra dot
                parts = package.split(".")
                module = ".".join([*parts[: len(parts) - node.level + 1], *filter(None, [module])])
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                edges.add(sub if sub in paths else module)
        graph[name] = (edges & set(paths)) - {name}
    return graph


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_circle_in_the_python() -> None:
    graph = _python_graph()
    assert "benchmarks.report" in graph["benchmarks.server"]  # the graph sees the imports
    assert _circle(graph) is None, " -> ".join(_circle(graph) or [])


# `import … from "./x.js"`, `export … from "../x.js"`, `import "./x.js"`, and a dynamic
# `import("./x.js")`, which loads later but still closes a circle
ES_IMPORT = re.compile(
    r"^\s*(?:import|export)\s+(?:[^;\"'`]*?\sfrom\s*)?[\"'](\.{1,2}/[^\"']+)[\"']", re.MULTILINE
)
ES_DYNAMIC = re.compile(r"\bimport\(\s*[\"'](\.{1,2}/[^\"']+)[\"']\s*\)")


def _es_imports(text: str) -> list[str]:
    return ES_IMPORT.findall(text) + ES_DYNAMIC.findall(text)


def test_no_import_circle_in_the_browser_client() -> None:
    graph: dict[str, set[str]] = {}
    for path in sorted(FRONTEND.rglob("*.js")):
        name = path.relative_to(FRONTEND).as_posix()
        targets = set()
        for spec in _es_imports(path.read_text("utf-8")):
            target = (path.parent / spec).resolve()
            assert target.is_file(), f"{name} imports {spec}, which is not there"
            targets.add(target.relative_to(FRONTEND).as_posix())
        graph[name] = targets
    assert "hand-mail.js" in graph["table/page.js"]  # the graph sees the imports
    assert _circle(graph) is None, " -> ".join(_circle(graph) or [])


def test_the_client_import_reader_sees_each_form() -> None:
    text = """import { a, b } from "./a.js";
import {
  c,
  d,
} from "../b.js";
import * as e from './c.js';
import "./d.js";
export { f } from "./e.js";
const later = await import("./f.js");
// a sentence that says import from "./g.js" in passing
"""
    assert _es_imports(text) == ["./a.js", "../b.js", "./c.js", "./d.js", "./e.js", "./f.js"]


LONGEST = 60  # lines, the docstring included: a function longer than that does several things


def _functions(path: Path) -> Iterator[tuple[str, int]]:
    """Each function's qualified name and length in lines."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                yield name, (child.end_lineno or child.lineno) - child.lineno + 1
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(parse(path), "")


def test_no_function_in_app_is_longer_than_a_screen() -> None:
    long = {
        f"{path.relative_to(APP).as_posix()}::{name}": lines
        for path in sorted(APP.rglob("*.py"))
        for name, lines in _functions(path)
        if lines > LONGEST
    }
    assert not long, long


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
    (Only the floors above `tables` can hold a table: tournaments' directors, the api, the
    commands, main.)"""
    wrong = []
    above = [*_modules("api"), *_modules("cli"), *_modules("tournaments"), APP / "main.py"]
    above.append(APP / "__main__.py")
    for path in above:
        for node in ast.walk(parse(path)):
            if _changes_a_table(node):
                line = getattr(node, "lineno", 0)
                wrong.append(f"{path.relative_to(APP)}:{line}")
    assert not wrong, wrong


def test_the_checks_would_see_a_circle_and_a_change() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) is None
    lengths = dict(_functions(Path(__file__)))
    assert lengths["test_the_client_import_reader_sees_each_form"] == 13
    assert "_functions.walk" in lengths
    for code in ("table.members.add(1)", "conn.table.paused = True", "table.seats[1] = x"):
        assert any(_changes_a_table(n) for n in ast.walk(parse(code))), code
    assert not any(_changes_a_table(n) for n in ast.walk(parse("seats = table.seats")))


# -- a player's command is spelled once: its model in the wire catalog (app/wire/client) ---


def _own_fields(model: type[client.ClientMessage]) -> set[str]:
    return set(model.model_fields) - {"type", "ref"}


def _stem(name: str) -> str:
    """`SitMsg`, `Sit`, `SitCommand`, `sit_message` and `sit` are one name."""
    name = name.lower().replace("_", "")
    for suffix in ("message", "command", "msg", "cmd"):
        name = name.removesuffix(suffix)
    return name


def _twins(tree: ast.AST, commands: set[type[client.ClientMessage]]) -> list[str]:
    """The classes in `tree` that spell a command again: named like one, or carrying the
    asking user and every field of one (with two fields or more: one alone is too common)."""
    stems = {_stem(k.__name__): k for k in commands} | {
        _stem(client.type_of(k)): k for k in commands
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = {
            item.target.id
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        }
        twin = stems.get(_stem(node.name))
        if twin is None and "user_id" in fields:
            twin = next(
                (k for k in commands if len(_own_fields(k)) >= 2 and _own_fields(k) <= fields),
                None,
            )
        if twin is not None:
            found.append(f"{node.name} (line {node.lineno}) spells {twin.__name__} again")
    return found


def _table_commands() -> set[type[client.ClientMessage]]:
    return set(client.MESSAGES) - set(ws.LOCAL)


def test_a_player_command_is_defined_once() -> None:
    """The catalog's model is the table's command: no second class in the table, the api
    or the process wire stands for one (docs/design.md, "Tables")."""
    commands = _table_commands()
    wrong = []
    for path in [*_modules("tables"), *_modules("api"), APP / "wire" / "process.py"]:
        for twin in _twins(parse(path), commands):
            wrong.append(f"{path.relative_to(APP)}: {twin}")
    assert not wrong, wrong


def test_the_check_would_see_a_command_spelled_twice() -> None:
    commands = _table_commands()
    again = [
        "@dataclass\nclass Sit:\n    user_id: int\n    seat: int\n",
        "class HostCommand(BaseModel):\n    command: str\n",  # no: not a catalog name
        "class Buy:\n    user_id: int\n    seat: int\n    amount: int\n    request_id: str\n",
        "class TopUpMessage:\n    pass\n",
    ]
    assert [bool(_twins(parse(code), commands)) for code in again] == [
        True, False, True, True
    ]  # fmt: skip
    assert not _twins(parse("class Join:\n    user_id: int\n    via: str\n"), commands)


# -- a rule changes only the state it is handed (app/tables: the actor and its rules) -------

# the modules of the table's rules: each takes the table's state (`TableState`) and a message
# and returns its effects; the actor (`app/tables/table.py`) alone applies them
RULES = (
    "dealing", "seating", "hosting", "approval", "directed", "between", "watching", "publishing",
    "waiting", "rotation",
)  # fmt: skip
# what a rule is handed that is the table's state (the state, a seat of it, its parts)
STATE_TYPES = {"TableState", "SeatInfo", "Directed", "Recording"}
# what only the actor does: a rule that calls one of these reaches into the table
ACTOR_ONLY = {
    "say", "send", "post", "want_hand", "become", "write_later", "record_start",
    "record_finish", "freeze", "call_later", "set", "publish_many", "submit",
}  # fmt: skip


def _root(expr: ast.expr) -> ast.expr:
    while isinstance(expr, ast.Attribute | ast.Subscript):
        expr = expr.value
    return expr


def _changed(node: ast.AST) -> list[ast.expr]:
    """The attributes and items `node` assigns, deletes or changes in place."""
    if isinstance(node, ast.Assign | ast.Delete):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
        and isinstance(node.func.value, ast.Attribute | ast.Subscript)
    ):
        targets = [node.func.value]
    else:
        return []
    flat: list[ast.expr] = []
    for target in targets:
        flat.extend(target.elts if isinstance(target, ast.Tuple) else [target])
    return [t for t in flat if isinstance(t, ast.Attribute | ast.Subscript)]


def _rule_breaches(tree: ast.AST) -> list[str]:
    """In each function of a rule module: a change to anything but the state it is handed
    (or a local drawn from it), a `global`, or a call of what only the actor does."""
    wrong = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        state = {
            a.arg for a in params if a.annotation is not None and ast.unparse(a.annotation)
            in STATE_TYPES
        }  # fmt: skip
        others = {a.arg for a in params} - state
        local = {
            n.id
            for n in ast.walk(fn)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in others
        }
        for node in ast.walk(fn):
            if isinstance(node, ast.Global | ast.Nonlocal):
                wrong.append(f"{fn.name}:{node.lineno}: {ast.unparse(node)}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ACTOR_ONLY
            ):
                wrong.append(f"{fn.name}:{node.lineno}: calls {ast.unparse(node.func)}")
            for target in _changed(node):
                root = _root(target)
                if not (isinstance(root, ast.Name) and (root.id in state or root.id in local)):
                    wrong.append(f"{fn.name}:{target.lineno}: changes {ast.unparse(target)}")
    return wrong


def test_a_rule_changes_only_the_state_it_is_handed() -> None:
    """The table's rules take its state and a message and return their effects: none of
    them changes anything but that state (no message, no port, no module global), nor
    numbers, publishes, posts, schedules or writes (docs/design.md, "Tables")."""
    wrong = []
    for name in RULES:
        path = APP / "tables" / f"{name}.py"
        wrong += [f"{name}.py::{w}" for w in _rule_breaches(parse(path.read_text()))]
    assert not wrong, wrong


def test_the_rule_check_would_see_a_rule_reach_out() -> None:
    head = "def rule(table: TableState, msg: Msg, io: Io) -> Effects:\n"
    reaching = [
        "    table.hand = None\n    msg.seen = True\n",  # the message it is handed
        "    io.store.cache[1] = table.id\n",  # a port
        "    LIMITS.count += 1\n",  # a module global
        "    global COUNT\n    COUNT = 1\n",
        "    table.say(Closed())\n",  # the actor's
        "    table.post(Wake())\n",
        "    msg.seats.append(1)\n",
        "    del io.store.rows[1]\n",
    ]
    for body in reaching:
        assert _rule_breaches(parse(head + body)), body
    keeping = (
        "    table.seats[1] = SeatInfo(1)\n    info = table.seats[1]\n    info.stack += 5\n"
        "    d = table.directed\n    d.behind.append(msg)\n    table.members.add(msg.user)\n"
        "    out = []\n    out.append(Said(x))\n    return out\n"
    )
    assert _rule_breaches(parse(head + keeping)) == []
    seat = "def spend(info: SeatInfo, io: Io) -> None:\n    info.bank_from = io.now()\n"
    assert _rule_breaches(parse(seat)) == []
