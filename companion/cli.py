"""The ``clank-companion`` command."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import queue
import signal
import stat
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from companion import __version__
from companion.audit.check import export_game, verify_store, worst
from companion.catalog import CatalogError
from companion.config import ConfigError, database_path, load_config
from companion.i18n import (
    EN_,
    N_,
    Msg,
    Refusal,
    _,
    ed_,
    localized,
    ned_,
    ngettext,
    player_name,
    reader_state,
    set_language,
)
from companion.resources import shared_folder
from companion.script import (
    Replay,
    ScriptError,
    kind_refused,
    new_table,
    numbered,
    play,
    read_file,
    read_lines,
    replay,
    shown_path,
    stream_lines,
)
from companion.session import AnyTable, Session
from companion.store import GameStore, StoreError
from companion.store.log import GameLog
from companion.store.seal import SealError
from companion.store.tags import (
    KINDS,
    BulkEnrollment,
    TagError,
    TagRegistry,
    components,
    edition_title,
)
from companion.table import TSCHAK
from hardware.readers import ReaderStatus, ReaderWorker, Scan, SpecError, make_reader

EXAMPLES = shared_folder("examples")
DEMO = "clank-4-players.jsonl"


GAME_OVER = {
    "nobody is left in the dungeon": EN_("nobody is left in the dungeon"),
    "the dragon bag is empty": EN_("the dragon bag is empty"),
    "the countdown reached its last space": EN_("the countdown reached its last space"),
    "the dungeon deck cannot refill the row": EN_("the dungeon deck cannot refill the row"),
}
DRAW_REASONS = {"attack": EN_("attack"), "countdown": EN_("countdown")}
STATUS = {
    "playing": N_("playing"),
    "escaped": N_("escaped"),
    "knocked_out": N_("knocked out"),
}
GAME_STATUS = {"playing": N_("playing"), "over": N_("over"), "abandoned": N_("abandoned")}


def _words(table: dict[str, str], key: str, edition: str | None = None) -> str:
    """A value the engine names in English, as the reader's language says it."""
    return Msg(table[key]).localized(edition) if key in table else key


def _cubes(counts: dict[str, int]) -> str:
    return ", ".join(f"{player_name(k)} {v}" for k, v in counts.items() if v)


def describe_tschak_event(event: dict[str, Any]) -> str:
    """One Tschak! event in words, for the terminal."""
    kind = event["event"]
    if kind == "tower":
        return _("tower {tower} set out").format(tower=event.get("tower"))
    if kind == "floor":
        return _("floor {floor} of tower {tower}: {why}").format(
            floor=event.get("floor"), tower=event.get("tower"), why=event.get("why", "")
        )
    if kind == "trophies":
        return _("trophies of tower {tower}").format(tower=event.get("tower"))
    if kind == "pass":
        return _("the hands pass on (tower {tower})").format(tower=event.get("tower"))
    if kind == "game_over":
        return _("game over: {winners} won").format(winners=", ".join(event.get("winners") or []))
    if kind == "elixir":
        return _("{player}: elixir, {discard} discarded").format(
            player=event.get("player"), discard=event.get("discard") or "-"
        )
    return kind.replace("_", " ")


def describe_event(event: dict[str, Any], edition: str | None = None) -> str:
    """One event in words, for the terminal."""
    if edition == TSCHAK:
        return describe_tschak_event(event)
    kind = event["event"]
    who = player_name(event["player"]) if "player" in event else ""
    if kind == "draw":
        drawn = ", ".join(player_name(c) for c in event["drawn"]) or _("nothing")
        return ned_(
            edition or "clank",
            "dragon draw #{nonce} ({reason}, {n} cube): {drawn}",
            "dragon draw #{nonce} ({reason}, {n} cubes): {drawn}",
            event["count"],
        ).format(
            nonce=event["nonce"],
            reason=_words(DRAW_REASONS, event["reason"], edition),
            n=event["count"],
            drawn=drawn,
        )
    if kind == "damage":
        return ed_(edition or "clank", "{player} takes 1 damage ({health} health left)").format(
            player=who, health=event["health"]
        )
    if kind == "knocked_out":
        if event["in_depths"]:
            return ed_(edition or "clank", "{player} is knocked out in the Depths").format(
                player=who
            )
        return _("{player} is knocked out").format(player=who)
    if kind == "clank":
        text = ed_(edition or "clank", "{player} clank {n}").format(
            player=who, n=f"{event['n']:+d}"
        )
        if event.get("cancelled"):
            text += " " + ed_(edition or "clank", "({n} cancelled by anti-clank)").format(
                n=event["cancelled"]
            )
        if event.get("credit"):
            text += " " + ed_(edition or "clank", "(anti-clank credit {n} this turn)").format(
                n=event["credit"]
            )
        return text
    if kind == "rage":
        return ned_(
            edition or "clank",
            "rage: space {space} ({n} cube)",
            "rage: space {space} ({n} cubes)",
            event["draw"],
        ).format(space=event["space"], n=event["draw"])
    if kind == "turn":
        return _("turn {number}: {player} plays").format(number=event["number"], player=who)
    if kind == "countdown":
        return _("countdown: {player} on space {space}").format(player=who, space=event["space"])
    if kind == "game_over":
        return _("game over: {reason}").format(reason=_words(GAME_OVER, event["reason"], edition))
    if kind == "arrive":
        return _("{card} arrives: {text}").format(card=event["card"], text=event["text"])
    rest = ", ".join(f"{k} {v}" for k, v in event.items() if k != "event")
    return f"{kind.replace('_', ' ')}: {rest}" if rest else kind.replace("_", " ")


def describe_tschak(out: dict[str, Any]) -> list[str]:
    """A Tschak! game in a few readable lines (players' names are their own)."""
    where = (
        _("tower {tower}, floor {floor}").format(tower=out["tower"], floor=out["floor"])
        if out["floor"]
        else _("tower {tower}").format(tower=out["tower"])
    )
    lines = ["Tschak! - " + (_("GAME OVER") if out["game_over"] else where)]
    for name, p in out["players"].items():
        held = ", ".join([*p["treasures"], *p["monsters"]]) or "-"
        score = "" if p["score"] is None else _(", score {score}").format(score=p["score"])
        lines.append(
            "  "
            + _("{player}: gold {gold}, cards {cards}").format(
                player=name, gold=p["gold"], cards=held
            )
            + score
        )
    if out["floors"]:
        last = out["floors"][-1]
        lines.append(
            _("last floor (tower {tower}, floor {floor}): {why}").format(
                tower=last["tower"], floor=last["floor"], why=last["why"]
            )
        )
    if out["ranking"]:
        places = "; ".join(f"{r['place']}. {r['player']} {r['score']}" for r in out["ranking"])
        lines.append(_("ranking: {places}").format(places=places))
    return lines


def describe_state(out: dict[str, Any], errors: list[str] | None = None) -> str:
    """The final table in a few readable lines (``errors``: the refused lines as the
    reader's language says them, else the English of ``out``)."""
    edition = out["edition"]
    if edition == TSCHAK:
        lines = describe_tschak(out)
        if errors is None:
            errors = [_("line {line}: {reason}").format(**err) for err in out["errors"]]
        lines += [_("error: {problem}").format(problem=e) for e in errors]
        return "\n".join(lines)
    turn = _("{edition} - turn {number}, {player} to play").format(
        edition=edition_title(edition),
        number=out["turn"]["number"],
        player=player_name(out["turn"]["active"]),
    )
    lines = [
        turn + (_(" - GAME OVER") if out["game_over"] else ""),
        ned_(
            edition,
            "rage space {space} ({n} cube), danger {danger}, next attack draws {next}",
            "rage space {space} ({n} cubes), danger {danger}, next attack draws {next}",
            out["rage"]["draw"],
        ).format(
            space=out["rage"]["space"],
            n=out["rage"]["draw"],
            danger=out["danger"],
            next=out["next_attack"],
        ),
        ed_(edition, "bag: {cubes}").format(cubes=_cubes(out["bag"])),
        ed_(edition, "Clank! area: {cubes}").format(cubes=_cubes(out["clank_area"])),
    ]
    if out["countdown"]:
        lines.append(
            _("countdown: {player} on space {space}").format(
                player=player_name(out["countdown"]["player"]), space=out["countdown"]["space"]
            )
        )
    for name, p in out["players"].items():
        score = "" if p["score"] is None else _(", score {score}").format(score=p["score"])
        arts = ",".join(map(str, p["artifacts"])) or "-"
        line = ed_(
            edition,
            "{status} health {health:>2}  supply {supply:>2}  gold {gold:>2}  artifacts {arts}",
        ).format(
            status=f"{_words(STATUS, p['status']):<11}",
            health=p["health"],
            supply=p["supply"],
            gold=p["gold"],
            arts=arts,
        )
        lines.append(f"  {player_name(name):<8} {line}{score}")
    if out["ranking"]:
        places = "; ".join(
            f"{r['place']}. {player_name(r['player'])} {r['score']}" for r in out["ranking"]
        )
        lines.append(_("ranking: {places}").format(places=places))
    lines.append(
        _("draws: {n}  commitment {commitment}").format(
            n=len(out["draws"]), commitment=out["commitment"]
        )
    )
    if out["server_seed"]:
        lines.append(_("server seed (revealed): {seed}").format(seed=out["server_seed"]))
    if errors is None:
        errors = [_("line {line}: {reason}").format(**err) for err in out["errors"]]
    lines += [_("error: {problem}").format(problem=e) for e in errors]
    return "\n".join(lines)


def default_db() -> Path:
    """The database a command uses without ``--db``: ``$CLANK_DB``, else the
    configuration's ``[app] database``, else the user's data folder (decided by
    ``companion.config.database_path``, as for the touchscreen)."""
    return database_path()


class _Stepper:
    """Prints each action once it is committed (commit before show), in the words of the
    game's edition once the game has started."""

    def __init__(self, args: argparse.Namespace, edition: str | None = None) -> None:
        self.args = args
        self.edition = edition
        self.table: AnyTable | None = None

    def started(self, table: AnyTable) -> AnyTable:
        self.edition = table.edition
        self.table = table
        return table

    def __call__(self, number: int, action: Any, events: Any, error: Any) -> None:
        if error is not None:
            print(error.localized(self.edition), file=sys.stderr, flush=True)
            return
        if self.args.verbose:
            print(f"{number:>4} {json.dumps(action)}")
            for event in events:
                print(f"       {describe_event(event, self.edition)}")
            sys.stdout.flush()
            if getattr(self.args, "delay", 0):
                time.sleep(self.args.delay)


def _finish(args: argparse.Namespace, result: Replay) -> int:
    out = result.output()
    if args.json:
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        edition = out["edition"]
        print(describe_state(out, [e.localized(edition) for e in result.refused]))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    step = _Stepper(args)
    try:
        lines = read_lines(Path(args.file))  # before the database: a missing file writes nothing
        if not args.db:
            result = replay(
                lines,
                keep_going=args.keep_going,
                on_step=step,
                start=lambda options: step.started(new_table(options)),
            )
            return _finish(args, result)
        with contextlib.ExitStack() as stack:

            def start(options: Any) -> AnyTable:
                # opened once the first line is read and its options are set up: a bad
                # first line writes nothing, not even an empty database
                new_table(options)
                store = stack.enter_context(GameStore(args.db))
                return step.started(Session(store).start(options))

            try:
                result = replay(lines, keep_going=args.keep_going, on_step=step, start=start)
                log = result.table.log if result.table is not None else None
                if isinstance(log, GameLog):
                    print(
                        _("recorded as game {game} in {db}").format(game=log.game, db=args.db),
                        file=sys.stderr,
                    )
                return _finish(args, result)
            except BaseException:  # Ctrl-C, a closed pipe, a bad line: stopped half-way
                _give_up(step.table, getattr(args, "abandon_if_stopped", None))
                raise
    except ScriptError as e:
        print(e.localized(step.edition) if e.line else localized(e.problem), file=sys.stderr)
        return 2


def _give_up(table: AnyTable | None, reason: str | None) -> None:
    """Abandon a recorded game that was stopped half-way (``reason`` None: keep it, to be
    resumed). The demo's game is abandoned: it must not become ``resume``'s default."""
    if reason is None or table is None or table.log is None or table.finished:
        return
    with contextlib.suppress(Exception):  # what stopped the game is what gets reported
        table.abandon(reason)


def cmd_resume(args: argparse.Namespace) -> int:
    actions: Any = None
    if args.actions == "-":  # read as they come: bytes when the stream has them
        actions = numbered(stream_lines(getattr(sys.stdin, "buffer", sys.stdin)))
    elif args.actions:
        try:  # before the database: a missing file or a folder writes nothing
            actions = read_lines(Path(args.actions))
        except ScriptError as e:
            print(localized(e.problem), file=sys.stderr)
            return 2
    with GameStore(args.db, create=False) as store:
        game = args.game if args.game is not None else store.last_unfinished()
        if game is None:
            print(_("no unfinished game in {db}").format(db=args.db), file=sys.stderr)
            return 2
        table = Session(store).resume(game)
        print(
            ngettext(
                "resumed game {game}: {n} action",
                "resumed game {game}: {n} actions",
                table.actions_seen,
            ).format(game=game, n=table.actions_seen),
            file=sys.stderr,
        )
        result = Replay(table=table, actions=table.actions_seen)
        if actions is not None:
            try:
                play(
                    result,
                    actions,
                    keep_going=args.keep_going,
                    on_step=_Stepper(args, table.edition),
                )
            except ScriptError as e:
                print(e.localized(table.edition), file=sys.stderr)
                return 2
        return _finish(args, result)


def _winner(ranking: Any) -> str | None:
    """The first place's player of a stored ranking; None if there is none, or the cell
    holds something else (a database edited by hand)."""
    first = ranking[0] if isinstance(ranking, list) and ranking else None
    player = first.get("player") if isinstance(first, dict) else None
    return player if isinstance(player, str) else None


def _player(name: Any) -> str:
    return player_name(name) if isinstance(name, str) else shown_path(name)


def cmd_games(args: argparse.Namespace) -> int:
    with GameStore(args.db, create=False) as store:
        games = store.games()
    if args.json:
        print(json.dumps(games))
        return 0
    if not games:
        print(_("no games in {db}").format(db=args.db))
    for g in games:
        winner = ""
        first = _winner(g["ranking"])
        if first is not None:
            winner = _(", winner {player}").format(player=player_name(first))
            scores = [
                f"{player_name(r['player'])} {r['score']}"
                for r in g["ranking"]
                if isinstance(r, dict) and isinstance(r.get("player"), str)
            ]
            winner += " (" + ", ".join(scores) + ")"
        actions = ngettext("{n} action", "{n} actions", g["actions"]).format(n=g["actions"])
        if g["status"] == "abandoned" and not g["server_seed"] and g["commitment"]:
            winner += _(" (seal key lost: its draws can never be checked)")
        line = _("game {id}  {created}  {edition}  {players}  {status}  {actions}{winner}")
        print(
            line.format(
                id=f"{g['id']:>3}",
                created=g["created_at"],
                edition=f"{g['edition']:<9}",
                players="/".join(_player(p) for p in g["players"]),
                status=f"{_words(GAME_STATUS, g['status']):<9}",
                actions=actions,
                winner=winner,
            )
        )
    return 0


def cmd_abandon(args: argparse.Namespace) -> int:
    with GameStore(args.db, create=False) as store:
        try:
            table = Session(store).resume(args.game)
        except SealError:  # the seed cannot be unsealed: the game can only be given up
            store.abandon_unresumable(args.game, args.reason)
            print(
                _(
                    "game {game} abandoned; its seal key is missing or damaged, so its seed "
                    "was lost with it and its draws can never be recomputed"
                ).format(game=args.game)
            )
            return 0
        try:
            table.abandon(args.reason)
        except ValueError as e:  # the kinds' refusals are ValueErrors
            refusal = kind_refused(e, table.edition)
            if refusal is None:
                raise
            print(refusal.localized(table.edition), file=sys.stderr)
            return 2
        seed = table.snapshot().get("server_seed")
        if seed:
            print(_("game {game} abandoned; server seed {seed}").format(game=args.game, seed=seed))
        else:  # no dragon bag: no seed to reveal
            print(_("game {game} abandoned").format(game=args.game))
        return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty() and total > 1:
            text = _("checking game {done} of {total}").format(done=done, total=total)
            print(f"\r{text}", end="", file=sys.stderr, flush=True)

    with GameStore(args.db, create=False) as store:
        if args.game is not None:
            store.game_row(args.game)  # StoreError: no such game (not a failed check)
        results = verify_store(store, args.game, progress)
    if sys.stderr.isatty() and len(results) > 1:
        print(file=sys.stderr)
    for r in results:
        print(
            _("game {game}: {verdict}: {message}").format(
                game=r.game, verdict=_(r.verdict), message=localized(r.message)
            )
        )
    if not results:
        print(_("no games in {db}").format(db=args.db))
    return worst(results)


class CommandError(Refusal):
    """A command that cannot be carried out as asked; nothing was written."""


# The files beside a game database that belong to it: an export must never replace them.
DATABASE_FILES = ("", ".key", "-wal", "-shm", "-journal", ".lock", ".pin-lockout")


def _is_database_file(path: Path, db: Path) -> bool:
    """Whether ``path`` is the database or one of its files (by name, through links)."""
    real = Path(os.path.realpath(db))
    target = Path(os.path.realpath(path))
    for suffix in DATABASE_FILES:
        own = real.with_name(real.name + suffix)
        if target == own:
            return True
        with contextlib.suppress(OSError):  # the same file under another name
            if os.path.samefile(path, own):
                return True
    return False


def _check_output(output: str, db: str) -> Path:
    """The file an ``-o`` names, checked before anything is opened: its folder exists;
    it is not a folder, not the game database ``db`` nor one of its files, and if it
    exists it is a regular file (not a link, a pipe or a device); CommandError otherwise."""
    path = Path(output)
    try:
        if path.is_dir():
            raise CommandError(
                N_("cannot write {path}: it is a folder; name a file in it"), path=shown_path(path)
            )
        if not path.parent.is_dir():
            raise CommandError(
                N_("cannot write {path}: there is no folder {folder}; create it or name another"),
                path=shown_path(path),
                folder=shown_path(path.parent),
            )
        if _is_database_file(path, Path(db)):
            raise CommandError(
                N_(
                    "cannot write {path}: it is the game database or one of its files; name another"
                ),
                path=shown_path(path),
            )
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise CommandError(
                N_(
                    "cannot write {path}: it is not a regular file (a link, a pipe or a "
                    "device); name another"
                ),
                path=shown_path(path),
            )
    except OSError as e:  # a name too long, a folder that cannot be searched
        raise CommandError(
            N_("cannot write {path}: {problem}"),
            path=shown_path(path),
            problem=str(e.strerror or e),
        ) from None
    return path


def _write_whole(path: Path, write: Any, *, newline: str | None = None) -> int:
    """Write a file through a temporary ``.export-PID.part`` beside it (a short name, so
    that any name the folder takes will do), renamed once complete: the file is whole
    or untouched, and no ``.part`` is left behind. CommandError if it cannot be written."""
    tmp = path.parent / f".export-{os.getpid()}.part"
    opened = False
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # left by a process of the same number that was killed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        opened = True
        out: IO[str]
        with open(fd, "w", encoding="utf-8", newline=newline) as out:
            count = int(write(out))
        os.replace(tmp, path)
    except BaseException as e:
        if opened:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if isinstance(e, OSError):
            raise CommandError(
                N_("cannot write {path}: {problem}"),
                path=shown_path(path),
                problem=str(e.strerror or e),
            ) from None
        raise
    return count


def cmd_audit_export(args: argparse.Namespace) -> int:
    path = None if args.output in (None, "-") else _check_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        if path is None:
            export_game(store, args.game, sys.stdout)
            return 0
        count = _write_whole(path, lambda out: export_game(store, args.game, out))
    print(
        ngettext(
            "game {game}: {n} record written to {path}",
            "game {game}: {n} records written to {path}",
            count,
        ).format(game=args.game, n=count, path=args.output),
        file=sys.stderr,
    )
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    """A finished game's results as CSV (standard output, or a file)."""
    from companion.history import results_csv

    path = None if args.output in (None, "-") else _check_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        if args.game not in {g["id"] for g in store.games()}:
            raise StoreError(N_("no game {game} in {path}"), game=args.game, path=str(args.db))
        try:
            if path is None:
                results_csv(store, args.game, sys.stdout)
                return 0
            _write_whole(path, lambda out: results_csv(store, args.game, out))
        except ValueError:
            raise CommandError(
                N_("game {game} is not over: it has no results yet"), game=args.game
            ) from None
    print(_("game {game}: results written to {path}").format(game=args.game, path=args.output),
          file=sys.stderr)  # fmt: skip
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """The charts of a game (and of every game) as PNG files in a folder."""
    from companion.history import fairness, game_history, record

    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise CommandError(N_("{path} is not a folder"), path=str(folder))
    with GameStore(args.db, create=False) as store:
        ids = {g["id"] for g in store.games()}
        if args.game is not None and args.game not in ids:
            raise StoreError(N_("no game {game} in {path}"), game=args.game, path=str(args.db))
        history = game_history(store, args.game) if args.game is not None else None
        every = args.all or args.game is None
        f = fairness(store) if every else None
        r = record(store) if every else None
    for key, value in {"KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1", "KIVY_NO_FILELOG": "1",
                       "KIVY_LOG_MODE": "PYTHON"}.items():  # fmt: skip
        os.environ.setdefault(key, value)
    from kivy.config import Config as KivyConfig

    KivyConfig.set("graphics", "width", "800")
    KivyConfig.set("graphics", "height", "480")
    from companion.ui.report import report_charts, write_pngs

    try:
        written = write_pngs(report_charts(history, f, r), folder)
    except OSError as e:
        raise CommandError(N_("cannot write {path}: {reason}"), path=str(folder),
                           reason=e.strerror or str(e)) from None  # fmt: skip
    for path in written:
        print(path)
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
        shown = reader_state(state.value)
        print(
            _("reader {name}: {state} {detail}")
            .format(name=device.name, state=shown, detail=detail)
            .rstrip(),
            file=sys.stderr,
            flush=True,
        )

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
    with contextlib.ExitStack() as stack:
        registry = None
        if Path(args.db).exists():
            registry = TagRegistry(stack.enter_context(GameStore(args.db, create=False)).db)
        else:  # checking a reader's wiring needs no database, and makes none
            print(
                _("no game database at {db}: every tag shows as unknown").format(db=args.db),
                file=sys.stderr,
            )

        def show(scan: Scan) -> None:
            component = registry.lookup(scan.uid) if registry is not None else None
            shown = component.localized() if component else _("unknown tag")
            print(f"{scan.uid}  {shown}", flush=True)

        return _run_reader(
            _reader_spec(args),
            show,
            gone_after=config.reader.gone_after,
            window=config.reader.window,
            stop=threading.Event(),
        )


def _damaged_tag(uid: str) -> None:
    print(
        _("skipped tag {uid}: its row in the registry is damaged (edited by hand?)").format(
            uid=uid
        ),
        file=sys.stderr,
    )


def cmd_tags_list(args: argparse.Namespace) -> int:
    with GameStore(args.db, create=False) as store:
        bindings = TagRegistry(store.db).bindings(args.edition, skipped=_damaged_tag)
    if args.json:
        print(json.dumps([{"uid": b.uid, **b.component.__dict__} for b in bindings]))
        return 0
    for b in bindings:
        print(f"{b.uid:<20}  {b.component.localized()}")
    print(ngettext("{n} tag", "{n} tags", len(bindings)).format(n=len(bindings)), file=sys.stderr)
    return 0


def cmd_tags_import(args: argparse.Namespace) -> int:
    try:
        data = read_file(Path(args.file))  # decoded by the registry, which names the line
    except ScriptError as e:
        print(localized(e.problem), file=sys.stderr)
        return 2
    with GameStore(args.db) as store:
        try:
            count = TagRegistry(store.db).import_csv(data, rebind=args.rebind)
        except TagError as e:
            print(
                _("{path}: {problem}; nothing was imported").format(
                    path=shown_path(args.file), problem=e.localized()
                ),
                file=sys.stderr,
            )
            return 2
    print(
        ngettext("{n} tag imported from {path}", "{n} tags imported from {path}", count).format(
            n=count, path=args.file
        )
    )
    return 0


def cmd_tags_export(args: argparse.Namespace) -> int:
    path = None if args.output in (None, "-") else _check_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        registry = TagRegistry(store.db)
        if path is None:
            registry.export_csv(sys.stdout, skipped=_damaged_tag)
            return 0
        count = _write_whole(
            path, lambda out: registry.export_csv(out, skipped=_damaged_tag), newline=""
        )
    print(
        ngettext("{n} tag written to {path}", "{n} tags written to {path}", count).format(
            n=count, path=args.output
        ),
        file=sys.stderr,
    )
    return 0


def cmd_tags_enroll(args: argparse.Namespace) -> int:
    config = load_config()
    try:
        targets = components(args.edition, args.kind or ["card"], args.set or [], party=args.party)
    except (CatalogError, TagError) as e:
        print(localized(e), file=sys.stderr)
        return 2
    if not targets:
        print(_("nothing to enroll with those choices"), file=sys.stderr)
        return 2
    if not 1 <= args.start <= len(targets):
        print(
            _("--start must be from 1 to {n} (the components to enroll)").format(n=len(targets)),
            file=sys.stderr,
        )
        return 2
    with GameStore(args.db) as store:
        walk = BulkEnrollment(TagRegistry(store.db), targets)
        walk.skip(args.start - 1)
        print(walk.progress().localized(args.edition), flush=True)

        def enroll(scan: Scan) -> bool:
            try:
                binding = walk.scanned(scan.uid, rebind=args.rebind)
                shown = binding.component.localized()
                print("  " + _("{uid} is {component}").format(uid=binding.uid, component=shown))
            except TagError as e:
                print(f"  {e.localized(args.edition)}", flush=True)
            print(walk.progress().localized(args.edition), flush=True)
            return not walk.done

        code = _run_reader(
            _reader_spec(args),
            enroll,
            gone_after=config.reader.gone_after,
            window=config.reader.window,
            stop=threading.Event(),
        )
    if not walk.done:
        print(
            _("stopped; continue with --start {position}").format(position=walk.position + 1),
            file=sys.stderr,
        )
    return code


def cmd_demo(args: argparse.Namespace) -> int:
    path = EXAMPLES / args.game
    if not path.exists():
        print(_("demo game not found: {path}").format(path=path), file=sys.stderr)
        return 2
    print(_("Replaying {name}: a recorded game, action by action.").format(name=path.name))
    print(_("It is recorded in {db} (see: clank-companion games).").format(db=args.db) + "\n")
    ns = argparse.Namespace(
        file=str(path),
        json=False,
        keep_going=False,
        verbose=True,
        delay=args.delay,
        db=args.db,
        abandon_if_stopped="demo interrupted",  # not to be resumed by default later
    )
    return cmd_replay(ns)


def cmd_app(args: argparse.Namespace) -> int:
    import dataclasses

    from companion.config import Config

    problem: ConfigError | None = None
    try:
        config = load_config()
    except ConfigError as e:  # never an exit: the touchscreen says so and offers the defaults
        config, problem = Config(), e
    if args.db:
        config = dataclasses.replace(config, app=dataclasses.replace(config.app, database=args.db))
    fullscreen = config.app.fullscreen if args.fullscreen is None else args.fullscreen
    # before Kivy's clock exists: a scan or a button press handed over from its thread
    # wakes the main loop at once (Clock.schedule_once_free), not at the next 60 Hz tick
    os.environ.setdefault("KIVY_CLOCK", "free_all")
    import gc

    gc.disable()  # Kivy's and the screens' modules live as long as the app: run_app says more
    from companion.ui.app import run_app  # Kivy only when the screen is wanted

    return run_app(config, fullscreen=fullscreen, config_problem=problem)


def cmd_serve(args: argparse.Namespace) -> int:
    """The read-only web page for the players' phones (companion/web, docs/phones.md)."""
    from companion.web import serve_command  # aiohttp only when it is wanted

    return serve_command(args)


def cmd_backup(args: argparse.Namespace) -> int:
    from companion.store.backup import backup

    made = backup(Path(args.db), Path(args.to), keep=args.keep)
    print(_("backed up {db} to {copy}").format(db=args.db, copy=made))
    return 0


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
    p.set_defaults(func=cmd_replay)
    g = sub.add_parser("games", help=_("list the games in a database"))
    g.add_argument("--db", help=db_help)
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_games)
    r = sub.add_parser("resume", help=_("continue a game from its log (after a power cut)"))
    r.add_argument("--db", help=db_help)
    r.add_argument("--game", type=int, help=_("the game (default: the last unfinished one)"))
    r.add_argument("--actions", help=_("more actions to apply: a file, or - for standard input"))
    r.add_argument("--json", action="store_true")
    r.add_argument("--keep-going", action="store_true")
    r.add_argument("-v", "--verbose", action="store_true")
    r.set_defaults(func=cmd_resume)
    rs = sub.add_parser("results", help=_("a finished game's results as CSV"))
    rs.add_argument("--db", help=db_help)
    rs.add_argument("--game", type=int, required=True)
    rs.add_argument("-o", "--output", help=_("the CSV file (default: standard output)"))
    rs.set_defaults(func=cmd_results)
    rp = sub.add_parser("report", help=_("a game's charts (and every game's) as PNG files"))
    rp.add_argument("--db", help=db_help)
    rp.add_argument("--game", type=int, help=_("the game (without it: every game's charts)"))
    rp.add_argument("--all", action="store_true", help=_("add the charts of every game"))
    rp.add_argument("-o", "--output", required=True, help=_("the folder for the PNG files"))
    rp.set_defaults(func=cmd_report)
    a = sub.add_parser("abandon", help=_("give up a game and reveal its server seed"))
    a.add_argument("--db", help=db_help)
    a.add_argument("--game", type=int, required=True)
    a.add_argument("--reason", default="abandoned at the table")
    a.set_defaults(func=cmd_abandon)
    au = sub.add_parser("audit", help=_("check or export game logs"))
    asub = au.add_subparsers(dest="audit_command", required=True)
    v = asub.add_parser("verify", help=_("check the chain, the seed and every draw"))
    v.add_argument("--db", help=db_help)
    v.add_argument("--game", type=int)
    v.set_defaults(func=cmd_audit_verify)
    e = asub.add_parser("export", help=_("write a game as JSON Lines for the standalone verifier"))
    e.add_argument("--db", help=db_help)
    e.add_argument("--game", type=int, required=True)
    e.add_argument("-o", "--output", help=_("the file to write (default: standard output)"))
    e.set_defaults(func=cmd_audit_export)
    sc = sub.add_parser("scan", help=_("print every accepted scan (to check a reader's wiring)"))
    sc.add_argument("--reader", help=_("reader spec (default: the configuration, else fake)"))
    sc.add_argument("--db", help=db_help)
    sc.set_defaults(func=cmd_scan)
    tg = sub.add_parser("tags", help=_("the tag registry: which sticker is which component"))
    tsub = tg.add_subparsers(dest="tags_command", required=True)
    tl = tsub.add_parser("list", help=_("list the enrolled tags"))
    tl.add_argument("--db", help=db_help)
    tl.add_argument("--edition", choices=["clank", "catacombs", TSCHAK])
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=cmd_tags_list)
    ti = tsub.add_parser("import", help=_("import a shared tag set (CSV: uid,kind,edition,name)"))
    ti.add_argument("file")
    ti.add_argument("--db", help=db_help)
    ti.add_argument("--rebind", action="store_true", help=_("let the file re-bind known tags"))
    ti.set_defaults(func=cmd_tags_import)
    te = tsub.add_parser("export", help=_("write the tag set as CSV"))
    te.add_argument("-o", "--output", help=_("the file (default: standard output)"))
    te.add_argument("--db", help=db_help)
    te.set_defaults(func=cmd_tags_export)
    tn = tsub.add_parser("enroll", help=_("walk the components and scan each one's tag in turn"))
    tn.add_argument("--edition", required=True, choices=["clank", "catacombs", TSCHAK])
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
    tn.set_defaults(func=cmd_tags_enroll)
    ap = sub.add_parser("app", help=_("start the touchscreen (the default with no command)"))
    ap.add_argument("--db", help=_("the game database (default: the configuration's)"))
    ap.add_argument("--fullscreen", action="store_true", default=None, help=_("the kiosk"))
    ap.add_argument(
        "--window", dest="fullscreen", action="store_false", help=_("an 800x480 window")
    )
    ap.set_defaults(func=cmd_app)
    bk = sub.add_parser("backup", help=_("copy the game database safely while it is in use"))
    bk.add_argument("--db", help=db_help)
    bk.add_argument("--to", required=True, help=_("the folder for the copies"))
    bk.add_argument("--keep", type=int, default=7, help=_("how many copies to keep (default 7)"))
    bk.set_defaults(func=cmd_backup)
    d = sub.add_parser("demo", help=_("watch a recorded game being replayed in the terminal"))
    d.add_argument(
        "--game",
        default=DEMO,
        help=_("an example under examples/ (default {demo})").format(demo=DEMO),
    )
    d.add_argument("--delay", type=seconds, default=0.0, help=_("seconds between actions"))
    d.add_argument("--db", help=db_help)
    d.set_defaults(func=cmd_demo)
    sv = sub.add_parser("serve", help=_("show the table's game on the players' phones (read-only)"))
    sv.add_argument("--db", help=db_help)
    sv.add_argument(
        "--host",
        help=_("the address to listen on (default: the configuration's [web] address, 127.0.0.1)"),
    )
    sv.add_argument(
        "--port", type=int, help=_("the port (default: the configuration's [web] port, 8765)")
    )
    sv.set_defaults(func=cmd_serve)
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


def _unicode_problem(args: argparse.Namespace, error: UnicodeError) -> CommandError:
    """A UnicodeError that got through: the argument it came from if it can be told."""
    text = getattr(error, "object", None)
    for name, value in _argument_values(args):
        if isinstance(text, str) and value and value in text:
            return _unusable(name, value)
    return CommandError(N_("some text is not UTF-8 ({problem})"), problem=str(error))


# The commands whose database, without --db, is the default one (replay records only with
# --db; the touchscreen asks the configuration itself).
NO_DEFAULT_DB = ("replay", "app")


def _with_default_db(args: argparse.Namespace) -> None:
    if getattr(args, "db", "") is None and args.command not in NO_DEFAULT_DB:
        args.db = str(default_db())
        args.db_defaulted = True


class OutputError(Exception):
    """Standard output cannot be written (a full disk, a device error)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class _Output:
    """Standard output for the length of a command: a write that fails with an OSError
    other than a closed pipe is an OutputError, told apart from a file's error."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> Any:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence(stream: Any) -> None:
    """Send what is left of the process's standard output nowhere (os.devnull), so that
    the interpreter's last flush at exit does not fail again on a closed pipe or a full
    disk. Only the real standard output: a stream a caller put there is left as it is."""
    out = sys.__stdout__
    if out is None or stream is not out:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = out.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)  # never created: opened if it is there
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    stdout = sys.stdout
    sys.stdout = _Output(stdout)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C: what was committed stays, nothing else is said
        sys.stdout = stdout
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        sys.stdout = stdout
        _silence(stdout)
        return 141  # 128 + SIGPIPE, as a shell says it
    except OutputError as e:
        sys.stdout = stdout
        _silence(stdout)
        problem = CommandError(
            N_("cannot write to standard output: {problem}"),
            problem=str(e.error.strerror or e.error),
        )
        print(localized(problem), file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout


def _main(argv: list[str] | None) -> int:
    choose_language()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["app", *(argv or [])])
    try:
        _with_default_db(args)
        check_arguments(args)
        code = int(args.func(args))
        sys.stdout.flush()  # a full disk is found here, not at exit
        return code
    except (StoreError, CatalogError, ConfigError, CommandError) as e:
        print(localized(e), file=sys.stderr)
        return 2
    except UnicodeError as e:
        print(localized(_unicode_problem(args, e)), file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as e:  # anything the system refused that no command foresaw
        problem = str(e.strerror or e)
        if e.filename is not None:
            problem = f"{shown_path(e.filename)}: {problem}"
        print(localized(CommandError(N_("stopped: {problem}"), problem=problem)), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
