"""Hand numbers: every hand gets a short number that grows, shared by every server process.

`hands.number` (unique) is what players see and find a hand by; the hands already stored are
numbered in the order they started. `hand_counter` holds the next number no table holds yet
(tables reserve blocks from it). Queued hand-history emails name their hands by number.

Revision ID: 0400_hand_numbers
Revises: 0200_hands
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0400_hand_numbers"
down_revision: str | None = "0200_hands"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

hands = sa.table(
    "hands", sa.column("id", sa.String), sa.column("number", sa.BigInteger),
    sa.column("started_at", sa.DateTime),
)  # fmt: skip
requests = sa.table(
    "mail_requests", sa.column("id", sa.Integer), sa.column("kind", sa.String),
    sa.column("payload", sa.JSON),
)  # fmt: skip


def _payload(value: Any) -> dict[str, Any]:
    return dict(json.loads(value) if isinstance(value, str) else value or {})


def _rename_mailed_hands(conn: sa.Connection, rename: Callable[[Any], Any]) -> None:
    rows = conn.execute(
        sa.select(requests.c.id, requests.c.payload).where(requests.c.kind == "hands")
    )
    for request_id, payload in list(rows):
        data = _payload(payload)
        data["hand_ids"] = [rename(h) for h in data.get("hand_ids", [])]
        conn.execute(requests.update().where(requests.c.id == request_id).values(payload=data))


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("number", sa.BigInteger(), nullable=True))
    conn = op.get_bind()
    ids = conn.execute(sa.select(hands.c.id).order_by(hands.c.started_at, hands.c.id))
    numbers = {hand_id: n for n, (hand_id,) in enumerate(ids, 1)}
    for hand_id, number in numbers.items():
        conn.execute(hands.update().where(hands.c.id == hand_id).values(number=number))
    with op.batch_alter_table("hands") as batch:
        batch.alter_column("number", existing_type=sa.BigInteger(), nullable=False)
        batch.create_unique_constraint(op.f("uq_hands_number"), ["number"])

    counter = op.create_table(
        "hand_counter",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("next_number", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_hand_counter_one_row")),
        sa.CheckConstraint("next_number >= 1", name=op.f("ck_hand_counter_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hand_counter")),
    )
    op.bulk_insert(counter, [{"id": 1, "next_number": len(numbers) + 1}])
    _rename_mailed_hands(conn, lambda hand_id: numbers.get(hand_id, hand_id))


def downgrade() -> None:
    conn = op.get_bind()
    ids = {
        number: hand_id for hand_id, number in conn.execute(sa.select(hands.c.id, hands.c.number))
    }
    _rename_mailed_hands(conn, lambda number: ids.get(number, number))
    op.drop_table("hand_counter")
    with op.batch_alter_table("hands") as batch:
        batch.drop_constraint(op.f("uq_hands_number"), type_="unique")
        batch.drop_column("number")
