"""Write docs/protocol.md's tables of client messages and server events from the wire
catalog: `python -m app protocol-doc` (`--check` only says whether the document is current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.wire import markdown

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--path", type=Path, default=DOCUMENT, help="default: docs/protocol.md")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 when the document is stale"
    )


def run(args: argparse.Namespace) -> int:
    path: Path = args.path
    text = path.read_text()
    fresh = markdown.update(text)
    if args.check:
        if fresh != text:
            print(f"{path} is out of date: run `python -m app protocol-doc`", file=sys.stderr)
            return 1
        return 0
    if fresh != text:
        path.write_text(fresh)
        print(f"wrote the wire catalog into {path}")
    return 0
