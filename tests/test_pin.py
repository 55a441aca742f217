"""The admin PIN: a salted hash, a constant-time check, a growing lock-out."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from companion import pin


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_pin_is_stored_as_a_salted_scrypt_hash():
    stored = pin.hash_pin("2468")
    scheme, n, r, p, salt, key = stored.split("$")
    assert (scheme, int(n), int(r), int(p)) == ("scrypt", pin.N, pin.R, pin.P)
    assert len(bytes.fromhex(salt)) == pin.SALT_BYTES and len(bytes.fromhex(key)) == pin.KEY_BYTES
    assert "2468" not in stored
    want = hashlib.scrypt(b"2468", salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                          maxmem=2**26, dklen=len(bytes.fromhex(key)))  # fmt: skip
    assert want.hex() == key
    assert pin.hash_pin("2468") != stored  # a new salt each time
    assert pin.is_pin_hash(stored)


def test_the_check():
    stored = pin.hash_pin("0042")
    assert pin.check_pin("0042", stored)
    for wrong in ("42", "00420", "0043", "", "abcd"):
        assert not pin.check_pin(wrong, stored), wrong


def test_the_check_compares_in_constant_time(monkeypatch):
    compared = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(pin.hmac, "compare_digest", spy)
    stored = pin.hash_pin("1357")
    assert pin.check_pin("1357", stored) and not pin.check_pin("1358", stored)
    assert pin.matches("2468") and not pin.matches("2469", plain="7")
    assert len(compared) == 4


@pytest.mark.parametrize("bad", ["", "12a4", "123456789", " 1234", "١٢٣٤", "12.4", None, 1234])
def test_only_one_to_eight_digits_are_a_pin(bad):
    assert not pin.valid_pin(bad)
    if isinstance(bad, str):
        with pytest.raises(ValueError, match="1 to 8 digits"):
            pin.hash_pin(bad)


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "2468",
        "pbkdf2$1$2$3$00$00",
        "scrypt$16384$8$1$zz$00",
        "scrypt$16385$8$1$" + "00" * 16 + "$" + "00" * 32,  # N not a power of two
        "scrypt$1048576$8$1$" + "00" * 16 + "$" + "00" * 32,  # 1 GiB of memory
        "scrypt$16384$8$1$" + "00" * 16 + "$" + "00" * 32 + "\n",
    ],
)
def test_an_unreadable_hash_matches_nothing(stored):
    assert not pin.is_pin_hash(stored)
    assert not pin.check_pin("2468", stored)


def test_matches_takes_the_hash_then_the_plain_pin_then_the_default():
    stored = pin.hash_pin("1111")
    assert pin.matches("1111", pin_hash=stored, plain="2222")
    assert not pin.matches("2222", pin_hash=stored, plain="2222")
    assert pin.matches("2222", plain="2222") and not pin.matches("2468", plain="2222")
    assert pin.matches(pin.DEFAULT_PIN) and not pin.matches("")


def test_three_wrong_pins_lock_the_pad_for_longer_and_longer():
    clock = FakeClock()
    guard = pin.Lockout(clock)
    right = "2468"

    def check(entered: str) -> bool:
        return entered == right

    assert guard.attempt("1", check) is False and guard.wait() == 0
    assert guard.attempt("2", check) is False and guard.wait() == 0
    assert guard.attempt("3", check) is False  # the third: locked
    assert guard.wait() == pin.FIRST_LOCKOUT == 5
    assert guard.attempt(right, check) is None  # not even the right PIN, meanwhile
    clock.now += 4.5
    assert guard.wait() == 1
    clock.now += 0.5
    assert guard.wait() == 0
    assert guard.attempt("4", check) is False
    assert guard.wait() == 10  # twice as long
    clock.now += 10
    assert guard.attempt("5", check) is False
    assert guard.wait() == 20
    for _ in range(20):
        clock.now += guard.wait()
        guard.attempt("6", check)
    assert guard.wait() == pin.LONGEST_LOCKOUT  # and no longer
    clock.now += guard.wait()
    assert guard.attempt(right, check) is True  # the right PIN clears the count
    assert guard.failures == 0 and guard.wait() == 0
    assert guard.attempt("7", check) is False and guard.wait() == 0


# ------------------------------------------------------- the lock-out across restarts
def _three_wrong(guard: pin.Lockout) -> None:
    for wrong in ("1", "2", "3"):
        assert guard.attempt(wrong, lambda entered: False) is False


def test_the_lock_out_survives_a_restart(tmp_path):
    """Three free tries a boot would be three free tries per power cut: the count and
    the lock-out are kept in a file beside the database."""
    clock = FakeClock()
    db = tmp_path / "games.db"
    guard = pin.Lockout.beside(db, clock=clock)
    assert guard.attempt("1", lambda entered: False) is False
    assert pin.Lockout.beside(db, clock=clock).failures == 1  # restarted after one wrong
    for wrong in ("2", "3"):  # a restart between each: no fresh tries
        assert pin.Lockout.beside(db, clock=clock).attempt(wrong, lambda e: False) is False
    locked = pin.Lockout.beside(db, clock=clock)
    assert locked.failures == 3 and locked.wait() == pin.FIRST_LOCKOUT
    clock.now += pin.FIRST_LOCKOUT
    assert locked.attempt("4", lambda entered: False) is False
    again = pin.Lockout.beside(db, clock=clock)  # the app started again, at once
    assert again.failures == 4 and again.wait() == 10
    assert again.attempt("2468", lambda entered: True) is None  # still locked
    clock.now += 10
    assert again.attempt("2468", lambda entered: True) is True  # the right PIN clears it
    fresh = pin.Lockout.beside(db, clock=clock)
    assert fresh.failures == 0 and fresh.wait() == 0
    kept = tmp_path / "games.db.pin-lockout"
    assert kept.exists() and kept.stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp"))  # written through a temporary file, renamed


def test_a_clock_set_back_never_locks_longer_than_the_lock_out(tmp_path):
    """The Pi has no clock of its own: after a restart its time may be hours behind."""
    clock = FakeClock()
    db = tmp_path / "games.db"
    _three_wrong(pin.Lockout.beside(db, clock=clock))
    clock.now -= 36000
    assert pin.Lockout.beside(db, clock=clock).wait() == pin.FIRST_LOCKOUT


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"[]", b'{"failures": "x", "until": 0}', b'{"failures": -1, "until": 0}',
     b'{"failures": 2}', b"\xff\xfe", b'{"failures": 1e999, "until": 0}',
     b'{"failures": 2, "until": NaN}'],
)  # fmt: skip
def test_a_damaged_lock_out_file_counts_as_locked_not_as_free(tmp_path, content):
    clock = FakeClock()
    db = tmp_path / "games.db"
    (tmp_path / "games.db.pin-lockout").write_bytes(content)
    guard = pin.Lockout.beside(db, clock=clock)
    assert guard.wait() == pin.LONGEST_LOCKOUT
    assert guard.attempt("2468", lambda entered: True) is None
    clock.now += pin.LONGEST_LOCKOUT
    assert guard.attempt("2468", lambda entered: True) is True
    assert pin.Lockout.beside(db, clock=clock).wait() == 0  # and the file is whole again


def test_a_lock_out_file_that_cannot_be_written_keeps_the_count_in_memory(tmp_path):
    clock = FakeClock()
    folder = tmp_path / "gone"
    guard = pin.Lockout.beside(folder / "games.db", clock=clock)  # no such folder
    _three_wrong(guard)
    assert guard.wait() == pin.FIRST_LOCKOUT


def test_a_lock_out_file_that_is_no_regular_file_counts_as_locked(tmp_path):
    import os

    clock = FakeClock()
    os.mkfifo(tmp_path / "games.db.pin-lockout")
    guard = pin.Lockout.beside(tmp_path / "games.db", clock=clock)
    assert guard.wait() == pin.LONGEST_LOCKOUT
