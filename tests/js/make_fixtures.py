"""Write the fixtures of the browser verifier's tests (tests/js/fixtures/): game exports
recorded by the companion itself, forged variants of them, the fair draw's test vector
and canonical JSON texts, all made by the Python side. Run from the checkout's top:

    .venv/bin/python tests/js/make_fixtures.py

The files are committed; run this again only when the log format changes. Each export's
verdict is written to expected.json after the Python verifier (companion/verify_log.py)
has given it: tests/js/verify.test.mjs and tests/test_web_verify_js.py hold the browser
verifier to the same verdicts.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from companion.audit.check import export_game  # noqa: E402
from companion.cli import main as cli  # noqa: E402
from companion.draw import commitment, draw_cubes, stream  # noqa: E402
from companion.script import replay  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.store import GameStore  # noqa: E402

OUT = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = ROOT / "examples"
VERIFIER = ROOT / "companion" / "verify_log.py"
SEED = "5e" * 32  # the seed the companion "draws" (its random source replaced)
DATE = "2024-05-01 20:00:00"
ENDED = "2024-05-01 21:30:00"  # when its games end (the record that ends one says it)
# the Python verifier's exit status, as the browser verifier's status
STATUS = {0: "ok", 1: "failed", 3: "not_provably_fair", 4: "sealed"}
TRICKY = 'Zoë "the" \\ ☃ 🐉 tab\t, bell\x07, line\n'  # a client seed canonical JSON escapes


@contextlib.contextmanager
def recorded(tmp: Path, name: str, seed: str = SEED):
    """A fresh database; the companion draws ``seed``, dates its games DATE and their
    ends ENDED."""
    with (
        mock.patch("companion.session.new_server_seed", lambda: seed),
        mock.patch("companion.session.now_text", lambda: DATE),
        mock.patch("companion.store.log.now_text", lambda: ENDED),
        GameStore(tmp / f"{name}.db") as store,
    ):
        yield store


def export(store: GameStore) -> str:
    out = io.StringIO()
    export_game(store, 1, out)
    return out.getvalue()


def clank(store: GameStore, **options: Any):
    return Session(store).start({"edition": "clank", "players": ["red", "blue"], **options})


def finish(table) -> None:
    for player, value in (("red", 10), ("blue", 20)):
        table.apply({"do": "artifact", "player": player, "value": value})
        table.apply({"do": "escape", "player": player})


def finished_clank(tmp: Path) -> str:
    """A whole game: a client seed fixed and taken back, another fixed (with characters
    that canonical JSON escapes), several draws, an undone draw, deck scans, the close."""
    with recorded(tmp, "clank") as store:
        table = clank(store)
        table.apply({"do": "seed", "client_seed": "taken back"})
        table.apply({"do": "undo"})
        table.apply({"do": "seed", "client_seed": TRICKY})
        table.apply({"do": "row", "cards": ["Ladder", "Dragon Shrine"]})
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        table.apply({"do": "undo"})  # the draw is taken back; its nonce is not reused
        table.apply({"do": "attack"})
        table.apply({"do": "clank", "player": "blue", "n": 4})
        table.apply({"do": "attack"})
        table.apply({"do": "attack"})
        finish(table)
        table.apply({"do": "cards", "player": "red", "cards": ["Ladder"]})
        table.apply({"do": "cards", "player": "blue", "cards": ["Dragon Shrine"]})
        table.close()
        return export(store)


def scripted(tmp: Path, name: str, script: str, *, drop_seed: bool, close: bool) -> str:
    """An example table script played into a database; ``drop_seed``: the script's seed
    is the one the companion draws (the same draws, the seed recorded as the companion's)
    instead of a given one."""
    lines = (EXAMPLES / script).read_text(encoding="utf-8").splitlines()
    seed = json.loads(lines[0])["new"].get("server_seed", SEED)
    with recorded(tmp, name, seed) as store:

        def start(options: dict[str, Any]):
            if drop_seed:
                options = {k: v for k, v in options.items() if k != "server_seed"}
            return Session(store).start(options)

        table = replay(EXAMPLES / script, start=start).table
        if close:
            table.close()
        return export(store)


def running(tmp: Path) -> str:
    with recorded(tmp, "running") as store:
        table = clank(store, client_seed="table")
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        return export(store)


def key_lost(tmp: Path) -> str:
    """A running game whose seal key was lost, abandoned: no seed in its abandon record."""
    with recorded(tmp, "lost") as store:
        table = clank(store)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
    db = tmp / "lost.db"
    Path(f"{db}.key").unlink()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli(["abandon", "--db", str(db), "--game", "1"]) == 0
    with GameStore(db, create=False) as store:
        return export(store)


# ------------------------------------------------------------------ forgeries
def lines_of(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return rows[0], rows[1:]


def text_of(header: dict[str, Any], records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *records])


def rechain(records: list[dict[str, Any]]) -> None:
    """Every hash computed again, as whoever can write the database could."""
    prev = "0" * 64
    for rec in records:
        data = {k: rec[k] for k in ("body", "game", "kind", "seq")}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        rec["prev"] = prev
        rec["hash"] = prev = hashlib.sha256(bytes.fromhex(prev) + text.encode()).hexdigest()


def first_draw(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(d for r in records if r["kind"] == "action" for d in r["body"]["draws"])


def forged(text: str, change, *, chain: bool) -> str:
    header, records = lines_of(text)
    change(header, records)
    if chain:
        rechain(records)
    return text_of(header, records)


def swap_drawn(header, records) -> None:
    draw = first_draw(records)
    draw["drawn"] = ["red" if c != "red" else "black" for c in draw["drawn"]]


def after_close(header, records) -> None:
    late = {
        "action": {"cards": ["Ladder"], "do": "cards", "player": "red"},
        "draws": [],
        "events": [],
    }
    records.append({"game": 1, "seq": len(records) + 1, "kind": "action", "body": late})


def huge_bag(header, records) -> None:
    first_draw(records)["bag"]["black"] = 10**9


def undone_seed(header, records) -> None:
    first_draw(records)["client_seed"] = "taken back"


def all_draws(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for r in records if r["kind"] == "action" for d in r["body"]["draws"]]


def nonce_reused(header, records) -> None:
    all_draws(records)[1]["nonce"] = 1


def nonce_skipped(header, records) -> None:
    for draw in all_draws(records)[1:]:
        draw["nonce"] += 1


def seed_after_draw(header, records) -> None:
    """A client seed fixed between two draws, and the later draw made with it."""
    at = max(i for i, r in enumerate(records) if r["kind"] == "action" and r["body"]["draws"])
    records[at]["body"]["draws"][0]["client_seed"] = "late"
    seed = {"action": {"client_seed": "late", "do": "seed"}, "draws": [], "events": []}
    records.insert(at, {"game": 1, "kind": "action", "body": seed})
    for seq, rec in enumerate(records, start=1):
        rec["seq"] = seq


def other_seed(header, records) -> None:
    header["game"]["server_seed"] = "00" * 32
    next(r for r in records if r["kind"] == "reveal")["body"]["server_seed"] = "00" * 32


def closed_early(header, records) -> None:
    records.append({"game": 1, "seq": len(records) + 1, "kind": "close", "body": {"reason": "x"}})


def acted_after_abandon(header, records) -> None:
    late = {"action": {"do": "clank", "n": 1, "player": "red"}, "draws": [], "events": []}
    records.append({"game": 1, "seq": len(records) + 1, "kind": "action", "body": late})


def tschak_draw(header, records) -> None:
    draw = {"bag": {"black": 3}, "client_seed": "", "count": 1, "drawn": ["black"],
            "nonce": 1, "reason": "attack"}  # fmt: skip
    next(r for r in records if r["kind"] == "action")["body"]["draws"] = [draw]


def drop_origin(header, records) -> None:
    """A given seed passed off as the companion's: the origin taken out of record 1 (the
    chain computed again), as if the log were written before origins were recorded."""
    del records[0]["body"]["seed_origin"]


def odd_values(header, records) -> None:
    """Values the companion's log may hold and that JSON writers disagree on: integers
    beyond 2**53, keys beyond the Basic Multilingual Plane, separators of lines."""
    next(r for r in records if r["kind"] == "action")["body"]["events"].append({
        "big": 2**63 + 5, "neg": -(2**70), "keys": {"\uff01": 1, "\U0001f600": 2, "\ue000": 3},
        "text": "\u2028\u2029\x00\x1f\x7f \\ \" /",
    })  # fmt: skip


# ---------------------------------------------------------- draw and canonical
def draw_vector() -> dict[str, Any]:
    """FAIR_DRAW.md's test vector, drawn by the companion's own implementation."""
    seed = bytes(range(32)).hex()
    bag = {"black": 24, "red": 3, "blue": 2}
    words = stream(seed, "table", 1)
    return {
        "server_seed": seed,
        "client_seed": "table",
        "nonce": 1,
        "bag": bag,
        "seats": ["red", "blue"],
        "m": 4,
        "commitment": commitment(seed),
        "drawn": draw_cubes(seed, "table", 1, bag, ["red", "blue"], 4),
        "words": [next(words) for _ in range(10)],
        # the stream's first block, by the standard library alone
        "block0": hmac.new(bytes.fromhex(seed), b"table:1:0", hashlib.sha256).hexdigest(),
    }


def canonical_cases() -> list[dict[str, Any]]:
    """Values as the log holds them, with Python's canonical text and its SHA-256."""
    values: list[Any] = [
        TRICKY,
        "".join(chr(c) for c in range(0x20)) + "\x7f\x80\x9f\xa0",
        'quote " backslash \\ slash / both \\"',
        "\u2028\u2029\ufeff\ufffd",
        "astral 🐉𝄞 and BMP \uff01\ue000",
        {"\uff01": 1, "\U0001f600": 2, "\ue000": 3, "a": 4, "B": 5, "é": 6, "": 7, "aa": 8},
        {"z": [0, -1, 2**53 + 1, 2**63 - 1, -(2**63), 10**30], "a": {"y": None, "x": True}},
        {"nested": [[], {}, [{"k": "v"}], False]},
        ["UIDs 04:31:A7:5C:72:4D:80", "Åsa Ørsted", "Ζωή", "日本語"],
    ]
    cases = []
    for value in values:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        cases.append({
            "json": json.dumps(value),  # ASCII, escaped: the reader must decode it
            "canonical": text,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        })  # fmt: skip
    return cases


def python_verdict(path: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(path)], capture_output=True, check=False
    )
    return STATUS[result.returncode]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        clank_text = finished_clank(tmp)
        given = scripted(tmp, "given", "clank-2-players-short.jsonl", drop_seed=False, close=False)
        run_text, lost_text = running(tmp), key_lost(tmp)
        tschak_text = scripted(tmp, "tschak", "tschak-2-players.jsonl", drop_seed=False, close=True)
        exports = {
            "clank-finished.jsonl": (clank_text, "ok"),
            "catacombs.jsonl": (
                scripted(tmp, "cata", "catacombs-3-players.jsonl", drop_seed=True, close=True),
                "ok",
            ),
            "given-seed.jsonl": (given, "not_provably_fair"),
            "running.jsonl": (run_text, "sealed"),
            "key-lost.jsonl": (lost_text, "not_provably_fair"),
            "tschak.jsonl": (tschak_text, "ok"),
            "forged-draw.jsonl": (forged(clank_text, swap_drawn, chain=False), "failed"),
            "forged-draw-rechained.jsonl": (forged(clank_text, swap_drawn, chain=True), "failed"),
            "forged-date.jsonl": (
                forged(
                    clank_text,
                    lambda h, r: h["game"].update(created_at="2024-05-02 20:00:00"),
                    chain=False,
                ),
                "failed",
            ),  # fmt: skip
            "forged-after-close.jsonl": (forged(clank_text, after_close, chain=True), "failed"),
            "forged-huge-bag.jsonl": (forged(clank_text, huge_bag, chain=True), "failed"),
            "forged-undone-seed.jsonl": (forged(clank_text, undone_seed, chain=True), "failed"),
            "forged-nonce-reused.jsonl": (forged(clank_text, nonce_reused, chain=True), "failed"),
            "forged-nonce-skipped.jsonl": (forged(clank_text, nonce_skipped, chain=True), "failed"),
            "forged-seed-after-draw.jsonl": (
                forged(clank_text, seed_after_draw, chain=True),
                "failed",
            ),
            "forged-other-seed.jsonl": (forged(clank_text, other_seed, chain=True), "failed"),
            "forged-closed-early.jsonl": (forged(run_text, closed_early, chain=True), "failed"),
            "forged-after-abandon.jsonl": (
                forged(lost_text, acted_after_abandon, chain=True),
                "failed",
            ),
            "forged-tschak-draw.jsonl": (forged(tschak_text, tschak_draw, chain=True), "failed"),
            "forged-duplicate-key.jsonl": (
                clank_text.replace('"version": 1,', '"version": 1, "version": 1,', 1),
                "failed",
            ),
            "forged-lone-surrogate.jsonl": (
                clank_text.replace('"taken back"', '"taken \\ud800back"', 1),
                "failed",
            ),
            "rechained-odd-values.jsonl": (forged(clank_text, odd_values, chain=True), "ok"),
            "forged-origin.jsonl": (
                given.replace('"seed_origin": "given"', '"seed_origin": "companion"', 1),
                "failed",
            ),
            "forged-origin-dropped.jsonl": (forged(given, drop_origin, chain=True), "failed"),
        }
    expected = {}
    for name, (text, status) in exports.items():
        path = OUT / name
        path.write_text(text, encoding="utf-8")
        found = python_verdict(path)
        assert found == status, f"{name}: the Python verifier says {found}, not {status}"
        expected[name] = status
    write_json(OUT / "expected.json", expected)
    write_json(OUT / "draw-vector.json", draw_vector())
    write_json(OUT / "canonical.json", canonical_cases())
    print(f"{len(expected)} exports and 3 more files in {OUT.relative_to(ROOT)}")


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
