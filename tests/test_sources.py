"""tests/sources.parse: a parse lost to CPython 3.11's converter race is parsed again, and
nothing else is hidden."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from tests import sources


def _failing(times: int, error: Exception) -> tuple[list[int], Callable[..., ast.Module]]:
    """An `ast.parse` that raises `error` on its first `times` calls, and the calls made."""
    calls: list[int] = []
    real = ast.parse

    def parse(source: str, filename: str = "<unknown>") -> ast.Module:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return real(source, filename)

    return calls, parse


def test_a_lost_count_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    race = SystemError("AST constructor recursion depth mismatch (before=141, after=195)")
    calls, fake = _failing(2, race)
    monkeypatch.setattr(ast, "parse", fake)
    tree = sources.parse("x = 1\n")
    assert isinstance(tree.body[0], ast.Assign)
    assert len(calls) == 3


def test_a_count_lost_every_time_is_still_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    race = SystemError("AST constructor recursion depth mismatch (before=1, after=2)")
    _, fake = _failing(99, race)
    monkeypatch.setattr(ast, "parse", fake)
    with pytest.raises(SystemError, match="mismatch"):
        sources.parse("x = 1\n")


def test_other_errors_are_the_sources_own(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SyntaxError):
        sources.parse("def (:\n")
    calls, fake = _failing(1, SystemError("something else"))
    monkeypatch.setattr(ast, "parse", fake)
    with pytest.raises(SystemError, match="something else"):
        sources.parse("x = 1\n")
    assert len(calls) == 1
