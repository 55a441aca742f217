"""The Kivy application: screens over the controller, the reader and the panel.

Reader and button threads never touch widgets: each scan or press is handed to the main
loop with ``Clock.schedule_once``, and the controller runs there.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.scrollview import ScrollView

from companion.config import Config
from companion.controller import Controller, Update
from companion.i18n import _, set_language
from companion.store import GameStore
from companion.store.tags import Component, components
from companion.ui.widgets import AttackView, NewGameScreen, StatusBar, TableScreen

log = logging.getLogger(__name__)
KV_DIR = Path(__file__).resolve().parent.parent.parent / "kv"
KV_FILES = ("common.kv", "newgame.kv", "table.kv", "attack.kv")


class CompanionApp(App):
    title = "Clank! Table Companion"

    def __init__(self, config_: Config, store: GameStore, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings_ = config_
        self.store = store
        self.controller = Controller(store)
        self.controller.listeners.append(self.on_update)
        self.worker: Any = None
        self.panel: Any = None
        self.attack_view: AttackView | None = None
        set_language(config_.app.language)

    # ------------------------------------------------------------------ build
    def build(self) -> BoxLayout:
        for name in KV_FILES:
            path = str(KV_DIR / name)
            if path not in Builder.files:  # rules loaded twice would apply twice
                Builder.load_file(path)
        root = BoxLayout(orientation="vertical")
        self.screens = ScreenManager(transition=NoTransition())
        self.screens.add_widget(NewGameScreen(name="newgame"))
        self.screens.add_widget(TableScreen(name="table"))
        self.status = StatusBar(simulated=self.settings_.simulated)
        root.add_widget(self.screens)
        root.add_widget(self.status)
        self.status.text = (
            _("Simulated table: no reader, mock buttons") if self.settings_.simulated else ""
        )
        if self.controller.resume_last() is None:
            self.screens.current = "newgame"
        return root

    def on_start(self) -> None:
        self._start_hardware()

    def on_stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        if self.panel is not None:
            self.panel.close()

    def _start_hardware(self) -> None:
        from hardware.gpio import Panel
        from hardware.readers import ReaderWorker, make_reader

        try:
            self.panel = Panel(
                self.settings_.gpio,
                on_end_turn=lambda: Clock.schedule_once(lambda dt: self.controller.end_turn()),
                on_undo=lambda: Clock.schedule_once(lambda dt: self.controller.undo()),
            )
            self.controller.signals = self.panel
        except Exception as e:  # noqa: BLE001 - the table plays on without buttons
            log.warning("no GPIO panel: %s", e)
            self.status.text = _("No buttons or LEDs: {reason}").format(reason=e)
        if self.settings_.simulated:
            return
        device = make_reader(self.settings_.reader.spec)
        self.worker = ReaderWorker(
            device,
            lambda scan: Clock.schedule_once(lambda dt: self.controller.scan(scan.uid)),
            lambda status, detail: Clock.schedule_once(
                lambda dt: self._reader_status(status.value, detail)
            ),
            gone_after=self.settings_.reader.gone_after,
            window=self.settings_.reader.window,
        )
        self.worker.start()

    def _reader_status(self, status: str, detail: str) -> None:
        self.status.text = _("Reader {status}: {detail}").format(status=status, detail=detail)
        if status == "lost" and self.panel is not None:
            self.panel.signal("reader_lost")

    # ----------------------------------------------------------------- update
    def on_update(self, update: Update) -> None:
        snap = self.controller.snapshot()
        if snap is not None:
            self.screens.current = "table"
            self.screens.get_screen("table").redraw(snap)
        if update.kind in ("rejected", "unknown_tag", "ignored", "refill", "seat"):
            self.status.text = update.message
        elif update.kind == "action":
            self.status.text = ""
        if update.kind == "seat" and self.screens.current == "newgame" and update.component:
            self.screens.get_screen("newgame").toggle_seat(update.component.name)
        draws = [e for e in update.events if e["event"] == "draw"]
        if draws and snap is not None:
            self.show_attack(snap["draws"][-1], update.events)

    def show_attack(self, draw: dict[str, Any], events: list[dict[str, Any]]) -> None:
        if self.attack_view is not None:
            self.attack_view.dismiss()
        self.attack_view = AttackView()
        self.attack_view.open()
        self.attack_view.play(draw, events)

    # ------------------------------------------------------------ scan drawer
    def open_scan_drawer(self) -> None:
        """The simulated reader: pick a component to 'scan' it."""
        table = self.controller.table
        edition = table.game.edition.name if table is not None else "clank"
        picks: list[Component] = []
        seen: set[tuple[str, str]] = set()
        kinds = ("card", "artifact", "major_secret", "minor_secret", "market", "special")
        if edition == "catacombs":
            kinds += ("prisoner",)
        for c in components(edition, kinds, ("dungeon", "promo")):
            if (c.kind, c.name) not in seen:
                seen.add((c.kind, c.name))
                picks.append(c)
        view = ModalView(size_hint=(0.96, 0.92))
        grid = GridLayout(cols=3, spacing=4, padding=4, size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))

        def pick(component: Component) -> None:
            view.dismiss()
            self.controller.scan_component(component)

        close = Button(text=_("Close"), size_hint_y=None, height=56, font_size="18sp")
        close.bind(on_release=lambda b: view.dismiss())
        grid.add_widget(close)
        for c in picks:
            label = c.name if c.kind == "card" else f"{c.kind.replace('_', ' ')}: {c.name}"
            button = Button(
                text=label,
                size_hint_y=None,
                height=56,
                font_size="16sp",
                shorten=True,
                text_size=(240, None),
                halign="center",
            )
            button.bind(on_release=lambda b, c=c: pick(c))
            grid.add_widget(button)
        scroll = ScrollView()
        scroll.add_widget(grid)
        view.add_widget(scroll)
        view.open()


def run_app(config_: Config, *, fullscreen: bool = False) -> int:
    from kivy.core.window import Window

    if fullscreen:
        Window.fullscreen = "auto"
    else:
        Window.size = (800, 480)
    with GameStore(config_.database) as store:
        CompanionApp(config_, store).run()
    return 0
