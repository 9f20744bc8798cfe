"""A finished hand's public proof, for anyone (no login): what the table showed everyone and
the deal's public record, enough to check it with scheme seeded-v2 (docs/fairness.md; the
`/proof/NUMBER` page and `python -m app verify NUMBER --public` read it).

    GET /api/proof/{number}

A hand not finished (live or void) answers 404, the same as one that does not exist.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.deps import DB
from app.api.errors import api_error
from app.store import hands
from app.store.hand_models import HandStatus
from app.store.history import public_proof

router = APIRouter(prefix="/api/proof", tags=["hands"])


@router.get("/{number}")
async def get_proof(number: str, db: DB) -> dict[str, Any]:
    if not number.isascii() or not number.isdigit() or len(number) > 18:
        raise api_error(404, "no_such_hand", "no such hand")
    async with db.session() as s:
        row = await hands.hand_by_number(s, int(number))
    if row is None or row.status != HandStatus.DONE:
        raise api_error(404, "no_such_hand", "no such hand")
    return public_proof(row)
