"""The one error shape of the HTTP API.

Every refusal is an `HTTPException` whose detail is ``{"code": …, "message": …}``, so the
body is ``{"detail": {"code": "name_taken", "message": "the name 'ann' is taken"}}``:
`code` is stable for programs, `message` is for people. (A body that does not parse at all
gets FastAPI's own 422, whose `detail` is a list.)
"""

from __future__ import annotations

from fastapi import HTTPException

from app.store.errors import StoreError


def api_error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    return HTTPException(status, {"code": code, "message": message}, headers=headers)


def from_store(exc: StoreError, status: int) -> HTTPException:
    return api_error(status, exc.code, exc.message)
