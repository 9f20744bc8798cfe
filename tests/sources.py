"""Parsing the repository's own Python, for the tests that read its shape."""

from __future__ import annotations

import ast
from pathlib import Path

_RACE = "AST constructor recursion depth mismatch"


def parse(source: str | Path, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, again when CPython 3.11's AST converter lost count.

    Before 3.11.8 (gh-106905) the converter's recursion counter is one per interpreter,
    so a parse racing another thread's (3.11's traceback module parses a line to place its
    carets, so any server thread logging an error will do) fails with a SystemError on
    perfectly good source. Each parse resets the counter, so parsing again is a fair retry;
    any other error is the source's own.
    """
    if isinstance(source, Path):
        filename, source = str(source), source.read_text()
    for attempt in range(5):
        try:
            return ast.parse(source, filename)
        except SystemError as e:
            if _RACE not in str(e) or attempt == 4:
                raise
    raise AssertionError("unreachable")
