"""Run the web server (the default command)."""

from __future__ import annotations

import argparse

from app.config import Settings, get_settings
from app.wire.limits import MAX_FRAME


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default=None, help="address to bind (default from settings)")
    parser.add_argument("--port", type=int, default=None, help="port (default from settings)")


def settings_for(args: argparse.Namespace, settings: Settings | None = None) -> Settings:
    """The settings with the command line's --host and --port over the environment's, so
    what the server builds from them (links in mail) names the address it listens on."""
    given = {"host": args.host, "port": args.port}
    return (settings or get_settings()).model_copy(
        update={name: value for name, value in given.items() if value is not None}
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app

    settings = settings_for(args)
    print(f"Stud server on http://{settings.host}:{settings.port}/  (Ctrl+C to stop)", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        ws_per_message_deflate=False,  # small JSON: compression costs CPU, saves nothing
        ws_max_size=MAX_FRAME,
        log_level="info",
    )
    return 0
