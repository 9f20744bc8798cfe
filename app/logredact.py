"""Secrets never reach a log: URLs in log lines lose the values of their secret query
parameters (an email verification token, a private table's invite). Session tokens never
travel in URLs at all (`app.api.deps`); this is for the links that must carry one."""

from __future__ import annotations

import logging
import re

SECRET_QUERY = re.compile(r"([?&](?:token|invite|ticket|password)=)[^&\s\"']*", re.IGNORECASE)


def redact(text: str) -> str:
    return SECRET_QUERY.sub(r"\1[redacted]", text)


class RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def install() -> None:
    """On uvicorn's access and error logs (idempotent)."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
