"""A player's language: the site and the emails in English, Dutch or German.

Revision ID: 0500_language
Revises: 0400_hand_numbers
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0500_language"
down_revision: str | None = "0400_hand_numbers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("language", sa.String(5), nullable=False, server_default="en")
        )


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("language")
