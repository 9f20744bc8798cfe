"""Run the web server (the default command)."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from app import logs
from app.config import Settings, get_settings
from app.wire.limits import MAX_TRANSPORT_FRAME


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


def draining_server(application: Any, config: Any) -> Any:
    """A uvicorn server that, on SIGTERM (or Ctrl+C), first drains the tables (the app's
    `state.drain`: current hands finish, each table is let go between hands) while every
    socket stays open, and only then shuts down. A second Ctrl+C stops at once."""
    import uvicorn

    class DrainingServer(uvicorn.Server):
        drain_task: asyncio.Task[Any] | None = None

        async def on_tick(self, counter: int) -> bool:
            if self.should_exit and not self.force_exit:
                drain: Callable[[], Coroutine[Any, Any, Any]] | None = getattr(
                    application.state, "drain", None
                )
                if drain is not None and self.drain_task is None:
                    logging.getLogger("app.cli.serve").warning("stopping: draining the tables")
                    self.drain_task = asyncio.get_running_loop().create_task(drain())
                if self.drain_task is not None and not self.drain_task.done():
                    await super().on_tick(counter)
                    return False  # serve on until the tables are let go
                if self.drain_task is not None and not self.drain_task.cancelled():
                    failed = self.drain_task.exception()
                    if failed is not None:
                        logging.getLogger("app.cli.serve").error("draining failed", exc_info=failed)
            return await super().on_tick(counter)

    return DrainingServer(config)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app

    settings = settings_for(args)
    uvicorn_logs = logs.configure(settings.log_format)  # before anything logs
    banner = f"Stud server on http://{settings.host}:{settings.port}/  (Ctrl+C to stop)"
    if uvicorn_logs is None:
        print(banner, flush=True)
    else:  # every line a JSON line
        logging.getLogger("app.cli.serve").info(banner)
    application = create_app(settings)
    config = uvicorn.Config(
        application,
        host=settings.host,
        port=settings.port,
        ws_per_message_deflate=False,  # small JSON: compression costs CPU, saves nothing
        ws_max_size=MAX_TRANSPORT_FRAME,  # the socket answers a frame over MAX_FRAME
        ws_ping_interval=settings.ws_ping_seconds,  # a client that stops reading is found
        ws_ping_timeout=settings.ws_ping_seconds,
        log_level="info",
        forwarded_allow_ips=settings.forwarded_allow_ips,  # behind nginx: its forwarded headers
        log_config=uvicorn.config.LOGGING_CONFIG if uvicorn_logs is None else uvicorn_logs,
    )
    draining_server(application, config).run()
    return 0
