"""The commands that read tags: ``scan`` (every scan, to check a reader's wiring) and
``tags`` (the registry of which sticker is which component: list, import, export,
enroll). A reader runs on a thread of its own; its scans are handled on this one."""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from companion.cli.files import checked_output, write_whole
from companion.config import load_config
from companion.i18n import _, localized, ngettext, reader_state
from companion.kinds import kind_of
from companion.script import ScriptError, read_file, shown_path
from companion.store import GameStore
from companion.store.tags import BulkEnrollment, TagError, TagRegistry, components
from hardware.readers import ReaderStatus, ReaderWorker, Scan, SpecError, make_reader


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
    path = None if args.output in (None, "-") else checked_output(args.output, args.db)
    with GameStore(args.db, create=False) as store:
        registry = TagRegistry(store.db)
        if path is None:
            registry.export_csv(sys.stdout, skipped=_damaged_tag)
            return 0
        count = write_whole(
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
    # what the box's files raise when they cannot be used is said in one line too
    refused: tuple[type[Exception], ...] = (TagError, *kind_of(args.edition).file_errors)
    try:
        targets = components(args.edition, args.kind or ["card"], args.set or [], party=args.party)
    except refused as e:
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
