"""docs/rules.md is the project's own statement of its rules: nothing in the repository
points outside it, and every rule's test links lead to tests that exist and name the rule."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
OUTSIDE = "/".join(("..", "shared"))  # spelled apart, or this file would mention it
SKIPPED_DIRS = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
SKIPPED_DIRS |= {".hypothesis", "data", "node_modules"}

_HEADING = re.compile(r"^### (R\d+)\b", re.MULTILINE)
_LINK = re.compile(r"^- \[[^\]]*\]\((\.\./tests/[^)\s]+)\):(.*)$", re.MULTILINE)
_NAME = re.compile(r"`(test_\w+)`")


def repository_files() -> list[Path]:
    """The repository's files: tracked or not ignored (git), else every file on disk outside
    .git, the virtualenv, caches, data and build output."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return [
            p
            for p in ROOT.rglob("*")
            if p.is_file()
            and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in p.parts)
        ]
    return [ROOT / name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def sections() -> dict[str, str]:
    """Each rule id of docs/rules.md and its text, up to the next heading."""
    text = RULES.read_text(encoding="utf-8")
    marks = list(_HEADING.finditer(text))
    out: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[mark[1]] = text[mark.start() : end].split("\n## ", 1)[0]
    return out


def names_rule(name: str, rule: str) -> bool:
    return re.search(rf"(?:^|_){rule.lower()}(?:_|$)", name) is not None


def test_no_file_in_the_repository_points_at_the_shared_folder() -> None:
    files = repository_files()
    assert any(p.name == "README.md" for p in files)
    offenders = [str(p.relative_to(ROOT)) for p in files if OUTSIDE.encode() in p.read_bytes()]
    assert offenders == []


def test_readme_links_to_the_rules() -> None:
    assert "](docs/rules.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_rule_is_stated_and_links_to_tests_that_exist_and_name_it() -> None:
    rules = sections()
    assert list(rules) == [f"R{n}" for n in range(1, 46)]
    for rule, text in rules.items():
        links = _LINK.findall(text)
        assert links, f"{rule} lists no test"
        for target, rest in links:
            path = (RULES.parent / target).resolve()
            assert path.is_file(), f"{rule}: {target} does not exist"
            source = path.read_text(encoding="utf-8")
            tests = _NAME.findall(rest)
            assert tests, f"{rule}: the link to {target} names no test"
            for name in tests:
                assert re.search(rf"^(?:async )?def {name}\(", source, re.MULTILINE), (
                    f"{rule}: {target} has no test {name}"
                )
                assert names_rule(name, rule), f"{rule}: {name} does not name {rule}"
