"""The ``clank-companion`` command."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from companion import __version__
from companion.catalog import CatalogError
from companion.script import ScriptError, replay

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
        n = event["n"]
        return f"{event['player']} clank {n:+d}" + (
            f" ({event['cancelled']} cancelled)" if event.get("cancelled") else ""
        )
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


def cmd_replay(args: argparse.Namespace) -> int:
    def step(number: int, action: Any, events: Any, error: Any) -> None:
        if error is not None:
            print(error, file=sys.stderr)
            return
        if args.verbose:
            print(f"{number:>4} {json.dumps(action)}")
            for event in events:
                print(f"       {describe_event(event)}")
            if args.delay:
                time.sleep(args.delay)

    try:
        result = replay(Path(args.file), keep_going=args.keep_going, on_step=step)
    except ScriptError as e:
        print(str(e) if e.line else e.reason, file=sys.stderr)
        return 2
    except CatalogError as e:
        print(f"catalog: {e}", file=sys.stderr)
        return 2
    out = result.output()
    if args.json:
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(describe_state(out))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    path = EXAMPLES / args.game
    if not path.exists():
        print(f"demo game not found: {path}", file=sys.stderr)
        return 2
    print(f"Replaying {path.name}: a recorded game, action by action.\n")
    ns = argparse.Namespace(
        file=str(path), json=False, keep_going=False, verbose=True, delay=args.delay
    )
    return cmd_replay(ns)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clank-companion",
        description="Table companion for Clank! and Clank! Catacombs: the dragon bag, "
        "the noise and the pain, kept fair and never lost.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("replay", help="replay a table script (JSON Lines of actions)")
    p.add_argument("file", help="the script: one JSON action per line")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.add_argument(
        "--keep-going", action="store_true", help="report bad lines in 'errors' and go on"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print every action and event")
    p.add_argument("--delay", type=float, default=0.0, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_replay)
    d = sub.add_parser("demo", help="watch a recorded game being replayed (the default)")
    d.add_argument("--game", default=DEMO, help=f"an example under examples/ (default {DEMO})")
    d.add_argument("--delay", type=float, default=0.0, help="seconds between actions")
    d.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["demo", *(argv or [])])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
