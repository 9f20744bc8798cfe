"""The table's own view of its stacks (compared with the ledger by `ledger check`), and R19's
all-in protections per player (a rolling 24 hours, shared by every table and process).

Revision ID: 0300_stacks
Revises: 0200_hands
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0300_stacks"
down_revision: str | None = "0200_hands"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("poker_tables") as batch:
        batch.add_column(sa.Column("stacks", sa.JSON(), nullable=True))
    op.create_table(
        "all_in_protections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("hand_id", sa.String(32), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], ondelete="CASCADE",
            name="fk_all_in_protections_user_id_users",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_all_in_protections"),
        sa.UniqueConstraint("user_id", "hand_id", name="uq_all_in_protections_user_id_hand_id"),
    )
    op.create_index("ix_all_in_protections_user_used", "all_in_protections", ["user_id", "used_at"])


def downgrade() -> None:
    op.drop_index("ix_all_in_protections_user_used", table_name="all_in_protections")
    op.drop_table("all_in_protections")
    with op.batch_alter_table("poker_tables") as batch:
        batch.drop_column("stacks")
