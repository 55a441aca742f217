"""Driving the touchscreen without a person: for the tests and for screenshots.

Builds the app on Kivy's window without entering its main loop; ``tap`` presses a
widget through a simulated touch, ``frames`` lets the clock and the drawing run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.tests.common import UnitTestTouch
from kivy.uix.screenmanager import ScreenManager
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.config import AppConfig, Config
from companion.store import GameStore
from companion.ui.app import CompanionApp
from companion.ui.ink import screen_metrics
from companion.ui.taps import NEAR, RULE, SAME_TAP

DRAWN_EVERY = 0.1  # seconds of the clock between two frames drawn during a long wait


def _shows(view: ScrollView, x: float, y: float) -> bool:
    """Whether the window point lies in the list's view (and, for a FoldScroll, under
    neither of its bands: a tap there turns the page instead)."""
    left, bottom = view.to_window(view.x, view.y)
    right, top = view.to_window(view.right, view.top)
    bottom += getattr(view, "below", 0.0)
    top -= getattr(view, "above", 0.0)
    return left <= x < right - view.bar_width and bottom < y < top


def frame(*, draw: bool) -> None:
    """One frame as ``EventLoop.idle`` runs it: the clock, the input, the layout and the
    textures; and (``draw``) the window drawn if anything changed.

    The window is drawn only when someone could look at it: at the end of every wait
    (``frames``, ``until``, and so every tap), and every ``DRAWN_EVERY`` seconds of the
    clock while a longer wait runs. A test reads the window, its widgets and the game
    after a wait, never between two of its frames, and what it reads is what the wait's
    last frame drew; the frames between (a pop-up opening, a view fading out) were drawn
    for no one, at tens of milliseconds each where OpenGL is drawn by the CPU. The settle
    rule (companion.ui.taps) looks at the controls as the window is drawn: at the end of
    every wait, and during a long one at least every ``DRAWN_EVERY``."""
    loop = EventLoop
    Clock.tick()
    if not loop.quit:
        loop.dispatch_input()
    if not loop.quit:
        Builder.sync()
    if not loop.quit:
        Clock.tick_draw()
    if not loop.quit:
        Builder.sync()
    if draw:
        drawn()


def drawn() -> None:
    """The window drawn as the last frame left it (what ``EventLoop.idle`` draws at the end
    of a frame), if anything changed since it was last drawn."""
    window = EventLoop.window
    if not EventLoop.quit and window is not None and window.canvas.needs_redraw:
        window.dispatch("on_draw")
        window.dispatch("on_flip")


class _Wait:
    """The frames of one wait: drawn every ``DRAWN_EVERY`` seconds of the clock."""

    def __init__(self) -> None:
        self.drawn_at = Clock.get_time()

    def frame(self) -> None:
        due = Clock.get_time() - self.drawn_at >= DRAWN_EVERY
        frame(draw=due)
        if due:
            self.drawn_at = Clock.get_time()


def record_metrics(png: Path, metrics: dict[str, Any]) -> None:
    """Add a screenshot's metrics to the ``metrics.json`` beside it (per screenshot: the
    smallest digit height of its figures, cap height of its watched and of its other
    texts, the texts cut; and every text with its role, its digit or cap height and why
    it is cut, for a closer look; companion.ui.ink)."""
    import json

    path = png.parent / "metrics.json"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = {}
    kept = ("text", "role", "digit_height", "cap_height", "cut")
    found[png.stem] = {
        **{k: v for k, v in metrics.items() if k != "texts"},
        "texts": [{k: t[k] for k in kept} for t in metrics["texts"]],
    }
    path.write_text(json.dumps(found, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def window_pixels(x: int, y: int, w: int, h: int) -> list[tuple[int, int, int]]:
    """The colours the window shows in a rectangle (window coordinates, after a frame),
    row by row from the bottom."""
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

    data = glReadPixels(x, y, w, h, GL_RGB, GL_UNSIGNED_BYTE)
    return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]


class Harness:
    def __init__(self, database: Path, config: Config | None = None) -> None:
        EventLoop.ensure_window()
        self.window = EventLoop.window
        self.window.size = (800, 480)
        # English unless told: the tests find widgets by their English text
        config = config or Config(app=AppConfig(database=str(database), language="en"))
        self.store = GameStore(database)
        self.mount(CompanionApp(config, self.store))

    def mount(self, app: CompanionApp) -> None:
        """Build ``app`` into the window as App.run() would, and draw its first frames."""
        self.app = app
        App._running_app = self.app  # what App.run() would set
        self.root = self.app.build()
        self.app.root = self.root
        self.window.add_widget(self.root)
        # what App.run() does next: the app hears the window's keys (F1: Kivy's settings)
        self.app._app_window = self.window
        self.app._install_settings_keys(self.window)
        self.frames(3)

    def unmount(self) -> None:
        """Take the app out of the window and stop it (its store is the caller's)."""
        self.window.unbind(on_keyboard=self.app._on_keyboard_settings)
        for child in list(self.window.children):
            self.window.remove_widget(child)
        self.app.dispatch("on_stop")  # kv's `app` forgets this app only when it stops
        App._running_app = None

    def close(self) -> None:
        self.unmount()
        self.store.close()

    def frames(self, n: int = 2, seconds: float = 0.0) -> None:
        """``n`` frames, then more until ``seconds`` of the clock have passed; the window
        drawn at the end of the wait, and during it every ``DRAWN_EVERY`` (see frame)."""
        wait = _Wait()
        end = Clock.get_time() + seconds
        for _ in range(n):
            wait.frame()
        while Clock.get_time() < end:
            wait.frame()
        drawn()

    def ticks(self, n: int = 1) -> None:
        """``n`` frames of the clock, the input, the layout and the textures, the window
        not drawn: the steps of a game a test plays through its controller between two of
        its looks (the next wait draws what they left)."""
        for _ in range(n):
            frame(draw=False)

    def until(self, done: Callable[[], object], limit: float = 20.0) -> None:
        """Run frames until ``done()`` holds (a view faded out, a screen changed): waiting
        on the event, not for a fixed time; ``limit`` seconds only bound a broken wait."""
        end = time.monotonic() + limit
        self.frames(1)
        wait = _Wait()
        while not done():
            if time.monotonic() > end:
                raise TimeoutError(f"still waiting after {limit} s for {done}")
            wait.frame()
        drawn()

    def widgets(self) -> Iterator[Widget]:
        """The widgets in view: the pop-ups open (the topmost first), then the screen
        shown and the status bar; a screen left (still a child of the screen manager
        while its transition ends) is not in view."""
        stack = list(reversed(self.window.children))  # the topmost (a pop-up) first
        while stack:
            widget = stack.pop()
            yield widget
            if isinstance(widget, ScreenManager):
                shown = widget.current_screen
                stack.extend([shown] if shown is not None else [])
            else:
                stack.extend(widget.children)

    def find(self, text: str, cls: type | None = None) -> Widget:
        """The visible widget whose text is ``text`` (or starts with it, ending in '...'),
        on the screen shown or a pop-up open."""
        prefix = text.endswith("...")
        for w in self.widgets():
            label = getattr(w, "text", None)
            if not isinstance(label, str) or (cls is not None and not isinstance(w, cls)):
                continue
            matches = label == text or (prefix and label.startswith(text[:-3]))
            if matches and w.get_root_window() is not None and w.opacity > 0:
                return w
        raise LookupError(f"no widget with text {text!r}")

    def tap(self, target: str | Widget, frames: int = 3, *, hasty: bool = False) -> None:
        """Tap ``target`` as a person does: once it takes taps (a button that just changed
        its meaning is inert a moment) and, on the spot just tapped, not within the same
        tap (companion.ui.taps). ``hasty``: at once, whatever the screen does."""
        self.frames(2)  # a pop-up just opened lays itself out, a screen left goes first
        widget = self.find(target) if isinstance(target, str) else target
        x, y = self._in_view(widget)
        if not hasty:
            self.settled(widget)
            self._apart(x, y)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.frames(frames)

    def _in_view(self, widget: Widget) -> tuple[float, float]:
        """The window point a finger taps on ``widget``, brought into view as a finger
        would: scrolled into each list that holds it until its centre is inside the
        list's view and under none of its bands (companion.ui.fold), else it cannot be
        tapped (an error here: a touch there would land on whatever lies beside it)."""
        lists: list[ScrollView] = []
        parent = widget.parent
        while parent is not None and parent is not self.window:
            if isinstance(parent, ScrollView):
                lists.append(parent)
            parent = parent.parent
        # where it is; else scrolled 10 px from the edge, then a third and nearly half
        # of the view from it (past a band)
        for share in (None, 0.0, 0.3, 0.45):
            for view in lists if share is not None else ():
                padding = max(10.0, share * view.height)
                view.scroll_to(widget, padding=padding, animate=False)
                self.frames(3)
            x, y = widget.to_window(*widget.center)
            if all(_shows(view, x, y) for view in lists):
                return x, y
        raise AssertionError(f"{widget!r} cannot be brought into view to be tapped")

    def armed(self) -> None:
        """Wait (on the event) until every question shown takes its answer: a question's
        answer is inert for its first moment (companion.ui.taps.SETTLE)."""
        self.until(lambda: all(getattr(w, "armed", True) for w in self.widgets()))

    def on_panel(self, player: str, entry: str | None = None) -> None:
        """Tap ``player``'s panel on the table screen (it opens their actions), then the
        action ``entry`` if given ("Clank! +1", "Artifact 20", ...)."""
        table = self.app.screens.get_screen("table")
        panel = next(p for p in table.panels() if p.player == player)
        self.tap(panel)
        if entry is not None:
            self.tap(entry)

    def settled(self, widget: Widget) -> None:
        """``widget`` as a person finds it who waited for it to take taps: its settle
        over (companion.ui.taps), without the wait."""
        RULE.release(widget)

    def _apart(self, x: float, y: float) -> None:
        """A second tap on the spot just touched comes after the double-tap window."""
        last = self.app.same_tap.last if hasattr(self.app, "same_tap") else None
        if last is None:
            return
        when, lx, ly = last
        if abs(x - lx) <= NEAR and abs(y - ly) <= NEAR:
            while time.time() - when < SAME_TAP * 1.25:
                self.frames(1, seconds=0.02)

    def enter_pin(self, digits: str) -> None:
        """Type a PIN on the open PIN pad and tap OK."""
        for digit in digits:
            self.tap(digit)
        self.tap("OK")

    def key(self, keycode: int, scancode: int = 0) -> None:
        """A key pressed on a USB keyboard, as SDL's window reports it."""
        for event in ("on_key_down", "on_keyboard"):
            self.window.dispatch(event, keycode, scancode, None, [])
        self.frames(2)

    def pixels(self, widget: Widget) -> list[tuple[int, int, int]]:
        """The colours the window shows where ``widget`` lies (after a frame): what a
        player sees there, not what the widgets say they are."""
        x, y = (round(v) for v in widget.to_window(widget.x, widget.y))
        return window_pixels(x, y, max(1, round(widget.width)), max(1, round(widget.height)))

    def screenshot(self, path: Path) -> Path:
        """The window as PNG at ``path``; beside it, in ``metrics.json``, the ink of its
        texts as measured from the pixels (companion.ui.ink), under the PNG's name."""
        RULE.release_all()  # the screen as it is looked at, after the moment's settle
        self.frames(3)
        saved = Path(self.window.screenshot(name=str(path)))  # Kivy adds a counter
        saved.replace(path)
        record_metrics(path, {**screen_metrics(self.window), "players": self.seats()})
        return path

    def seats(self) -> int:
        """The players (or teams: a Tschak! table's panels) at the table of the moment;
        0 with no game on it."""
        if self.app.trouble is not None:  # an app with no table (the trouble screen's)
            return 0
        ctl: Any = self.app.on_table()[1]
        view = ctl.view()
        return len(getattr(view, "teams", ()) or getattr(view, "players", ()) or ())

    @property
    def snapshot(self) -> dict[str, Any] | None:
        """The game on the table as its controller gives it to a test (the kind's own)."""
        controller: Any = self.app.controller
        found: dict[str, Any] | None = controller.snapshot()
        return found
