"""The server's log lines: plain text by default, JSON lines with `LOG_FORMAT=json`.

Every line says what it is about, from `contextvars` the code binds where the work is: a
table's task binds the table (`bind_table`), so each line logged there, or by a task or
timer it started, carries `table_id` and the hand number it is dealing at that moment
(`hand`); a request or a table socket binds its user (`bind_user`): `user_id`. The
`Context` filter copies them onto each record (None where unbound), on the handler, so
every logger's lines get them, uvicorn's too.

Secrets stay out as before: `app.logredact` takes secret query values out of URLs (on this
handler too, so on every logger's lines), session tokens never travel in URLs, and nothing
here logs a request's body or headers.
"""

from __future__ import annotations

import contextvars
import logging
import logging.config
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from app.jsontext import to_json
from app.logredact import RedactSecrets

_table: contextvars.ContextVar[Any] = contextvars.ContextVar("stud_log_table", default=None)
_user: contextvars.ContextVar[int | None] = contextvars.ContextVar("stud_log_user", default=None)

FIELDS = ("table_id", "hand", "user_id")
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# uvicorn's loggers pass their lines to the root's handler (ours) instead of their own
UVICORN_TO_ROOT: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "loggers": {
        name: {"level": "INFO", "handlers": [], "propagate": True}
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
    },
}


def bind_table(table: Any) -> None:
    """This task (and what it starts) works for `table` (anything with `id` and
    `hand_number`): its lines carry both, the hand number as it is when each is logged,
    and no user (a table's task may have been started by a user's request)."""
    _table.set(table)
    _user.set(None)


def bind_user(user_id: int | None) -> None:
    """This task (a request, a table socket) works for user `user_id`."""
    _user.set(user_id)


def unbind() -> None:
    """This task works for no one table nor user (a task shared by several tables)."""
    _table.set(None)
    _user.set(None)


class Context(logging.Filter):
    """Puts `table_id`, `hand` and `user_id` on every record (None where unbound)."""

    def filter(self, record: logging.LogRecord) -> bool:
        table = _table.get()
        record.table_id = getattr(table, "id", None)
        game = getattr(table, "state", None)
        record.hand = getattr(game, "hand_number", None)
        record.user_id = _user.get()
        return True


class TextFormatter(logging.Formatter):
    """`TEXT`, then whichever of table, hand and user the line is about."""

    def __init__(self) -> None:
        super().__init__(TEXT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        about = [f"{name}={getattr(record, name)}" for name in FIELDS if _known(record, name)]
        return f"{line} [{' '.join(about)}]" if about else line


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the context, an exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            if _known(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return to_json(line)


def _known(record: logging.LogRecord, name: str) -> bool:
    return getattr(record, name, None) is not None


def handler(log_format: str, stream: TextIO | None = None) -> logging.Handler:
    """A handler writing to `stream` (stderr) in `log_format` ("json" or "text"), with the
    `Context` filter."""
    out = logging.StreamHandler(stream or sys.stderr)
    out.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    out.addFilter(Context())
    out.addFilter(RedactSecrets())  # every logger's lines, not only uvicorn's
    return out


def configure(log_format: str, level: int = logging.INFO) -> dict[str, Any] | None:
    """The root logger writes through `handler(log_format)` (replacing a handler of ours set
    before). Returns the `log_config` uvicorn is to use: None (its own, plain text) for
    "text", `UVICORN_TO_ROOT` for "json" (every line a JSON line)."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if any(isinstance(f, Context) for f in h.filters)]:
        root.removeHandler(old)
    root.addHandler(handler(log_format))
    root.setLevel(level)
    return UVICORN_TO_ROOT if log_format == "json" else None
