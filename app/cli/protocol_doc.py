"""Write docs/protocol.md's tables of client messages and server events from the wire
catalog: `python -m app protocol-doc` (`--check` only says whether the document is current)."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import generated
from app.wire import markdown

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    generated.add_arguments(parser, DOCUMENT, "docs/protocol.md")


def run(args: argparse.Namespace) -> int:
    return generated.refresh(args, markdown.update, "protocol-doc", "the wire catalog")
