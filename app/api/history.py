"""A player's hand histories: the hands they were dealt into, newest first, and one hand as
JSON, PHH or PokerStars-style text (R24: see `app.store.history`).

    GET /api/hands?table_id=7&variant=stud8&limit=20&offset=0
    GET /api/hands/{number}                     JSON
    GET /api/hands/{number}?format=phh          text/plain (TOML), as hand-{number}.phh
    GET /api/hands/{number}?format=pokerstars   text/plain

A hand is found by its number: the one the table showed, the hand list, the emails and both
texts name it by.

A hand the player was not dealt into answers 404, the same as a hand that does not exist.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response

from app.api.deps import DB, CurrentUser
from app.api.errors import api_error
from app.engine import Variant
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
                "number": str(row.number),  # a string, as the table sends it
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


@router.get("/{number}", response_model=None)
async def get_hand(
    number: str,
    user: CurrentUser,
    db: DB,
    format: Literal["json", "phh", "pokerstars"] = "json",
) -> dict[str, Any] | Response:
    if not number.isascii() or not number.isdigit() or len(number) > 18:
        raise no_such_hand()  # not a number: no such hand either
    view = await load_hand_history(db, int(number), user.id)
    if view is None:
        raise no_such_hand()
    if format == "phh":
        return PlainTextResponse(
            view.phh, media_type="application/toml", headers=_file(f"hand-{number}.phh")
        )
    if format == "pokerstars":
        return PlainTextResponse(view.pokerstars_text, headers=_file(f"hand-{number}.txt"))
    return view.json


def _file(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'inline; filename="{name}"'}
