"""The ASGI app answers its health check and front page."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import app


def test_health_answers_ok() -> None:
    with TestClient(app) as client:
        response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_front_page_says_what_this_is() -> None:
    with TestClient(app) as client:
        response = client.get("/")
    assert response.status_code == 200
    assert "Seven Card Stud" in response.text
