"""Every client message of the wire catalog is answered exactly once: by the table (its rule
in `app.tables.table._RULES`, the catalog's model itself as its command) or by the socket
(`ws.LOCAL`: ping, resync). Adding a command touches the catalog, a rule and that map."""

from __future__ import annotations

from app.api import ws
from app.tables import table
from app.wire import catalog, client


def test_every_catalog_message_is_the_tables_or_the_sockets() -> None:
    local, commands = set(ws.LOCAL), set(table.COMMANDS)
    assert not local & commands, local & commands
    assert local | commands == set(client.MESSAGES)
    assert local == {client.Ping, client.ResyncMsg}
    assert {client.type_of(model) for model in client.MESSAGES} == set(catalog.CLIENT)
