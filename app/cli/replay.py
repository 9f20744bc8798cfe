"""Replay PHH hand histories through the engine; one JSON line per file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.engine.phh import PHHError, replay_phh


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE.phh")


def replay_file(path: Path) -> dict[str, Any]:
    """``{"file", "finishing_stacks"}`` (p1..pN), or ``{"file", "error"}``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return {"file": str(path), "error": f"cannot read the file: {exc}"}
    try:
        result = replay_phh(text)
    except PHHError as exc:
        return {"file": str(path), "error": str(exc)}
    except Exception as exc:  # an engine failure must not stop the other files
        return {"file": str(path), "error": f"internal error: {exc!r}"}
    return {"file": str(path), "finishing_stacks": result.finishing_stacks}


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        line = replay_file(path)
        failed += "error" in line
        print(json.dumps(line), flush=True)
    if failed:
        print(f"{failed} of {len(args.files)} files failed", file=sys.stderr)
    return 1 if failed else 0
