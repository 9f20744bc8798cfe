"""What the commands that write a generated part of a document share (`protocol-doc`,
`settings-doc`): the `--path`/`--check` flags, and writing or checking the document."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser, document: Path, shown: str) -> None:
    parser.add_argument("--path", type=Path, default=document, help=f"default: {shown}")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 when the document is stale"
    )


def refresh(args: argparse.Namespace, update: Callable[[str], str], command: str, what: str) -> int:
    """Write `update`'s version of the document (or, with `--check`, exit 1 if it differs)."""
    path: Path = args.path
    text = path.read_text()
    fresh = update(text)
    if args.check:
        if fresh != text:
            print(f"{path} is out of date: run `python -m app {command}`", file=sys.stderr)
            return 1
        return 0
    if fresh != text:
        path.write_text(fresh)
        print(f"wrote {what} into {path}")
    return 0


def replace_between(document: str, begin: str, end: str, section: str, markers: str) -> str:
    """`document` with what stands from `begin` to `end` (the markers) replaced by `section`."""
    start = document.find(begin)
    stop = document.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"the document has no {markers} markers")
    return document[:start] + section + document[stop + len(end) :]
