"""When the companion cannot start as it is: its game database or its settings file
cannot be used. The table never sees a black screen: the trouble screen says what is
wrong in plain words, in the table's language, and offers what can be done with no
keyboard: a fresh database or a backup, or the default settings.

Nothing is ever deleted: the unusable file (and the database's ``-wal``, ``-shm`` and
``.key`` beside it) is moved aside under a dated name, ``games.db.unusable-YYYYmmdd-HHMMSS``,
kept for the audit; its siblings keep their suffixes after that name, so the kept database
opens with its own log and seal key. Each move is asked for by two taps (the second on a
confirmation that is inert for a moment), and the screen says what it did and where the
old file is kept before the companion carries on.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shutil
import sqlite3
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.screenmanager import Screen

from companion.config import Config, ConfigError, candidates, save_config
from companion.i18n import N_, Refusal, _
from companion.store import GameStore, StoreError
from companion.store.backup import PREFIX
from companion.store.db import APPLICATION_ID, SCHEMA_VERSION
from companion.store.seal import fsync_folder, key_path
from companion.ui.layouts import Layout
from companion.ui.taps import SETTLE
from companion.ui.widgets import FitText

# the tables every companion database has (companion.store.db's migrations)
TABLES = ("games", "log", "tags", "in_progress")
# where backups are looked for, besides the database's own folder and its backups/
# folder: the kiosk's copies (systemd/clank-companion-backup.service)
BACKUP_FOLDERS = (Path("/var/backups/clank-companion"),)
BACKUP_NAME = re.compile(re.escape(PREFIX) + r"(\d{8}-\d{6})\.db")  # companion.store.backup
INERT = SETTLE  # seconds it ignores taps after it appears: the settle rule's (companion.ui.taps)

BAND = {"problem": (0.45, 0.13, 0.1, 1), "done": (0.15, 0.4, 0.22, 1)}
RED = (0.6, 0.22, 0.16, 1)
GREEN = (0.2, 0.55, 0.3, 1)
GREY = (0.25, 0.27, 0.32, 1)


@dataclass(frozen=True)
class Trouble:
    """What keeps the companion from starting: ``kind`` "database" or "settings", the
    problem in the table's words, and the file that cannot be used (None: there is no
    file to move aside, as when CLANK_CONFIG names one that does not exist); ``done``:
    what the trouble screen already did, when the companion still cannot start."""

    kind: str
    problem: Refusal
    path: Path | None
    done: str = ""


def database_trouble(path: Path, problem: StoreError, done: str = "") -> Trouble:
    return Trouble("database", problem, path, done)


def settings_trouble(problem: ConfigError) -> Trouble:
    return Trouble("settings", problem, settings_file())


# ------------------------------------------------------------------ the database
def damaged(path: Path, e: sqlite3.Error) -> StoreError:
    """A database that cannot be read, as the store says it."""
    return StoreError(
        N_("{path} is damaged ({problem}): restore a backup"), path=str(path), problem=str(e)
    )


def check_schema(store: GameStore) -> None:
    """StoreError unless the database has every table of the companion's schema: a
    table dropped by hand would otherwise stop the app at its first read or write (the
    store may refuse such a database as it opens it already: this holds either way)."""
    if store.db.pending:  # made just now: its schema comes at its first use
        return
    try:
        rows = store.db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        names = {row[0] for row in rows}
    except sqlite3.DatabaseError as e:
        raise damaged(store.path, e) from None
    missing = [t for t in TABLES if t not in names]
    if missing:
        raise StoreError(
            N_("{path} is damaged: its {table} table is missing (restore a backup)"),
            path=str(store.path),
            table=missing[0],
        )


def open_store(path: Path) -> GameStore:
    """The game database for the touchscreen (StoreError: it cannot be used)."""
    store = GameStore(path, later_schema=True)
    try:
        check_schema(store)
    except BaseException:
        store.close()
        raise
    return store


def _family(path: Path) -> list[Path]:
    """The database and the files that belong to it."""
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm"), key_path(path)]


def _there(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def kept_name(path: Path, now: float | None = None) -> Path:
    """The dated name an unusable file is kept under (none of its family taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    kept = path.with_name(f"{path.name}.unusable-{stamp}")
    n = 1
    while any(_there(p) for p in _family(kept)):
        n += 1
        kept = path.with_name(f"{path.name}.unusable-{stamp}-{n}")
    return kept


def set_aside(path: Path, now: float | None = None) -> Path | None:
    """Move ``path`` and its family aside under a dated name; the name it is kept under
    (None: there was nothing to move). All of it or nothing: StoreError if a move fails
    (the moves made are taken back), so a database never meets another one's log."""
    if not any(_there(p) for p in _family(path)):
        return None
    kept = kept_name(path, now)
    moved: list[tuple[Path, Path]] = []
    try:
        for old, new in zip(_family(path), _family(kept), strict=True):
            if _there(old):
                os.rename(old, new)
                moved.append((old, new))
        fsync_folder(path.parent)
    except OSError as e:
        for old, new in reversed(moved):
            with contextlib.suppress(OSError):
                os.rename(new, old)
        raise StoreError(
            N_("{path} could not be moved aside ({problem}): nothing was changed"),
            path=str(path),
            problem=e.strerror or str(e),
        ) from None
    return kept


def backup_folders(database: Path) -> list[Path]:
    return [database.parent, database.parent / "backups", *BACKUP_FOLDERS]


def backup_date(backup: Path) -> str:
    """When a copy was taken, from its name (``games-YYYYmmdd-HHMMSS.db``)."""
    found = BACKUP_NAME.fullmatch(backup.name)
    if found is None:
        return backup.name
    when = datetime.datetime.strptime(found.group(1), "%Y%m%d-%H%M%S")
    return when.strftime("%Y-%m-%d %H:%M")


def usable_backup(backup: Path) -> bool:
    """Whether a copy is a whole companion database (read only: the copies' folder may
    be read-only for the app)."""
    uri = f"file:{urllib.parse.quote(str(backup.resolve()))}?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except (sqlite3.Error, OSError, UnicodeError):
        return False
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        names = {row[0] for row in rows}
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    whole = all(t in names for t in TABLES)
    return app_id == APPLICATION_ID and version <= SCHEMA_VERSION and whole and check == "ok"


def find_backups(database: Path) -> list[Path]:
    """The usable copies of the database, newest first (companion.store.backup's names:
    ``games-YYYYmmdd-HHMMSS.db``, in the folders of ``backup_folders``)."""
    found: dict[Path, Path] = {}
    for folder in backup_folders(database):
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for p in entries:
            if BACKUP_NAME.fullmatch(p.name) and p.is_file():
                found.setdefault(p.resolve(), p)
    newest = sorted(found.values(), key=lambda p: (p.name, str(p)), reverse=True)
    return [p for p in newest if usable_backup(p)]


def _copy(source: Path, target: Path, mode: int | None = None) -> None:
    """``source`` whole at ``target`` or not at all (a ``.restoring`` file renamed)."""
    partial = target.with_name(target.name + ".restoring")
    try:
        with source.open("rb") as src, partial.open("wb") as out:
            shutil.copyfileobj(src, out)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            partial.chmod(mode)
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def restore_backup(backup: Path, database: Path, now: float | None = None) -> Path | None:
    """Put a copy in the database's place: the unusable database is moved aside first
    (the name it is kept under is returned), then the copy's seal key and the copy
    itself are copied in (the key first, as the backup took them)."""
    if not usable_backup(backup):
        raise StoreError(N_("{path} is not a usable copy: nothing was changed"), path=str(backup))
    kept = set_aside(database, now)
    key = key_path(backup)
    restored = False
    try:
        if key.is_file():
            _copy(key, key_path(database), mode=0o600)
        _copy(backup, database)
        restored = True
        fsync_folder(database.parent)
    except OSError as e:
        if not restored:
            key_path(database).unlink(missing_ok=True)  # a key without its database
        raise StoreError(
            N_("the copy {path} could not be restored ({problem})"),
            path=str(backup),
            problem=e.strerror or str(e),
        ) from None
    return kept


# ------------------------------------------------------------------ the settings
def settings_file() -> Path | None:
    """The settings file the companion reads (companion.config.load_config's choice)."""
    found = candidates()
    if os.environ.get("CLANK_CONFIG", "").strip():
        return found[0]
    return next((p for p in found if p.is_file()), None)


def reset_settings(path: Path | None, now: float | None = None) -> tuple[Path | None, str]:
    """Move the unusable settings file aside and write the defaults in its place, so
    that the next start reads them too; (the name it is kept under, or None; the reason
    the defaults could not be written, or "")."""
    if path is None:
        return None, ""
    kept = None
    if _there(path):
        kept = kept_name(path, now)
        try:
            os.rename(path, kept)
        except OSError as e:
            raise ConfigError(
                N_("{path} could not be moved aside ({problem}): nothing was changed"),
                path=str(path),
                problem=e.strerror or str(e),
            ) from None
    try:
        save_config(Config(), path)
    except ConfigError as e:
        return kept, e.localized()
    return kept, ""


# ------------------------------------------------------------------ the screen
def app() -> Any:
    return App.get_running_app()


class FitButton(FitText, Button):
    """A button whose words shrink (to a floor) rather than overflow."""


def _button(text: str, action: Callable[[], Any], colour: tuple[float, ...] = GREY) -> FitButton:
    button = FitButton(
        text=text,
        full_font_size="26sp",
        min_font_size="20sp",
        halign="center",
        valign="middle",
        background_normal="",
        background_color=colour,
    )
    button.bind(size=lambda b, size: setattr(b, "text_size", (size[0] - 16, size[1] - 8)))
    button.bind(on_release=lambda b: action())
    return button


class TroubleScreen(Layout, Screen):
    """What is wrong and what the table can do about it, in four steps: the problem
    (with its choices), the list of backups, the confirmation, and what was done."""

    layouts = ("trouble.kv",)

    mode = StringProperty("problem")  # "problem", "backups" ("empty"), "confirm", "done"
    title = StringProperty("")
    message = StringProperty("")  # what is wrong; what a move will do; what it did
    note = StringProperty("")
    band = ListProperty(BAND["problem"])
    armed = BooleanProperty(True)  # the confirmation takes taps (not in its first moment)

    def __init__(self, trouble: Trouble, **kw: Any) -> None:
        super().__init__(**kw)
        self.trouble = trouble
        self.done = trouble.done  # what a move did, said again if the companion still fails
        self._yes: FitButton | None = None
        self._arming: Any = None
        self.show_problem()

    def on_armed(self, screen: Any, armed: bool) -> None:
        if self._yes is not None:
            self._yes.disabled = not armed

    # ----------------------------------------------------------------- steps
    def _actions(self, *buttons: FitButton, yes: FitButton | None = None) -> None:
        """The row of big buttons at the bottom (``yes``: the one a confirmation arms)."""
        self._yes = yes
        row = self.ids.actions
        row.clear_widgets()
        for b in buttons:
            row.add_widget(b)

    def show_problem(self, problem: str = "") -> None:
        t = self.trouble
        self.mode = "problem"
        self.band = list(BAND["problem"])
        lines = [self.done] if self.done else []
        lines.append(problem or t.problem.localized())
        self.message = "\n".join(lines)
        if t.kind == "settings":
            self.title = _("The settings file cannot be read")
            self.note = _(
                "Nothing is deleted: the companion can start with its default settings, "
                "the file is kept under another name."
            )
            self._actions(_button(_("Start with the default settings"), self.ask_defaults))
        else:
            self.title = _("The game database cannot be used")
            self.note = _("Nothing is deleted: the file is kept under another name, for the audit.")
            self._actions(
                _button(_("Start with a fresh database"), self.ask_fresh),
                _button(_("Restore a backup"), self.show_backups),
            )

    def show_backups(self) -> None:
        assert self.trouble.path is not None
        database = self.trouble.path
        self.title = _("Restore a backup")
        grid = self.ids.backups
        grid.clear_widgets()
        found = find_backups(database)
        for backup in found:
            label = _("Copy of {date}").format(date=backup_date(backup))
            button = _button(label, partial(self.ask_restore, backup))
            button.size_hint_y = None
            button.height = 64
            grid.add_widget(button)
        if found:
            self.mode = "backups"
            self.note = _("The copies found, newest first.")
        else:  # said in the place of the list
            self.mode = "empty"
            folders = ", ".join(str(f) for f in backup_folders(database))
            self.message = _("No usable copy was found in {folders}.").format(folders=folders)
            self.note = ""
        self._actions(_button(_("Back"), self.show_problem))

    def _confirm(self, question: str, note: str, yes: str, action: Callable[[], Any]) -> None:
        """The second tap: "Cancel" where the first tap was, the action far from it and
        inert for a moment (a double tap does not confirm)."""
        self.mode = "confirm"
        self.title = question
        self.message = note
        self.note = ""
        yes_button = _button(yes, action, RED)
        yes_button.disabled = True
        self._actions(_button(_("Cancel"), self.show_problem), yes_button, yes=yes_button)
        self.armed = False
        if self._arming is not None:
            self._arming.cancel()  # an earlier confirmation's moment does not count
        self._arming = Clock.schedule_once(lambda dt: setattr(self, "armed", True), INERT)

    def ask_fresh(self) -> None:
        name = self.trouble.path.name if self.trouble.path is not None else ""
        self._confirm(
            _("Start with a fresh database?"),
            _(
                "{name} is moved aside under a dated name and kept: nothing is deleted. "
                "The games in it are not in the fresh database."
            ).format(name=name),
            _("Yes, start fresh"),
            self.fresh,
        )

    def ask_restore(self, backup: Path) -> None:
        name = self.trouble.path.name if self.trouble.path is not None else ""
        self._confirm(
            _("Restore the copy of {date}?").format(date=backup_date(backup)),
            _(
                "{name} is moved aside under a dated name and kept: nothing is deleted. "
                "Then the copy takes its place; what was played after it is not in it."
            ).format(name=name),
            _("Yes, restore it"),
            lambda: self.restore(backup),
        )

    def ask_defaults(self) -> None:
        name = self.trouble.path.name if self.trouble.path is not None else ""
        self._confirm(
            _("Start with the default settings?"),
            _(
                "{name} is moved aside under a dated name and kept: nothing is deleted. "
                "The reader, the pins, the language and the admin PIN are the defaults "
                "until they are set again in Settings."
            ).format(name=name),
            _("Yes, use the defaults"),
            self.defaults,
        )

    # ----------------------------------------------------------------- moves
    def fresh(self) -> None:
        assert self.trouble.path is not None
        try:
            kept = set_aside(self.trouble.path)
        except StoreError as e:
            self.show_problem(e.localized())
            return
        self._report(kept, _("A fresh database is in use."))

    def restore(self, backup: Path) -> None:
        assert self.trouble.path is not None
        try:
            kept = restore_backup(backup, self.trouble.path)
        except StoreError as e:
            self.show_problem(e.localized())
            return
        self._report(kept, _("The copy of {date} is in use.").format(date=backup_date(backup)))

    def defaults(self) -> None:
        try:
            kept, unsaved = reset_settings(self.trouble.path)
        except ConfigError as e:
            self.show_problem(e.localized())
            return
        now = _("The default settings are in use: set the reader and the admin PIN in Settings.")
        if unsaved:
            now += " " + _(
                "They could not be saved ({problem}): they hold until the companion restarts."
            ).format(problem=unsaved)
        self._report(kept, now)

    def _report(self, kept: Path | None, now: str) -> None:
        """What was done, and where the old file is kept; the companion follows."""
        lines = []
        if kept is not None:
            lines.append(_("The unusable file is kept as {path}").format(path=kept))
        lines.append(now)
        self.done = "\n".join(lines)
        self.mode = "done"
        self.band = list(BAND["done"])
        self.title = _("Done")
        self.message = self.done
        self.note = ""
        self._actions(_button(_("Continue"), self.carry_on, GREEN))

    def carry_on(self) -> None:
        """The companion over its database (or this screen again, saying what still
        keeps it from starting)."""
        app().recover(done=self.done)
