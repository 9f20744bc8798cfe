"""A refusal a client can read: a stable `code` and a message. Nothing changed."""

from __future__ import annotations


class TableError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


MOVED = "this table moved to another server: try again"
