"""The command line's arguments: the parser of every command, argparse's own words in
the reader's language, and the checks made before anything is opened or written."""

from __future__ import annotations

import argparse
import math
import os

from companion import __version__
from companion.cli import app, audit, games, tags
from companion.cli.files import CommandError, default_db
from companion.config import ConfigError, load_config
from companion.i18n import N_, _, set_language
from companion.kinds import editions
from companion.script import shown_path
from companion.store.tags import KINDS

MAX_DELAY = 10.0


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds from 0 to MAX_DELAY."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MAX_DELAY:  # nan and inf fail it too
        raise argparse.ArgumentTypeError(
            _("expected seconds from 0 to {most}, got {value}").format(
                most=f"{MAX_DELAY:g}", value=shown_path(text)
            )
        )
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clank-companion",
        description=_(
            "Table companion for Clank! and Clank! Catacombs: the dragon bag, "
            "the noise and the pain, kept fair and never lost."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command")
    db_help = _(
        "the game database (default: $CLANK_DB, else the configuration's [app] database, "
        "else ~/.local/share/clank-companion/games.db)"
    )
    p = sub.add_parser("replay", help=_("replay a table script (JSON Lines of actions)"))
    p.add_argument("file", help=_("the script: one JSON action per line"))
    p.add_argument("--json", action="store_true", help=_("print the final state as JSON"))
    p.add_argument(
        "--keep-going", action="store_true", help=_("report bad lines in 'errors' and go on")
    )
    p.add_argument("-v", "--verbose", action="store_true", help=_("print every action and event"))
    p.add_argument("--delay", type=seconds, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--db", help=_("record the game in this database (commit before show)"))
    p.set_defaults(func=games.cmd_replay)
    g = sub.add_parser("games", help=_("list the games in a database"))
    g.add_argument("--db", help=db_help)
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=games.cmd_games)
    r = sub.add_parser("resume", help=_("continue a game from its log (after a power cut)"))
    r.add_argument("--db", help=db_help)
    r.add_argument("--game", type=int, help=_("the game (default: the last unfinished one)"))
    r.add_argument("--actions", help=_("more actions to apply: a file, or - for standard input"))
    r.add_argument("--json", action="store_true")
    r.add_argument("--keep-going", action="store_true")
    r.add_argument("-v", "--verbose", action="store_true")
    r.set_defaults(func=games.cmd_resume)
    rs = sub.add_parser("results", help=_("a finished game's results as CSV"))
    rs.add_argument("--db", help=db_help)
    rs.add_argument("--game", type=int, required=True)
    rs.add_argument("-o", "--output", help=_("the CSV file (default: standard output)"))
    rs.set_defaults(func=games.cmd_results)
    rp = sub.add_parser("report", help=_("a game's charts (and every game's) as PNG files"))
    rp.add_argument("--db", help=db_help)
    rp.add_argument("--game", type=int, help=_("the game (without it: every game's charts)"))
    rp.add_argument("--all", action="store_true", help=_("add the charts of every game"))
    rp.add_argument("-o", "--output", required=True, help=_("the folder for the PNG files"))
    rp.set_defaults(func=games.cmd_report)
    a = sub.add_parser("abandon", help=_("give up a game and reveal its server seed"))
    a.add_argument("--db", help=db_help)
    a.add_argument("--game", type=int, required=True)
    a.add_argument("--reason", default="abandoned at the table")
    a.set_defaults(func=games.cmd_abandon)
    au = sub.add_parser("audit", help=_("check or export game logs"))
    asub = au.add_subparsers(dest="audit_command", required=True)
    v = asub.add_parser("verify", help=_("check the chain, the seed and every draw"))
    v.add_argument("--db", help=db_help)
    v.add_argument("--game", type=int)
    v.set_defaults(func=audit.cmd_audit_verify)
    e = asub.add_parser("export", help=_("write a game as JSON Lines for the standalone verifier"))
    e.add_argument("--db", help=db_help)
    e.add_argument("--game", type=int, required=True)
    e.add_argument("-o", "--output", help=_("the file to write (default: standard output)"))
    e.set_defaults(func=audit.cmd_audit_export)
    sc = sub.add_parser("scan", help=_("print every accepted scan (to check a reader's wiring)"))
    sc.add_argument("--reader", help=_("reader spec (default: the configuration, else fake)"))
    sc.add_argument("--db", help=db_help)
    sc.set_defaults(func=tags.cmd_scan)
    tg = sub.add_parser("tags", help=_("the tag registry: which sticker is which component"))
    tsub = tg.add_subparsers(dest="tags_command", required=True)
    tl = tsub.add_parser("list", help=_("list the enrolled tags"))
    tl.add_argument("--db", help=db_help)
    tl.add_argument("--edition", choices=editions())
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=tags.cmd_tags_list)
    ti = tsub.add_parser("import", help=_("import a shared tag set (CSV: uid,kind,edition,name)"))
    ti.add_argument("file")
    ti.add_argument("--db", help=db_help)
    ti.add_argument("--rebind", action="store_true", help=_("let the file re-bind known tags"))
    ti.set_defaults(func=tags.cmd_tags_import)
    te = tsub.add_parser("export", help=_("write the tag set as CSV"))
    te.add_argument("-o", "--output", help=_("the file (default: standard output)"))
    te.add_argument("--db", help=db_help)
    te.set_defaults(func=tags.cmd_tags_export)
    tn = tsub.add_parser("enroll", help=_("walk the components and scan each one's tag in turn"))
    tn.add_argument("--edition", required=True, choices=editions())
    tn.add_argument(
        "--kind",
        action="append",
        choices=list(KINDS[:-1]),
        help=_("card (default) or a token kind; repeat for several"),
    )
    tn.add_argument(
        "--set",
        action="append",
        choices=["starter", "reserve", "dungeon", "promo", "adventurer", "tower"],
        help=_("only cards of this set (Tschak!: adventurer, tower); repeat for several"),
    )
    tn.add_argument(
        "--party", action="store_true", help=_("include the Adventuring Party's tokens")
    )
    tn.add_argument("--start", type=int, default=1, help=_("begin at this position"))
    tn.add_argument("--rebind", action="store_true", help=_("re-bind tags already enrolled"))
    tn.add_argument("--reader", help=_("reader spec (default: the configuration, else fake)"))
    tn.add_argument("--db", help=db_help)
    tn.set_defaults(func=tags.cmd_tags_enroll)
    ap = sub.add_parser("app", help=_("start the touchscreen (the default with no command)"))
    ap.add_argument("--db", help=_("the game database (default: the configuration's)"))
    ap.add_argument("--fullscreen", action="store_true", default=None, help=_("the kiosk"))
    ap.add_argument(
        "--window", dest="fullscreen", action="store_false", help=_("an 800x480 window")
    )
    ap.set_defaults(func=app.cmd_app)
    bk = sub.add_parser("backup", help=_("copy the game database safely while it is in use"))
    bk.add_argument("--db", help=db_help)
    bk.add_argument("--to", required=True, help=_("the folder for the copies"))
    bk.add_argument("--keep", type=int, default=7, help=_("how many copies to keep (default 7)"))
    bk.set_defaults(func=app.cmd_backup)
    d = sub.add_parser("demo", help=_("watch a recorded game being replayed in the terminal"))
    d.add_argument(
        "--game",
        default=games.DEMO,
        help=_("an example under examples/ (default {demo})").format(demo=games.DEMO),
    )
    d.add_argument("--delay", type=seconds, default=0.0, help=_("seconds between actions"))
    d.add_argument("--db", help=db_help)
    d.set_defaults(func=games.cmd_demo)
    sv = sub.add_parser("serve", help=_("show the table's game on the players' phones (read-only)"))
    sv.add_argument("--db", help=db_help)
    sv.add_argument(
        "--host",
        help=_("the address to listen on (default: the configuration's [web] address, 127.0.0.1)"),
    )
    sv.add_argument(
        "--port", type=int, help=_("the port (default: the configuration's [web] port, 8765)")
    )
    sv.set_defaults(func=app.cmd_serve)
    return parser


# argparse's own words (it asks the gettext module's default domain for them): in our
# catalogs, so that --help and a mistyped command read in the same language as the rest.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
)


def choose_language() -> str:
    """The configuration's language (else the system locale's) for what this prints;
    a configuration that cannot be read is reported by the command that needs it."""
    try:
        setting = load_config().app.language
    except ConfigError:
        setting = ""
    language = set_language(setting)
    argparse._ = _  # type: ignore[attr-defined]  # see ARGPARSE_WORDS
    return language


# The arguments that name files or folders, as the usage line names them.
PATH_ARGUMENTS = {
    "file": "file",
    "db": "--db",
    "actions": "--actions",
    "output": "-o",
    "to": "--to",
}


def _argument_values(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every text argument as (how the usage names it, value), lists flattened."""
    out = []
    for dest, value in vars(args).items():
        if dest in ("func", "command", "audit_command", "tags_command"):
            continue
        name = PATH_ARGUMENTS.get(dest, "--" + dest.replace("_", "-"))
        if dest == "db" and getattr(args, "db_defaulted", False):
            name = "$CLANK_DB" if os.environ.get("CLANK_DB", "").strip() else "--db"
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                out.append((name, item))
    return out


def _unusable(name: str, value: str) -> CommandError:
    if name in PATH_ARGUMENTS.values() or name == "$CLANK_DB":
        return CommandError(
            N_("{argument}: {value} is not a usable path (not UTF-8); rename it or name another"),
            argument=name,
            value=shown_path(value),
        )
    return CommandError(
        N_("{argument}: {value} is not UTF-8 text; type it again"),
        argument=name,
        value=shown_path(value),
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse, before anything is opened or written, a text argument that is not UTF-8:
    a lone surrogate, such as the ``\\udcff`` that stands for an undecodable byte of a
    file name, names no file the database, the log or the screen can hold."""
    for name, value in _argument_values(args):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _unusable(name, value) from None


def unicode_problem(args: argparse.Namespace, error: UnicodeError) -> CommandError:
    """A UnicodeError that got through: the argument it came from if it can be told."""
    text = getattr(error, "object", None)
    for name, value in _argument_values(args):
        if isinstance(text, str) and value and value in text:
            return _unusable(name, value)
    return CommandError(N_("some text is not UTF-8 ({problem})"), problem=str(error))


# The commands whose database, without --db, is the default one (replay records only with
# --db; the touchscreen asks the configuration itself).
NO_DEFAULT_DB = ("replay", "app")


def with_default_db(args: argparse.Namespace) -> None:
    if getattr(args, "db", "") is None and args.command not in NO_DEFAULT_DB:
        args.db = str(default_db())
        args.db_defaulted = True
