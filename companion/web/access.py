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

The door before the token (``Gate``): a request's head must have arrived before its
token can be looked at, so every connection passes the gate first. Its first head must
be whole within a few seconds and a few kilobytes; one address holds a bounded number of
connections, and all of them together stay below the process's file limit, with room
kept for the rest of the server. At a limit the oldest connection that has not shown the
token makes room for the new one; when there is none, the new one is refused at once
with a 503. A stranger who holds sockets open thus never keeps a phone out.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import resource
from collections import OrderedDict
from collections.abc import Callable
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


# ------------------------------------------------------------------ the door
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
)
HEAD_ENDS = (b"\r\n\r\n", b"\n\n")  # the empty line that ends a request's head


def connection_limit(wanted: int, reserve: int) -> tuple[int, int]:
    """How many connections may be open at once, and how many descriptors are kept free
    below the file limit: ``wanted`` and ``reserve``, or fewer where the limit is lower
    (then half of it is kept free). The free ones are for the database, the log and the
    connections one turn of the loop accepts before the gate sees them. The soft limit
    is raised first, as far as the hard one lets it and the connections need."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + reserve
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        if target > soft:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
    if soft == resource.RLIM_INFINITY:
        return wanted, reserve
    room = min(reserve, soft // 2)
    return max(1, min(wanted, soft - room)), room


class Gate:
    """Who may hold a connection, looked at before a byte of it reaches aiohttp.

    - ``limit``: connections open at once in all; ``per_client``: from one address;
    - ``head_seconds``: the first request's head must be whole within this time, or the
      connection is closed (a later head on the same connection: aiohttp's keep-alive
      timeout, the same time);
    - ``head_bytes``: what a connection may send before a request on it gave the token
      (a phone's head is under 2 kB): past it, it is closed;
    - a connection whose request gave the token (``trust``) is the server's to keep;
      at a limit the oldest connection that has not (from that address, when it is the
      address that is full) is closed to make room; with none, the new connection is
      answered 503 and closed.

    ``refused``, ``evicted`` and ``late`` count what it did; ``said`` is told each
    refusal and each connection closed to make room (what, and why: its caller keeps
    them to one line a minute each).
    """

    def __init__(
        self,
        *,
        limit: int,
        per_client: int,
        room: int = 0,
        head_seconds: float,
        head_bytes: int,
        said: Callable[[str, str], None] | None = None,
    ) -> None:
        self.limit = limit
        self.room = room  # descriptors kept free below the file limit (connection_limit)
        self.per_client = per_client
        self.head_seconds = head_seconds
        self.head_bytes = head_bytes
        self.said = said
        self.open = 0
        self.refused = 0
        self.evicted = 0
        self.late = 0
        self._clients: dict[str, int] = {}
        self._strangers: OrderedDict[Guarded, None] = OrderedDict()  # oldest first
        self._strangers_of: dict[str, OrderedDict[Guarded, None]] = {}
        self._by_transport: dict[asyncio.BaseTransport, Guarded] = {}

    def protocol(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """The factory a listening socket is given: each connection's protocol is
        ``make()``'s (aiohttp's), behind the gate."""
        return lambda: Guarded(self, make)

    def clients(self) -> int:
        """Addresses with a connection open."""
        return len(self._clients)

    # ------------------------------------------------------------ in and out
    def admit(self, conn: Guarded) -> bool:
        """Whether ``conn`` (just made) may stay; room is made for it if a stranger can
        give it up."""
        client = conn.client
        if self._clients.get(client, 0) >= self.per_client and not self._evict(client):
            return self._refuse(f"{self.per_client} connections from one address")
        if self.open >= self.limit and not self._evict(None):
            return self._refuse(f"{self.limit} connections open")
        self.open += 1
        self._clients[client] = self._clients.get(client, 0) + 1
        self._strangers[conn] = None
        self._strangers_of.setdefault(client, OrderedDict())[conn] = None
        if conn.transport is not None:
            self._by_transport[conn.transport] = conn
        conn.counted = True
        return True

    def leave(self, conn: Guarded) -> None:
        """``conn`` is closed (or closing): its place is free."""
        if not conn.counted:
            return
        conn.counted = False
        self.open -= 1
        left = self._clients.get(conn.client, 0) - 1
        if left > 0:
            self._clients[conn.client] = left
        else:
            self._clients.pop(conn.client, None)
        self._forget_stranger(conn)
        if conn.transport is not None:
            self._by_transport.pop(conn.transport, None)

    def trust(self, transport: asyncio.BaseTransport | None) -> None:
        """The connection of ``transport`` gave the token: it is never made room from."""
        conn = self._by_transport.get(transport) if transport is not None else None
        if conn is not None and not conn.trusted:
            conn.trusted = True
            self._forget_stranger(conn)

    def _forget_stranger(self, conn: Guarded) -> None:
        self._strangers.pop(conn, None)
        mine = self._strangers_of.get(conn.client)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                del self._strangers_of[conn.client]

    def _evict(self, client: str | None) -> bool:
        """Close the oldest stranger (of ``client``, or of anyone): True if there was one."""
        pool = self._strangers if client is None else self._strangers_of.get(client)
        if not pool:
            return False
        oldest = next(iter(pool))
        self.leave(oldest)
        oldest.close()
        self.evicted += 1
        if self.said is not None:
            full = "from one address" if client is not None else "in all"
            self.said("evicted", f"the most connections {full}")
        return True

    def _refuse(self, why: str) -> bool:
        self.refused += 1
        if self.said is not None:
            self.said("refused", why)
        return False


class Guarded(asyncio.Protocol):
    """One connection behind the gate: refused at once, or handed to aiohttp's protocol
    (``make()``) with every event, its first request's head timed and what it sends
    measured until it gives the token."""

    def __init__(self, gate: Gate, make: Callable[[], asyncio.Protocol]) -> None:
        self.gate = gate
        self._make = make
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.client = ""
        self.counted = False  # in the gate's counts
        self.trusted = False  # a request on it gave the token
        self._deadline: asyncio.TimerHandle | None = None
        self._seen = 0  # bytes received before it gave the token
        self._tail = b""  # its last bytes (an end split across two reads)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        if not self.gate.admit(self):
            transport.write(REFUSED)
            transport.close()
            return
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self.gate.head_seconds, self._late)
        self.inner = self._make()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if not self.trusted:  # a stranger sends a few heads' worth in all, no more
            self._seen += len(data)
            if self._seen > self.gate.head_bytes:
                self.close()
                return
        if self._deadline is not None:  # the first head is still coming
            window = self._tail + data
            if any(end in window for end in HEAD_ENDS):
                self._deadline.cancel()
                self._deadline = None
            else:
                self._tail = window[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.gate.leave(self)
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def close(self) -> None:
        """Closed by the gate: its place is free at once (the socket a moment later)."""
        self.gate.leave(self)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _late(self) -> None:
        self._deadline = None
        self.gate.late += 1
        self.close()
