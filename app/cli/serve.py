"""Run the web server (the default command)."""

from __future__ import annotations

import argparse

from app.config import get_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=None, help="address to bind (default from settings)")
    parser.add_argument("--port", type=int, default=None, help="port (default from settings)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"Stud server on http://{host}:{port}/  (Ctrl+C to stop)", flush=True)
    uvicorn.run(
        "app.main:app",
        host=host,
        port=port,
        ws_per_message_deflate=False,  # small JSON: compression costs CPU, saves nothing
        ws_max_size=4096,
        log_level="info",
    )
    return 0
