#!/usr/bin/env python3
"""Check an exported Clank! companion game log. Standard library only: copy this one file
anywhere and run

    python3 verify_log.py game-export.jsonl

It checks that (1) every record is chained to the one before it, (2) the revealed server
seed matches the commitment shown before the game, and (3) every dragon draw comes out of
the published fair-draw algorithm exactly as recorded. It prints one line per finding.

Its exit status is its verdict:
  0  every draw recomputed and equal (or a game without a dragon bag, chained whole);
  1  FAILED: something in the log is wrong (the line says where);
  2  the file cannot be read, or the command was called wrongly;
  3  NOT PROVABLY FAIR: the log holds together, but its draws cannot prove a fair game:
     its server seed was chosen outside the companion (the draws are reproducible, and
     whoever chose the seed could have chosen the draws), or the seed was lost with its
     seal key (the draws can never be recomputed);
  4  NOT YET: the game is still running: its seed is sealed until the game ends.

The log format (the export is JSON Lines):
- line 1, the header: {"format": "clank-companion-log", "version": 1, "game": {...}}
- every other line, one record: {"game": G, "seq": S, "kind": K, "body": {...},
  "prev": PREV, "hash": HASH}; seq counts 1, 2, 3, ... within the game.
- canonical bytes of a record: UTF-8 of the JSON object with exactly the keys body, game,
  kind, seq, sorted, no spaces (separators "," and ":"), non-ASCII written as itself;
  the body is canonical the same way. Numbers are integers.
- chain rule: HASH = SHA-256(PREV as 32 raw bytes || canonical bytes), lowercase hex;
  PREV of record 1 is 64 zeros; PREV of record S is HASH of record S-1.
- kinds: "new" (body: format, setup, seats, commitment, client_seed, seed_origin,
  created_at), "action" (body: action, events, draws),
  "reveal" and "abandon" (body: server_seed, reason, ended_at), "end" (body: reason,
  ended_at), "close" (body: reason); an
  "abandon" whose server_seed is null gave up a game whose seal key was lost: its draws
  cannot be checked.
- seed_origin: "companion" when the companion drew the server seed itself (the only case in
  which the draws prove a fair game), "given" when whoever started the game chose it (a
  table script, for tests and examples: draws reproducible, not provably fair). Every
  "new" record of a game with a dragon bag carries it: one without it FAILS (whoever
  chose the seed could otherwise strip it, compute the chain again, and pass the game
  off as fair). A game without a dragon bag has none.
- created_at: the date the game was made; the header's must be the same.
- "close": the table closed the scored game; nothing may follow it. Its hash is the final
  chain head, the one to photograph. Before it, deck scans may still add records.
- a game without a dragon bag (Tschak!) has the commitment "" and no draws: it ends with
  an "end" record instead of a "reveal", and is abandoned with a null seed.
- the header's game (id, edition, players, status, commitment, server_seed) must agree
  with the records; nothing in an export is trusted that the records do not show.
- each draw: {"nonce", "reason", "client_seed", "bag": {kind: count}, "count",
  "drawn": [...]}; nonces run 1, 2, 3, ... over the game (an undone draw keeps its nonce);
  every draw uses the client seed in force: the "new" record's, or that of the last
  "seed" action still standing (an "undo" action takes back the last action not yet
  taken back, a "seed" action included, before the first draw). The bag is laid out
  black, the seats in order, ghost; see recompute_draw below. This file takes each
  draw's recorded bag as it stands: that the bags follow from the game's actions is
  checked by the companion's own `audit verify`, which replays the whole game through
  the rules.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

FORMAT = "clank-companion-log"
VERSION = 1
GENESIS = "0" * 64
DRAWN, GIVEN = "companion", "given"  # where the server seed came from (the "new" record)

# What an export may claim before anything is computed from it: a crafted export must not
# make the verifier build a bag of 10^9 cubes or read a line of a gigabyte.
MAX_LINE = 1 << 20  # characters of one line
MAX_CUBES = 10_000  # cubes in one draw's bag (a real bag holds at most a few hundred)
MAX_SEATS = 6

# exit statuses: the verdict
EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE, EXIT_NOT_PROVABLY_FAIR, EXIT_SEALED = 0, 1, 2, 3, 4


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
    if facts.get("created_at") is not None and game.get("created_at") != facts["created_at"]:
        raise Finding("the header and the records disagree on the game's date")
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
    table_seed = None  # the client seed in force: the set-up's, or a "seed" action's
    # the client seed after each action still standing, for "undo" (see the module doc)
    standing: list[Any] = []
    first_seed = ""
    origin = None
    created_at = None
    closed = False
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
        if closed:
            raise Finding(f"{where}: written after the game was closed")
        if ended is not None and not (ended == "over" and (scoring or kind == "close")):
            raise Finding(f"{where}: written after the game was {ended}")
        if seq == 1:
            if kind != "new":
                raise Finding("record 1: a game log starts with its 'new' record")
            commitment, seats = body["commitment"], body["seats"]
            setup = body["setup"]
            table_seed = body["client_seed"]
            edition = setup["edition"]
            no_bag = commitment == ""
            origin = body.get("seed_origin")
            created_at = body.get("created_at")
            if (
                not isinstance(seats, list)
                or not 1 <= len(seats) <= MAX_SEATS
                or not all(isinstance(p, str) for p in seats)
            ):
                raise Finding("record 1: the seats are not a list of at most six players")
            if seats != setup["players"]:
                raise Finding("record 1: the seats are not the set-up's players")
            if not isinstance(table_seed, str):
                raise Finding("record 1: the client seed is not text")
            first_seed = table_seed
            if "seed_origin" in body and (no_bag or origin not in (DRAWN, GIVEN)):
                raise Finding("record 1: the seed's origin is not one the companion writes")
            if not no_bag and "seed_origin" not in body:
                # every log of a game with a dragon bag says it: one that does not was
                # stripped of it, to pass a chosen seed off as the companion's
                raise Finding("record 1: it does not say where the server seed came from")
            if "created_at" in body and not isinstance(created_at, str):
                raise Finding("record 1: the game's date is not text")
        elif kind == "new":
            raise Finding(f"{where}: a second 'new' record")
        elif kind == "action":
            action = body["action"]
            if action.get("do") == "undo":
                if standing:
                    standing.pop()
                table_seed = standing[-1] if standing else first_seed
            else:
                if action.get("do") == "seed":
                    table_seed = action["client_seed"]
                standing.append(table_seed)
            if not isinstance(body.get("draws", []), list):
                raise Finding(f"{where}: its draws are not a list")
            if no_bag and body.get("draws"):
                raise Finding(f"{where}: a draw in a game without a dragon bag")
            for draw in body.get("draws", []):
                if not all(_whole(draw[k]) for k in ("nonce", "count")):
                    raise Finding(f"{where}: a draw's nonce and count must be whole numbers")
                _check_bag(where, draw, seats)
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
        elif kind == "close":
            if ended != "over":
                raise Finding(f"{where}: the game is closed before it is over")
            closed = True
        elif kind in ("reveal", "abandon") and not no_bag:
            seed = body["server_seed"]
            if seed is None and kind == "abandon":
                seed_lost = True  # abandoned after its seal key was lost
            elif not (isinstance(seed, str) and len(seed) == 64 and seed == seed.lower()):
                raise Finding(f"{where}: the revealed server seed is not 64 hexadecimal digits")
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
            "created_at": created_at,
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
        "seed_given": origin == GIVEN,
        "closed": closed,
        "over": ended is not None,
    }


def _check_bag(where: str, draw: dict[str, Any], seats: list[str]) -> None:
    """A draw's bag and count as the companion can write them, before anything is built
    from them: known kinds, whole counts, a bag of a bounded size."""
    bag = draw["bag"]
    if not isinstance(bag, dict) or not set(bag) <= {"black", *seats, "ghost"}:
        raise Finding(f"{where}: draw {draw['nonce']}'s bag holds cubes of no seat")
    if not all(_whole(n) and n >= 0 for n in bag.values()):
        raise Finding(f"{where}: draw {draw['nonce']}'s bag counts must be whole numbers")
    if sum(bag.values()) > MAX_CUBES:
        raise Finding(f"{where}: draw {draw['nonce']}'s bag holds more cubes than any game")
    if not 0 <= draw["count"] <= MAX_CUBES:
        raise Finding(f"{where}: draw {draw['nonce']} draws more cubes than any game")
    drawn = draw.get("drawn")
    if not isinstance(drawn, list) or len(drawn) > draw["count"]:
        raise Finding(f"{where}: draw {draw['nonce']} lists more cubes than it drew")


def verdict(summary: dict[str, Any]) -> int:
    """The exit status that a check's summary stands for (see the module doc)."""
    if summary["no_bag"]:
        return EXIT_OK
    if summary["seed_lost"] or (summary["revealed"] and summary["seed_given"]):
        return EXIT_NOT_PROVABLY_FAIR
    if not summary["revealed"]:
        return EXIT_SEALED
    return EXIT_OK


def _no_fraction(text: str) -> Any:
    """Numbers in a log are integers only: a fraction, an exponent, NaN or Infinity is no
    number the companion writes."""
    raise Finding(f"the number {text} is not a whole number")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise Finding("an object names the same key twice")
    return out


def read_export(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = []
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            raise Finding(f"line {number}: longer than any record the companion writes")
        if line.strip():
            try:
                rows.append(
                    json.loads(
                        line,
                        object_pairs_hook=_no_duplicate_keys,
                        parse_float=_no_fraction,
                        parse_constant=_no_fraction,
                    )
                )
            except json.JSONDecodeError as e:
                raise Finding(f"line {number}: not valid JSON ({e.msg})") from None
            except (ValueError, RecursionError) as e:
                raise Finding(f"line {number}: not a record ({type(e).__name__})") from None
            except Finding as e:
                raise Finding(f"line {number}: {e}") from None
    if not rows:
        raise Finding("the export is empty")
    return rows[0], rows[1:]


def bounded_lines(f: IO[str]) -> Iterator[str]:
    """The lines of a file, none read further than one past the longest a record can be
    (read_export then refuses that one): a crafted file of one endless line is not read
    into memory whole."""
    while line := f.readline(MAX_LINE + 1):
        yield line


def report(summary: dict[str, Any]) -> list[str]:
    """What a check found, in lines; the first word of each says what it is."""
    lines = [f"OK: {summary['records']} records chained, head {summary['head']}"]
    if summary["closed"]:
        lines.append(
            "FINAL: the table closed the game: this head is final. Compare it with the one "
            "photographed at the table; whoever can write the database can rewrite a game "
            "and its whole chain, and only a copy kept outside the box shows it"
        )
    else:
        lines.append(
            "CHECK: the game was not closed at the table, so records (deck scans) may "
            "still follow and this head is not final; compare it with the one photographed "
            "at the table, if it was photographed after the last record"
        )
    if summary["no_bag"]:
        lines.append("OK: a game without a dragon bag: no seed and no draw to check")
    elif summary["seed_lost"]:
        lines.append(
            f"NOT PROVABLY FAIR: the game was abandoned after its seal key was lost; its "
            f"{summary['draws']} draws can never be recomputed"
        )
    elif not summary["revealed"]:
        lines.append(
            f"NOT YET: the server seed is still sealed; {summary['draws']} draws cannot be "
            "recomputed until the game ends"
        )
    elif summary["seed_given"]:
        lines.append(
            f"NOT PROVABLY FAIR: seed chosen outside the companion: draws reproducible, not "
            f"provably fair ({summary['draws_checked']} draws recomputed and equal to the "
            "given seed's)"
        )
    else:
        lines.append(
            f"OK: the server seed matches the commitment; "
            f"{summary['draws_checked']} draws recomputed and equal"
        )
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 verify_log.py GAME-EXPORT.jsonl", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        with open(argv[1], encoding="utf-8") as f:
            header, records = read_export(bounded_lines(f))
        summary = check_records(header, records)
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {argv[1]}: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    except (Finding, KeyError, TypeError, ValueError, AttributeError, RecursionError) as e:
        reason = e if isinstance(e, Finding) else f"malformed record ({type(e).__name__}: {e})"
        print(f"FAILED: {reason}")
        return EXIT_FAILED
    for line in report(summary):
        print(line)
    return verdict(summary)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
