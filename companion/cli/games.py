"""The commands that play and keep games: ``replay``, ``resume``, ``games``,
``abandon``, ``demo``, ``results`` and ``report``. A game's events and its final table
are told in the words of its kind (``companion.kinds``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from companion.cli.files import CommandError, checked_output, write_whole
from companion.i18n import N_, Msg, _, localized, ngettext, player_name
from companion.kinds import DEFAULT, kind_of
from companion.resources import shared_folder
from companion.script import (
    Replay,
    ScriptError,
    kind_refused,
    new_table,
    numbered,
    play,
    read_lines,
    replay,
    shown_path,
    stream_lines,
)
from companion.session import AnyTable, Session
from companion.store import GameStore, StoreError
from companion.store.log import GameLog
from companion.store.seal import SealError

EXAMPLES = shared_folder("examples")
DEMO = "clank-4-players.jsonl"
GAME_STATUS = {"playing": N_("playing"), "over": N_("over"), "abandoned": N_("abandoned")}


def _words(table: dict[str, str], key: str, edition: str | None = None) -> str:
    """A value the engine names in English, as the reader's language says it."""
    return Msg(table[key]).localized(edition) if key in table else key


def describe_event(event: dict[str, Any], edition: str | None = None) -> str:
    """One event in words, for the terminal, as the game's kind tells it."""
    return kind_of(edition or DEFAULT).tell_event(event, edition or DEFAULT)


def describe_state(out: dict[str, Any], errors: list[str] | None = None) -> str:
    """The final table in a few readable lines, as the game's kind tells it (``errors``:
    the refused lines as the reader's language says them, else the English of ``out``)."""
    lines = kind_of(out["edition"]).tell_state(out)
    if errors is None:
        errors = [_("line {line}: {reason}").format(**err) for err in out["errors"]]
    lines += [_("error: {problem}").format(problem=e) for e in errors]
    return "\n".join(lines)


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


def cmd_results(args: argparse.Namespace) -> int:
    """A finished game's results as CSV (standard output, or a file)."""
    from companion.history import NoResults, results_csv

    path = None if args.output in (None, "-") else checked_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        if args.game not in {g["id"] for g in store.games()}:
            raise StoreError(N_("no game {game} in {path}"), game=args.game, path=str(args.db))
        try:
            if path is None:
                results_csv(store, args.game, sys.stdout)
                return 0
            write_whole(path, lambda out: results_csv(store, args.game, out))
        except NoResults as e:  # not over, or over with scores its log does not tell
            raise CommandError(e.message) from None
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
