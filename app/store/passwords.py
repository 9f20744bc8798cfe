"""Argon2id password hashing (argon2-cffi), run off the event loop: hashing is deliberate work."""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError


class Passwords:
    """Hash and verify passwords with one cost setting."""

    def __init__(self, *, time_cost: int = 3, memory_kib: int = 65_536, parallelism: int = 4):
        self._hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism
        )
        # verified against when a name is unknown, so a miss costs what a hit costs
        self._decoy: str | None = None

    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """True when `password` matches; with `None` (no such user) it spends the same time."""
        return await asyncio.to_thread(self._verify, password_hash, password)

    def _verify(self, password_hash: str | None, password: str) -> bool:
        if password_hash is None:
            if self._decoy is None:
                self._decoy = self._hasher.hash("decoy password, never matches")
            password_hash, password = self._decoy, password + "\0never"
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
