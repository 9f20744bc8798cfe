"""The garbage cycles a piece of work leaves (issue 26: the collector freezes what survives,
so a cycle made on a hot path waits for the full sweep, and its memory with it)."""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Iterator


@contextlib.contextmanager
def garbage_cycles() -> Iterator[Counter[str]]:
    """The objects of every garbage cycle made inside the block, by type (filled at exit)."""
    found: Counter[str] = Counter()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.update(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
