"""Hand evaluation: high hands, ace-to-five lows (razz, eight-or-better), who acts first.

Pure Python, standard library only, table-driven (`tables`: built once at import). Values are
ints, greater is better, equal values are equal hands (suits never matter, R21):

- `high_value` 1..7462; `low_razz_value` 1..6175; `low_eight_value` is the razz value of a
  qualifying low (`EIGHT_OR_BETTER_MIN`..6175) or 0 when there is none;
- `high`, `low_razz`, `low_eight` wrap the same values in ordered objects that also name the
  hand (`describe`) and find the five cards used (`cards`, computed when first asked for);
- `bring_in_key` (R10: the lowest key brings in) and `showing_key` (R12: the greatest acts).
"""

from app.engine.evaluate.acting import bring_in_key, showing_key
from app.engine.evaluate.hands import HighHand, LowHand, high, low_eight, low_razz
from app.engine.evaluate.tables import (
    CATEGORIES,
    EIGHT_OR_BETTER_MIN,
    HIGH_VALUES,
    RAZZ_VALUES,
)
from app.engine.evaluate.values import high_category, high_value, low_eight_value, low_razz_value

__all__ = [
    "CATEGORIES",
    "EIGHT_OR_BETTER_MIN",
    "HIGH_VALUES",
    "RAZZ_VALUES",
    "HighHand",
    "LowHand",
    "bring_in_key",
    "high",
    "high_category",
    "high_value",
    "low_eight",
    "low_eight_value",
    "low_razz",
    "low_razz_value",
    "showing_key",
]
