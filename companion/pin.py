"""The admin PIN: kept as a salted scrypt hash, compared in constant time, and slowed
down after repeated wrong tries.

The hash is one string, ``scrypt$N$r$p$SALT$HASH`` (the scrypt cost parameters, then
salt and derived key in hex), stored as ``admin_pin_hash`` in the configuration's
``[app]`` section. A PIN is 1 to 8 digits. ``python -c`` in deploy/lib.sh calls
:func:`hash_pin` to write the installer's generated PIN.

Wrong tries: three wrong PINs in a row lock the pad for :data:`FIRST_LOCKOUT` seconds,
and each further wrong PIN locks it twice as long (at most :data:`LONGEST_LOCKOUT`);
while locked, the pad takes no PIN at all. The right PIN clears the count. The clock
is injectable, so tests need no sleeping.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import time
from collections.abc import Callable

DEFAULT_PIN = "2468"  # with no PIN in the configuration at all (see the README)
MAX_DIGITS = 8
SCHEME = "scrypt"
# scrypt's interactive cost: 16 MiB and about 0.1 s on a Raspberry Pi 4
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32
FREE_TRIES = 3
FIRST_LOCKOUT = 5.0  # seconds, after the 3rd wrong PIN in a row
LONGEST_LOCKOUT = 300.0

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
    pad for a growing time. ``clock`` returns seconds (``time.monotonic``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures = 0
        self.until = -math.inf

    def wait(self) -> int:
        """Whole seconds left before the pad takes a PIN again (0: it takes one now)."""
        left = self.until - self.clock()
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
            return True
        self.failures += 1
        if self.failures >= FREE_TRIES:
            self.until = self.clock() + self.delay()
        return False
