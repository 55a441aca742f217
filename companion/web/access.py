"""The phones' key to the web companion: one long random token, kept beside the game
database (``<database>.web-token``, owner-only), made once and then only read.

Whoever holds the token (the join link, its QR code) reads the table; nobody else
learns anything, not even that a game is running. The token is compared in constant
time. It is no secret of the game: it opens nothing that the table does not show
anyway, and the seal key beside it is never read by the web side.

On the Pi the installer makes the token (the web unit reads the state folder only);
anywhere else ``clank-companion serve`` makes it at its first start.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
from pathlib import Path

# the token's file is read in companion.join_link: the table's Phones screen reads it
# too, without loading the web side
from companion.join_link import WebError, read_token, token_path
from companion.msg import N_

TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters of the URL-safe alphabet


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def write_token(path: Path, token: str) -> bool:
    """Write ``token`` at ``path``, owner-only, whole or not at all (a temporary file,
    fsync, then a link into place). False if a token was there already: it is kept."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return True


def load_token(database: Path, *, create: bool = True) -> str:
    """The token beside ``database``, made at first use (``create``). WebError when it
    cannot be read or made (a read-only state folder: the installer makes it there)."""
    path = token_path(database)
    found = read_token(path)
    if found is not None:
        return found
    if not create:
        raise WebError(N_("there is no token {path}"), path=str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_token(path, new_token())
    except OSError as e:
        raise WebError(
            N_(
                "cannot make the token {path}: {problem} (on the Pi the installer makes it: "
                "sudo ./deploy/install.sh)"
            ),
            path=str(path),
            problem=e.strerror or str(e),
        ) from None
    made = read_token(path)  # another program's, if it made one first
    if made is None:
        raise WebError(N_("cannot make the token {path}"), path=str(path))
    return made


def token_matches(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token, compared in constant time (its length aside)."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("ascii"))
