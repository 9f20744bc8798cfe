"""Moderation (issue 25): an account's role, ban and mute; the append-only moderation log;
the chat lines players reported. PostgreSQL itself refuses to change or delete a row of
the moderation log (a trigger); on SQLite the code is the guarantee (it has no such
statement).

Revision ID: 0900_moderation
Revises: 0800_seeded_deal
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0900_moderation"
down_revision: str | None = "0800_seeded_deal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = (  # one statement each: asyncpg prepares what it runs
    """CREATE FUNCTION moderation_log_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the moderation log is append-only';
END;
$$ LANGUAGE plpgsql""",
    """CREATE TRIGGER moderation_log_append_only BEFORE UPDATE OR DELETE ON moderation_log
    FOR EACH ROW EXECUTE FUNCTION moderation_log_append_only()""",
)


def _stamp(name: str, *, nullable: bool = True) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _user(column: str, table: str, *, nullable: bool = True) -> list[object]:
    return [
        sa.Column(column, sa.Integer(), nullable=nullable),
        sa.ForeignKeyConstraint(
            [column], ["users.id"], name=op.f(f"fk_{table}_{column}_users")
        ),
    ]


def upgrade() -> None:
    # plain ADD COLUMN, also on SQLite: a batch would re-create `users`, which every table
    # of accounts refers to (foreign keys on: the drop fails once anyone has registered)
    op.add_column(
        "users", sa.Column("role", sa.String(16), nullable=False, server_default="player")
    )
    op.add_column("users", _stamp("banned_at"))
    op.add_column("users", _stamp("muted_until"))
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), nullable=False),
        _stamp("at", nullable=False),
        *_user("actor_user_id", "moderation_log"),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        *_user("target_user_id", "moderation_log"),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_log")),
    )
    op.create_index("ix_moderation_log_target", "moderation_log", ["target_user_id", "id"])
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        _stamp("at", nullable=False),
        *_user("reporter_user_id", "chat_reports", nullable=False),
        *_user("reported_user_id", "chat_reports", nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.String(32), nullable=False),
        sa.Column("context", sa.JSON(), nullable=False),
        _stamp("handled_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_reports")),
    )
    op.create_index(
        op.f("ix_chat_reports_reported_user_id"), "chat_reports", ["reported_user_id"]
    )
    if op.get_bind().dialect.name == "postgresql":
        for statement in APPEND_ONLY:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER moderation_log_append_only ON moderation_log")
        op.execute("DROP FUNCTION moderation_log_append_only()")
    op.drop_index(op.f("ix_chat_reports_reported_user_id"), table_name="chat_reports")
    op.drop_table("chat_reports")
    op.drop_index("ix_moderation_log_target", table_name="moderation_log")
    op.drop_table("moderation_log")
    for column in ("muted_until", "banned_at", "role"):  # SQLite 3.35+ drops columns itself
        op.drop_column("users", column)
