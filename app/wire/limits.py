"""The wire's named bounds, used by the models and by whoever checks them again."""

from __future__ import annotations

from app.engine.rules import MAX_SEATS

MIN_SEATS = 2  # R1: 2 to MAX_SEATS seats at a table
MAX_BOTS = MAX_SEATS - 1  # a host fills at most every other seat with bots
CHAT_MAX = 200  # characters in one chat line
CHAT_LINE_MAX = 32  # characters in a chat line's id (`report_chat`)
MAX_FRAME = 4096  # bytes (UTF-8) of one client frame the server reads
# bytes the transport takes in one frame: a frame over MAX_FRAME and within this is answered
# `too_large` (the socket stays open); a larger one closes the socket (1009)
MAX_TRANSPORT_FRAME = 16 * MAX_FRAME
REF_MAX = 64  # characters of a message's `ref`, echoed in its answer
REQUEST_ID_MAX = 64  # characters of a buy-in's or top-up's `request_id`
REQUEST_ID_PATTERN = r"^[A-Za-z0-9_.:-]+$"
HAND_ID_MAX = 32  # characters of a `hand_id` an `act` names
EPOCH_MAX = 16  # characters of a table's `epoch` a `resync` names
MAX_CHIPS = 10**12  # any amount of chips a message names
CHANGES_DEPTH = 16  # levels of a host's settings changes (the servers' JSON takes 254)

__all__ = [
    "CHANGES_DEPTH",
    "CHAT_LINE_MAX",
    "CHAT_MAX",
    "EPOCH_MAX",
    "HAND_ID_MAX",
    "MAX_BOTS",
    "MAX_CHIPS",
    "MAX_FRAME",
    "MAX_SEATS",
    "MAX_TRANSPORT_FRAME",
    "MIN_SEATS",
    "REF_MAX",
    "REQUEST_ID_MAX",
    "REQUEST_ID_PATTERN",
]
