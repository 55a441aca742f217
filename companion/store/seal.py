"""Keeping the server seed sealed while a game is on.

The database holds the seed only XOR-ed with a pad derived from a key file beside it
(``<database>.key``, readable by its owner only). The database alone, copied, exported
or opened in Datasette, does not reveal a running game's seed; the companion, which
holds the key file, can resume the game after a power cut.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from companion.i18n import N_
from companion.store.db import StoreError


def key_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".key")


def load_key(db_path: Path, *, create: bool) -> bytes:
    path = key_path(db_path)
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        if not create:
            raise StoreError(
                N_("the seal key {path} is missing: running games cannot be resumed"),
                path=str(path),
            ) from None
    except ValueError:
        raise StoreError(N_("the seal key {path} is damaged"), path=str(path)) from None
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    return key


def _pad(key: bytes, commitment: str) -> bytes:
    return hmac.new(key, b"seal:" + commitment.encode(), hashlib.sha256).digest()


def seal(key: bytes, server_seed: str, commitment: str) -> str:
    raw = bytes.fromhex(server_seed)
    return bytes(a ^ b for a, b in zip(raw, _pad(key, commitment), strict=True)).hex()


def unseal(key: bytes, sealed: str, commitment: str) -> str:
    seed = seal(key, sealed, commitment)  # XOR is its own inverse
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        raise StoreError(N_("the seal key does not open this game's seed"))
    return seed
