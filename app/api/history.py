"""A player's hand histories: the hands they were dealt into, newest first, and one hand as
JSON, PHH or PokerStars-style text (R24: see `app.store.history`).

    GET /api/hands?table_id=7&variant=stud8&limit=20&offset=0
    GET /api/hands/{hand_id}                    JSON
    GET /api/hands/{hand_id}?format=phh         text/plain (TOML)
    GET /api/hands/{hand_id}?format=pokerstars  text/plain

A hand the player was not dealt into answers 404, the same as a hand that does not exist.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response

from app.api.deps import DB, CurrentUser
from app.api.errors import api_error
from app.engine import Variant
from app.engine.pokerstars import hand_number
from app.store import hands
from app.store.history import load_hand_history

router = APIRouter(prefix="/api/hands", tags=["hands"])


def no_such_hand() -> Exception:
    return api_error(404, "no_such_hand", "no such hand")


@router.get("")
async def list_hands(
    user: CurrentUser,
    db: DB,
    table_id: int | None = None,
    variant: Variant | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> dict[str, Any]:
    async with db.session() as s:
        rows, total = await hands.list_hands(
            s, user.id, table_id=table_id, variant=variant, limit=limit, offset=offset
        )
    return {
        "hands": [
            {
                "hand_id": row.id,
                "number": str(hand_number(row.id)),  # above 2**53: a string, exact in JS
                "table_id": row.table_id,
                "table_name": row.table_name,
                "variant": row.variant,
                "started_at": row.started_at.isoformat(),
                "ended_at": row.ended_at.isoformat() if row.ended_at else None,
                "rake": row.rake,
                "net": (row.result or {}).get("deltas", {}).get(str(user.id)),
            }
            for row in rows
        ],
        "total": total,
        "limit": limit,
        "offset": offset,
    }


@router.get("/{hand_id}", response_model=None)
async def get_hand(
    hand_id: str,
    user: CurrentUser,
    db: DB,
    format: Literal["json", "phh", "pokerstars"] = "json",
) -> dict[str, Any] | Response:
    if len(hand_id) > 32:
        raise no_such_hand()
    view = await load_hand_history(db, hand_id, user.id)
    if view is None:
        raise no_such_hand()
    if format == "phh":
        return PlainTextResponse(view.phh, media_type="application/toml")
    if format == "pokerstars":
        return PlainTextResponse(view.pokerstars_text)
    return view.json
