"""Hand numbers: every hand gets a short number that grows, shared by every server process.

`hands.number` (unique) is what players see and find a hand by; the hands already stored are
numbered in the order they started. `hand_counter` holds the next number no table holds yet
(tables reserve blocks from it). Queued hand-history emails name their hands by number.

Revision ID: 0400_hand_numbers
Revises: 0300_stacks
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0400_hand_numbers"
down_revision: str | None = "0300_stacks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

hands = sa.table("hands", sa.column("id", sa.String), sa.column("number", sa.BigInteger))
requests = sa.table(
    "mail_requests", sa.column("id", sa.Integer), sa.column("kind", sa.String),
    sa.column("payload", sa.JSON),
)  # fmt: skip

# one statement on both backends (SQLite 3.33+ has UPDATE … FROM): hands in start order
NUMBER_STORED_HANDS = """
UPDATE hands SET number = ordered.n
FROM (SELECT id, row_number() OVER (ORDER BY started_at, id) AS n FROM hands) AS ordered
WHERE hands.id = ordered.id
"""


def _payload(value: Any) -> dict[str, Any]:
    return dict(json.loads(value) if isinstance(value, str) else value or {})


def _rename_mailed_hands(
    conn: sa.Connection, rename: Callable[[list[Any]], dict[Any, Any]]
) -> None:
    """Queued and past hand-history emails: each hand named the other way."""
    rows = conn.execute(
        sa.select(requests.c.id, requests.c.payload).where(requests.c.kind == "hands")
    )
    payloads = {request_id: _payload(payload) for request_id, payload in rows}
    names = rename([h for data in payloads.values() for h in data.get("hand_ids", [])])
    for request_id, data in payloads.items():
        data["hand_ids"] = [names.get(h, h) for h in data.get("hand_ids", [])]
        conn.execute(
            requests.update().where(requests.c.id == request_id).values(payload=data)
        )


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("number", sa.BigInteger(), nullable=True))
    conn = op.get_bind()
    conn.execute(sa.text(NUMBER_STORED_HANDS))
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
    stored = conn.scalar(sa.select(sa.func.count()).select_from(hands)) or 0
    op.bulk_insert(counter, [{"id": 1, "next_number": stored + 1}])

    def numbers(ids: list[Any]) -> dict[Any, Any]:
        found = conn.execute(sa.select(hands.c.id, hands.c.number).where(hands.c.id.in_(ids)))
        return {name: other for name, other in found}

    _rename_mailed_hands(conn, numbers)


def downgrade() -> None:
    conn = op.get_bind()

    def ids(numbers: list[Any]) -> dict[Any, Any]:
        wanted = [n for n in numbers if type(n) is int]
        found = conn.execute(
            sa.select(hands.c.number, hands.c.id).where(hands.c.number.in_(wanted))
        )
        return {name: other for name, other in found}

    _rename_mailed_hands(conn, ids)
    op.drop_table("hand_counter")
    with op.batch_alter_table("hands") as batch:
        batch.drop_constraint(op.f("uq_hands_number"), type_="unique")
        batch.drop_column("number")
