"""The phones' join link (docs/phones.md): ``http://ADDRESS:PORT/?t=TOKEN``, made from
where the web side listens and the token beside the game database, and the file the web
side leaves it in for the table's Phones screen.

Both sides use it: ``clank-companion serve`` (``companion.web``) and the touchscreen
(``companion.ui``), which must not load the web side (aiohttp, the game's replays) to
show a QR code. Standard library and ``companion.msg`` only.

On the Pi the kiosk has no network of its own (``PrivateNetwork=yes``): it cannot learn
the Pi's address on the table's Wi-Fi. The web service, once listening, writes its link
to ``$CLANK_WEB_URL_FILE`` (in its runtime directory, ``/run/clank-companion-web``;
readable by the owner and its group, never by others: the link holds the token), writes
it again when the token is renewed, and removes it when it stops; the kiosk's unit names
the same file.

The table renews the token (Settings, behind the admin PIN: ``renew_token``): the web
service, which may only read the state folder on the Pi, takes the new one at its next
request without a restart, and every link made with the old one stops working.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import secrets
import socket
import stat
from pathlib import Path

from companion.msg import N_, Refusal

URL_FILE_ENV = "CLANK_WEB_URL_FILE"  # where the web side leaves its join link
URL_FILE_MODE = 0o640  # the kiosk's account reads it; nobody else
MOST_URL_FILE = 1024  # a link and a line break; never more is read
_URL = re.compile(r"https?://[!-~]+")  # one line of printable ASCII, no space

_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters of the URL-safe alphabet
TOKEN_MODE = 0o600  # the owner's only, like the seal key beside it
MOST_TOKEN_FILE = 128  # a token and a line break; never more is read


class WebError(Refusal):
    """Why the web companion cannot start (one line, in the table's language)."""


# ------------------------------------------------------------------ the link
def lan_address() -> str:
    """This machine's address on its network (the one a phone on the same network
    reaches it by): the source address of a route outwards. No packet is sent."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # a documentation address: only the route is asked
        address: str = s.getsockname()[0]
        if address and not address.startswith("0."):
            return address
    return "127.0.0.1"


def join_url(host: str, port: int, token: str) -> str:
    """The link a phone joins by (its QR code is what the table shows)."""
    shown = host
    if host in ("", "0.0.0.0", "::"):
        shown = lan_address()
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(shown).version == 6:
            shown = f"[{shown}]"
    return f"http://{shown}:{port}/?t={token}"


def url_file() -> Path | None:
    """The file named by ``$CLANK_WEB_URL_FILE``; None when it names none."""
    named = os.environ.get(URL_FILE_ENV, "").strip()
    return Path(named) if named else None


def write_url_file(path: Path, url: str) -> None:
    """Put ``url`` in ``path`` (one line), whole or not at all, readable by its owner and
    group only whatever the umask. The folder must exist (on the Pi, systemd makes it:
    RuntimeDirectory=)."""
    _write_whole(path, url, URL_FILE_MODE, durable=False)


def _write_whole(path: Path, line: str, mode: int, *, durable: bool) -> None:
    """``line`` in ``path``, whole or not at all: a temporary file beside it (made here,
    never opened through a link someone left), its mode set whatever the umask, then
    renamed over the old one; ``durable``: flushed to the disk, the rename too (a power
    cut after it keeps the new file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have taken a part away
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(line + "\n")
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        _sync_folder(path.parent)


def remove_url_file(path: Path, url: str) -> None:
    """Remove ``path`` if it still holds ``url`` (a newer server's link is left alone)."""
    with contextlib.suppress(OSError, WebError):
        if read_url_file(path) == url:
            path.unlink()


def read_url_file(path: Path) -> str | None:
    """The link in ``path``; None when there is no such file. WebError for a file that
    cannot be read or holds no link."""
    text = _read_small(
        path,
        MOST_URL_FILE,
        cannot=N_("cannot read the phones' link {path}: {problem}"),
        not_file=N_("{path} is not a regular file: not the phones' link"),
    )
    if text is None:
        return None
    if len(text) >= MOST_URL_FILE or _URL.fullmatch(text) is None:
        raise WebError(N_("the phones' link {path} is damaged"), path=str(path))
    return text


# ------------------------------------------------------------------ the token
def token_path(database: Path) -> Path:
    return database.with_name(database.name + ".web-token")


def valid_token(text: str) -> bool:
    return _TOKEN.fullmatch(text) is not None


def read_token(path: Path) -> str | None:
    """The token in ``path``; None when there is no such file. WebError for a file that
    is no regular file, cannot be read or holds no whole token."""
    text = _read_small(
        path,
        MOST_TOKEN_FILE,
        cannot=N_("cannot read the token {path}: {problem}"),
        not_file=N_("{path} is not a regular file: not a token"),
    )
    if text is None:
        return None
    if not valid_token(text):
        raise WebError(
            N_("the token {path} is damaged: delete it and start again (a new one is made)"),
            path=str(path),
        )
    return text


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def renew_token(database: Path) -> str:
    """A new token beside ``database`` in place of the old one; the new token. Every
    link made with the old one stops working (the web service reads the file again when
    it changes). Written whole or not at all: a temporary file beside it, owner-only,
    flushed to the disk, then renamed over the old one. WebError when it cannot be."""
    path = token_path(database)
    token = new_token()
    try:
        _write_whole(path, token, TOKEN_MODE, durable=True)
    except OSError as e:
        raise WebError(
            N_("cannot write a new token {path}: {problem}"),
            path=str(path),
            problem=e.strerror or str(e),
        ) from None
    return token


def _sync_folder(folder: Path) -> None:
    """The rename on the disk too (a power cut after it keeps the new token)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def file_signature(path: Path) -> tuple[int, ...] | None:
    """What tells that a file changed, in one ``stat`` call: its inode (a file renamed
    into its place), size and modification and change times; None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _read_small(path: Path, most: int, *, cannot: str, not_file: str) -> str | None:
    """The stripped text of a small file (at most ``most`` bytes read); None when there
    is none. WebError ``not_file`` for anything but a regular file, ``cannot`` for one
    that cannot be read."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise WebError(not_file, path=str(path))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise WebError(cannot, path=str(path), problem=e.strerror or str(e)) from None
    try:
        raw = os.read(fd, most + 1)
    except OSError as e:
        raise WebError(cannot, path=str(path), problem=e.strerror or str(e)) from None
    finally:
        os.close(fd)
    return raw.decode("ascii", "replace").strip()
