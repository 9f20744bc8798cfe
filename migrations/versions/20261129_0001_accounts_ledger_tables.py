"""Accounts, auth sessions, the double-entry ledger, poker tables and seats.

Seeds the two system accounts: the bank (issues play money) and the house (rake).

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _created() -> sa.Column[object]:
    return sa.Column(
        "created_at",
        sa.DateTime(timezone=True),
        server_default=sa.func.current_timestamp(),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("email_verified", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name_key", name=op.f("uq_users_name_key")),
    )
    op.create_index(op.f("ix_users_email"), "users", ["email"])

    op.create_table(
        "auth_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        _created(),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"],
            name=op.f("fk_auth_sessions_user_id_users"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_auth_sessions_token_hash")),
    )
    op.create_index(op.f("ix_auth_sessions_user_id"), "auth_sessions", ["user_id"])

    op.create_table(
        "poker_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(8), nullable=False),
        sa.Column("small_bet", sa.BigInteger(), nullable=False),
        sa.Column("big_bet", sa.BigInteger(), nullable=False),
        sa.Column("ante", sa.BigInteger(), nullable=False),
        sa.Column("bring_in", sa.BigInteger(), nullable=False),
        sa.Column("max_buy_in", sa.BigInteger(), nullable=True),
        sa.Column("max_seats", sa.Integer(), nullable=False),
        sa.Column("action_timer_ms", sa.Integer(), nullable=False),
        sa.Column("hand_pause_ms", sa.Integer(), nullable=False),
        sa.Column("rake_bps", sa.Integer(), nullable=False),
        sa.Column("rake_cap", sa.BigInteger(), nullable=False),
        sa.Column("rake_third_street", sa.Boolean(), nullable=False),
        sa.Column("timeout_action", sa.String(16), nullable=False),
        sa.Column("showdown_first_when_checked", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("invite_token", sa.String(64), nullable=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("host_user_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("extra", sa.JSON(), nullable=False),
        _created(),
        sa.CheckConstraint("variant IN ('stud', 'stud8', 'razz')", name=op.f("ck_poker_tables_variant")),
        sa.CheckConstraint("small_bet > 0 AND big_bet >= small_bet", name=op.f("ck_poker_tables_bets")),
        sa.CheckConstraint(
            "ante >= 0 AND bring_in > 0 AND bring_in <= small_bet", name=op.f("ck_poker_tables_forced")
        ),
        sa.CheckConstraint("max_seats BETWEEN 2 AND 8", name=op.f("ck_poker_tables_max_seats")),
        sa.CheckConstraint(
            "rake_bps BETWEEN 0 AND 10000 AND rake_cap >= 0", name=op.f("ck_poker_tables_rake")
        ),
        sa.CheckConstraint(
            "action_timer_ms > 0 AND hand_pause_ms >= 0", name=op.f("ck_poker_tables_timers")
        ),
        sa.CheckConstraint(
            "timeout_action IN ('all_in', 'fold')", name=op.f("ck_poker_tables_timeout_action")
        ),
        sa.CheckConstraint(
            "showdown_first_when_checked IN ('first_to_act', 'lowest_seat')",
            name=op.f("ck_poker_tables_showdown"),
        ),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_poker_tables_status")),
        sa.CheckConstraint(
            "max_buy_in IS NULL OR max_buy_in > 0", name=op.f("ck_poker_tables_max_buy_in")
        ),
        sa.ForeignKeyConstraint(
            ["host_user_id"], ["users.id"], name=op.f("fk_poker_tables_host_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_poker_tables")),
        sa.UniqueConstraint("invite_token", name=op.f("uq_poker_tables_invite_token")),
    )

    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat_no", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("sitting_out", sa.Boolean(), nullable=False),
        _created(),
        sa.CheckConstraint("seat_no >= 0", name=op.f("ck_seats_seat_no")),
        sa.CheckConstraint("stack >= 0", name=op.f("ck_seats_stack_nonnegative")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_seats_table_id_poker_tables")
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_seats_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seats")),
        sa.UniqueConstraint("table_id", "seat_no", name=op.f("uq_seats_table_id_seat_no")),
        sa.UniqueConstraint("table_id", "user_id", name=op.f("uq_seats_table_id_user_id")),
    )
    op.create_index(op.f("ix_seats_user_id"), "seats", ["user_id"])

    accounts = op.create_table(
        "ledger_accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("code", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("balance", sa.BigInteger(), server_default="0", nullable=False),
        _created(),
        sa.CheckConstraint(
            "kind IN ('player', 'escrow', 'house', 'bank')", name=op.f("ck_ledger_accounts_kind")
        ),
        sa.CheckConstraint(
            "(kind = 'player' AND user_id IS NOT NULL AND table_id IS NULL)"
            " OR (kind = 'escrow' AND table_id IS NOT NULL AND user_id IS NULL)"
            " OR (kind IN ('house', 'bank') AND user_id IS NULL AND table_id IS NULL)",
            name=op.f("ck_ledger_accounts_owner"),
        ),
        # A player's balance, a table's escrow and the house never go below zero; only the
        # bank, the issuer of play money, may.
        sa.CheckConstraint(
            "kind = 'bank' OR balance >= 0", name=op.f("ck_ledger_accounts_balance_nonnegative")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_ledger_accounts_table_id_poker_tables")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_ledger_accounts_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_accounts")),
        sa.UniqueConstraint("code", name=op.f("uq_ledger_accounts_code")),
    )

    op.create_table(
        "ledger_transactions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=False),
        sa.Column("memo", sa.String(500), server_default="", nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
        sa.UniqueConstraint(
            "idempotency_key", name=op.f("uq_ledger_transactions_idempotency_key")
        ),
    )

    op.create_table(
        "ledger_entries",
        sa.Column("id", BigId, nullable=False),
        sa.Column("transaction_id", BigId, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_amount_nonzero")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["ledger_accounts.id"],
            name=op.f("fk_ledger_entries_account_id_ledger_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"], ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
        sa.UniqueConstraint(
            "transaction_id", "account_id", name=op.f("uq_ledger_entries_transaction_id_account_id")
        ),
    )
    op.create_index(op.f("ix_ledger_entries_account_id"), "ledger_entries", ["account_id"])

    op.bulk_insert(
        accounts,
        [
            {"kind": "bank", "code": "bank", "balance": 0},
            {"kind": "house", "code": "house", "balance": 0},
        ],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_ledger_entries_account_id"), table_name="ledger_entries")
    op.drop_table("ledger_entries")
    op.drop_table("ledger_transactions")
    op.drop_table("ledger_accounts")
    op.drop_index(op.f("ix_seats_user_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_table("poker_tables")
    op.drop_index(op.f("ix_auth_sessions_user_id"), table_name="auth_sessions")
    op.drop_table("auth_sessions")
    op.drop_index(op.f("ix_users_email"), table_name="users")
    op.drop_table("users")
