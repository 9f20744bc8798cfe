"""Several server processes: the registry of live processes and each table's lease.

Revision ID: 0600_leases
Revises: 0500_language
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0600_leases"
down_revision: str | None = "0500_language"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_processes",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fanout", sa.String(8), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.CheckConstraint("fanout IN ('memory', 'redis')", name=op.f("ck_server_processes_fanout")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_processes")),
    )
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(32), nullable=True),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("epoch >= 1", name=op.f("ck_table_leases_epoch")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_table_leases_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
    )
    op.create_index("ix_table_leases_owner", "table_leases", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_table_leases_owner", table_name="table_leases")
    op.drop_table("table_leases")
    op.drop_table("server_processes")
