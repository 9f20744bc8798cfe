"""The inputs of docs/fairness-vectors.json, and its writer:
``PYTHONPATH=. python -m tests.engine.fairness_vectors`` rewrites the file (R39)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from app.engine import seeded
from app.engine.cards import DECK

PATH = Path(__file__).resolve().parents[2] / "docs" / "fairness-vectors.json"


def _bytes(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def cases() -> list[dict[str, Any]]:
    out = []
    for name, seats in (("no seeds", []), ("one seed", [3]), ("three seeds", [5, 0, 2])):
        cards = list(DECK)
        random.Random(name).shuffle(cards)
        seeds = [(seat, _bytes(f"{name} seat {seat}")) for seat in seats]
        case = seeded.vector(_bytes(f"{name} server"), _bytes(f"{name} master"), cards, seeds)
        out.append({"name": name, **case})
    return out


def text() -> str:
    return json.dumps(cases(), indent=1) + "\n"


if __name__ == "__main__":
    PATH.write_text(text())
