"""Tournaments: their settings and state, entries, draws and the director's lease; a table's
and a hand's tournament; the prize pool accounts of the ledger.

SQLite cannot change a CHECK constraint: `ledger_accounts` is re-created with its rows, in
the migration's own transaction (`_recreate_sqlite`).

Revision ID: 0700_tournaments
Revises: 0600_leases
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0700_tournaments"
down_revision: str | None = "0600_leases"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OWNED = "(kind = 'player' AND user_id IS NOT NULL AND table_id IS NULL)" \
    " OR (kind = 'escrow' AND table_id IS NOT NULL AND user_id IS NULL)"  # fmt: skip
BEFORE = {
    "ck_ledger_accounts_kind": "kind IN ('player', 'escrow', 'house', 'bank')",
    "ck_ledger_accounts_owner": f"{OWNED}"
    " OR (kind IN ('house', 'bank') AND user_id IS NULL AND table_id IS NULL)",
}
AFTER = {
    "ck_ledger_accounts_kind": "kind IN ('player', 'escrow', 'house', 'bank', 'prize_pool')",
    "ck_ledger_accounts_owner": f"{OWNED}"
    " OR (kind IN ('house', 'bank', 'prize_pool') AND user_id IS NULL AND table_id IS NULL)",
}
LIVE = "status IN ('registered', 'playing')"
MAIL_KINDS = {
    False: "kind IN ('hands', 'verify')",
    True: "kind IN ('hands', 'verify', 'tournament')",  # a tournament's summary
}


def _stamp(name: str, *, nullable: bool = True) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _ints(*names: str, big: bool = False, nullable: bool = False) -> list[sa.Column[object]]:
    kind = sa.BigInteger if big else sa.Integer
    return [sa.Column(name, kind(), nullable=nullable) for name in names]


def _flags(*names: str) -> list[sa.Column[object]]:
    return [sa.Column(name, sa.Boolean(), nullable=False) for name in names]


def _checks(table: str, **rules: str) -> list[sa.CheckConstraint]:
    return [sa.CheckConstraint(sql, name=op.f(f"ck_{table}_{name}")) for name, sql in rules.items()]


def _fk(column: str, target: str, table: str) -> sa.ForeignKeyConstraint:
    name = f"fk_{table}_{column}_{target.split('.')[0]}"
    return sa.ForeignKeyConstraint([column], [target], name=op.f(name))


def _tournaments() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        *_ints("host_user_id", nullable=True),
        sa.Column("invite_token", sa.String(64), nullable=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("variant", sa.String(8), nullable=False),
        *_ints("seats_per_table"),
        *_ints("buy_in", "fee", "starting_chips", big=True),
        sa.Column("structure", sa.JSON(), nullable=False),
        sa.Column("payouts", sa.String(32), nullable=False),
        *_ints("min_players", "max_players"),
        sa.Column("start_mode", sa.String(16), nullable=False),
        _stamp("opens_at"),
        _stamp("starts_at"),
        *_ints("late_levels"),
        sa.Column("rebuy", sa.JSON(), nullable=True),
        *_ints("action_timer_ms", "time_bank_ms", "pause_allowance_ms", "hand_pause_ms"),
        sa.Column("time_bank_refill_ms", sa.Integer(), nullable=False, server_default="5000"),
        *_ints("bot_delay_ms", "bots"),
        sa.Column("status", sa.String(16), nullable=False),
        *_flags("private", "reentry", "frozen", "hand_for_hand"),
        *_ints("level", "level_hands"),
        *_ints("level_elapsed_ms", "prize_pool", "issued", big=True),
        _stamp("clock_at"),
        sa.Column("prizes", sa.JSON(), nullable=True),
        sa.Column("break_order", sa.JSON(), nullable=True),
        _stamp("created_at", nullable=False),
        _stamp("started_at"),
        _stamp("finished_at"),
        sa.Column("state", sa.JSON(), nullable=False),
        *_checks(
            "tournaments",
            variant="variant IN ('stud', 'stud8', 'razz', 'rotation')",
            status="status IN ('registering', 'running', 'finished', 'cancelled')",
            start_mode="start_mode IN ('scheduled', 'full')",
            prices="buy_in >= 0 AND fee >= 0 AND starting_chips > 0",
            players="min_players >= 2 AND max_players >= min_players"
            " AND seats_per_table BETWEEN 2 AND 8",
            counts="late_levels >= 0 AND bots >= 0 AND issued >= 0 AND prize_pool >= 0",
        ),
        _fk("host_user_id", "users.id", "tournaments"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("invite_token", name=op.f("uq_tournaments_invite_token")),
    )


def _entries() -> None:
    op.create_table(
        "tournament_entries",
        *_ints("id", "tournament_id", "user_id", "number"),
        sa.Column("status", sa.String(16), nullable=False),
        *_ints("chips", "time_bank_ms", "pause_left_ms", "paid", "fees", big=True),
        *_ints("table_id", "seat", "place", "bust_round", nullable=True),
        *_ints("prize", "bust_hand", "bust_stack", big=True, nullable=True),
        *_ints("moves", "rebuys"),
        *_flags("addon", "refunded"),
        sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()),
        _stamp("registered_at", nullable=False),
        *_checks(
            "tournament_entries",
            status="status IN ('registered', 'playing', 'busted', 'unregistered')",
            chips_nonnegative="chips >= 0",
            number="number >= 1",
            money="paid >= 0 AND fees >= 0 AND (prize IS NULL OR prize >= 0)",
            seated="(table_id IS NULL) = (seat IS NULL)",
        ),
        _fk("tournament_id", "tournaments.id", "tournament_entries"),
        _fk("user_id", "users.id", "tournament_entries"),
        _fk("table_id", "poker_tables.id", "tournament_entries"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint(
            "tournament_id", "user_id", "number",
            name=op.f("uq_tournament_entries_tournament_id_user_id_number"),
        ),
        sa.UniqueConstraint(
            "tournament_id", "place", name=op.f("uq_tournament_entries_tournament_id_place")
        ),
    )  # fmt: skip
    op.create_index(
        "uq_tournament_entries_live",
        "tournament_entries",
        ["tournament_id", "user_id"],
        unique=True,
        sqlite_where=sa.text(LIVE),
        postgresql_where=sa.text(LIVE),
    )
    op.create_index("ix_tournament_entries_table_id", "tournament_entries", ["table_id"])
    op.create_index("ix_tournament_entries_user_id", "tournament_entries", ["user_id"])


def _draws_and_leases() -> None:
    op.create_table(
        "tournament_draws",
        *_ints("id", "tournament_id", "seq"),
        sa.Column("purpose", sa.String(64), nullable=False),
        sa.Column("scheme", sa.String(32), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(64), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        _stamp("made_at", nullable=False),
        _fk("tournament_id", "tournaments.id", "tournament_draws"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_draws")),
        sa.UniqueConstraint(
            "tournament_id", "seq", name=op.f("uq_tournament_draws_tournament_id_seq")
        ),
    )
    op.create_table(  # the shape of table_leases, keyed by tournament
        "tournament_leases",
        *_ints("tournament_id"),
        sa.Column("owner", sa.String(32), nullable=True),
        *_ints("epoch", big=True),
        _stamp("expires_at", nullable=False),
        sa.CheckConstraint("epoch >= 1", name=op.f("ck_tournament_leases_epoch")),
        _fk("tournament_id", "tournaments.id", "tournament_leases"),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournament_leases")),
    )
    op.create_index("ix_tournament_leases_owner", "tournament_leases", ["owner"])


def _recreate_sqlite(name: str, checks: Mapping[str, str]) -> None:
    """Re-create SQLite table `name` with `checks` in place of its CHECK constraints of those
    names, keeping its rows. Other tables refer to it, and foreign keys are on (they cannot
    be switched off inside a transaction): they are deferred to the commit, and the rows are
    copied out, the table dropped and created again, and the rows put back under its own
    name, so every reference the drop broke is mended by the row put back (SQLite counts
    them). No foreign key to the table may cascade (the drop would run it)."""
    conn = op.get_bind()
    table = sa.Table(name, sa.MetaData(), autoload_with=conn)
    for constraint in list(table.constraints):
        if isinstance(constraint, sa.CheckConstraint) and constraint.name in checks:
            table.constraints.remove(constraint)
    for check, sql in checks.items():
        table.append_constraint(sa.CheckConstraint(sql, name=check))
    columns = ", ".join(f'"{column.name}"' for column in table.columns)
    conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    conn.exec_driver_sql(f'CREATE TEMP TABLE "_old_{name}" AS SELECT * FROM "{name}"')
    conn.exec_driver_sql(f'DROP TABLE "{name}"')
    table.create(conn)
    conn.exec_driver_sql(f'INSERT INTO "{name}" ({columns}) SELECT {columns} FROM "_old_{name}"')
    conn.exec_driver_sql(f'DROP TABLE "_old_{name}"')


def _account_checks(checks: Mapping[str, str]) -> None:
    if op.get_bind().dialect.name == "sqlite":
        _recreate_sqlite("ledger_accounts", checks)
        return
    for name, sql in checks.items():
        op.drop_constraint(op.f(name), "ledger_accounts", type_="check")
        op.create_check_constraint(op.f(name), "ledger_accounts", sql)


def _mail_kinds(tournament: bool) -> None:
    """The outbox's kinds, with or without a tournament's summary. On SQLite the attempts
    (which cascade from their request) are set aside while the requests are re-created."""
    name, sql = "ck_mail_requests_kind", MAIL_KINDS[tournament]
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        op.drop_constraint(op.f(name), "mail_requests", type_="check")
        op.create_check_constraint(op.f(name), "mail_requests", sql)
        return
    attempts = sa.Table("mail_attempts", sa.MetaData(), autoload_with=conn)
    conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    conn.exec_driver_sql('CREATE TEMP TABLE "_old_mail_attempts" AS SELECT * FROM mail_attempts')
    conn.exec_driver_sql("DROP TABLE mail_attempts")
    _recreate_sqlite("mail_requests", {name: sql})
    attempts.create(conn)
    columns = ", ".join(f'"{column.name}"' for column in attempts.columns)
    conn.exec_driver_sql(
        f'INSERT INTO mail_attempts ({columns}) SELECT {columns} FROM "_old_mail_attempts"'
    )
    conn.exec_driver_sql('DROP TABLE "_old_mail_attempts"')


def upgrade() -> None:
    _tournaments()
    _entries()
    _draws_and_leases()
    sqlite = op.get_bind().dialect.name == "sqlite"
    # SQLite adds a column with its foreign key only inline (ALTER TABLE … ADD … REFERENCES)
    op.add_column(
        "poker_tables",
        sa.Column(
            "tournament_id",
            sa.Integer(),
            sa.ForeignKey(
                "tournaments.id", name=op.f("fk_poker_tables_tournament_id_tournaments")
            ),
            nullable=True,
        ),
        inline_references=sqlite,
    )
    op.create_index("ix_poker_tables_tournament_id", "poker_tables", ["tournament_id"])
    op.add_column("hands", sa.Column("tournament_id", sa.Integer(), nullable=True))
    op.add_column("hands", sa.Column("level", sa.Integer(), nullable=True))
    op.create_index("ix_hands_tournament_id", "hands", ["tournament_id"])
    _account_checks(AFTER)
    _mail_kinds(True)


def downgrade() -> None:
    conn = op.get_bind()
    held = conn.scalar(
        sa.text(
            "SELECT (SELECT count(*) FROM tournaments)"
            " + (SELECT count(*) FROM ledger_accounts WHERE kind = 'prize_pool')"
        )
    )
    if held:
        raise RuntimeError(
            "cannot downgrade below 0700_tournaments: the database holds tournaments (or "
            "their prize pools), which the schema before it cannot keep"
        )
    _mail_kinds(False)
    _account_checks(BEFORE)
    op.drop_index("ix_hands_tournament_id", table_name="hands")
    op.drop_column("hands", "level")
    op.drop_column("hands", "tournament_id")
    op.drop_index("ix_poker_tables_tournament_id", table_name="poker_tables")
    if conn.dialect.name != "sqlite":  # SQLite drops an inline foreign key with its column
        op.drop_constraint(
            op.f("fk_poker_tables_tournament_id_tournaments"), "poker_tables", type_="foreignkey"
        )
    op.drop_column("poker_tables", "tournament_id")
    op.drop_index("ix_tournament_leases_owner", table_name="tournament_leases")
    op.drop_table("tournament_leases")
    op.drop_table("tournament_draws")
    for index in ("ix_tournament_entries_user_id", "ix_tournament_entries_table_id",
                  "uq_tournament_entries_live"):  # fmt: skip
        op.drop_index(index, table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_table("tournaments")
