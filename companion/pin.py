"""The admin PIN: kept as a salted scrypt hash, compared in constant time, and slowed
down after repeated wrong tries.

The hash is one string, ``scrypt$N$r$p$SALT$HASH`` (the scrypt cost parameters, then
salt and derived key in hex), stored as ``admin_pin_hash`` in the configuration's
``[app]`` section. A PIN is 1 to 8 digits. ``python -c`` in deploy/lib.sh calls
:func:`hash_pin` to write the installer's generated PIN.

Wrong tries: three wrong PINs in a row lock the pad for :data:`FIRST_LOCKOUT` seconds,
and each further wrong PIN locks it twice as long (at most :data:`LONGEST_LOCKOUT`);
while locked, the pad takes no PIN at all. The right PIN clears the count. The count is
kept in a file beside the game database, so that a restart gives no fresh tries. The
clock is injectable, so tests need no sleeping.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

DEFAULT_PIN = "2468"  # with no PIN in the configuration at all (docs/hardware.md)
MAX_DIGITS = 8
SCHEME = "scrypt"
# scrypt's interactive cost: 16 MiB and about 0.1 s on a Raspberry Pi 4
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32
FREE_TRIES = 3
FIRST_LOCKOUT = 5.0  # seconds, after the 3rd wrong PIN in a row
LONGEST_LOCKOUT = 300.0
LOCKOUT_SUFFIX = ".pin-lockout"  # beside the game database: the count across restarts
MOST_LOCKOUT_BYTES = 256
log = logging.getLogger(__name__)

_HASH = re.compile(
    r"scrypt\$(?P<n>[0-9]{1,10})\$(?P<r>[0-9]{1,4})\$(?P<p>[0-9]{1,4})"
    r"\$(?P<salt>(?:[0-9a-f]{2}){8,64})\$(?P<key>(?:[0-9a-f]{2}){16,64})"
)


def valid_pin(pin: object) -> bool:
    """1 to 8 ASCII digits."""
    return isinstance(pin, str) and 1 <= len(pin) <= MAX_DIGITS and pin.isascii() and pin.isdigit()


def _params(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    match = _HASH.fullmatch(stored) if isinstance(stored, str) else None
    if match is None:
        return None
    n, r, p = int(match["n"]), int(match["r"]), int(match["p"])
    # a power of two above 1; memory (128 * r * n bytes) at most 64 MiB; sane r and p
    if n < 2 or n & (n - 1) or not 1 <= r <= 32 or not 1 <= p <= 16 or 128 * r * n > 2**26:
        return None
    return n, r, p, bytes.fromhex(match["salt"]), bytes.fromhex(match["key"])


def is_pin_hash(stored: object) -> bool:
    """Whether ``stored`` is a PIN hash this module can check."""
    return isinstance(stored, str) and _params(stored) is not None


def _derive(pin: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=128 * r * n + 2**20, dklen=length
    )


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """The stored form of ``pin`` (a ValueError unless it is 1 to 8 digits)."""
    if not valid_pin(pin):
        raise ValueError(f"an admin PIN is 1 to {MAX_DIGITS} digits")
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = _derive(pin, salt, N, R, P, KEY_BYTES)
    return f"{SCHEME}${N}${R}${P}${salt.hex()}${key.hex()}"


def check_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN hashed in ``stored`` (compared in constant time);
    False for a hash this module cannot read."""
    params = _params(stored)
    if params is None or not isinstance(pin, str):
        return False
    n, r, p, salt, key = params
    try:
        tried = _derive(pin, salt, n, r, p, len(key))
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(tried, key)


def matches(pin: str, *, pin_hash: str = "", plain: str = "") -> bool:
    """The PIN check of the configuration: its hash if it has one, else its plain-text
    PIN (an older file), else the default PIN."""
    if pin_hash:
        return check_pin(pin, pin_hash)
    want = hashlib.sha256((plain or DEFAULT_PIN).encode()).digest()
    return hmac.compare_digest(hashlib.sha256(pin.encode()).digest(), want)


class Lockout:
    """Wrong PINs in a row: after :data:`FREE_TRIES` of them, each one more locks the
    pad for a growing time. ``clock`` returns seconds since the epoch (``time.time``).

    With a ``path`` (:meth:`beside` a database: ``<database>.pin-lockout``) the count
    and the lock-out are kept in that file, written atomically and readable by its
    owner only, so that a restart (a power cut, a pulled plug) gives no fresh tries. A
    file that cannot be read as one (damaged, edited, not a regular file) counts as a
    lock-out of :data:`LONGEST_LOCKOUT`, not as no wrong PIN at all. A lock-out never
    lasts longer than its length from now, even if the clock went back (the Pi has no
    clock of its own until the network sets it). A file that cannot be written keeps
    the count in memory (the log says so)."""

    def __init__(self, clock: Callable[[], float] = time.time, *, path: Path | None = None) -> None:
        self.clock = clock
        self.path = path
        self.failures = 0
        self.until = -math.inf
        self.length = 0.0  # the seconds of the lock-out in force (until - its start)
        if path is not None:
            self._load(path)

    @classmethod
    def beside(cls, database: Path | str, *, clock: Callable[[], float] = time.time) -> Lockout:
        """The lock-out kept beside the game ``database``."""
        db = Path(database)
        return cls(clock, path=db.with_name(db.name + LOCKOUT_SUFFIX))

    def wait(self) -> int:
        """Whole seconds left before the pad takes a PIN again (0: it takes one now)."""
        now = self.clock()
        if self.until - now > self.length:  # the clock went back
            self.until = now + self.length
        left = self.until - now
        return math.ceil(left) if left > 0 else 0

    def delay(self) -> float:
        """The lock-out after the failures so far (0 while tries are free)."""
        extra = self.failures - FREE_TRIES
        return 0.0 if extra < 0 else min(LONGEST_LOCKOUT, FIRST_LOCKOUT * 2 ** min(extra, 32))

    def attempt(self, pin: str, check: Callable[[str], bool]) -> bool | None:
        """Try ``pin`` with ``check``: True (right), False (wrong), None (locked out: not
        even tried)."""
        if self.wait():
            return None
        if check(pin):
            self.failures = 0
            self.until = -math.inf
            self.length = 0.0
            self._save()
            return True
        self.failures += 1
        if self.failures >= FREE_TRIES:
            self.length = self.delay()
            self.until = self.clock() + self.length
        self._save()
        return False

    # ------------------------------------------------------------ the file
    def _load(self, path: Path) -> None:
        try:
            raw = _read_small(path)
        except FileNotFoundError:
            return  # no wrong PIN yet
        except (OSError, ValueError):
            self._damaged()
            return
        try:
            state = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            state = None
        if not isinstance(state, dict) or not self._restore(state):
            self._damaged()

    def _restore(self, state: dict[str, object]) -> bool:
        failures, until, length = state.get("failures"), state.get("until"), state.get("length")
        if not _number(failures) or not isinstance(failures, int) or failures < 0:
            return False
        if not _number(length) or not 0 <= length <= LONGEST_LOCKOUT:  # NaN fails it too
            return False
        if until is not None and (not _number(until) or not math.isfinite(until)):
            return False
        self.failures = min(failures, FREE_TRIES + 64)
        self.until = -math.inf if until is None else float(until)
        self.length = float(length)
        return True

    def _damaged(self) -> None:
        """A file that says nothing sure: locked as long as a lock-out may be."""
        self.failures = FREE_TRIES
        self.length = LONGEST_LOCKOUT
        self.until = self.clock() + LONGEST_LOCKOUT

    def _save(self) -> None:
        if self.path is None:
            return
        until = None if self.until == -math.inf else self.until
        text = json.dumps({"failures": self.failures, "until": until, "length": self.length})
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()  # left by a program of the same number that was killed
            fd = os.open(tmp, flags, 0o600)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            finally:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        except OSError as e:
            log.warning("the PIN lock-out cannot be kept in %s: %s", self.path, e.strerror or e)


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_small(path: Path) -> bytes:
    """A small regular file's bytes; ValueError for anything else (a pipe is never
    waited for, a device never read on and on)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError("not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        data = os.read(fd, MOST_LOCKOUT_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MOST_LOCKOUT_BYTES:
        raise ValueError("too long")
    return data
