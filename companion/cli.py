"""The ``clank-companion`` command."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from companion import __version__
from companion.audit.check import export_game, verify_store
from companion.catalog import CatalogError
from companion.config import ConfigError, load_config
from companion.rules import RuleError
from companion.script import Replay, ScriptError, play, replay
from companion.store import GameStore, StoreError
from companion.store.tags import KINDS, BulkEnrollment, TagError, TagRegistry, components
from hardware.readers import ReaderStatus, ReaderWorker, Scan, SpecError, make_reader

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEMO = "clank-4-players.jsonl"


def describe_event(event: dict[str, Any]) -> str:
    """One event in words, for the terminal."""
    kind = event["event"]
    if kind == "draw":
        drawn = ", ".join(event["drawn"]) or "nothing"
        return f"dragon draw #{event['nonce']} ({event['reason']}, {event['count']} cubes): {drawn}"
    if kind == "damage":
        return f"{event['player']} takes 1 damage ({event['health']} health left)"
    if kind == "knocked_out":
        where = " in the Depths" if event["in_depths"] else ""
        return f"{event['player']} is knocked out{where}"
    if kind == "clank":
        text = f"{event['player']} clank {event['n']:+d}"
        if event.get("cancelled"):
            text += f" ({event['cancelled']} cancelled by anti-clank)"
        if event.get("credit"):
            text += f" (anti-clank credit {event['credit']} this turn)"
        return text
    if kind == "rage":
        return f"rage: space {event['space']} ({event['draw']} cubes)"
    if kind == "turn":
        return f"turn {event['number']}: {event['player']} plays"
    if kind == "countdown":
        return f"countdown: {event['player']} on space {event['space']}"
    if kind == "game_over":
        return f"game over: {event['reason']}"
    if kind == "arrive":
        return f"{event['card']} arrives: {event['text']}"
    rest = ", ".join(f"{k} {v}" for k, v in event.items() if k != "event")
    return f"{kind.replace('_', ' ')}: {rest}" if rest else kind.replace("_", " ")


def describe_state(out: dict[str, Any]) -> str:
    """The final table in a few readable lines."""
    lines = [
        f"{out['edition']} - turn {out['turn']['number']}, {out['turn']['active']} to play"
        + (" - GAME OVER" if out["game_over"] else ""),
        f"rage space {out['rage']['space']} ({out['rage']['draw']} cubes), danger {out['danger']}, "
        f"next attack draws {out['next_attack']}",
        "bag: " + ", ".join(f"{k} {v}" for k, v in out["bag"].items() if v),
        "Clank! area: " + ", ".join(f"{k} {v}" for k, v in out["clank_area"].items() if v),
    ]
    if out["countdown"]:
        lines.append(
            f"countdown: {out['countdown']['player']} on space {out['countdown']['space']}"
        )
    for name, p in out["players"].items():
        score = "" if p["score"] is None else f", score {p['score']}"
        arts = ",".join(map(str, p["artifacts"])) or "-"
        lines.append(
            f"  {name:<8} {p['status']:<11} health {p['health']:>2}  supply {p['supply']:>2}  "
            f"gold {p['gold']:>2}  artifacts {arts}{score}"
        )
    if out["ranking"]:
        lines.append(
            "ranking: "
            + "; ".join(f"{r['place']}. {r['player']} {r['score']}" for r in out["ranking"])
        )
    lines.append(f"draws: {len(out['draws'])}  commitment {out['commitment']}")
    if out["server_seed"]:
        lines.append(f"server seed (revealed): {out['server_seed']}")
    for err in out["errors"]:
        lines.append(f"error: line {err['line']}: {err['reason']}")
    return "\n".join(lines)


def default_db() -> Path:
    """CLANK_DB, else the desktop user's data folder."""
    if os.environ.get("CLANK_DB"):
        return Path(os.environ["CLANK_DB"])
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "clank-companion" / "games.db"


def _stepper(args: argparse.Namespace) -> Any:
    """Prints each action once it is committed (commit before show)."""

    def step(number: int, action: Any, events: Any, error: Any) -> None:
        if error is not None:
            print(error, file=sys.stderr, flush=True)
            return
        if args.verbose:
            print(f"{number:>4} {json.dumps(action)}")
            for event in events:
                print(f"       {describe_event(event)}")
            sys.stdout.flush()
            if getattr(args, "delay", 0):
                time.sleep(args.delay)

    return step


def _finish(args: argparse.Namespace, result: Replay) -> int:
    out = result.output()
    if args.json:
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(describe_state(out))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        if not args.db:
            result = replay(Path(args.file), keep_going=args.keep_going, on_step=_stepper(args))
            return _finish(args, result)
        with GameStore(args.db) as store:
            result = replay(
                Path(args.file),
                keep_going=args.keep_going,
                on_step=_stepper(args),
                start=store.start,
            )
            if result.table is not None and result.table.log is not None:
                print(f"recorded as game {result.table.log.game} in {args.db}", file=sys.stderr)
            return _finish(args, result)
    except ScriptError as e:
        print(str(e) if e.line else e.reason, file=sys.stderr)
        return 2


def _numbered(source: Any) -> Any:
    for number, line in enumerate(source, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def cmd_resume(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        game = args.game if args.game is not None else store.last_unfinished()
        if game is None:
            print(f"no unfinished game in {args.db}", file=sys.stderr)
            return 2
        table = store.resume(game)
        print(f"resumed game {game}: {table.game.actions_seen} actions", file=sys.stderr)
        result = Replay(table=table, actions=table.game.actions_seen)
        if args.actions:
            if args.actions == "-":
                source: Any = contextlib.nullcontext(sys.stdin)
            else:
                source = open(args.actions, encoding="utf-8")  # noqa: SIM115
            try:
                with source as lines:
                    play(
                        result,
                        _numbered(lines),
                        keep_going=args.keep_going,
                        on_step=_stepper(args),
                    )
            except ScriptError as e:
                print(str(e), file=sys.stderr)
                return 2
        return _finish(args, result)


def cmd_games(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        games = store.games()
    if args.json:
        print(json.dumps(games))
        return 0
    if not games:
        print(f"no games in {args.db}")
    for g in games:
        winner = f", winner {g['ranking'][0]['player']}" if g["ranking"] else ""
        print(
            f"game {g['id']:>3}  {g['created_at']}  {g['edition']:<9}  "
            f"{'/'.join(g['players'])}  {g['status']:<9}  {g['actions']} actions{winner}"
        )
    return 0


def cmd_abandon(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        table = store.resume(args.game)
        try:
            table.abandon(args.reason)
        except RuleError as e:
            print(str(e), file=sys.stderr)
            return 2
        print(f"game {args.game} abandoned; server seed {table.server_seed}")
        return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty() and total > 1:
            print(f"\rchecking game {done} of {total}", end="", file=sys.stderr, flush=True)

    with GameStore(args.db) as store:
        results = verify_store(store, args.game, progress)
    if sys.stderr.isatty() and len(results) > 1:
        print(file=sys.stderr)
    for r in results:
        print(f"game {r.game}: {'OK' if r.ok else 'FAILED'}: {r.message}")
    if not results:
        print(f"no games in {args.db}")
    return 0 if all(r.ok for r in results) else 1


def cmd_audit_export(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        if args.output in (None, "-"):
            export_game(store, args.game, sys.stdout)
            return 0
        tmp = Path(args.output + ".part")
        with tmp.open("w", encoding="utf-8") as out:
            count = export_game(store, args.game, out)
        tmp.replace(args.output)
    print(f"game {args.game}: {count} records written to {args.output}", file=sys.stderr)
    return 0


def _reader_spec(args: argparse.Namespace) -> str:
    return args.reader or load_config().reader.spec


def _run_reader(
    spec: str, on_scan: Any, *, gone_after: float, window: float, stop: threading.Event
) -> int:
    """Run a reader until ``stop`` (Ctrl-C or SIGTERM); scans handled on this thread."""
    try:
        device = make_reader(spec)
    except SpecError as e:
        print(str(e), file=sys.stderr)
        return 2
    scans: queue.Queue[Scan] = queue.Queue()

    def status(state: ReaderStatus, detail: str) -> None:
        print(f"reader {device.name}: {state.value} {detail}".rstrip(), file=sys.stderr, flush=True)

    worker = ReaderWorker(device, scans.put, status, gone_after=gone_after, window=window)
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    worker.start()
    try:
        while not stop.is_set():
            try:
                scan = scans.get(timeout=0.1)
            except queue.Empty:
                continue
            if on_scan(scan) is False:
                break
    except KeyboardInterrupt:
        pass
    finally:
        worker.stop()
        signal.signal(signal.SIGTERM, previous)
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    config = load_config()
    with GameStore(args.db) as store:
        registry = TagRegistry(store.db)

        def show(scan: Scan) -> None:
            component = registry.lookup(scan.uid)
            print(f"{scan.uid}  {component if component else 'unknown tag'}", flush=True)

        return _run_reader(
            _reader_spec(args),
            show,
            gone_after=config.reader.gone_after,
            window=config.reader.window,
            stop=threading.Event(),
        )


def cmd_tags_list(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        bindings = TagRegistry(store.db).bindings(args.edition)
    if args.json:
        print(json.dumps([{"uid": b.uid, **b.component.__dict__} for b in bindings]))
        return 0
    for b in bindings:
        print(f"{b.uid:<20}  {b.component}")
    print(f"{len(bindings)} tags", file=sys.stderr)
    return 0


def cmd_tags_import(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    with GameStore(args.db) as store:
        try:
            count = TagRegistry(store.db).import_csv(text, rebind=args.rebind)
        except TagError as e:
            print(f"{args.file}: {e}; nothing was imported", file=sys.stderr)
            return 2
    print(f"{count} tags imported from {args.file}")
    return 0


def cmd_tags_export(args: argparse.Namespace) -> int:
    with GameStore(args.db) as store:
        registry = TagRegistry(store.db)
        if args.output in (None, "-"):
            registry.export_csv(sys.stdout)
            return 0
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            count = registry.export_csv(out)
    print(f"{count} tags written to {args.output}", file=sys.stderr)
    return 0


def cmd_tags_enroll(args: argparse.Namespace) -> int:
    config = load_config()
    try:
        targets = components(args.edition, args.kind or ["card"], args.set or [], party=args.party)
    except (CatalogError, TagError) as e:
        print(str(e), file=sys.stderr)
        return 2
    if not targets:
        print("nothing to enroll with those choices", file=sys.stderr)
        return 2
    with GameStore(args.db) as store:
        walk = BulkEnrollment(TagRegistry(store.db), targets)
        for _ in range(max(0, args.start - 1)):
            walk.skip()
        print(walk.progress(), flush=True)

        def enroll(scan: Scan) -> bool:
            try:
                binding = walk.scanned(scan.uid, rebind=args.rebind)
                print(f"  {binding.uid} is {binding.component}", flush=True)
            except TagError as e:
                print(f"  {e}", flush=True)
            print(walk.progress(), flush=True)
            return not walk.done

        code = _run_reader(
            _reader_spec(args),
            enroll,
            gone_after=config.reader.gone_after,
            window=config.reader.window,
            stop=threading.Event(),
        )
    if not walk.done:
        print(f"stopped; continue with --start {walk.position + 1}", file=sys.stderr)
    return code


def cmd_demo(args: argparse.Namespace) -> int:
    path = EXAMPLES / args.game
    if not path.exists():
        print(f"demo game not found: {path}", file=sys.stderr)
        return 2
    print(f"Replaying {path.name}: a recorded game, action by action.")
    print(f"It is recorded in {args.db} (see: clank-companion games).\n")
    ns = argparse.Namespace(
        file=str(path), json=False, keep_going=False, verbose=True, delay=args.delay, db=args.db
    )
    return cmd_replay(ns)


def cmd_app(args: argparse.Namespace) -> int:
    import dataclasses

    config = load_config()
    if args.db:
        config = dataclasses.replace(config, app=dataclasses.replace(config.app, database=args.db))
    fullscreen = config.app.fullscreen if args.fullscreen is None else args.fullscreen
    from companion.ui.app import run_app  # Kivy only when the screen is wanted

    return run_app(config, fullscreen=fullscreen)


def cmd_backup(args: argparse.Namespace) -> int:
    from companion.store.backup import backup

    made = backup(Path(args.db), Path(args.to), keep=args.keep)
    print(f"backed up {args.db} to {made}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clank-companion",
        description="Table companion for Clank! and Clank! Catacombs: the dragon bag, "
        "the noise and the pain, kept fair and never lost.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command")
    db_help = "the game database (default: $CLANK_DB or ~/.local/share/clank-companion/games.db)"
    p = sub.add_parser("replay", help="replay a table script (JSON Lines of actions)")
    p.add_argument("file", help="the script: one JSON action per line")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.add_argument(
        "--keep-going", action="store_true", help="report bad lines in 'errors' and go on"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print every action and event")
    p.add_argument("--delay", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--db", help="record the game in this database (commit before show)")
    p.set_defaults(func=cmd_replay)
    g = sub.add_parser("games", help="list the games in a database")
    g.add_argument("--db", default=str(default_db()), help=db_help)
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_games)
    r = sub.add_parser("resume", help="continue a game from its log (after a power cut)")
    r.add_argument("--db", default=str(default_db()), help=db_help)
    r.add_argument("--game", type=int, help="the game (default: the last unfinished one)")
    r.add_argument("--actions", help="more actions to apply: a file, or - for standard input")
    r.add_argument("--json", action="store_true")
    r.add_argument("--keep-going", action="store_true")
    r.add_argument("-v", "--verbose", action="store_true")
    r.set_defaults(func=cmd_resume)
    a = sub.add_parser("abandon", help="give up a game and reveal its server seed")
    a.add_argument("--db", default=str(default_db()), help=db_help)
    a.add_argument("--game", type=int, required=True)
    a.add_argument("--reason", default="abandoned at the table")
    a.set_defaults(func=cmd_abandon)
    au = sub.add_parser("audit", help="check or export game logs")
    asub = au.add_subparsers(dest="audit_command", required=True)
    v = asub.add_parser("verify", help="check the chain, the seed and every draw")
    v.add_argument("--db", default=str(default_db()), help=db_help)
    v.add_argument("--game", type=int)
    v.set_defaults(func=cmd_audit_verify)
    e = asub.add_parser("export", help="write a game as JSON Lines for the standalone verifier")
    e.add_argument("--db", default=str(default_db()), help=db_help)
    e.add_argument("--game", type=int, required=True)
    e.add_argument("-o", "--output", help="the file to write (default: standard output)")
    e.set_defaults(func=cmd_audit_export)
    sc = sub.add_parser("scan", help="print every accepted scan (to check a reader's wiring)")
    sc.add_argument("--reader", help="reader spec (default: the configuration, else fake)")
    sc.add_argument("--db", default=str(default_db()), help=db_help)
    sc.set_defaults(func=cmd_scan)
    tg = sub.add_parser("tags", help="the tag registry: which sticker is which component")
    tsub = tg.add_subparsers(dest="tags_command", required=True)
    tl = tsub.add_parser("list", help="list the enrolled tags")
    tl.add_argument("--db", default=str(default_db()), help=db_help)
    tl.add_argument("--edition", choices=["clank", "catacombs"])
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=cmd_tags_list)
    ti = tsub.add_parser("import", help="import a shared tag set (CSV: uid,kind,edition,name)")
    ti.add_argument("file")
    ti.add_argument("--db", default=str(default_db()), help=db_help)
    ti.add_argument("--rebind", action="store_true", help="let the file re-bind known tags")
    ti.set_defaults(func=cmd_tags_import)
    te = tsub.add_parser("export", help="write the tag set as CSV")
    te.add_argument("-o", "--output", help="the file (default: standard output)")
    te.add_argument("--db", default=str(default_db()), help=db_help)
    te.set_defaults(func=cmd_tags_export)
    tn = tsub.add_parser("enroll", help="walk the components and scan each one's tag in turn")
    tn.add_argument("--edition", required=True, choices=["clank", "catacombs"])
    tn.add_argument(
        "--kind",
        action="append",
        choices=list(KINDS[:-1]),
        help="card (default) or a token kind; repeat for several",
    )
    tn.add_argument(
        "--set",
        action="append",
        choices=["starter", "reserve", "dungeon", "promo"],
        help="only cards of this set; repeat for several",
    )
    tn.add_argument("--party", action="store_true", help="include the Adventuring Party's tokens")
    tn.add_argument("--start", type=int, default=1, help="begin at this position")
    tn.add_argument("--rebind", action="store_true", help="re-bind tags already enrolled")
    tn.add_argument("--reader", help="reader spec (default: the configuration, else fake)")
    tn.add_argument("--db", default=str(default_db()), help=db_help)
    tn.set_defaults(func=cmd_tags_enroll)
    ap = sub.add_parser("app", help="start the touchscreen (the default with no command)")
    ap.add_argument("--db", help="the game database (default: the configuration's)")
    ap.add_argument("--fullscreen", action="store_true", default=None, help="the kiosk")
    ap.add_argument("--window", dest="fullscreen", action="store_false", help="an 800x480 window")
    ap.set_defaults(func=cmd_app)
    bk = sub.add_parser("backup", help="copy the game database safely while it is in use")
    bk.add_argument("--db", default=str(default_db()), help=db_help)
    bk.add_argument("--to", required=True, help="the folder for the copies")
    bk.add_argument("--keep", type=int, default=7, help="how many copies to keep (default 7)")
    bk.set_defaults(func=cmd_backup)
    d = sub.add_parser("demo", help="watch a recorded game being replayed in the terminal")
    d.add_argument("--game", default=DEMO, help=f"an example under examples/ (default {DEMO})")
    d.add_argument("--delay", type=float, default=0.0, help="seconds between actions")
    d.add_argument("--db", default=str(default_db()), help=db_help)
    d.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["app", *(argv or [])])
    try:
        return int(args.func(args))
    except (StoreError, CatalogError, ConfigError) as e:
        print(str(e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
