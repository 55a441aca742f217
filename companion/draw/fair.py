"""Commit-reveal fair draw, byte-exact to the published algorithm.

- ``server_seed``: 32 random bytes, shown as 64 lowercase hex characters.
- ``commitment``: SHA-256 of the 32 raw seed bytes, lowercase hex.
- The byte stream of one draw event is
  ``HMAC-SHA256(server_seed, f"{client_seed}:{nonce}:{counter}")`` for counter 0, 1, 2, ...
  consumed four bytes at a time as big-endian unsigned 32-bit integers.
- ``index_below(n)`` rejects values at or above ``2**32 - 2**32 % n`` (no modulo bias).
- The bag is laid out black first, then each player's cubes in seat order, then ghosts;
  each draw removes the chosen cube and keeps the order of the rest.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Mapping, Sequence

Bag = Mapping[str, int]

_U32 = 2**32


def new_server_seed() -> str:
    """A fresh server seed from the operating system's CSPRNG, as 64 hex characters."""
    return secrets.token_bytes(32).hex()


def seed_bytes(server_seed: str) -> bytes:
    """The 32 raw bytes of a server seed given as 64 hex characters."""
    if len(server_seed) != 64:
        raise ValueError("a server seed is 64 hexadecimal characters")
    try:
        raw = bytes.fromhex(server_seed)
    except ValueError:
        raise ValueError("a server seed is 64 hexadecimal characters") from None
    return raw


def commitment(server_seed: str) -> str:
    """The lowercase hex SHA-256 of the raw seed bytes: what the table sees first."""
    return hashlib.sha256(seed_bytes(server_seed)).hexdigest()


def stream(server_seed: str, client_seed: str, nonce: int) -> Iterator[int]:
    """The draw event's stream of unsigned 32-bit integers (endless)."""
    key = seed_bytes(server_seed)
    counter = 0
    while True:
        message = f"{client_seed}:{nonce}:{counter}".encode()
        block = hmac.new(key, message, hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def index_below(n: int, values: Iterator[int]) -> int:
    """An unbiased index in ``range(n)`` taken from the stream (rejection sampling)."""
    if n < 1:
        raise ValueError("index_below needs n >= 1")
    limit = _U32 - (_U32 % n)
    while True:
        x = next(values)
        if x < limit:
            return x % n


def canonical_bag(counts: Bag, seats: Sequence[str]) -> list[str]:
    """The bag as an ordered list: black, then players in seat order, then ghost."""
    order = ["black", *seats, "ghost"]
    unknown = set(counts) - set(order)
    if unknown:
        raise ValueError(f"unknown cube kinds in the bag: {', '.join(sorted(unknown))}")
    bag: list[str] = []
    for kind in order:
        bag.extend([kind] * counts.get(kind, 0))
    return bag


def draw_cubes(
    server_seed: str,
    client_seed: str,
    nonce: int,
    counts: Bag,
    seats: Sequence[str],
    m: int,
) -> list[str]:
    """Draw ``m`` cubes (capped at the bag's size) for draw event ``nonce``; in draw order."""
    if nonce < 1:
        raise ValueError("nonces start at 1")
    bag = canonical_bag(counts, seats)
    values = stream(server_seed, client_seed, nonce)
    drawn: list[str] = []
    for _ in range(min(max(m, 0), len(bag))):
        j = index_below(len(bag), values)
        drawn.append(bag.pop(j))
    return drawn
