"""The table socket answers every client message of the wire catalog, each by one handler:
adding a message touches the catalog and its handler, and nothing else."""

from __future__ import annotations

from app.api import ws
from app.wire import catalog, client


def test_every_catalog_message_has_exactly_one_handler() -> None:
    assert set(ws.HANDLERS) == set(client.MESSAGES)
    assert {client.type_of(model) for model in ws.HANDLERS} == set(catalog.CLIENT)
