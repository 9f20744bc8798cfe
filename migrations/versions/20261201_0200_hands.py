"""Hand records: every hand dealt (live, done, void) and the players dealt into it.

Revision ID: 0200_hands
Revises: 0100_mail
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0200_hands"
down_revision: str | None = "0100_mail"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _stamp(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "hands",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("max_seats", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(8), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("button", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        _stamp("started_at"),
        _stamp("ended_at", nullable=True),
        sa.Column("salt", sa.String(64), nullable=True),
        sa.Column("deck", sa.String(104), nullable=True),
        sa.Column("events", sa.JSON(), nullable=True),
        sa.Column("inputs", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("rake", sa.BigInteger(), nullable=False),
        sa.Column("void_reason", sa.String(200), nullable=True),
        sa.CheckConstraint("status IN ('live', 'done', 'void')", name=op.f("ck_hands_status")),
        sa.CheckConstraint(
            "variant IN ('stud', 'stud8', 'razz')", name=op.f("ck_hands_variant")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_hands_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
    )
    op.create_index("ix_hands_table_started", "hands", ["table_id", "started_at"])
    op.create_index("ix_hands_status_ended", "hands", ["status", "ended_at"])

    op.create_table(
        "hand_players",
        sa.Column("hand_id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("seat_no", sa.Integer(), nullable=False),
        _stamp("started_at"),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"],
            name=op.f("fk_hand_players_hand_id_hands"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_hand_players_user_id_users")
        ),
        sa.PrimaryKeyConstraint("hand_id", "user_id", name=op.f("pk_hand_players")),
    )
    op.create_index(
        "ix_hand_players_user_started", "hand_players", ["user_id", "started_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_hand_players_user_started", table_name="hand_players")
    op.drop_table("hand_players")
    op.drop_index("ix_hands_status_ended", table_name="hands")
    op.drop_index("ix_hands_table_started", table_name="hands")
    op.drop_table("hands")
