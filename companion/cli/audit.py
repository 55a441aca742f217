"""``clank-companion audit``: checking a database's logs, and exporting a game's log for
the standalone verifier."""

from __future__ import annotations

import argparse
import sys

from companion.audit.check import export_game, verify_store, worst
from companion.cli.files import checked_output, write_whole
from companion.i18n import _, localized, ngettext
from companion.store import GameStore


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


def cmd_audit_export(args: argparse.Namespace) -> int:
    path = None if args.output in (None, "-") else checked_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        if path is None:
            export_game(store, args.game, sys.stdout)
            return 0
        count = write_whole(path, lambda out: export_game(store, args.game, out))
    print(
        ngettext(
            "game {game}: {n} record written to {path}",
            "game {game}: {n} records written to {path}",
            count,
        ).format(game=args.game, n=count, path=args.output),
        file=sys.stderr,
    )
    return 0
