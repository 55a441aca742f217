"""The fair draw against the published algorithm, checked independently."""

from __future__ import annotations

import hashlib
import hmac
import math
import struct
from collections import Counter

import pytest

from companion.draw import canonical_bag, commitment, draw_cubes, index_below, stream

SPEC_SEED = bytes(range(32)).hex()
SPEC_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
SPEC_BAG = {"black": 24, "red": 3, "blue": 2}
SPEC_SEATS = ["red", "blue"]

# Derived outside this code base: `printf 'table:1:0' | openssl dgst -sha256 -mac HMAC
# -macopt hexkey:000102...1f` gives 09a9247b 1384daa1 0c4c7166 56f07cd5 ...; by hand:
#   29 cubes: limit 2**32 - 16;  0x09a9247b = 162079867,  mod 29 = 27 -> the 1st blue cube
#   28 cubes: limit 2**32 - 4;   0x1384daa1 = 327473825,  mod 28 = 21 -> black
#   27 cubes: limit 2**32 - 4;   0x0c4c7166 = 206336358,  mod 27 = 9  -> black
#   26 cubes: limit 2**32 - 16;  0x56f07cd5 = 1458601173, mod 26 = 3  -> black
SPEC_FIRST_WORDS = [0x09A9247B, 0x1384DAA1, 0x0C4C7166, 0x56F07CD5]
SPEC_DRAWN = ["blue", "black", "black", "black"]


def naive_draw(seed_hex: str, client: str, nonce: int, bag: dict[str, int], seats, m: int):
    """A second, deliberately plain reading of the spec, sharing no code with the app."""
    key = bytes.fromhex(seed_hex)
    data = b""
    counter = 0
    pos = 0
    cubes = []
    for kind in ["black", *seats, "ghost"]:
        cubes += [kind] * bag.get(kind, 0)
    out = []
    while len(out) < min(m, len(cubes) + len(out)) and cubes:
        n = len(cubes)
        while True:
            while len(data) < pos + 4:
                data += hmac.new(key, f"{client}:{nonce}:{counter}".encode(), "sha256").digest()
                counter += 1
            (x,) = struct.unpack(">I", data[pos : pos + 4])
            pos += 4
            if x < (1 << 32) - ((1 << 32) % n):
                break
        out.append(cubes.pop(x % n))
    return out


def test_commitment_matches_the_spec():
    assert commitment(SPEC_SEED) == SPEC_COMMITMENT
    assert hashlib.sha256(bytes(range(32))).hexdigest() == SPEC_COMMITMENT


def test_stream_matches_openssl_words():
    words = stream(SPEC_SEED, "table", 1)
    assert [next(words) for _ in range(4)] == SPEC_FIRST_WORDS


def test_spec_vector():
    drawn = draw_cubes(SPEC_SEED, "table", 1, SPEC_BAG, SPEC_SEATS, 4)
    assert drawn == SPEC_DRAWN
    assert naive_draw(SPEC_SEED, "table", 1, SPEC_BAG, SPEC_SEATS, 4) == SPEC_DRAWN


@pytest.mark.parametrize("nonce", [1, 2, 3, 17, 500])
@pytest.mark.parametrize("client", ["", "table", "04A2B3C4D5E6F7 ünïcödé"])
def test_agrees_with_naive_reading(nonce, client):
    seed = hashlib.sha256(f"seed{nonce}".encode()).hexdigest()
    bag = {"black": 20, "red": 4, "yellow": 7, "green": 1, "blue": 0, "ghost": 3}
    seats = ["red", "yellow", "green", "blue"]
    for m in (0, 1, 5, 35, 100):
        assert draw_cubes(seed, client, nonce, bag, seats, m) == naive_draw(
            seed, client, nonce, bag, seats, m
        )


def test_canonical_order_and_cap():
    assert canonical_bag({"ghost": 1, "blue": 1, "black": 1, "red": 2}, ["red", "blue"]) == [
        "black",
        "red",
        "red",
        "blue",
        "ghost",
    ]
    drawn = draw_cubes(SPEC_SEED, "x", 1, {"red": 2}, ["red"], 9)
    assert drawn == ["red", "red"]
    assert draw_cubes(SPEC_SEED, "x", 1, {}, ["red"], 3) == []
    with pytest.raises(ValueError, match="unknown cube kinds"):
        canonical_bag({"purple": 1}, ["red"])


def test_rejection_sampling_skips_biased_values():
    # For n = 3, limit = 2**32 - 1: the top value 0xFFFFFFFF must be rejected.
    crafted = iter([0xFFFFFFFF, 0xFFFFFFFF, 7])
    assert index_below(3, crafted) == 7 % 3
    # n = 1 still consumes one value per attempt
    crafted = iter([5, 6])
    assert index_below(1, crafted) == 0
    assert next(crafted) == 6


def test_rejection_happens_in_a_real_stream():
    """Find a (nonce, n) whose first word is rejected and check the draw used the next."""
    n = 3 * 2**30 + 1  # limit = 2**32 - (2**32 % n) = n: about a quarter of words rejected
    for nonce in range(1, 200):
        words = stream(SPEC_SEED, "reject", nonce)
        first, second = next(words), next(words)
        if first >= n and second < n:
            assert index_below(n, stream(SPEC_SEED, "reject", nonce)) == second % n
            return
    pytest.fail("no rejected first word found in 200 nonces")


def test_stream_crosses_block_boundaries():
    words = stream(SPEC_SEED, "table", 1)
    got = [next(words) for _ in range(20)]
    key = bytes(range(32))
    raw = b"".join(hmac.new(key, f"table:1:{c}".encode(), "sha256").digest() for c in range(3))
    assert got == list(struct.unpack(">20I", raw[:80]))


def test_different_nonces_give_different_streams():
    a = stream(SPEC_SEED, "table", 1)
    b = stream(SPEC_SEED, "table", 2)
    assert [next(a) for _ in range(8)] != [next(b) for _ in range(8)]


def test_bad_seed_and_nonce_are_refused():
    with pytest.raises(ValueError):
        commitment("00")
    with pytest.raises(ValueError):
        commitment("zz" * 32)
    with pytest.raises(ValueError):
        draw_cubes(SPEC_SEED, "", 0, {"black": 1}, [], 1)


def test_chi_square_first_cube_is_uniform():
    """Over 12,000 draws the first cube's position is uniform over 12 positions."""
    seats = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
    bag = {"black": 1, **{s: 1 for s in seats}}
    counts = Counter(
        draw_cubes(SPEC_SEED, "chi", nonce, bag, seats, 1)[0] for nonce in range(1, 12001)
    )
    expected = 12000 / 12
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in ["black", *seats])
    # 11 degrees of freedom: the 99.9th percentile is 31.26
    assert chi2 < 31.26, (chi2, counts)
    assert len(counts) == 12


def test_chi_square_index_below_small_n():
    """index_below(7) over 70,000 stream words is uniform (p > 0.001)."""
    counts = Counter()
    words = stream(SPEC_SEED, "uniform", 1)
    for _ in range(70000):
        counts[index_below(7, words)] += 1
    expected = 10000
    chi2 = sum((counts[i] - expected) ** 2 / expected for i in range(7))
    assert chi2 < 22.46  # 6 degrees of freedom, 99.9th percentile
    assert math.isclose(sum(counts.values()), 70000)
