"""Keeping the server seed sealed while a game is on.

The database holds the seed only XOR-ed with a pad derived from a key file beside it
(``<database>.key``, readable by its owner only). The database alone, copied, exported
or opened in Datasette, does not reveal a running game's seed; the companion, which
holds the key file, can resume the game after a power cut.

The key is exactly 32 random bytes, written as 64 hexadecimal digits and a newline. It is
written atomically (a temporary file, fsync, rename, fsync of the folder) before any seed
is sealed with it, so a power cut or a full disk leaves either no key or the whole key.
A key of any other shape is refused, never used: an empty or short key would make every
sealed seed readable from the database alone. So is a key that is no regular file (a
pipe would hang the table, a link to /dev/zero fill its memory): it is never waited
for, nor read beyond a whole key's length. A key that others can read is made private
(mode 0600) when it is read, and the log says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
import stat
from pathlib import Path

from companion.i18n import N_, Msg
from companion.store.db import StoreError

KEY_BYTES = 32
_KEY_TEXT = re.compile(r"[0-9a-f]{64}\n?")


class SealError(StoreError):
    """The seal key is missing, damaged or not this game's: a running game cannot be
    resumed (its log can still be verified up to its last record)."""


def key_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".key")


# A whole key is 65 bytes (64 digits and a newline): a few more are read to tell a longer
# file from a whole key, never more (the key could be a link to /dev/zero).
MOST_KEY_BYTES = 2 * KEY_BYTES + 8
log = logging.getLogger(__name__)


def read_key_file(path: Path, *, private: bool = False) -> bytes:
    """The bytes of a key file, at most MOST_KEY_BYTES + 1 of them. A key is a regular
    file (a link to one will do): a pipe, a device or a folder is refused unopened
    (SealError), and opened without waiting, so that one put in its place meanwhile
    cannot hang the table either.

    ``private``: a key that others can read is made readable by its owner only, and
    the log says so; StoreError (not a SealError: the key is whole, the game is not
    lost) if its mode cannot be changed."""
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise _not_a_file(path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise SealError(
            N_("the seal key {path} is missing: running games cannot be resumed"),
            path=str(path),
        ) from None
    except OSError as e:
        raise _unreadable(path, e) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # swapped for something else meanwhile
            raise _not_a_file(path)
        if private:
            _make_private(fd, path, opened.st_mode)
        chunks: list[bytes] = []
        size = 0
        while size <= MOST_KEY_BYTES:
            chunk = os.read(fd, MOST_KEY_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise _unreadable(path, e) from None
    finally:
        os.close(fd)


def _not_a_file(path: Path) -> SealError:
    return SealError(
        N_(
            "the seal key {path} is not a regular file (a pipe, a device or a folder): "
            "running games cannot be resumed"
        ),
        path=str(path),
    )


def _unreadable(path: Path, e: OSError) -> SealError:
    return SealError(
        N_("the seal key {path} cannot be read ({problem})"),
        path=str(path),
        problem=e.strerror or str(e),
    )


def _make_private(fd: int, path: Path, mode: int) -> None:
    """Take away what others may do with the key (group and others); said in the log."""
    loose = stat.S_IMODE(mode)
    if not loose & 0o077:
        return
    try:
        os.fchmod(fd, loose & 0o700)
    except OSError as e:
        raise StoreError(
            N_(
                "the seal key {path} can be read by other users (mode {mode}) and its mode "
                "cannot be changed ({problem}): make it readable by its owner only "
                "(chmod 600), then try again"
            ),
            path=str(path),
            mode=f"{loose:04o}",
            problem=e.strerror or str(e),
        ) from None
    log.warning(
        "%s",
        Msg(
            N_(
                "the seal key {path} could be read by other users (mode {mode}): it is now "
                "readable by its owner only (mode {now})"
            ),
            path=str(path),
            mode=f"{loose:04o}",
            now=f"{loose & 0o700:04o}",
        ).localized(),
    )


def read_key(db_path: Path) -> bytes:
    """The key beside the database; SealError if it is missing, not a regular file or
    not a whole key (see ``read_key_file``)."""
    path = key_path(db_path)
    raw = read_key_file(path, private=True)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        text = ""
    if not _KEY_TEXT.fullmatch(text):
        raise SealError(
            N_(
                "the seal key {path} is damaged (it must be {digits} hexadecimal digits): "
                "running games cannot be resumed"
            ),
            path=str(path),
            digits=2 * KEY_BYTES,
        )
    return bytes.fromhex(text.strip())


def write_key_atomically(path: Path, key: bytes, *, replace: bool = False) -> bool:
    """Write ``key`` at ``path`` so that a cut at any moment leaves no file or the whole
    key: a temporary file, fsync, then a link (or, with ``replace``, a rename) into
    place, fsync of the folder. Without ``replace`` an existing key is never
    overwritten, even by another program making one at the same moment: False then."""
    if len(key) != KEY_BYTES:
        raise ValueError("a seal key is 32 bytes")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # left by a program of the same number that was killed
    # made here, never opened through a link or a pipe someone left in its place
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(key.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if a key is there: the first one made wins
            except FileExistsError:
                return False
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    fsync_folder(path.parent)
    return True


def fsync_folder(folder: Path) -> None:
    dirfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dirfd)
    finally:
        os.close(dirfd)


def load_key(db_path: Path, *, create: bool) -> bytes:
    """The key beside the database. With ``create``, a missing key is made (atomically)
    first; a damaged one is never replaced here (see GameStore.start)."""
    path = key_path(db_path)
    try:
        return read_key(db_path)
    except SealError:
        if not create:
            raise
        if path.exists() or path.is_symlink():
            # made meanwhile by another program (read it), or damaged (refused again)
            return read_key(db_path)
    key = secrets.token_bytes(KEY_BYTES)
    try:
        write_key_atomically(path, key)
    except OSError as e:
        raise StoreError(
            N_("cannot write the seal key {path} ({problem}): no game was started"),
            path=str(path),
            problem=e.strerror or str(e),
        ) from None
    return read_key(db_path)  # what is on disk is what seals


def _pad(key: bytes, commitment: str) -> bytes:
    return hmac.new(key, b"seal:" + commitment.encode(), hashlib.sha256).digest()


def seal(key: bytes, server_seed: str, commitment: str) -> str:
    if len(key) != KEY_BYTES:
        raise SealError(N_("the seal key is not a whole key: nothing was sealed"))
    raw = bytes.fromhex(server_seed)
    return bytes(a ^ b for a, b in zip(raw, _pad(key, commitment), strict=True)).hex()


def unseal(key: bytes, sealed: str, commitment: str) -> str:
    try:
        seed = seal(key, sealed, commitment)  # XOR is its own inverse
    except ValueError:
        raise SealError(N_("the sealed seed in the database is damaged")) from None
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        raise SealError(N_("the seal key does not open this game's seed"))
    return seed
