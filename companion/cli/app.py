"""The commands that run the companion: ``app`` (the touchscreen), ``serve`` (the
players' phones) and ``backup`` (a copy of the game database while it is in use). Kivy
and aiohttp are loaded only by the command that needs them."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from companion.config import ConfigError, load_config
from companion.i18n import _


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
    before_the_touchscreen()
    from companion.ui.app import run_app  # Kivy only when the screen is wanted

    return run_app(config, fullscreen=fullscreen, config_problem=problem)


def before_the_touchscreen() -> None:
    """What the touchscreen sets before Kivy is first imported (``cmd_app``, and the
    benchmark of its first frame, which must start it the same way)."""
    # before Kivy's clock exists: a scan or a button press handed over from its thread
    # wakes the main loop at once (Clock.schedule_once_free), not at the next 60 Hz tick
    os.environ.setdefault("KIVY_CLOCK", "free_all")
    import gc

    gc.disable()  # Kivy's and the screens' modules live as long as the app: run_app says more
    from companion.ui.window_settings import before_kivy

    before_kivy()  # Kivy's image readers and its rules' kept readings, before it is imported


def cmd_serve(args: argparse.Namespace) -> int:
    """The read-only web page for the players' phones (companion/web, docs/phones.md)."""
    from companion.web import serve_command  # aiohttp only when it is wanted

    return serve_command(args)


def cmd_backup(args: argparse.Namespace) -> int:
    from companion.store.backup import backup

    made = backup(Path(args.db), Path(args.to), keep=args.keep)
    print(_("backed up {db} to {copy}").format(db=args.db, copy=made))
    return 0
