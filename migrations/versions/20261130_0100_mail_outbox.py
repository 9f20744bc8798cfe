"""The mail outbox: requests, attempts, and email-verification tokens (hashed).

Revision ID: 0100_mail
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0100_mail"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _stamp(name: str, *, nullable: bool = False, now: bool = False) -> sa.Column[object]:
    default = sa.func.current_timestamp() if now else None
    return sa.Column(name, sa.DateTime(timezone=True), server_default=default, nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "mail_requests",
        sa.Column("id", BigId, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("to_address", sa.String(254), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        _stamp("next_attempt_at"),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        _stamp("lease_until", nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("message_id", sa.String(255), nullable=True),
        _stamp("created_at", now=True),
        _stamp("sent_at", nullable=True),
        sa.CheckConstraint("kind IN ('hands', 'verify')", name=op.f("ck_mail_requests_kind")),
        sa.CheckConstraint(
            "status IN ('queued', 'sent', 'failed')", name=op.f("ck_mail_requests_status")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"],
            name=op.f("fk_mail_requests_user_id_users"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_requests")),
    )
    op.create_index("ix_mail_requests_due", "mail_requests", ["status", "next_attempt_at"])
    op.create_index("ix_mail_requests_user_created", "mail_requests", ["user_id", "created_at"])

    op.create_table(
        "mail_attempts",
        sa.Column("id", BigId, nullable=False),
        sa.Column("request_id", BigId, nullable=False),
        sa.Column("attempt_no", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(64), nullable=False),
        _stamp("started_at"),
        _stamp("finished_at"),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('sent', 'retry', 'failed')", name=op.f("ck_mail_attempts_outcome")
        ),
        sa.ForeignKeyConstraint(
            ["request_id"], ["mail_requests.id"],
            name=op.f("fk_mail_attempts_request_id_mail_requests"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mail_attempts")),
    )
    op.create_index(op.f("ix_mail_attempts_request_id"), "mail_attempts", ["request_id"])

    op.create_table(
        "email_verifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        _stamp("created_at", now=True),
        _stamp("expires_at"),
        _stamp("used_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"],
            name=op.f("fk_email_verifications_user_id_users"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_email_verifications")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_email_verifications_token_hash")),
    )
    op.create_index(
        op.f("ix_email_verifications_user_id"), "email_verifications", ["user_id"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_email_verifications_user_id"), table_name="email_verifications")
    op.drop_table("email_verifications")
    op.drop_index(op.f("ix_mail_attempts_request_id"), table_name="mail_attempts")
    op.drop_table("mail_attempts")
    op.drop_index("ix_mail_requests_user_created", table_name="mail_requests")
    op.drop_index("ix_mail_requests_due", table_name="mail_requests")
    op.drop_table("mail_requests")
