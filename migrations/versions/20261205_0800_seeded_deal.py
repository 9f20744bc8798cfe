"""Scheme seeded-v2 (issue 28): a finished hand's `deal` (deal_committed's public fields, and
for the operators the server seed, the player seeds and the slot cards); NULL for the hands
dealt under sha256-per-card-v1. A tournament entry's `seed`, given at registration and mixed
into the tournament's draws (R38).

Revision ID: 0800_seeded_deal
Revises: 0700_tournaments
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0800_seeded_deal"
down_revision: str | None = "0700_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("hands", sa.Column("deal", sa.JSON(), nullable=True))
    op.add_column("tournament_entries", sa.Column("seed", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_entries") as batch:
        batch.drop_column("seed")
    op.drop_column("hands", "deal")
