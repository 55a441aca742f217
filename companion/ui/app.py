"""The Kivy application: screens over the controller, the reader and the panel.

Reader and button threads never touch widgets: each scan or press is handed to the main
loop with ``Clock.schedule_once``, and the controller runs there. Which screen shows
follows the controller's phase (new game, opening, table, scoring); audit, tags and
settings are visited from the menu and lead back to it.

Every game kind is served through the same door: its face (``GameKind.table_face``)
names its screens, which screen shows each phase, the controller it makes for the app
(``control``), where a scan goes, its menu. ``controller`` is the controller of the game
on the table (the kind in play's, else the default kind's).

Why one module of over 600 lines: it is the shell every game shares (its screens by
name, the reader and the panel, the trouble screen, the languages and the settings, how
the app starts and ends in the kiosk); what one game's table asks and offers is its
kind's, and each screen is a module of its own.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import AliasProperty, ReferenceListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion.archive import Archive
from companion.config import Config, ConfigError, save_config, with_pin_hash
from companion.i18n import (
    _,
    current_language,
    player_name,
    reader_state,
    retell_held,
    retold,
    set_language,
)
from companion.kinds import DEFAULT, editions, kind_of
from companion.kinds.base import KindControl, TableFace, TagTarget
from companion.live import left_game
from companion.pin import Lockout
from companion.store import GameStore, StoreError
from companion.store.tags import TagRegistry
from companion.ui import cached, paint
from companion.ui.layouts import unload_layouts
from companion.ui.taps import RULE, SAME_TAP, SETTLE, SameTap, settle
from companion.ui.widgets import SEAT_COLOURS, Screens, StatusBar

if TYPE_CHECKING:
    from companion.ui.screens.popups import Confirm, PinPad
    from companion.ui.trouble import Trouble

log = logging.getLogger(__name__)


# screens visited from the menu: an update does not take the table away from them (nor
# from those a kind's menu visits: ``TableFace.visited``)
VISITED = ("audit", "tags", "settings", "pastgames", "report", "stats", "phones")
BACKGROUND = (0.14, 0.15, 0.18, 1)
# run_app's exit status when the touchscreen ended without the table asking: the kiosk's
# service restarts the app on it
EXIT_UNASKED = 3
# run_app's exit status in the kiosk after Quit on the Settings screen (confirmed): not 0,
# so the kiosk's service starts the companion again (it is never left without a screen)
EXIT_RESTART = 4
# the garbage collector at the table: a tap or a scan makes a few hundred objects; the
# young ones are collected once this many are made (Python's own: 700), and whenever
# the table has been still (no frame drawn) for STILL seconds, between taps, with a
# whole collection every WHOLE_EVERY of those
YOUNG = 5000
STILL = 1.0
WHOLE_EVERY = 10


class Later:
    """A screen whose module is imported when it is first built (the charts need the
    games' history: nothing of it is needed for the first frame)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(self.module), self.name)(**kwargs)


SCREENS: dict[str, Callable[..., Any]] = {
    # each imported when first built: the first frame loads only the screen it shows
    "newgame": Later("companion.ui.screens.new_game", "NewGameScreen"),
    "audit": Later("companion.ui.screens.audit", "AuditScreen"),
    "tags": Later("companion.ui.screens.tags", "TagsScreen"),
    "settings": Later("companion.ui.screens.settings", "SettingsScreen"),
    "pastgames": Later("companion.ui.screens.past_games", "PastGamesScreen"),
    "report": Later("companion.ui.report", "ReportScreen"),
    "stats": Later("companion.ui.report", "StatsScreen"),
    "phones": Later("companion.ui.screens.phones", "PhonesScreen"),  # the join link's QR
}


def face_of(edition: str) -> TableFace:
    """The screens of an edition's kind (the kinds' registry says)."""
    return kind_of(edition).table_face()


def face_with(name: str) -> TableFace | None:
    """The face of the kind whose screen ``name`` is (None: a screen every table has)."""
    if name in SCREENS:
        return None
    for edition in editions():
        face = face_of(edition)
        if name in face.screens:
            return face
    raise LookupError(f"no screen is called {name}")


def screen_factory(name: str) -> Callable[..., Any]:
    """The class of a screen: the app's own, or a game kind's (imported when first built,
    from the module its face names)."""
    face = face_with(name)
    if face is None:
        return SCREENS[name]
    module, cls = face.screens[name]
    return Later(module, cls)


class CompanionApp(App):
    title = "Clank! Table Companion"
    # Kivy's own settings panel (F1 on a keyboard) would change Kivy's configuration
    # (the screen rotation...) without the admin PIN: the kiosk has none of it.
    use_kivy_settings = False
    root: Any  # the layout build() returns (Kivy's App keeps it)
    store: GameStore
    archive: Archive  # every game of the database (past games, audit, charts)
    tags: TagRegistry  # the tag registry every kind's controller reads its scans with

    def __init__(
        self,
        config_: Config,
        store: GameStore | None,
        *,
        trouble: Trouble | None = None,
        **kwargs: Any,
    ) -> None:
        """The companion over ``store``; or, with no store, the trouble screen saying
        what keeps it from starting (``trouble``, see companion.ui.trouble)."""
        super().__init__(**kwargs)
        assert store is not None or trouble is not None
        self.settings_ = config_
        self.trouble = trouble
        self._done = ""  # what the trouble screen did, while recover builds the table
        self.quit_asked = False  # the program ended the app (see stop)
        self.restart_asked = False  # Quit on the Settings screen, confirmed (see quit_companion)
        self.kiosk = False  # full screen, under the kiosk's service (run_app says)
        self._asking: Confirm | None = None  # the question open (see ask)
        self.shown = False  # the first frame is on the screen (see on_start)
        self.worker: Any = None
        self.panel: Any = None
        self.simulated_table: Any = None  # the scan drawer's fake reader (_start_hardware)
        self.pin_pad: PinPad | None = None
        self.pin_lockout = Lockout.beside(config_.database)  # across pads and restarts
        # each kind's face and controller, by the kind's name, made when first needed (a
        # table of one kind never loads another's rules)
        self._controls: dict[str, tuple[TableFace, KindControl]] = {}
        self._faces: dict[str, TableFace] = {}  # the screens built of a kind's face: its face
        self.same_tap = SameTap()  # the second tap of a double tap (see companion.ui.taps)
        self._presses: dict[str, float] = {}  # each panel button's last press (panel_press)
        self._where: Any = None  # the screen and the turn, as last seen (_note_move)
        self._moved = float("-inf")  # when they last changed (Clock.get_time())
        # through a language switch: what a screen held, by name, for its new self
        self._kept: dict[str, dict[str, Any]] = {}
        self._still: Any = None  # the collector's moment between taps (_drawn)
        self._still_collections = 0
        set_language(config_.app.language)
        if store is not None:
            self._attach(store)

    def _attach(self, store: GameStore) -> None:
        self.store = store
        self.archive = Archive(store)
        self.tags = TagRegistry(store.db)
        self._controls = {}

    def close_store(self) -> None:
        """The database closed (when the app ends; none while the trouble screen shows)."""
        store = getattr(self, "store", None)
        if store is not None:
            del self.store
            store.close()

    # ------------------------------------------------------------------ build
    def build(self) -> BoxLayout:
        from kivy.core.window import Window

        # the screens' background is the window's own clear colour: a full-screen
        # rectangle under every screen would cost one more layer to draw at each frame
        Window.clearcolor = BACKGROUND
        paint.install(Window)  # each frame draws again only where the window changed
        Window.unbind(on_touch_down=self.same_tap)
        Window.bind(on_touch_down=self.same_tap)
        RULE.attach(Window)  # every control settles a moment after it appears or changes
        if self.trouble is None:
            try:
                return self._build_table()
            except (StoreError, sqlite3.DatabaseError) as e:  # found damaged as it resumed
                from companion.ui.trouble import damaged, database_trouble

                problem = e if isinstance(e, StoreError) else damaged(self.store.path, e)
                self.trouble = database_trouble(self.store.path, problem, self._done)
                self.close_store()
        return self._build_trouble()

    def _build_trouble(self) -> BoxLayout:
        """The trouble screen alone: no status bar, no menu, no reader."""
        from companion.ui.trouble import TroubleScreen

        assert self.trouble is not None
        root = BoxLayout(orientation="vertical")
        self.screens = Screens()
        self.screens.add_widget(TroubleScreen(self.trouble, name="trouble"))
        root.add_widget(self.screens)
        return root

    def recover(self, done: str = "") -> None:
        """The trouble screen made its move: the companion opens its database again and
        its home screen comes up, in this process; or the trouble screen says what still
        keeps it from starting (``done``: what the move did, said there too)."""
        from companion.ui.trouble import database_trouble, open_store

        path = self.settings_.database
        try:
            store = open_store(path)
        except StoreError as e:
            self.trouble = database_trouble(path, e, done)
        else:
            self.trouble = None
            self._attach(store)
        window = self.root.get_root_window() if self.root is not None else None
        old = self.root
        self._done = done
        try:
            self.root = self.build()  # the trouble screen again if resuming finds damage
        finally:
            self._done = ""
        if window is not None and old is not None:
            window.remove_widget(old)
            window.add_widget(self.root)
        if self.trouble is None and self.shown:  # what the first frame would have started
            self._after_first_frame()

    def _build_table(self) -> BoxLayout:
        root = BoxLayout(orientation="vertical")
        self.screens = Screens()  # each built when first shown
        self.status = StatusBar(simulated=self.settings_.simulated)
        root.add_widget(self.screens)
        root.add_widget(self.status)
        self.ready_text = _("Simulated table") if self.settings_.simulated else ""
        self.status.text = self.ready_text
        self._building = True  # one redraw at the end, not one per notice
        try:
            if not any(c.in_play for _f, c in self._controls.values()):
                self._resume_left()
        finally:
            self._building = False
        self.show_screen(self.home_screen())
        return root

    def _resume_left(self) -> None:
        """The game the table left, taken up again by its kind's controller (only then
        loaded, with its rules and screens); with none, the default kind's looks."""
        left = left_game(self.store)
        self.control(left[1] if left is not None else DEFAULT).resume_last()

    def on_start(self) -> None:
        # the screen first: the reader and the buttons start once the first frame is shown
        from kivy.core.window import Window

        def shown(*args: Any) -> None:
            Window.unbind(on_flip=shown)
            self.shown = True
            self._after_first_frame()

        Window.bind(on_flip=shown)

    def _after_first_frame(self) -> None:
        """What start-up leaves until the first frame is shown, in this order: the parts of
        the screen moved into their framebuffers and a frame drawn into them, then the
        database's writer and the garbage collector settled, and only then the buttons
        and the reader. A scan can come only once the reader runs, so the first one never
        waits behind start-up's own work (on a Pi that is seconds).

        The parts move at the tick after the frame that drew them (companion.ui.cached),
        and the rest waits a tenth of a second; where the first frame came slowly (a
        Pi's first use of OpenGL) both fall due at the same tick, so the rest looks:
        parts not yet drawn into their framebuffers are moved now, and the rest waits
        for the frame that draws them."""
        from kivy.core.window import Window

        def settled(dt: float) -> None:
            if cached.unsettled():
                cached.settle_now()
                Window.bind(on_flip=drawn)
                return
            self._settle()
            if self.trouble is None:  # the trouble screen needs neither reader nor buttons
                self._start_hardware()

        def drawn(*args: Any) -> None:
            Window.unbind(on_flip=drawn)
            Clock.schedule_once(settled)

        Clock.schedule_once(settled, 0.1)

    def _settle(self) -> None:
        """Once the first frame is shown: the database's writer is made ready for the
        first action (see companion.store.db), and the garbage collector, held off by
        run_app since start-up, runs once; what start-up built stays (frozen), so that
        later collections need not walk it."""
        if self.trouble is None:
            try:
                self.store.db.load()
            except StoreError as e:  # a full or read-only disk: said now, not at the first tap
                self.status.text = e.localized()
        gc.collect()
        gc.freeze()
        gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
        gc.enable()
        from kivy.core.window import Window

        Window.unbind(on_flip=self._drawn)
        Window.bind(on_flip=self._drawn)

    def _drawn(self, *args: Any) -> None:
        """A frame was drawn: the collector runs once the table is still again."""
        still = self._still
        if still is None:
            still = self._still = Clock.create_trigger(self._collect_between_taps, STILL)
        still.cancel()
        still()

    def _collect_between_taps(self, *args: Any) -> None:
        """The table has been still for a moment: the collector runs now, not in the
        middle of the next tap (the young objects; every WHOLE_EVERY times, all that was
        not frozen at start-up)."""
        self._still_collections += 1
        gc.collect(2 if self._still_collections % WHOLE_EVERY == 0 else 1)

    def stop(self, *largs: Any) -> None:
        """The end of the app the program asks for (run_app returns 0 then; Kivy's own end
        of the loop does not come here). Quit on the Settings screen is quit_companion."""
        self.quit_asked = True
        super().stop(*largs)

    def quit_companion(self) -> None:
        """Quit on the Settings screen, confirmed: the app ends; in the kiosk with
        EXIT_RESTART, and its service starts it again (run_app)."""
        self.restart_asked = True
        super().stop()

    def on_stop(self) -> None:
        from kivy.core.window import Window

        Window.unbind(on_touch_down=self.same_tap)
        Window.unbind(on_flip=self._drawn)
        if self._still is not None:
            self._still.cancel()
        RULE.detach()
        if self.worker is not None:
            self.worker.stop()
        if self.panel is not None:
            self.panel.close()

    def _start_hardware(self) -> None:
        from companion.ui.simulated import SimulatedTable
        from hardware.gpio import Panel
        from hardware.readers import FakeReader, ReaderStatus, ReaderWorker, Scan, make_reader

        try:
            self.panel = Panel(
                self.settings_.gpio,
                on_end_turn=lambda: hand_over(lambda: self.press("end_turn")),
                on_undo=lambda: hand_over(lambda: self.press("undo")),
            )
            for _face, control in self._controls.values():
                if hasattr(control, "signals"):  # a kind whose table lights the LEDs
                    control.signals = self.panel
        except Exception as e:  # noqa: BLE001 - the table plays on without buttons
            log.warning("no GPIO panel: %s", e)
            self.status.text = _("No buttons or LEDs: {reason}").format(reason=e)
        reader = self.settings_.reader
        device = make_reader(reader.spec)
        table: SimulatedTable | None = None
        if self.settings_.simulated and isinstance(device, FakeReader):
            # the simulated table: the scan drawer lays stickers on this fake reader and
            # the same worker as on the Pi reports them
            table = SimulatedTable(self.tags, device, settle=reader.gone_after + reader.window)
        self.simulated_table = table

        def scanned(scan: Scan) -> None:  # on the worker's thread
            if table is not None:
                table.reported(scan.uid)  # lifted: the next sticker can be laid
            hand_over(lambda: self.on_scan(scan.uid))

        def status(state: ReaderStatus, detail: str) -> None:
            if table is not None and state not in (ReaderStatus.LOST, ReaderStatus.RECONNECTING):
                return  # the fake reader is always there: the simulated table's notice stays
            Clock.schedule_once(lambda dt: self._reader_status(state.value, detail))

        self.worker = ReaderWorker(
            device, scanned, status, gone_after=reader.gone_after, window=reader.window
        )
        self.worker.start()

    def press(self, button: str) -> None:
        """A button of the panel ("end_turn", "undo"), heard on the main loop: the kind
        on the table's (see panel_press)."""
        face, _control = self.on_table()
        self.panel_press(button, lambda: face.press(self, button))

    def panel_press(self, button: str, work: Callable[[], Any]) -> None:
        """A button of the panel pressed (on the main loop): a second press of the same
        button within SAME_TAP is the same press, as a second tap on a screen's button is
        (a finger's double press, a bounce longer than gpiozero's)."""
        now = Clock.get_time()
        last = self._presses.get(button)
        self._presses[button] = now
        if last is not None and 0 <= now - last < SAME_TAP:
            return
        if 0 <= now - self._moved < SETTLE:
            # the turn or the screen changed a moment ago: the press was meant for what
            # was there before (the screen's settle rule, for the panel's buttons)
            if self.panel is not None:
                self.panel.signal("not_taken")
            return
        work()

    def _note_move(self) -> None:
        """The turn or the screen changed, or not, since the last look: the panel's
        buttons settle from the moment it did (panel_press)."""
        where = (self.screens.current, self._turn_of())
        if where != self._where:
            self._where = where
            self._moved = Clock.get_time()

    def _turn_of(self) -> object:
        """Whose turn it is, as the kind on the table tells it."""
        face, control = self.on_table()
        return face.turn(control)

    def _reader_status(self, status: str, detail: str) -> None:
        self.status.text = _("Reader {status}: {detail}").format(
            status=reader_state(status), detail=detail
        )
        if status == "lost" and self.panel is not None:
            self.panel.signal("reader_lost")

    # ---------------------------------------------------------------- screens
    @property
    def controller(self) -> KindControl:
        """The controller of the game on the table: the kind in play's, else the default
        kind's (made when first needed). Its screens ask it in the kind's own terms."""
        return self.in_play()[1]

    def control(self, edition: str) -> KindControl:
        """The controller of an edition's kind, made when first needed by the kind's face
        (``GameKind.table_face``): one for every edition of a kind."""
        kind = kind_of(edition)
        if kind.name not in self._controls:
            face = kind.table_face()
            self._controls[kind.name] = (face, face.make_control(self))
        return self._controls[kind.name][1]

    def in_play(self) -> tuple[TableFace, KindControl]:
        """The kind whose game (or set-up) is on the table, its face and controller; with
        none, the default kind's (its new-game screen)."""
        default = kind_of(DEFAULT).name
        for name, made in self._controls.items():
            if name != default and made[1].in_play:
                return made
        self.control(DEFAULT)
        return self._controls[default]

    def on_table(self) -> tuple[TableFace, KindControl]:
        """The kind the table is with: the one whose screen shows, else the one in play."""
        face = self._faces.get(self.screens.current)
        if face is not None:
            for made in self._controls.values():
                if made[0] is face:
                    return made
        return self.in_play()

    def home_screen(self) -> str:
        """The screen of the game (or set-up) on the table; the new game's without one."""
        face, control = self.in_play()
        return face.phase_screens[control.phase]

    def own_home(self) -> str | None:
        """The screen of the game (or set-up) on the table, one of its kind's own; None
        without one (the new game's screen)."""
        face, control = self.in_play()
        home = face.phase_screens[control.phase]
        return home if home in face.screens else None

    def game_screen(self, name: str) -> bool:
        """Whether the screen ``name`` is one of a kind's (a ``GameScreen`` of its face)."""
        return face_with(name) is not None

    def visited(self) -> set[str]:
        """The screens visited from a menu: every table's, and those the kinds' menus visit."""
        return {*VISITED, *(name for face, _c in self._controls.values() for name in face.visited)}

    def screen(self, name: str) -> Any:
        if not self.screens.has_screen(name):
            face = face_with(name)
            made = screen_factory(name)(name=name)
            for key, value in self._kept.pop(name, {}).items():  # see switch_language
                setattr(made, key, value)
            if face is not None:
                self._faces[name] = face
            self.screens.add_widget(made)
        return self.screens.get_screen(name)

    def show_screen(self, name: str) -> None:
        self.screen(name)
        self.screens.current = name
        self.redraw()

    def redraw(self) -> None:
        """The current screen: a kind's screen drawn again from its controller
        (``GameScreen.show_own``); a screen visited from the menu that follows the game,
        refreshed."""
        screen = self.screens.current_screen
        self._note_move()
        if screen.name in self._faces:
            screen.show_own()
        if getattr(screen, "follows_game", False):  # visited from the menu, on the game
            screen.refresh()
        if screen.name == "newgame":
            screen.show_unresumable()

    def on_scan(self, uid: str) -> None:
        """Every tag the reader reports: the tags screen takes it while it listens, else
        the kind on the table."""
        if self.screens.current == "tags" and self.screen("tags").mode:
            self.screen("tags").scanned(uid)
            return
        face, _control = self.on_table()
        face.scan(self, uid)

    # ----------------------------------------------------------------- update
    def follow(self, kind: str) -> None:
        """After an update of ``kind``: the game's own screen comes back unless a screen
        visited from the menu is up (a new or resumed game always comes back); then the
        screen shown is redrawn."""
        if self.screens.current not in self.visited() or kind == "game":
            home = self.home_screen()
            if self.screens.current != home:
                self.screen(home)
                self.screens.current = home
                self.redraw()
                settle(self.screens.current_screen)  # a finger on its way finds nothing
                return
        self.redraw()

    def tell_status(self, message: str) -> None:
        self.status.text = message

    # ------------------------------------------------------------- pop-ups
    def open_menu(self) -> None:
        """The menu: what the table's game offers now, then the screens every table has."""
        face, _control = self.on_table()
        entries = face.menu_entries(self)
        entries += [
            (_("Audit"), self.open_audit),
            (_("Tags"), lambda: self.show_screen("tags")),
            (_("Phones"), lambda: self.show_screen("phones")),
            (_("Settings"), self.ask_pin),
        ]
        from companion.ui.screens.popups import Picker

        Picker(_("Menu"), entries).open()

    def open_scan_drawer(self) -> None:
        """The simulated reader: the drawer of the components of the kind on the table,
        a tap 'scans' one."""
        face, _control = self.on_table()
        face.open_drawer()

    def choose_binding(
        self, uid: str, *, rebind: bool, then: Callable[[str], None], edition: str = ""
    ) -> None:
        """An unknown (or re-bound) tag: the table says which component carries it, a
        player's badge or one of the edition's components (on the tags screen, its
        edition's; else ``edition``'s, or the default kind's)."""
        from companion.store.tags import TagError
        from companion.ui.screens.popups import Picker

        if self.screens.current == "tags":
            edition = self.screen("tags").edition
        edition = edition or DEFAULT

        def bind(component: Any) -> None:  # a Component of the tag registry
            try:
                binding = self.tags.bind(uid, component, rebind=rebind)
            except TagError as e:
                then(e.localized())
                return
            then(
                _("{uid} is now {component}").format(
                    uid=binding.uid, component=component.localized()
                )
            )
            self.redraw()  # a screen counting the tags counts this one

        choices = [(_("Badge: {colour}").format(colour=player_name(b.name)), b) for b in badges()]
        choices += face_of(edition).tag_choices(edition)
        entries = [(label, partial(bind, c)) for label, c in choices]
        Picker(_("Tag {uid}: which component is it?").format(uid=uid), entries).open()

    def ask_pin(self, on_unlock: Callable[[], Any] | None = None, prompt: str = "") -> None:
        """The admin PIN pad; the right PIN opens Settings (or runs ``on_unlock``)."""
        from companion.ui.screens.popups import PinPad

        self.pin_pad = PinPad(
            on_unlock or (lambda: self.show_screen("settings")),
            check=lambda entered: self.settings_.app.pin_matches(entered),
            lockout=self.pin_lockout,
            prompt=prompt,
        )
        self.pin_pad.open()

    def open_settings(self, *largs: Any) -> bool:
        """Kivy's settings panel (F1, the menu key) never opens: Settings are ours,
        behind the admin PIN."""
        return False

    def display_settings(self, settings: Any) -> bool:
        return False

    # ---------------------------------------------------------- questions
    def ask(
        self,
        question: str,
        yes: str,
        action: Callable[[], Any],
        note: str = "",
        *,
        tied: bool = True,
    ) -> None:
        """A question before what cannot be taken back (see Confirm). ``tied``: answered
        for the moment it was asked: if the game moved on meanwhile (a scan, a button of
        the panel), the answer does nothing and the status bar says so. One question at a
        time: while one is open, another (the panel's button pressed again) is not asked."""
        from companion.ui.screens.popups import Confirm

        if self._asking is not None:
            return
        ctl = self.controller
        moment = ctl.moment()

        def answered() -> None:
            if tied and (ctl is not self.controller or ctl.moment() != moment):
                self.status.text = _("The table changed meanwhile: nothing was done")
                return
            action()

        confirm = Confirm(question, yes, answered, note=note)
        self._asking = confirm
        confirm.bind(on_dismiss=self._answered)
        confirm.open()

    def _answered(self, confirm: Confirm) -> None:
        if self._asking is confirm:
            self._asking = None

    def confirm_abandon(self) -> None:
        """Abandon the game on the table (the Settings screen), once the table confirms."""
        from companion.ui.screens.popups import Confirm

        def abandon() -> None:
            ctl = self.controller
            if ctl.abandon():
                ctl.close_game()

        Confirm(
            _("Abandon the game? Its seed is revealed; it cannot go on."),
            _("Yes, abandon it"),
            abandon,
        ).open()

    def confirm_quit(self) -> None:
        """Quit (the Settings screen), once the table confirms: in the kiosk the companion
        starts again; on a desktop its window closes."""
        if self.kiosk:
            note = _(
                "The companion restarts in a few seconds; the game on the table goes on "
                "where it was."
            )
        else:
            note = _("The window closes; the game on the table goes on at the next start.")
        self.ask(
            _("Quit the companion?"), _("Yes, quit"), self.quit_companion, note=note, tied=False
        )

    def open_audit(self, game: int | None = None, back_to: str | None = None) -> None:
        """The audit of the game on the table, or of a past game."""
        audit = self.screen("audit")
        audit.game = game
        audit.back_to = back_to or ""
        self.show_screen("audit")

    def open_past_game(self, game: int) -> None:
        """A past game: its ranking and charts (its audit one tap further)."""
        self.open_report(game, back_to="pastgames")

    def open_report(self, game: int | None = None, back_to: str | None = None) -> None:
        """A game in charts: a past game, or (``game`` None) the one on the table."""
        report = self.screen("report")
        report.game = game
        report.back_to = back_to or self.home_screen()
        self.show_screen("report")

    def choose_language(self) -> None:
        """The languages, the current one marked; a tap switches at once (and saves)."""
        current = current_language()
        entries = []
        from companion.ui.screens.kit import LANGUAGE_NAMES
        from companion.ui.screens.popups import Picker

        for code, name in LANGUAGE_NAMES.items():
            label = _("{language} (chosen)").format(language=name) if code == current else name
            entries.append((label, lambda code=code: self.set_language(code)))
        Picker(_("Language"), entries).open()

    def set_language(self, language: str) -> str:
        """Switch the table's language and keep it in the settings; the message to show."""
        message = self.save_settings(app={"language": language})
        self.switch_language(language)
        return message

    def save_settings(self, **changes: Any) -> str:
        """Save changed settings (``reader={...}``, ``app={...}``); what to tell the table."""
        settings = self.settings_
        reader = dataclasses.replace(settings.reader, **changes.get("reader", {}))
        app_part = dataclasses.replace(settings.app, **changes.get("app", {}))
        new = with_pin_hash(dataclasses.replace(settings, reader=reader, app=app_part))
        try:
            path = save_config(new)
        except ConfigError as e:
            return e.localized()
        self.settings_ = dataclasses.replace(new, source=str(path))
        return ""

    def switch_language(self, language: str) -> None:
        """Change the language at once, and every text on the window with it. The layouts
        are read again and the screens built again (the game stays). What was told before
        the switch and is kept is said again in the new language (``companion.i18n.Said``):
        the controllers' last words (the table's line of what just happened), the status
        bar's message, what the screen shown holds (a past game's audit, the seats
        picked), and every text of the pop-ups open (a question, a menu, the dragon's
        attack)."""
        set_language(language)
        for _face, holder in self._controls.values():
            retell_held(holder)
        current = self.screens.current
        kept = screen_state(self.screens.current_screen)
        self._kept = {current: {name: retold(value) for name, value in kept.items()}}
        told = self.status.text if self.trouble is None else ""
        unload_layouts()
        window = self.root.get_root_window() if self.root is not None else None
        old = self.root
        try:
            self.root = self.build()
            if window is not None and old is not None:
                replace_root(window, old, self.root)
            if self.trouble is None:
                self.show_screen(current)
                self.status.text = retold(told)
        finally:
            self._kept = {}
        from kivy.uix.modalview import ModalView

        for view in window.children if window is not None else ():
            if isinstance(view, ModalView):
                retell_widgets(view)


def replace_root(window: Any, old: Any, new: Any) -> None:
    """``new`` in the window in the place of ``old``: under what lay over it (a pop-up,
    the on-screen keyboard), which stays over it."""
    children = list(window.children)  # the topmost first
    over = children[: children.index(old)] if old in children else []
    window.remove_widget(old)
    window.add_widget(new)
    for widget in reversed(over):  # each back on top, the lowest first
        window.remove_widget(widget)
        window.add_widget(widget)


def screen_state(screen: Any) -> dict[str, Any]:
    """What a screen holds of its own (its class's Kivy properties, not a widget): given
    to the same screen built again in another language as it is made, before it is shown
    and redrawn from the controller (a past game's audit stays that game's, the seats
    picked stay picked; what it draws from the game is drawn again)."""
    if screen is None:
        return {}
    state = {}
    for name, prop in screen.properties().items():
        if hasattr(Screen, name) or isinstance(prop, AliasProperty | ReferenceListProperty):
            continue  # a screen's as a screen (its name, size, place...): not its own
        value = getattr(screen, name)
        if not isinstance(value, Widget):
            state[name] = value
    return state


def retell_widgets(top: Any) -> None:
    """Every text ``top`` and the widgets in it hold in their properties, said again in
    the language spoken now: a pop-up open through a language switch (a Label bound in
    its layout follows the property it shows)."""
    for widget in top.walk(restrict=True):
        for name, prop in widget.properties().items():
            if isinstance(prop, AliasProperty | ReferenceListProperty):
                continue
            value = getattr(widget, name)
            new = retold(value)
            if new is not value:
                setattr(widget, name, new)


def badges() -> list[TagTarget]:
    """The players' badges, one of each seat's colour."""
    from companion.store.tags import resolve

    return [resolve("badge", None, c) for c in SEAT_COLOURS]


def hand_over(work: Callable[[], Any]) -> None:
    """Run ``work`` on the main loop (from a reader's or a button's thread). With Kivy's
    ``free_all`` clock (as ``clank-companion app`` starts it) the loop wakes at once and
    draws the frame; with the default clock, at its next tick."""
    schedule = getattr(Clock, "schedule_once_free", None) or Clock.schedule_once
    schedule(lambda dt: work())


def configure_window(fullscreen: bool) -> None:
    """Kivy's window as the table needs it, set before the window exists (importing
    ``kivy.core.window`` creates it): 800x480 from the first frame, full screen in the
    kiosk, and there, with no keyboard on the box, Kivy's on-screen keyboard docked at
    the bottom for every text field (a USB keyboard still types too). Full screen,
    Escape on a USB keyboard does not quit either: only Quit on the Settings screen, behind
    the admin PIN, ends the kiosk (whatever Kivy's own settings file says)."""
    from kivy.config import Config as KivyConfig

    from companion.ui.window_settings import window_settings

    window_settings()
    KivyConfig.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    KivyConfig.set("graphics", "show_cursor", "0" if fullscreen else "1")
    KivyConfig.set("kivy", "keyboard_mode", "systemanddock" if fullscreen else "")
    if fullscreen:
        KivyConfig.set("kivy", "exit_on_escape", "0")


def start_app(config_: Config, *, config_problem: ConfigError | None = None) -> CompanionApp:
    """The app as ``clank-companion app`` starts it: the companion over its database; or,
    when the settings file (``config_problem``: ``config_`` is then the defaults) or the
    database cannot be used, the trouble screen that says so and offers what can be
    done. Never an exit: the table would see a black screen."""
    from companion.ui.trouble import database_trouble, open_store, settings_trouble

    if config_problem is not None:
        return CompanionApp(config_, None, trouble=settings_trouble(config_problem))
    try:
        store = open_store(config_.database)
    except StoreError as e:
        log.error("the game database cannot be used: %s", e)
        return CompanionApp(config_, None, trouble=database_trouble(config_.database, e))
    return CompanionApp(config_, store)


def run_app(
    config_: Config, *, fullscreen: bool = False, config_problem: ConfigError | None = None
) -> int:
    """Run the touchscreen until it ends; the exit status: in the kiosk (``fullscreen``)
    EXIT_RESTART after Quit on the Settings screen and EXIT_UNASKED when nobody asked
    (the kiosk's service starts it again on either), 0 when the program ended it; on a
    desktop 0 (Quit, or closing the window)."""
    configure_window(fullscreen)
    # what start-up makes (the screen's widgets, the game) lives as long as the app:
    # the collector would walk it again and again for nothing. It runs once the first
    # frame is shown, then freezes what is there (CompanionApp._settle).
    gc.disable()
    if config_problem is not None:
        log.error("the settings cannot be used: %s", config_problem)
    app: CompanionApp | None = None
    try:
        app = start_app(config_, config_problem=config_problem)
        app.kiosk = fullscreen
        app.run()
    finally:
        if app is not None:
            app.close_store()
        gc.enable()
    if not fullscreen or app.quit_asked:
        return 0
    if app.restart_asked:
        log.info("Quit on the Settings screen: exit status %d, started again", EXIT_RESTART)
        return EXIT_RESTART
    log.error("the touchscreen ended without Quit: exit status %d", EXIT_UNASKED)
    return EXIT_UNASKED
