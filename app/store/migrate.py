"""Bring the schema to this code's head at start, or refuse when the database is newer.

The server calls `ensure_schema` in its lifespan. On PostgreSQL an advisory lock keeps two
processes starting at once from migrating together.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from app.store.db import Database
from app.store.errors import SchemaError

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
_LOCK_ID = 0x53545544  # pg_advisory_xact_lock key: "STUD"


def alembic_config() -> Config:
    """The Alembic configuration the server uses (no ini file: logging stays the app's)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@dataclass(frozen=True)
class SchemaState:
    current: tuple[str, ...]  # the database's revision(s); empty when never migrated
    heads: tuple[str, ...]  # this code's head revision(s)
    unknown: tuple[str, ...]  # database revisions this code does not know: it is newer

    @property
    def up_to_date(self) -> bool:
        return set(self.current) == set(self.heads)


def _state(connection: Connection, config: Config) -> SchemaState:
    script = ScriptDirectory.from_config(config)
    known = {rev.revision for rev in script.walk_revisions()}
    current = tuple(MigrationContext.configure(connection).get_current_heads())
    return SchemaState(
        current=current,
        heads=tuple(script.get_heads()),
        unknown=tuple(rev for rev in current if rev not in known),
    )


async def schema_state(db: Database) -> SchemaState:
    async with db.engine.connect() as connection:
        return await connection.run_sync(_state, alembic_config())


def _move(connection: Connection, config: Config, action: str, revision: str) -> None:
    config.attributes["connection"] = connection
    if action == "upgrade":
        command.upgrade(config, revision)
    else:
        command.downgrade(config, revision)


async def upgrade(db: Database, revision: str = "head") -> None:
    await _migrate(db, "upgrade", revision)


async def downgrade(db: Database, revision: str = "base") -> None:
    await _migrate(db, "downgrade", revision)


async def _migrate(db: Database, action: str, revision: str) -> None:
    async with db.engine.begin() as connection:
        if not db.is_sqlite:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_ID})
        await connection.run_sync(_move, alembic_config(), action, revision)


async def ensure_schema(db: Database, *, auto_upgrade: bool = True) -> SchemaState:
    """Upgrade to head (if allowed); raise `SchemaError` with a clear message otherwise."""
    state = await schema_state(db)
    if state.unknown:
        raise SchemaError(
            f"the database schema is newer than this server: database revision "
            f"{', '.join(state.unknown)} is not among this code's migrations (head "
            f"{', '.join(state.heads)}). Run the newer server release, or downgrade the "
            f"database with that release's `alembic downgrade {', '.join(state.heads)}`."
        )
    if state.up_to_date:
        return state
    if not auto_upgrade:
        raise SchemaError(
            f"the database schema is behind this server (database "
            f"{', '.join(state.current) or 'empty'}, code {', '.join(state.heads)}) and "
            f"AUTO_MIGRATE is off: run `alembic upgrade head` first."
        )
    await upgrade(db)
    return await schema_state(db)
