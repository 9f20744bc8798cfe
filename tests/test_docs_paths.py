"""The documents point at what is there: every file or folder of the repository that README.md
and docs/*.md name (`app/…`, `tests/…`, `benchmarks/…`, …) exists, and nothing in the
documents or the code cites the upper-case rules and design files, which are not in the
repository (the documents are docs/rules.md and docs/design.md)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("app", "tests", "benchmarks", "frontend", "deploy", "scripts", "migrations", "docs", ".ci")
PATH = re.compile(rf"(?<![\w./-])(?:\.\./)?((?:{'|'.join(re.escape(t) for t in TOP)})/[\w./-]*\w)")
# spelled apart, or this file would cite them
ABSENT = ("RULES" + ".md", "DESIGN" + ".md")


def missing_paths(text: str) -> list[str]:
    """The repository paths `text` names that do not exist (a module may be named without
    its `.py`)."""
    found = set(PATH.findall(text))
    return sorted(p for p in found if not (ROOT / p).exists() and not (ROOT / f"{p}.py").exists())


def test_every_path_the_documents_name_exists() -> None:
    assert len(DOCUMENTS) >= 7
    named = {d.name: set(PATH.findall(d.read_text())) for d in DOCUMENTS}
    assert "app/config.py" in named["settings.md"]
    assert "benchmarks/server.py" in named["README.md"]
    missing = {d.name: m for d in DOCUMENTS if (m := missing_paths(d.read_text()))}
    assert not missing, f"the documents name paths that do not exist: {missing}"


def test_the_check_notices_a_path_that_is_not_there() -> None:
    text = "see `app/tables/nowhere.py` and [x](../tests/gone/test_x.py), not app/config.py"
    assert missing_paths(text) == ["app/tables/nowhere.py", "tests/gone/test_x.py"]
    assert missing_paths("the module `app/tables/manager` and `app/wire/`") == []


def test_nothing_cites_the_upper_case_rules_or_design_files() -> None:
    files = DOCUMENTS + [
        p for top in ("app", "tests", "benchmarks") for p in (ROOT / top).rglob("*.py")
    ]
    offenders = [
        f"{p.relative_to(ROOT)}: {name}"
        for p in files
        for name in ABSENT
        if name in p.read_text(encoding="utf-8")
    ]
    assert not offenders, f"cite docs/rules.md and docs/design.md instead: {offenders}"
