"""Tournaments: sit & gos and multi-table tournaments of Stud, Stud Hi/Lo and Razz.

One director task runs each tournament (`director.py`), leased and fenced like a table
(`directors.py`), its state in the database; its tables are ordinary tables that take its
orders (`app.tables.directed`). `spec.py` is what a host chooses, `service.py` what players
and hosts ask. The rules are in docs/rules.md (R26-R38), the pure parts in
`app.engine.tournament`.
"""
