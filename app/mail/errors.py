"""Refusals of mail requests: each has a stable `code`, an HTTP `status` and a message a
player can read."""

from __future__ import annotations


class MailError(Exception):
    code = "mail_error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EmailNotVerified(MailError):
    code = "email_not_verified"
    status = 403


class AlreadyVerified(MailError):
    code = "email_already_verified"
    status = 409


class NotDealtIn(MailError):
    code = "not_dealt_in"
    status = 403


class NoHands(MailError):
    code = "no_hands"
    status = 404


class RateLimited(MailError):
    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InvalidToken(MailError):
    code = "invalid_token"
    status = 400


class TokenExpired(MailError):
    code = "token_expired"
    status = 410
