"""The phones' key to the web companion: one long random token, kept beside the game
database (``<database>.web-token``, owner-only), made once and then only read.

Whoever holds the token (the join link, its QR code) reads the table; nobody else
learns anything, not even that a game is running. The token is compared in constant
time. It is no secret of the game: it opens nothing that the table does not show
anyway, and the seal key beside it is never read by the web side.

On the Pi the installer makes the token (the web unit reads the state folder only);
anywhere else ``clank-companion serve`` makes it at its first start. The table renews it
(Settings, behind the admin PIN): the running server follows its file (``TokenFile``),
so the new token is the only one from the next request on, without a restart.
"""

from __future__ import annotations

import contextlib
import hmac
import os
from pathlib import Path

# the token's file is read (and renewed) in companion.join_link: the table's Phones and
# Settings screens use it too, without loading the web side
from companion.join_link import WebError, file_signature, new_token, read_token, token_path
from companion.msg import N_


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


def token_matches(given: str | None, token: str | None) -> bool:
    """Whether ``given`` is the token, compared in constant time (its length aside).
    No token (its file gone or damaged) matches nothing."""
    if not given or not token:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("ascii"))


_UNSEEN = (-1,)  # the file not looked at yet


class TokenFile:
    """The token as its file holds it now, for a server that runs for days. ``current``
    costs one ``stat`` call (the file's signature, ``file_signature``); the file is read
    again only when the signature changed. A renewed token is the only one from then
    on; a file gone or damaged lets nobody in until a whole token is there again.
    ``generation`` grows with every change of the token (the open event streams of the
    old one end)."""

    def __init__(self, path: Path, token: str | None) -> None:
        self.path = path
        self.token = token  # until the file is first looked at: what the server started with
        self.generation = 0
        self.problem = ""  # why there is no token, in English (for the log)
        self._seen: tuple[int, ...] | None = _UNSEEN

    def current(self) -> str | None:
        seen = file_signature(self.path)
        if seen == self._seen:
            return self.token
        first, self._seen = self._seen == _UNSEEN, seen
        found: str | None
        if seen is None:
            # no file: at the start (a server given its token) it is kept; a file that
            # went away takes the token with it
            found = self.token if first else None
            self.problem = "" if first else f"{self.path} is gone"
        else:
            try:
                found = read_token(self.path)
                self.problem = "" if found else f"{self.path} is gone"
            except WebError as e:
                found, self.problem = None, str(e)
        if found != self.token:
            self.token = found
            self.generation += 1
        return self.token
