"""The pure rules of stud tournaments (docs/rules.md R26-R38): standard library and the
engine only, no I/O, no clock; every random draw reads a committed seed (draws.py).

Modules: structure.py (levels, breaks, presets), planner.py (a structure from players and
hours), payouts.py (prize schemes), places.py (finishing places, R31), balancing.py (breaking
and balancing tables, the final table), draws.py (provably fair draws), table_rules.py (the
engine `Rules` of a tournament hand, the raise cap, hand-for-hand).
"""
