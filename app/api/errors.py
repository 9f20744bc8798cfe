"""The one error shape of the HTTP API.

Every refusal is an `HTTPException` whose detail is ``{"code": …, "message": …}``, so the
body is ``{"detail": {"code": "name_taken", "message": "The name 'ann' is taken"}}``:
`code` is stable for programs, `message` is for people (a sentence, capitalized by
`sentence`; one that starts with a field's name keeps it). A request FastAPI cannot read
(a body that is not JSON, a field of the wrong type) gets the same shape: 422
``{"code": "invalid_request", "message": "body.seat: Input should be a valid integer"}``.
"""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from app.store.errors import StoreError
from app.tables import TableError
from app.wire.events import sentence


def api_error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    detail = {"code": code, "message": sentence(message)}
    return HTTPException(status, detail, headers=headers)


def from_store(exc: StoreError, status: int) -> HTTPException:
    return api_error(status, exc.code, exc.message)


def from_table(exc: TableError, status: int) -> HTTPException:
    return api_error(status, exc.code, exc.message)


async def _unreadable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    message = "The request could not be read"
    if errors:
        where = ".".join(str(part) for part in errors[0].get("loc", ()))
        message = f"{where}: {errors[0].get('msg', 'invalid')}"
    return JSONResponse(
        {"detail": {"code": "invalid_request", "message": message}}, status_code=422
    )


def install_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _unreadable)
