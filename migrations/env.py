"""Alembic environment: async URLs, the same migrations on PostgreSQL and SQLite.

Two ways in: the server (`app.store.migrate`) hands over an open connection in
`config.attributes["connection"]`; the `alembic` command line opens its own from
`-x url=…`, `sqlalchemy.url`, or the app's settings (DATABASE_URL, else SQLite in data_dir).
SQLite cannot ALTER most things, so migrations run in batch mode there (`render_as_batch`).
A migration that rebuilds a table referenced by foreign keys on SQLite should switch
`PRAGMA foreign_keys` off around it.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from app.store.db import Database
from app.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    url = url or config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from app.config import Settings

    return Settings().effective_database_url


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_online() -> None:
    db = Database(_url())
    try:
        async with db.engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await db.dispose()


def _run_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
elif (shared := config.attributes.get("connection")) is not None:
    _run(shared)
else:
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    asyncio.run(_run_online())
