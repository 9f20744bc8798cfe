"""README's Commands table names every `python -m app` command and, in that command's row,
every flag its argparse parser takes (read from the parser `app.__main__.main` builds, so a
new command or flag must be written down), and each row gives the exit codes. Its
Benchmarks part names every flag of the benchmark scripts (`benchmarks/*.py`), read from
their parsers too. Each check is also run on a README with a flag taken out, to show it
would notice."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

from app.__main__ import COMMANDS, main

README = Path(__file__).resolve().parents[2] / "README.md"


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    """The parser's option strings, but `--help` and the hidden ones (`help=SUPPRESS`)."""
    return [
        flag
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
        and a.help != argparse.SUPPRESS
        for flag in a.option_strings
    ]


def _commands() -> dict[str, list[str]]:
    """Each command line (`ledger check`, `tables move`, …) and its flags."""
    out: dict[str, list[str]] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for sub in subs:
            for action_name, child in sub.choices.items():
                walk(f"{name} {action_name}", child)
        if not subs:
            out[name] = _flags(parser)

    top = _parser_of(main)  # `python -m app`'s own parser, as `main` builds it
    (commands,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(commands.choices) == set(COMMANDS)
    for name, parser in commands.choices.items():
        walk(name, parser)
    return out


def _rows(readme: str) -> dict[str, str]:
    section = readme.split("## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `python -m app "):
            command = line.split("`")[1].removeprefix("python -m app ")
            rows[command] = line
    return rows


def missing_commands(readme: str) -> list[str]:
    """The commands, and `command flag`s, that the README's Commands table does not name."""
    rows = _rows(readme)
    missing = []
    for command, flags in _commands().items():
        words = command.split()
        row = next((r for c, r in rows.items() if c.split()[: len(words)] == words), None)
        if row is None:
            missing.append(command)
            continue
        missing += [f"{command} {flag}" for flag in flags if f"`{flag}" not in row]
    return missing


class _Parser(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _parser_of(entry: Callable[[list[str]], Any]) -> argparse.ArgumentParser:
    """The parser `entry` builds (a command's `main`, a benchmark's), caught as it is about to
    read the command line."""

    def caught(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
        raise _Parser(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(argparse.ArgumentParser, "parse_args", caught)
        try:
            entry([])
        except _Parser as got:
            return got.parser
    raise AssertionError(f"{entry} read no command line")


def _benchmarks() -> dict[str, list[str]]:
    from benchmarks import deal, engine, evaluators, server, tournament

    entries: dict[str, Callable[[list[str]], Any]] = {
        "benchmarks/engine.py": engine.main,
        "benchmarks/deal.py": deal.main,
        "benchmarks/evaluators.py": evaluators.main,
        "benchmarks/server.py": server.parse,
        "benchmarks/tournament.py": tournament.parse,
    }
    return {script: _flags(_parser_of(entry)) for script, entry in entries.items()}


def missing_benchmark_flags(readme: str) -> list[str]:
    """The benchmark scripts, and `script flag`s, that README's Benchmarks part does not name
    (a script's flags are looked for after each mention of it, up to the next script's)."""
    section = readme.split("### Benchmarks\n", 1)[1].split("\n## ", 1)[0]
    scripts = _benchmarks()
    pattern = "|".join(re.escape(s) for s in scripts)
    mentions = [(m.start(), m.group()) for m in re.finditer(pattern, section)]
    parts = {script: "" for script in scripts}
    ends = [*mentions[1:], (len(section), "")]
    for (start, script), (stop, _) in zip(mentions, ends, strict=True):
        parts[script] += section[start:stop]
    missing = []
    for script, flags in scripts.items():
        if not parts[script]:
            missing.append(script)
            continue
        missing += [f"{script} {flag}" for flag in flags if f"`{flag}" not in parts[script]]
    return missing


def test_every_command_and_flag_is_in_the_readme() -> None:
    commands = _commands()
    assert {"serve", "ledger check", "tables where", "tables move", "export"} <= set(commands)
    assert {"tournaments simulate", "tournaments freeze", "settings-doc"} <= set(commands)
    assert "--all-cards" in commands["export"] and "-o" in commands["export"]
    missing = missing_commands(README.read_text())
    assert not missing, f"README's Commands table lacks: {missing}"


def test_every_row_gives_exit_codes() -> None:
    rows = _rows(README.read_text())
    assert len(rows) >= 10
    for command, row in rows.items():
        assert row.rstrip(" |").split("|")[-1].strip()[0].isdigit(), command


def test_every_benchmark_flag_is_in_the_readme() -> None:
    scripts = _benchmarks()
    assert "--chunk" in scripts["benchmarks/evaluators.py"]
    assert "--processes" in scripts["benchmarks/server.py"]
    assert "--serve" not in scripts["benchmarks/server.py"]  # the servers' own, hidden
    missing = missing_benchmark_flags(README.read_text())
    assert not missing, f"README's Benchmarks part lacks: {missing}"


def test_the_checks_notice_a_flag_or_command_left_out() -> None:
    readme = README.read_text()
    export = _rows(readme)["export --since WHEN"]
    assert export.count("`--until`") == 1
    assert missing_commands(readme.replace(export, export.replace("`--until`", "`x`"))) == [
        "export --until"
    ]
    cancel = _rows(readme)["tournaments cancel ID"]
    assert "tournaments cancel" in missing_commands(readme.replace(cancel + "\n", ""))
    bench = readme.split("### Benchmarks\n", 1)[1].split("\n## ", 1)[0]
    assert "`--keep-database`" in bench
    cut = readme.replace(bench, bench.replace("`--keep-database`", "`x`"))
    assert missing_benchmark_flags(cut) == ["benchmarks/tournament.py --keep-database"]
