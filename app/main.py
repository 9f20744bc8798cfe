"""The ASGI application: wires the floors of the house together."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from app.config import get_settings


def create_app() -> FastAPI:
    settings = get_settings()
    application = FastAPI(title=f"{settings.site_name}: Seven Card Stud")

    @application.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @application.get("/", response_class=HTMLResponse)
    async def index() -> str:
        return (
            "<!doctype html><html lang=en><meta charset=utf-8>"
            f"<title>{settings.site_name}</title>"
            f"<h1>{settings.site_name}: Seven Card Stud</h1>"
            "<p>A real-time poker server for Stud Hi, Stud Hi/Lo eight-or-better and Razz.</p>"
            "</html>"
        )

    return application


app = create_app()
