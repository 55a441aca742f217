"""``clank-companion serve``: the table's game for every player's phone, read-only.

One aiohttp application in a process of its own. It reads the game database read-only
(``companion.web.reader``) and never the seal key; the table's app stays the only
writer, and nothing that happens here can touch the game.

- ``/`` the page (with ``?t=TOKEN`` the first time: the token is then kept in a cookie);
  ``/static/NAME`` its script and style, served from memory;
- ``/api/state`` (``?game=N``) the newest game (or game N): ``{"game", "state", ...}``,
  ``state`` being the table script's ``replay --json`` output (a game of a kind the
  phones cannot show: ``{"game", "error": "not_shown", ...}``, and nothing of its log);
- ``/api/events``: Server-Sent Events, the same object after every committed change, and
  an ``alive`` event every 15 s (the page tells a dead path by its absence);
- ``/api/proof``, ``/api/export``, ``/api/bgstats`` (``?game=N``): once that game has
  ended, else 404 and nothing more;
- ``/api/words``: the page's words in the table's language;
- ``/api/games``: the newest games (number, box, status, date), so that a phone reaches
  the last game's scores and proof once the table has begun the next one.

Every request needs the token (``?t=``, ``Authorization: Bearer``, or the cookie);
without it the answer is 403 with an empty body, whatever was asked. The token is its
file's (``TokenFile``: a ``stat`` call per request, the file read again when it changed):
renewed on the table, the new one is the only one at once, and the streams opened with
the old one end. One watcher looks at the database (SQLite's ``PRAGMA data_version`` and
two ``stat`` calls; the game is read only when they change, and every two seconds in any
case) and pushes a change to every open stream at once. It looks as soon as the table
writes to the database's files (``notice``: the kernel tells, through inotify), then
every 5 ms until the commit shows (for a quarter of a second at most), whatever the
disk's flush takes; otherwise ten times a second. A commit thus reaches the phones
within a few tens of milliseconds, and an idle server costs no more than its poll. It
looks at the token's file and (``serve``) at the settings file too: a new token writes
the join link again, and a new language of the table is the page's from then on.

A game asked for by number (its state, proof, export, BG Stats play) is made once per
state of its log and language, and the same bytes go to every request that asks for it
meanwhile: requests that ask at once wait for one answer, and at most
``REPLAYS_AT_ONCE`` different ones are being made at a time.

Before any of that, every connection passes the gate (``access.Gate``, ``serve``): its
request head within ``HEAD_SECONDS``, at most ``MAX_PER_CLIENT`` connections from one
address and ``MAX_CONNECTIONS`` in all, below the file limit; a stranger's connection
makes room for a phone's. Running out of a resource anyway is one line a minute in the
log, never a traceback.

Why one module of over 600 lines: the routes, the token's check, the event streams and
the watching of the database, the token and the settings share one running server and
its state; what they read and say is in ``view``, ``words``, ``proof``, ``reader`` and
``access`` (the token, and the gate before it) beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import json
import logging
import os
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http_exceptions import HttpProcessingError

from companion.i18n import current_language, set_language
from companion.join_link import join_url, remove_url_file, token_path, url_file, write_url_file
from companion.resources import package_path
from companion.web.access import Gate, TokenFile, connection_limit, load_token, token_matches
from companion.web.colours import NAME as COLOURS_CSS
from companion.web.colours import palette_css
from companion.web.notice import Writes
from companion.web.reader import Games, NoSuchGame, NotShown, ReplayedGame, Unavailable
from companion.web.words import TableLanguage, page_html, page_words

log = logging.getLogger("companion.web")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
POLL_SECONDS = 0.1  # how often the watcher looks at the database files
QUICK_SECONDS = 0.005  # how often it looks after the table wrote to them...
QUICK_FOR = 0.25  # ...until a new state is published, for this long at most
RECHECK_SECONDS = 2.0  # the database itself is read at least this often
KEEPALIVE_SECONDS = 15.0  # an "alive" event this often on every stream: a dead path shows
MAX_STREAMS = 200  # open event streams at once (a table has at most six phones each)
# The gate (access.Gate): what a stranger's connection may hold before it gives the token
HEAD_SECONDS = 5.0  # a head whole this soon after the connection (or after the last answer)
HEAD_BYTES = 16 * 1024  # bytes sent before a request gave the token (a phone's head: < 2 kB)
MAX_PER_CLIENT = 32  # connections open at once from one address (a browser opens <= 6)
MAX_CONNECTIONS = 2048  # connections open at once in all (fewer under a lower file limit)
FD_RESERVE = 256  # file descriptors kept free below the limit, for all but connections
ACCEPTS = 32  # connections accepted in one turn of the loop, at most
LISTEN_QUEUE = 1024  # connections the kernel holds until they are accepted
REPLAYS_AT_ONCE = 2  # games being read and made into an answer at a time
KEPT_BODIES = 8  # answers kept made (a game's state, proof, export, BG Stats play)
RARE_SECONDS = 60.0  # a trouble that repeats is said once this often
MAX_QUERY = 2048  # bytes of a query string
MAX_LINE = 4096  # bytes of the request line, and of one header
MAX_HEADERS = 64  # headers of one request
COOKIE = "clank_table"
COOKIE_SECONDS = 12 * 3600  # an evening
GAME_DIGITS = 18  # a game number has at most this many digits
LISTED_GAMES = 12  # games /api/games names, the newest first

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
}
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
JSON_TYPE = "application/json; charset=utf-8"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _json(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def static_files(folder: Path | None = None) -> dict[str, tuple[bytes, str]]:
    """The page's files, read once: name -> (bytes, content type), with the players'
    colours made from the table's palette (``colours.css``). Only these names are ever
    served (no path is looked up on the disk per request)."""
    folder = folder or package_path("web", "static")
    files = {}
    for path in sorted(folder.iterdir()):
        kind = CONTENT_TYPES.get(path.suffix)
        if kind is not None and path.is_file() and not path.name.startswith("."):
            files[path.name] = (path.read_bytes(), kind)
    files[COLOURS_CSS] = (palette_css().encode("utf-8"), CONTENT_TYPES[".css"])
    return files


def _no_state(error: str) -> bytes:
    """The body of /api/state (and of an event) without a game: why, and the language
    the page's words are in."""
    return _json({"game": None, "error": error, "lang": current_language()})


def _not_shown(e: NotShown) -> bytes:
    """The body of /api/state (and of an event) for a game the phones cannot show (its
    kind has no phones part): its number, edition and title, and nothing of its log."""
    from companion.store.tags import edition_title

    return _json(
        {
            "game": e.game,
            "error": "not_shown",
            "edition": e.edition,
            "title": edition_title(e.edition),
            "lang": current_language(),
        }
    )


class _OneLine(logging.Filter):
    """The web side's log holds no traceback: an exception is its one-line message. A
    request the HTTP parser refused is said without its content (the token may be in
    it), as what it is: a client's mistake, not the server's."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            e = record.exc_info[1]
            if isinstance(e, HttpProcessingError):
                record.msg = f"refused a malformed request ({type(e).__name__}, {e.code})"
                record.levelno, record.levelname = logging.INFO, "INFO"
            else:
                record.msg = f"{record.getMessage()}: {type(e).__name__}: {e}"
            record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


RESOURCE_ERRORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
RESOURCE_WORDS = tuple(os.strerror(code) for code in RESOURCE_ERRORS)


class _Rarely:
    """A trouble that repeats (the same ``key``) is said once every ``seconds``; the line
    that says it again tells how many times it came meanwhile."""

    def __init__(self, seconds: float = RARE_SECONDS) -> None:
        self.seconds = seconds
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def due(self, key: str) -> int | None:
        """None: not to be said now; else how many were held back since it was said."""
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.seconds:
            self._held[key] = self._held.get(key, 0) + 1
            return None
        self._last[key] = now
        return self._held.pop(key, 0)


class _ResourceLines(logging.Filter):
    """Out of file descriptors, buffers or memory (a flood of connections): one line a
    minute, whoever says it (the event loop's accept, a request, the watcher), never one
    per turn of the loop. Runs after ``_OneLine``: the exception is in the message."""

    def __init__(self) -> None:
        super().__init__()
        self.rarely = _Rarely()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if not any(words in text for words in RESOURCE_WORDS):
            return True
        held = self.rarely.due("resources")
        if held is None:
            return False
        if held:
            text += f" ({held} more like it since the last such line)"
        record.msg, record.args = text, None
        return True


def _loop_trouble(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's own troubles (an accept that failed, a callback that raised) in
    one line of the web side's log; a flood of them is held back by ``_ResourceLines``."""
    what = str(context.get("message") or "the event loop")
    e = context.get("exception")
    if isinstance(e, BaseException):
        log.warning("%s: %s: %s", what, type(e).__name__, e)
    else:
        log.warning("%s", what)


class _AccessLog(AbstractAccessLogger):
    """Method, path and status only: never the query (the token may be in it)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        level = logging.WARNING if response.status >= 500 else logging.DEBUG
        self.logger.log(level, "%s %s %s", request.method, request.path, response.status)


ALIVE = b"event: alive\ndata: {}\n\n"  # every KEEPALIVE_SECONDS on each stream


def _state_event(body: bytes) -> bytes:
    return b"event: state\ndata: " + body + b"\n\n"


class Hub:
    """The newest game as every stream sends it: the bytes (and the event that carries
    them, made once for every stream), and a version that grows with each change;
    streams wait on it instead of asking."""

    def __init__(self) -> None:
        self.status = 503
        self.body = _no_state("starting")
        self.event = _state_event(self.body)
        self.version = 0
        self.streams = 0
        self.closed = False
        self._changed = asyncio.Event()

    def publish(self, status: int, body: bytes) -> None:
        self.status, self.body = status, body
        self.event = _state_event(body)
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def close(self) -> None:
        self.closed = True
        self._changed.set()

    def wake(self) -> None:
        """Every waiting stream looks again, with nothing new to send (whether it may go
        on: the token it was opened with may be gone)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait(self, seen: int, timeout: float) -> bool:
        """Until the version is no longer ``seen`` (True) or ``timeout`` passed."""
        if self.version != seen or self.closed:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
            return True
        return False


class WebCompanion:
    """The application's state: the database's games (read in one worker thread), the
    hub, the token (its file followed), the page's files and words.

    ``language``: the table's settings, followed (``serve``); without it the server
    speaks the language it was started in. ``on_token``: told each new token (None:
    there is none any more) once the watcher has seen it. ``gate``: the connections'
    (``serve`` sets it), told of each connection whose request gave the token."""

    def __init__(
        self,
        database: Path,
        token: str,
        *,
        poll: float = POLL_SECONDS,
        language: TableLanguage | None = None,
        on_token: Callable[[str | None], None] | None = None,
    ) -> None:
        self.database = database
        self.access = TokenFile(token_path(database), token)
        self.poll = poll
        self.language = language
        self.on_token = on_token
        self.games = Games(database)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clank-web-db")
        self.hub = Hub()
        self.files = static_files()
        self.words = _json(page_words())
        self.page = page_html(self.files["index.html"][0])  # in the table's language
        self._watcher: asyncio.Task[None] | None = None
        self._writes = Writes(database, self._written)
        self._wrote_at: float | None = None  # when the table last wrote (loop.time())
        self._pausing: asyncio.Future[None] | None = None  # the watcher's pause
        self._problem: str | None = None
        self._damaged: tuple[int, int] | None = None
        self._generation = self.access.generation  # the token the watcher saw last
        self._trouble = _Rarely()  # the watcher's troubles, said once a minute
        self.gate: Gate | None = None
        # the answers made, in the database's thread: (what, game) -> (the state of its
        # log and the language they were made for, the game, the bytes)
        self._bodies: OrderedDict[tuple[str, int], tuple[tuple[Any, ...], int, bytes]] = (
            OrderedDict()
        )
        # answers being made, each awaited by every request that asks for it meanwhile
        self._asking: dict[tuple[str, int | None], asyncio.Task[tuple[int, bytes] | None]] = {}
        self._replays = asyncio.Semaphore(REPLAYS_AT_ONCE)

    @property
    def token(self) -> str | None:
        """The token now (its file looked at: one ``stat`` call)."""
        return self.access.current()

    # ------------------------------------------------------------ the database, in its thread
    async def run(self, call: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, call, *args)

    def _newest(self) -> tuple[int, bytes]:
        try:
            found = self.games.game(None)
            body = _json(found.payload())
            problem = None
            status = 200
            if found.damaged is not None and (found.game, found.damaged) != self._damaged:
                self._damaged = (found.game, found.damaged)
                log.warning(
                    "game %s: record %s does not replay as recorded (%s); the phones see the"
                    " game before it",
                    found.game,
                    found.damaged,
                    found.damaged_reason,
                )
        except NoSuchGame:
            status, body, problem = 404, _no_state("no_game"), None
        except NotShown as e:
            status, body, problem = 404, _not_shown(e), None
        except Unavailable as e:
            if e.code == "no_database":
                status, body, problem = 404, _no_state("no_game"), None
            else:
                status, body, problem = 503, _no_state("unreadable"), str(e)
        if problem != self._problem:
            if problem:
                log.warning("the game database cannot be read: %s", problem)
            elif self._problem:
                log.info("the game database can be read again")
            self._problem = problem
        return status, body

    def _answer(self, what: str, number: int | None) -> tuple[int, bytes] | None:
        """In the database's thread: ``what`` ("state", "proof", "export", "bgstats") of
        game ``number`` (None: the newest), as (the game, the body); None where there is
        none (before the end; an abandoned game's BG Stats play). Made once per state of
        the game's log (its last record's hash) and language, then the same bytes."""
        if number is None:
            number = self.games.newest()
        found = self.games.game(number)
        if what != "state" and not found.ended:
            return None  # not before the end: nothing more is said
        if what == "bgstats" and found.status != "over":
            return None  # an abandoned game has no scores
        seen = (
            found.seq,
            found.head,
            found.damaged,
            found.status,
            found.closed,
            found.ended_at,
            current_language(),
        )
        kept = self._bodies.get((what, number))
        if kept is not None and kept[0] == seen:
            self._bodies.move_to_end((what, number))
            return kept[1], kept[2]
        body = self._make(what, found)
        self._bodies[(what, number)] = (seen, found.game, body)
        while len(self._bodies) > KEPT_BODIES:
            self._bodies.popitem(last=False)
        return found.game, body

    def _listed(self) -> tuple[int, bytes]:
        """In the database's thread: /api/games, the newest LISTED_GAMES games as the
        games table names them (what each one is, its state and proof come from its log
        when it is asked for)."""
        from companion.store.tags import edition_title

        try:
            rows = self.games.db.query(
                "SELECT id, edition, status, created_at FROM games ORDER BY id DESC LIMIT ?",
                [LISTED_GAMES],
            )
        except Unavailable as e:
            if e.code == "no_database":
                rows = []
            else:
                return 503, _json({"games": [], "error": "unreadable", "lang": current_language()})
        listed = [
            {
                "game": game,
                "edition": edition,
                "title": edition_title(str(edition)),
                "status": status,
                "created_at": created_at,
            }
            for game, edition, status, created_at in rows
            if isinstance(game, int)
            and all(isinstance(v, str) for v in (edition, status, created_at))
        ]
        return 200, _json({"games": listed, "lang": current_language()})

    def _make(self, what: str, found: ReplayedGame) -> bytes:
        if what == "state":
            return _json(found.payload())
        if what == "proof":
            from companion.web.proof import proof

            return _json(proof(found))
        if what == "export":
            from companion.web.proof import export_text

            text = export_text(self.games.db.connection(), self.database, found.game)
            return text.encode("utf-8")
        from companion.web.bgstats import push_link

        data = bgstats_play(found)
        return _json({"url": push_link(data), "play": data})

    async def answer(self, what: str, number: int | None) -> tuple[int, bytes] | None:
        """``_answer``, made in the database's thread; requests asking for the same one
        meanwhile wait for that one (never a copy each), and at most
        ``REPLAYS_AT_ONCE`` different ones are made at a time. NoSuchGame, NotShown,
        Unavailable."""
        key = (what, number)
        task = self._asking.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._answer_once(what, number))
            self._asking[key] = task
            task.add_done_callback(functools.partial(self._answered, key))
        return await asyncio.shield(task)

    async def _answer_once(self, what: str, number: int | None) -> tuple[int, bytes] | None:
        async with self._replays:
            found: tuple[int, bytes] | None = await self.run(self._answer, what, number)
            return found

    def _answered(self, key: tuple[str, int | None], task: asyncio.Task[Any]) -> None:
        if self._asking.get(key) is task:
            del self._asking[key]
        if not task.cancelled():
            task.exception()  # taken: each request that waited has it (none may be left)

    def _follow_language(self) -> bool:
        """In the database's thread (the language is the whole process's, and the games
        are worded there): the table's language, if its settings changed it. True when
        the page's words changed with it."""
        if self.language is None:
            return False
        language = self.language.changed()
        if language is None:
            return False
        set_language(language)
        self.words = _json(page_words())
        self.page = page_html(self.files["index.html"][0])
        self.games.forget_words()
        log.info("the table's language is now %s", language)
        return True

    def _follow_token(self) -> None:
        """A token renewed (or gone) since the watcher looked last: the streams opened
        with the old one end, and whoever wants the new one is told."""
        token = self.access.current()
        if self.access.generation == self._generation:
            return
        self._generation = self.access.generation
        if token is None:
            log.warning("no token any more (%s): every request is refused", self.access.problem)
        else:
            log.info("the phones' token changed: the old join link is refused from now on")
        self.hub.wake()
        if self.on_token is not None:
            try:
                self.on_token(token)
            except Exception as e:  # the phones still get in with the new token
                log.warning("telling the new join link: %s: %s", type(e).__name__, e)

    # ------------------------------------------------------------ the watcher
    def _changed(self) -> tuple[Any, ...]:
        """What tells a commit: the files' signature (a file replaced, the table's app
        opening or closing it) and SQLite's data_version (every commit of another
        connection). Both cost a few microseconds."""
        return (self.games.db.signature(), self.games.db.data_version())

    def _written(self) -> None:
        """The table wrote to the database's files (``notice``): the watcher looks now."""
        self._wrote_at = asyncio.get_running_loop().time()
        if self._pausing is not None and not self._pausing.done():
            self._pausing.set_result(None)

    async def _pause(self, seconds: float) -> None:
        """Until ``seconds`` have passed or the table writes, whichever comes first."""
        loop = asyncio.get_running_loop()
        self._pausing = loop.create_future()
        timer = loop.call_later(seconds, _settle, self._pausing)
        try:
            await self._pausing
        finally:
            timer.cancel()
            self._pausing = None

    def _look(
        self, last: tuple[Any, ...] | None, due: bool, follow: bool
    ) -> tuple[tuple[Any, ...], tuple[int, bytes] | None]:
        """One look, in the database's thread at one go (on a busy machine each turn to
        that thread can wait a few milliseconds): the language (``follow``), has anything
        been committed since ``last``, and only then (or when ``due``) the newest game.
        What was seen is what it was before the read: a commit during it shows next time."""
        if follow and self._follow_language():
            last = None  # the game worded again in the new language
        seen = self._changed()
        return seen, (self._newest() if seen != last or due else None)

    async def watch(self) -> None:
        """Has anything been committed? Asked as soon as the table writes, then every
        5 ms for a quarter of a second or until a new state is published (the commit
        shows once its flush to the disk is done), and ten times a second in any case.
        Only then is the newest game brought up to date (and every two seconds in any
        case), and a change is published to every stream at once. The token and the
        language: ten times a second."""
        loop = asyncio.get_running_loop()
        last: tuple[Any, ...] | None = None
        checked = 0.0
        followed = -self.poll
        while not self.hub.closed:
            try:
                now = loop.time()
                follow = now - followed >= self.poll
                if follow:
                    followed = now
                    self._follow_token()
                due = now - checked >= RECHECK_SECONDS
                wrote = self._wrote_at
                seen, newest = await self.run(self._look, last, due, follow)
                if newest is not None:
                    last, checked = seen, now
                    if newest != (self.hub.status, self.hub.body):
                        self.hub.publish(*newest)
                        if self._wrote_at == wrote:  # the write shown, none since
                            self._wrote_at = None
            except asyncio.CancelledError:
                raise
            except Exception as e:  # never the end of the watcher: said, then tried again
                trouble = f"{type(e).__name__}: {e}"
                held = self._trouble.due(trouble)
                if held is not None:  # the same trouble again: once a minute
                    more = f" ({held} more times)" if held else ""
                    log.warning("watching the game database: %s%s", trouble, more)
            wrote = self._wrote_at
            quick = wrote is not None and loop.time() - wrote < QUICK_FOR
            await self._pause(QUICK_SECONDS if quick else self.poll)

    async def start(self, app: web.Application) -> None:
        status, body = await self.run(self._newest)
        self.hub.publish(status, body)
        problem = self._writes.start()
        if problem is not None:
            log.info("the database is looked at %g times a second (%s)", 1 / self.poll, problem)
        self._watcher = asyncio.get_running_loop().create_task(self.watch())

    async def stop(self, app: web.Application) -> None:
        self.hub.close()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        self._writes.close()
        await self.run(self.games.close)
        self.pool.shutdown(wait=True)

    async def shutdown(self, app: web.Application) -> None:
        self.hub.close()  # every open stream ends now


# ------------------------------------------------------------------ requests
def _bearer(request: web.BaseRequest) -> str | None:
    value = request.headers.get("Authorization", "")
    scheme, _sp, given = value.partition(" ")
    return given.strip() if scheme.lower() == "bearer" else None


def _given_tokens(request: web.BaseRequest) -> list[str]:
    found = []
    query = request.query.getall("t", [])
    if query:
        found.append(query[0])
    bearer = _bearer(request)
    if bearer:
        found.append(bearer)
    cookie = request.cookies.get(COOKIE)
    if cookie:
        found.append(cookie)
    return found


def _allowed(request: web.BaseRequest, token: str | None) -> bool:
    """Whether the request gives the token (each way it may, in constant time)."""
    return any(token_matches(given, token) for given in _given_tokens(request))


def _app_state(request: web.Request) -> WebCompanion:
    companion: WebCompanion = request.app[APP_KEY]
    return companion


@web.middleware
async def security(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer: the token checked first (403, empty, for anything without it), the
    limits, no traceback ever, the security headers."""
    companion = _app_state(request)
    try:
        if len(request.raw_path) > MAX_LINE or len(request.query_string) > MAX_QUERY:
            response: web.StreamResponse = web.Response(status=414)
        elif not _allowed(request, companion.token):
            response = web.Response(status=403)
        else:
            if companion.gate is not None:  # a phone's: never closed to make room
                companion.gate.trust(request.transport)
            response = await handler(request)
    except web.HTTPException as e:
        response = web.Response(status=e.status, headers={"Content-Type": "text/plain"})
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception as e:  # said in one line; the answer says only that it failed
        log.warning("%s %s failed: %s: %s", request.method, request.path, type(e).__name__, e)
        response = web.Response(status=500, body=_json({"error": "internal"}))
        response.content_type = "application/json"
    if not response.prepared:
        for key, value in SECURITY_HEADERS.items():
            response.headers[key] = value
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _game_number(request: web.Request) -> int | None:
    """``?game=N`` (None: not given); HTTPBadRequest for anything but a game number."""
    values = request.query.getall("game", [])
    if not values:
        return None
    text = values[0]
    if len(values) > 1 or not text.isascii() or not text.isdigit() or len(text) > GAME_DIGITS:
        raise web.HTTPBadRequest()
    number = int(text)
    if number < 1:
        raise web.HTTPBadRequest()
    return number


def _json_response(status: int, body: bytes) -> web.Response:
    return web.Response(status=status, body=body, headers={"Content-Type": JSON_TYPE})


async def page(request: web.Request) -> web.StreamResponse:
    companion = _app_state(request)
    kind = companion.files["index.html"][1]
    response = web.Response(body=companion.page, headers={"Content-Type": kind})
    query = request.query.getall("t", [])
    token = companion.token
    if query and token is not None and token_matches(query[0], token):
        response.set_cookie(
            COOKIE,
            token,
            max_age=COOKIE_SECONDS,
            path="/",
            httponly=True,
            samesite="Strict",
        )
    return response


async def static(request: web.Request) -> web.StreamResponse:
    companion = _app_state(request)
    found = companion.files.get(request.match_info["name"])
    if found is None:
        raise web.HTTPNotFound()
    body, kind = found
    return web.Response(body=body, headers={"Content-Type": kind, "Cache-Control": "no-cache"})


async def words(request: web.Request) -> web.StreamResponse:
    return _json_response(200, _app_state(request).words)


async def _asked(request: web.Request, what: str) -> tuple[int, bytes]:
    """(the game, the body) of ``what`` for ``?game=N`` (or the newest game), once that
    game has ended; else 404 and nothing more (503 for a database that cannot be read)."""
    companion = _app_state(request)
    number = _game_number(request)
    try:
        found = await companion.answer(what, number)
    except (NoSuchGame, NotShown):
        raise web.HTTPNotFound() from None
    except Unavailable as e:
        if number is None or e.code == "no_database":
            raise web.HTTPNotFound() from None
        raise web.HTTPServiceUnavailable() from None
    if found is None:
        raise web.HTTPNotFound()  # not before the end: nothing more is said
    return found


async def state(request: web.Request) -> web.StreamResponse:
    companion = _app_state(request)
    number = _game_number(request)
    if number is None:
        return _json_response(companion.hub.status, companion.hub.body)
    try:
        found = await companion.answer("state", number)
    except NoSuchGame:
        return _json_response(404, _no_state("no_game"))
    except NotShown as e:
        return _json_response(404, _not_shown(e))
    except Unavailable as e:
        if e.code == "no_database":
            return _json_response(404, _no_state("no_game"))
        return _json_response(503, _no_state("unreadable"))
    assert found is not None  # a state there always is
    return _json_response(200, found[1])


async def events(request: web.Request) -> web.StreamResponse:
    """The newest game's state at once and after every change (``event: state``), and
    ``event: alive`` every KEEPALIVE_SECONDS whatever else is sent: a page that hears
    nothing for two of them knows the path is dead."""
    companion = _app_state(request)
    hub = companion.hub
    if hub.streams >= MAX_STREAMS:
        raise web.HTTPServiceUnavailable()
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
            **SECURITY_HEADERS,
        }
    )
    generation = companion.access.generation  # the token it was opened with
    loop = asyncio.get_running_loop()
    hub.streams += 1
    try:
        await response.prepare(request)
        await response.write(b"retry: 1000\n\n")
        seen = -1
        alive = loop.time() + KEEPALIVE_SECONDS  # when the next "alive" is due
        while not hub.closed and companion.access.generation == generation:
            if loop.time() >= alive:  # first: however often the state changes
                await response.write(ALIVE)
                alive = loop.time() + KEEPALIVE_SECONDS
            elif hub.version != seen:
                seen = hub.version
                await response.write(hub.event)
            else:
                await hub.wait(seen, alive - loop.time())
    except (ConnectionError, RuntimeError):  # the phone went away
        pass
    finally:
        hub.streams -= 1
    return response


async def games(request: web.Request) -> web.StreamResponse:
    companion = _app_state(request)
    status, body = await companion.run(companion._listed)
    return _json_response(status, body)


async def proof_page(request: web.Request) -> web.StreamResponse:
    _game, body = await _asked(request, "proof")
    return _json_response(200, body)


async def export(request: web.Request) -> web.StreamResponse:
    game, body = await _asked(request, "export")
    name = f"clank-companion-game-{game}.jsonl"
    return web.Response(
        body=body,
        headers={
            "Content-Type": "application/x-ndjson; charset=utf-8",
            "Content-Disposition": f'attachment; filename="{name}"',
        },
    )


async def bgstats(request: web.Request) -> web.StreamResponse:
    _game, body = await _asked(request, "bgstats")
    return _json_response(200, body)


def bgstats_play(found: ReplayedGame) -> dict[str, Any]:
    """The BG Stats play of a game that is over, its players' names and roles (their
    colours) as its kind says them in the table's words."""
    from companion.web.bgstats import play

    payload = found.payload()
    state, view = payload["state"], payload["view"]
    seats = list(state["players"])
    face = found.face
    assert face is not None  # a game the phones show
    roles, names = face.roles(seats), face.names(seats)
    return play(
        game=found.game,
        edition=str(state["edition"]),
        created_at=found.created_at,
        commitment=found.commitment,
        seats=seats,
        ranking=view.get("ranking", []),
        winners=list(view.get("winners", [])),
        ended_at=found.ended_at,
        roles=roles,
        names=names,
    )


APP_KEY = web.AppKey("companion", WebCompanion)


def make_app(companion: WebCompanion) -> web.Application:
    app = web.Application(middlewares=[security], client_max_size=1024)
    app[APP_KEY] = companion
    app.router.add_get("/", page)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/api/words", words)
    app.router.add_get("/api/state", state)
    app.router.add_get("/api/events", events)
    app.router.add_get("/api/games", games)
    app.router.add_get("/api/proof", proof_page)
    app.router.add_get("/api/export", export)
    app.router.add_get("/api/bgstats", bgstats)
    app.on_startup.append(companion.start)
    app.on_shutdown.append(companion.shutdown)
    app.on_cleanup.append(companion.stop)
    return app


# ------------------------------------------------------------------ running it
class _GatedSite(web.BaseSite):
    """aiohttp's TCP site with the gate before aiohttp's protocol: every connection is
    admitted, timed and counted by ``gate`` first (``access.Gate``).

    ``accepts``: connections the event loop accepts in one turn (asyncio takes its
    ``backlog`` for that), few enough that those not yet seen by the gate fit the room
    kept below the file limit. The kernel's queue of connections waiting to be accepted
    is made LISTEN_QUEUE long all the same (they hold no descriptor there): a phone's
    connection waits in it among a stranger's instead of being dropped (and tried again
    by the phone only a second later)."""

    def __init__(
        self, runner: web.BaseRunner, host: str, port: int, gate: Gate, *, accepts: int
    ) -> None:
        super().__init__(runner, backlog=accepts)
        self._host, self._port, self._gate = host, port, gate

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            self._gate.protocol(server),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=True,
        )
        for listening in self._server.sockets:
            with socket.socket(fileno=os.dup(listening.fileno())) as same:
                same.listen(LISTEN_QUEUE)


def make_gate() -> Gate:
    """The gate of ``serve``, its limits read now (the tests lower them): as many
    connections as the file limit leaves room for, up to MAX_CONNECTIONS. A refusal, and
    a stranger's connection closed for a newer one, are each said once a minute."""
    rarely = _Rarely()

    def said(what: str, why: str) -> None:
        held = rarely.due(what)
        if held is None:
            return
        more = f" ({held} more since the last such line)" if held else ""
        if what == "refused":
            log.warning("refused a connection: %s%s", why, more)
        else:  # a stranger's connection (no token yet) closed for a newer one
            log.warning("closed a connection without the token: %s%s", why, more)

    limit, room = connection_limit(MAX_CONNECTIONS, FD_RESERVE)
    return Gate(
        limit=limit,
        room=room,
        per_client=MAX_PER_CLIENT,
        head_seconds=HEAD_SECONDS,
        head_bytes=HEAD_BYTES,
        said=said,
    )


def setup_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_OneLine())
    handler.addFilter(_ResourceLines())
    for name in ("companion.web", "aiohttp", "asyncio"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.INFO)


async def serve(
    database: Path,
    host: str,
    port: int,
    *,
    token: str,
    ready: Callable[[str], None] | None = None,
    renewed: Callable[[str | None], None] | None = None,
    stop: asyncio.Event | None = None,
    language: TableLanguage | None = None,
) -> None:
    """Serve until ``stop`` is set (or SIGTERM / SIGINT); ``ready`` is told the join URL
    once the port is open, ``renewed`` the new one each time the token changes (None:
    there is no token any more). ``language``: the table's settings, followed.

    Every connection passes the gate (``make_gate``); aiohttp closes one whose next
    request's head is not whole HEAD_SECONDS after the last answer. The event loop's own
    troubles are one line of the log each (``_loop_trouble``)."""
    companion = WebCompanion(database, token, language=language)
    gate = companion.gate = make_gate()
    app = make_app(companion)
    runner = web.AppRunner(
        app,
        access_log_class=_AccessLog,
        handle_signals=False,
        max_line_size=MAX_LINE,
        max_field_size=MAX_LINE,
        max_headers=MAX_HEADERS,
        keepalive_timeout=HEAD_SECONDS,
        shutdown_timeout=2.0,
    )
    await runner.setup()
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()
    loop.set_exception_handler(_loop_trouble)
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    try:
        accepts = max(4, min(ACCEPTS, gate.room // 8))  # a few turns of them fit the room
        site = _GatedSite(runner, host, port, gate, accepts=accepts)
        await site.start()
        bound = port
        for address in runner.addresses:
            if isinstance(address, tuple) and len(address) >= 2:
                bound = int(address[1])
                break
        if renewed is not None:
            tell = renewed

            def new_token(now: str | None) -> None:
                tell(join_url(host, bound, now) if now else None)

            companion.on_token = new_token
        if ready is not None:
            ready(join_url(host, bound, companion.token or token))
        await stop.wait()
    finally:
        await runner.cleanup()
        loop.set_exception_handler(before)


def run(database: Path, host: str, port: int) -> int:
    """What ``clank-companion serve`` does: the join URL on the first line of standard
    output, then serve until stopped. WebError (the token) before anything is opened.

    With ``$CLANK_WEB_URL_FILE`` the join URL is also written to that file once the port
    is open (the table's Phones screen shows it as a QR code; on the Pi the kiosk cannot
    learn the Pi's address itself), and removed when the server stops.

    The token renewed on the table: the new join URL is printed (a line of its own) and
    written to that file in place of the old one. The table's language changed in its
    settings: the page speaks it from then on."""
    token = load_token(database)
    setup_logging()
    link_file = url_file()
    written: list[str] = []

    def tell(url: str) -> None:
        if link_file is not None:  # before the line: whoever reads it finds the file
            try:
                write_url_file(link_file, url)
                written.append(url)
            except OSError as e:  # the phones still join by the printed link
                log.warning("cannot write the join link to %s: %s", link_file, e.strerror or e)
        print(url, flush=True)

    def ready(url: str) -> None:
        tell(url)
        log.info("serving the table's games from %s (read-only)", database)

    def renewed(url: str | None) -> None:
        if url is not None:
            tell(url)
        elif link_file is not None and written:  # no token: no link that would be refused
            remove_url_file(link_file, written[-1])

    started = time.monotonic()
    try:
        asyncio.run(
            serve(
                database,
                host,
                port,
                token=token,
                ready=ready,
                renewed=renewed,
                language=TableLanguage(),
            )
        )
    except OSError as e:  # the port is taken, the address is not this machine's
        log.error("cannot listen on %s port %s: %s", host, port, e.strerror or e)
        return 2
    finally:
        if link_file is not None and written:
            remove_url_file(link_file, written[-1])
    log.info("stopped after %.0f s", time.monotonic() - started)
    return 0
