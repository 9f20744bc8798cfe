"""README's Commands table names every `python -m app` command and, in that command's row,
every flag its argparse parser takes (read from the parsers, so a new flag must be written
down)."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from app.__main__ import COMMANDS

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands() -> dict[str, list[str]]:
    """Each command line (`ledger check`, `tables move`, …) and its flags."""
    out: dict[str, list[str]] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for sub in subs:
            for action_name, child in sub.choices.items():
                walk(f"{name} {action_name}", child)
        if not subs:
            out[name] = [
                flag
                for a in parser._actions
                if not isinstance(a, argparse._HelpAction)
                for flag in a.option_strings
            ]

    for name, module_name in COMMANDS.items():
        parser = argparse.ArgumentParser(prog=f"python -m app {name}")
        importlib.import_module(module_name).add_arguments(parser)
        walk(name, parser)
    return out


def _rows() -> dict[str, str]:
    section = README.read_text().split("## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `python -m app "):
            command = line.split("`")[1].removeprefix("python -m app ")
            rows[command] = line
    return rows


def test_every_command_and_flag_is_in_the_readme() -> None:
    commands = _commands()
    assert {"serve", "ledger check", "tables where", "tables move", "export"} <= set(commands)
    rows = _rows()
    missing = []
    for command, flags in commands.items():
        row = next((r for c, r in rows.items() if c.split(" ")[: len(command.split())]
                    == command.split()), None)  # fmt: skip
        if row is None:
            missing.append(command)
            continue
        missing += [f"{command} {flag}" for flag in flags if f"`{flag}" not in row]
    assert not missing, f"README's Commands table lacks: {missing}"


def test_every_row_gives_exit_codes() -> None:
    for command, row in _rows().items():
        assert row.rstrip(" |").split("|")[-1].strip()[0].isdigit(), command
