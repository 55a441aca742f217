#!/usr/bin/env python3
"""Check an exported Clank! companion game log. Standard library only: copy this one file
anywhere and run

    python3 verify_log.py game-export.jsonl

It checks that (1) every record is chained to the one before it, (2) the revealed server
seed matches the commitment shown before the game, and (3) every dragon draw comes out of
the published fair-draw algorithm exactly as recorded. It prints one line per finding and
exits 0 when all is well, 1 when something is wrong.

The log format (the export is JSON Lines):
- line 1, the header: {"format": "clank-companion-log", "version": 1, "game": {...}}
- every other line, one record: {"game": G, "seq": S, "kind": K, "body": {...},
  "prev": PREV, "hash": HASH}; seq counts 1, 2, 3, ... within the game.
- canonical bytes of a record: UTF-8 of the JSON object with exactly the keys body, game,
  kind, seq, sorted, no spaces (separators "," and ":"), non-ASCII written as itself;
  the body is canonical the same way. Numbers are integers.
- chain rule: HASH = SHA-256(PREV as 32 raw bytes || canonical bytes), lowercase hex;
  PREV of record 1 is 64 zeros; PREV of record S is HASH of record S-1.
- kinds: "new" (body: setup, seats, commitment, client_seed), "action" (body: action,
  events, draws), "reveal" and "abandon" (body: server_seed, reason); an "abandon" whose
  server_seed is null gave up a game whose seal key was lost: its draws cannot be checked.
- a game without a dragon bag (Tschak!) has the commitment "" and no draws: it ends with
  an "end" record (body: reason) instead of a "reveal", and is abandoned with a null seed.
- the header's game (id, edition, players, status, commitment, server_seed) must agree
  with the records; nothing in an export is trusted that the records do not show.
- each draw: {"nonce", "reason", "client_seed", "bag": {kind: count}, "count",
  "drawn": [...]}; nonces run 1, 2, 3, ... over the game (an undone draw keeps its nonce);
  every draw uses the client seed the table chose (the "new" record's, or the "seed"
  action's that fixed it before the first draw). The bag is laid out black, the seats in
  order, ghost; see recompute_draw below. This file takes each draw's recorded bag as it
  stands: that the bags follow from the game's actions is checked by the companion's own
  `audit verify`, which replays the whole game through the rules.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

FORMAT = "clank-companion-log"
VERSION = 1
GENESIS = "0" * 64


def canonical(obj: Any) -> str:
    """The canonical JSON text of a value (sorted keys, no spaces, UTF-8 as is)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_bytes(game: int, seq: int, kind: str, body_text: str) -> bytes:
    """Canonical bytes of a record whose body is already canonical text."""
    text = f'{{"body":{body_text},"game":{game:d},"kind":{canonical(kind)},"seq":{seq:d}}}'
    return text.encode("utf-8")


def link_hash(prev: str, data: bytes) -> str:
    return hashlib.sha256(bytes.fromhex(prev) + data).hexdigest()


def _u32_stream(seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    block = 0
    while True:
        digest = hmac.new(seed, f"{client_seed}:{nonce}:{block}".encode(), hashlib.sha256).digest()
        yield from (int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4))
        block += 1


def recompute_draw(
    seed_hex: str, client_seed: str, nonce: int, bag: dict[str, int], seats: list[str], count: int
) -> list[str]:
    """The fair draw, written independently of the app's own implementation."""
    cubes = [kind for kind in ["black", *seats, "ghost"] for _ in range(bag.get(kind, 0))]
    words = _u32_stream(bytes.fromhex(seed_hex), client_seed, nonce)
    drawn: list[str] = []
    while cubes and len(drawn) < count:
        size = len(cubes)
        limit = 2**32 - 2**32 % size
        word = next(words)
        while word >= limit:
            word = next(words)
        drawn.append(cubes.pop(word % size))
    return drawn


def _is_scoring(kind: str, body: Any) -> bool:
    """After the game is over only the players' decks are still recorded, for scoring."""
    return (
        kind == "action"
        and isinstance(body, dict)
        and body.get("action", {}).get("do") == "cards"
        and not body.get("draws")
    )


class Finding(Exception):
    """Something wrong in the log; the message names the record."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_header(header: dict[str, Any], facts: dict[str, Any]) -> None:
    """The export's header (the games table) must say what the records say."""
    game = header.get("game")
    if not isinstance(game, dict):
        raise Finding("the header does not describe the game")
    for key, label in (
        ("commitment", "commitment"),
        ("players", "players"),
        ("edition", "edition"),
        ("status", "status"),
        ("server_seed", "revealed server seed"),
    ):
        if key in game and game[key] != facts[key]:
            raise Finding(f"the header and the records disagree on the {label}")
    missing = [k for k in ("commitment", "players", "edition", "status") if k not in game]
    if missing:
        raise Finding(f"the header does not give the game's {', '.join(missing)}")


def check_records(header: dict[str, Any], records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Check a game's records; raises Finding at the first bad one. Returns a summary.

    Every hash is computed from the canonical text of the record's own body: nothing
    that the export says about its bytes is taken on trust. The header (the games
    table's row) must agree with the records.
    """
    version = header.get("version")
    if header.get("format") != FORMAT or not _whole(version) or version != VERSION:
        raise Finding(f"not a {FORMAT} version {VERSION} export")
    info = header.get("game")
    game = info.get("id") if isinstance(info, dict) else None
    if not isinstance(game, int) or isinstance(game, bool):
        raise Finding("the header does not name the game")
    prev = GENESIS
    expected_seq = 1
    commitment = seed = None
    seed_lost = False
    client_seeds: set[str] = set()
    table_seed = None  # the client seed the table chose: the set-up's, or a "seed" action's
    seats: list[str] = []
    edition = None
    draws: list[tuple[int, dict[str, Any]]] = []
    nonces: set[int] = set()
    ended = None
    no_bag = False  # a game without a dragon bag: no seed, no draws
    for rec in records:
        if not isinstance(rec, dict):
            raise Finding(f"record {expected_seq}: not a record")
        seq = rec.get("seq")
        where = f"record {seq}"
        if not _whole(seq) or not _whole(rec.get("game")):
            raise Finding(f"record {expected_seq}: its game and number must be whole numbers")
        if rec.get("game") != game:
            raise Finding(f"{where}: belongs to game {rec.get('game')}, not {game}")
        if seq != expected_seq:
            raise Finding(f"record {expected_seq} is missing or out of order (found {seq})")
        body, kind = rec.get("body"), rec.get("kind")
        if not isinstance(body, dict) or not isinstance(kind, str):
            raise Finding(f"{where}: its body is not a canonical record")
        if rec.get("prev") != prev:
            raise Finding(f"{where}: not chained to record {seq - 1}")
        data = record_bytes(game, seq, kind, canonical(body))
        if not isinstance(rec.get("hash"), str) or link_hash(prev, data) != rec["hash"]:
            raise Finding(f"{where}: its hash does not match its content")
        scoring = _is_scoring(kind, body) or (no_bag and kind == "action")
        if ended is not None and not (ended == "over" and scoring):
            raise Finding(f"{where}: written after the game was {ended}")
        if seq == 1:
            if kind != "new":
                raise Finding("record 1: a game log starts with its 'new' record")
            commitment, seats = body["commitment"], body["seats"]
            setup = body["setup"]
            table_seed = body["client_seed"]
            edition = setup["edition"]
            no_bag = commitment == ""
            if seats != setup["players"]:
                raise Finding("record 1: the seats are not the set-up's players")
        elif kind == "new":
            raise Finding(f"{where}: a second 'new' record")
        elif kind == "action":
            action = body["action"]
            if action.get("do") == "seed":
                table_seed = action["client_seed"]
            if no_bag and body.get("draws"):
                raise Finding(f"{where}: a draw in a game without a dragon bag")
            for draw in body.get("draws", []):
                if not all(_whole(draw[k]) for k in ("nonce", "count")):
                    raise Finding(f"{where}: a draw's nonce and count must be whole numbers")
                if draw["client_seed"] != table_seed:
                    raise Finding(
                        f"{where}: draw {draw['nonce']} used a client seed other than the table's"
                    )
                if draw["nonce"] in nonces:
                    raise Finding(f"{where}: nonce {draw['nonce']} used twice")
                if draw["nonce"] != len(nonces) + 1:
                    raise Finding(f"{where}: nonce {draw['nonce']} skips or goes back")
                client_seeds.add(draw["client_seed"])
                if len(client_seeds) > 1:
                    raise Finding(f"{where}: the client seed changed after a draw")
                nonces.add(draw["nonce"])
                draws.append((seq, draw))
        elif no_bag and kind in ("end", "abandon"):
            if kind == "abandon" and body["server_seed"] is not None:
                raise Finding(f"{where}: a seed revealed in a game without a dragon bag")
            ended = "over" if kind == "end" else "abandoned"
        elif kind in ("reveal", "abandon") and not no_bag:
            seed = body["server_seed"]
            if seed is None and kind == "abandon":
                seed_lost = True  # abandoned after its seal key was lost
            elif hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
                raise Finding(f"{where}: the revealed server seed does not match the commitment")
            ended = "over" if kind == "reveal" else "abandoned"
        else:
            raise Finding(f"{where}: unknown kind {kind!r}")
        prev = rec["hash"]
        expected_seq += 1
    if expected_seq == 1:
        raise Finding("the export holds no record")
    _check_header(
        header,
        {
            "commitment": commitment,
            "players": seats,
            "edition": edition,
            "status": ended or "playing",
            "server_seed": seed,
        },
    )
    checked = 0
    if seed is not None:
        for seq, draw in draws:
            again = recompute_draw(
                seed, draw["client_seed"], draw["nonce"], draw["bag"], seats, draw["count"]
            )
            if again != draw["drawn"]:
                raise Finding(f"record {seq}: draw {draw['nonce']} is not what the seed gives")
            checked += 1
    return {
        "records": expected_seq - 1,
        "head": prev,
        "draws": len(draws),
        "draws_checked": checked,
        "revealed": seed is not None,
        "seed_lost": seed_lost,
        "no_bag": no_bag,
    }


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise Finding("an object names the same key twice")
    return out


def read_export(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                rows.append(json.loads(line, object_pairs_hook=_no_duplicate_keys))
            except json.JSONDecodeError as e:
                raise Finding(f"line {number}: not valid JSON ({e.msg})") from None
            except (ValueError, RecursionError) as e:
                raise Finding(f"line {number}: not a record ({type(e).__name__})") from None
            except Finding as e:
                raise Finding(f"line {number}: {e}") from None
    if not rows:
        raise Finding("the export is empty")
    return rows[0], rows[1:]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 verify_log.py GAME-EXPORT.jsonl", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            header, records = read_export(f)
        summary = check_records(header, records)
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    except (Finding, KeyError, TypeError, ValueError, AttributeError, RecursionError) as e:
        reason = e if isinstance(e, Finding) else f"malformed record ({type(e).__name__}: {e})"
        print(f"FAILED: {reason}")
        return 1
    print(f"OK: {summary['records']} records chained, head {summary['head']}")
    print(
        "CHECK: compare this head with the one photographed at the table when the game "
        "ended; whoever can write the database can rewrite a game and its whole chain, "
        "and only a copy kept outside the box shows it"
    )
    if summary["no_bag"]:
        print("OK: a game without a dragon bag: no seed and no draw to check")
    elif summary["revealed"]:
        print(
            f"OK: the server seed matches the commitment; "
            f"{summary['draws_checked']} draws recomputed and equal"
        )
    elif summary["seed_lost"]:
        print(
            f"NOTE: the game was abandoned after its seal key was lost; its "
            f"{summary['draws']} draws can never be recomputed"
        )
    else:
        print(
            f"NOTE: the server seed is still sealed; {summary['draws']} draws cannot be "
            "recomputed until the game ends"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
