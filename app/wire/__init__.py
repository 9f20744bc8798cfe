"""The table socket's wire catalog (docs/protocol.md), each thing defined once:

- `limits`: the named bounds (seats, chat length, frame size, ref and request id lengths).
- `envelope`: an event's text ``{"v":n,…}`` and how a reader finds its `v`.
- `client`: every message a client sends, a typed pydantic model.
- `events`: every event the table sends, a slotted dataclass with its `type`,
  `audience` and `body()`; the engine's own events are listed by reference.
- `catalog`: the registry of all of them, serialisable and the source of the protocol
  document's tables (`python -m app protocol-doc`).

Below `app.tables` and `app.api`: it imports only the engine (and the JSON text helpers).
"""
