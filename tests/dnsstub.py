"""A DNS server on loopback that answers one name with a list of IPv4 addresses, the way
Docker's DNS answers a compose service's name with one address per replica. Enough of
RFC 1035 for nginx's resolver: A queries over UDP; other types get no answer, other names
NXDOMAIN."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

TYPE_A = 1
CLASS_IN = 1


def _question(packet: bytes) -> tuple[str, int, int]:
    """The first question's name, type and the offset just past it."""
    labels, at = [], 12
    while packet[at]:
        size = packet[at]
        labels.append(packet[at + 1 : at + 1 + size].decode("ascii").lower())
        at += 1 + size
    qtype = struct.unpack_from("!H", packet, at + 1)[0]
    return ".".join(labels), qtype, at + 5


def answer(packet: bytes, name: str, addresses: list[str], ttl: int = 1) -> bytes:
    (ident,) = struct.unpack_from("!H", packet)
    qname, qtype, end = _question(packet)
    known = qname == name.lower()
    records = addresses if known and qtype == TYPE_A else []
    flags = 0x8180 if known else 0x8183  # response, recursion desired+available; NXDOMAIN
    out = struct.pack("!HHHHHH", ident, flags, 1, len(records), 0, 0) + packet[12:end]
    for address in records:  # the name: a pointer to the question's (offset 12)
        out += struct.pack("!HHHIH", 0xC00C, TYPE_A, CLASS_IN, ttl, 4)
        out += socket.inet_aton(address)
    return out


@contextmanager
def dns_server(name: str, addresses: list[str]) -> Iterator[int]:
    """Serve `name` -> `addresses` on 127.0.0.1; yields the UDP port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                packet, peer = sock.recvfrom(512)
            except TimeoutError:
                continue
            # a packet this stub does not understand gets no answer, as if it were lost
            with suppress(IndexError, struct.error, UnicodeDecodeError):
                sock.sendto(answer(packet, name, addresses), peer)

    thread = threading.Thread(target=serve, name="dns-stub", daemon=True)
    thread.start()
    try:
        yield int(sock.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        sock.close()
