"""What the benchmarks share: the machine they ran on, and writing one section of
docs/benchmarks.md while leaving every other section alone."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    """The CPU, its cores, the Python and the system: "Intel …, 2 cores, Python 3.11.9
    (CPython), Linux"."""
    return (
        f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        f" ({platform.python_implementation()}), {platform.system()}"
    )


def reference_ms(additions: int = 5_000_000, tries: int = 3) -> float:
    """How fast the machine runs pure Python just now: the best of `tries` loops of
    `additions` integer additions, in ms. Machines of one name differ two- or threefold from
    day to day (a shared host); this number beside a run says which day it was."""
    best = float("inf")
    for _ in range(tries):
        began = time.perf_counter()
        total = 0
        for i in range(additions):
            total += i
        best = min(best, time.perf_counter() - began)
    return best * 1000


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: "0.5, 0.7, 0.8"."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def write_section(section: str, text: str, path: Path = DOC) -> None:
    """Replace (or append) the section headed `section` (``## Name``) with `text`, re-reading
    the file just before so the other sections stay as they are."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == section), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        tail = "".join(lines[end:])
        new = "".join(lines[:start]) + text + ("\n" + tail if tail else "")
    path.write_text(new)
