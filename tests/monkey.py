"""A monkey at the table: the real app, driven by random events, its invariants checked
after each one.

The app is the real ``CompanionApp`` over a database of its own, on Kivy's window
without its main loop (``companion.ui.harness.Harness``). A seeded ``random.Random``
picks each event: a tap on a visible, enabled button or touchable widget of the screen
or of the pop-up on top, after a glance (a few frames); a hasty tap where a target was a
moment ago, with no frame between (during an animation or a change of screen); a double
tap, the two taps 0.03-1.5 s apart (a quick double, or a "did it take?" re-tap); a scan
of a tagged component (the reader's way in: ``on_scan`` on the main loop); Undo and End
turn (on the screen or the panel's buttons, once or twice); a pause; typing; Settings
behind the admin PIN; a power cut (the app built again over the same database). On the
new-game screen it starts games of every kind through the screen itself: Clank!, Clank!
Catacombs (2 to 6 players) and Tschak! (2 to 4), in English, Russian, Ukrainian and
Spanish. Now and then a monster hurts a player (a ``damage`` action), and after a while
the table moves on: the game played to its end (its scoring), given up, or closed.

After every event it checks:

- **turn**: the turn moves only by an End turn of that turn (the button, the panel's
  button, the question it asked, or the last card of the refill it opened), by exactly
  one player; Undo takes back at most one turn;
- **double tap**: a double tap commits at most one action, and when its first tap
  changed the table or the screen, its second changes nothing of the game unless it
  came a second or more later (``SETTLE``: a tap of its own, on what had settled);
- **stale screen**: the screen shows the texts and buttons that the same screen, built
  afresh and drawn from the same state, shows;
- **not settled** (the monkey's own oracle): as each finger comes down it notes the
  control the touch comes to, what that control means (its ``meaning``, else its
  words) and since when it has meant it, as drawn (``Watch``: its own reckoning, not the
  app's rule). Every record the log gains after a touch, and every move of the turn or
  of the phase (Tschak!'s floors, verdicts, trophies and end), must follow a touch on a
  control that had meant the same for a second (``SETTLE``), what a pause gains
  included (it follows the touch before it); a settled Undo records an undo and
  nothing else; a press of the panel's End turn or Undo acts only a second after the
  turn or the screen last changed;
- **traceback**: nothing raised, and nothing was logged as an error;
- **off screen**: no visible widget or drawn text sticks out of the 800x480 window (a
  scrolling list's contents are clipped by it).

A Tschak! table now and then lays what its step asks for (a tower's six cards, the
teams, the last cards) as its reader would, and taps the step's button: its games reach
their verdicts and their end. The summary counts the re-taps (the second taps of the
double taps) by their gap, and lists every screen of both games with how often an event
saw it, and those it never reached.

Everything runs on a clock of its own (Kivy's clock advanced frame by frame, the touches
stamped with it) and the dragon's server seeds come from the monkey's seed: the same seed
plays the same events on any machine. ``./dev monkey EVENTS SEED`` runs it; a violation
is printed with the seed and step that replay it (``./dev monkey 1 SEED --from STEP``
plays the same events up to it and tells the events from there on).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import sys
import tempfile
import time
import traceback
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Kivy and gpiozero headless, before anything imports them (as tests/conftest.py does)
if __name__ == "__main__":
    logging.getLogger().addHandler(logging.NullHandler())  # Kivy's notices: not told
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
if "KIVY_HOME" not in os.environ:
    os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="kivy-home-")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("KIVY_WINDOW", "sdl2")

from companion.ui.window_settings import window_settings  # noqa: E402

window_settings()  # the app's window, Kivy's rules read as the app reads them

from kivy.base import EventLoop  # noqa: E402
from kivy.clock import Clock  # noqa: E402
from kivy.tests.common import UnitTestTouch  # noqa: E402
from kivy.uix.behaviors import ButtonBehavior  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402
from kivy.uix.scrollview import ScrollView  # noqa: E402
from kivy.uix.textinput import TextInput  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion.ui.ink import walk  # noqa: E402
from companion.ui.paint import painter_of  # noqa: E402
from companion.ui.taps import RULE, SETTLE, controls, meaning_of  # noqa: E402

WIDTH, HEIGHT = 800, 480
SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]
LANGUAGES = ("en", "ru", "uk", "es")
EDITIONS = ("clank", "catacombs", "tschak")
PROGRESS = 250  # events between two lines of progress on a long run
PIN = "2468"  # the admin PIN with none in the configuration (docs/playing.md)
FPS = 60  # the frames a player sees
WAIT_FPS = 10  # the frames of a pause (the clock runs the same; fewer frames are drawn)

# the violations, by kind
TURN = "turn"
DOUBLE = "double tap"
DOUBLE_PRESS = "double press"
STALE = "stale screen"
TRACEBACK = "traceback"
OFF_SCREEN = "off screen"
UNSETTLED = "not settled"
KINDS = (TURN, DOUBLE, DOUBLE_PRESS, UNSETTLED, STALE, TRACEBACK, OFF_SCREEN)
# events that commit nothing of themselves: any record or move of the game during one
# comes from one of its touches (the reader, a monster, the panel and the macros do)
TOUCHES = ("tap", "hasty", "double", "point", "undo", "end_turn", "wait", "type")
TSCHAK_STEP = 0.25  # how often the Tschak! table lays what its step asks for, of its events
SKIP = "skip"  # records that follow no touch of the monkey's (a scan's, a macro's)
GAPS = (0.4, 0.7, 1.0, 1.5)  # the re-taps told by their gap: up to 0.4 s, 0.7 s...

# how often each event comes (the new-game screen and a long game add their own)
WEIGHTS = {
    "tap": 40,
    "hasty": 10,
    "double": 15,
    "scan": 16,
    "undo": 4,
    "end_turn": 6,
    "press": 3,
    "double_press": 1,
    "wait": 7,
    "point": 2,
    "type": 1,
    "settings": 0.7,
    "restart": 0.5,
    "hurt": 1.5,
}
PANEL = ["end_turn", "end_turn", "undo"]
WORDS = ["owl", "seven red owls", "pizza", "ß ü", "дракон", "", "x" * 40]


@dataclass(frozen=True)
class Violation:
    seed: int
    step: int
    kind: str
    what: str
    detail: str = ""  # a traceback
    sign: str = ""  # what it is, in any language: the same finding has the same sign
    again: bool = False  # the same as at the step before (a screen still stale)

    def __str__(self) -> str:
        text = f"seed {self.seed} step {self.step}: {self.kind}: {self.what}"
        if self.detail:
            text += "\n" + "\n".join("    " + line for line in self.detail.rstrip().splitlines())
        return text

    @property
    def replay(self) -> str:
        return f"./dev monkey 1 {self.seed} --from {self.step}"


@dataclass
class Report:
    seed: int
    events: int = 0
    violations: list[Violation] = field(default_factory=list)
    played: Counter[str] = field(default_factory=Counter)  # event kinds
    screens: Counter[str] = field(default_factory=Counter)  # screens after each event
    games: Counter[str] = field(default_factory=Counter)  # "clank 4 ru"
    log: list[str] = field(default_factory=list)  # each event, as told
    seconds: float = 0.0
    popups: Counter[str] = field(default_factory=Counter)  # pop-ups open after each event
    retaps: list[tuple[float, bool, bool]] = field(default_factory=list)  # gap, settled, held

    def of(self, kind: str) -> list[Violation]:
        return [v for v in self.violations if v.kind == kind]

    def summary(self) -> str:
        lines = [
            f"{self.events} events run (seed {self.seed}) in {self.seconds:.0f} s: "
            f"{len(self.violations)} violations"
        ]
        for kind in KINDS:
            found = self.of(kind)
            if found:
                lines.append(f"  {kind}: {len(found)} (first at step {found[0].step})")
        signs = Counter(v.sign for v in self.violations)
        for sign, n in signs.most_common():
            first = next(v for v in self.violations if v.sign == sign)
            again = sum(1 for v in self.violations if v.sign == sign and v.again)
            still = f", {again} of them still stale from the step before" if again else ""
            lines.append(f"    {sign}: {n} (first at step {first.step}{still}: {first.replay})")
        lines.append(
            "  games started: " + ", ".join(f"{k} x{n}" for k, n in sorted(self.games.items()))
        )
        lines.append("  events: " + ", ".join(f"{k} {n}" for k, n in self.played.most_common()))
        lines.extend(self.retaps_table())
        lines.extend(self.coverage())
        return "\n".join(lines)

    def retaps_table(self) -> list[str]:
        """The second taps of the double taps, by their gap: how many found their control
        settled (a tap of its own), how many the app took and did nothing with."""
        lines = [f"  re-taps: {len(self.retaps)} (the second tap of a double, 0.03-1.5 s)"]
        lines.append("    gap up to    taps  settled  taken and nothing done")
        low = 0.0
        for high in GAPS:
            these = [r for r in self.retaps if low <= r[0] < high or (high == GAPS[-1] == r[0])]
            settled = sum(1 for r in these if r[1])
            held = sum(1 for r in these if r[2])
            lines.append(f"    {high:>5.1f} s {len(these):>8} {settled:>8} {held:>8}")
            low = high
        return lines

    def coverage(self) -> list[str]:
        """Every screen of both games with how often an event left it there, and those
        never reached."""
        lines = ["  screens reached (events that saw them):"]
        for name in every_screen():
            lines.append(f"    {name:<32} {self.screens.get(name, 0):>6}")
        others = sorted(set(self.screens) - set(every_screen()))
        for name in others:
            lines.append(f"    {name:<32} {self.screens[name]:>6}")
        lines.append(
            "  pop-ups open: " + ", ".join(f"{k} {n}" for k, n in self.popups.most_common())
        )
        never = self.never_reached()
        lines.append("  never reached: " + (", ".join(never) if never else "none"))
        return lines

    def never_reached(self) -> list[str]:
        return [name for name in every_screen() if not self.screens.get(name)]


# ------------------------------------------------------------------ the clock
class VirtualClock:
    """Kivy's clock on a time of its own: each frame advances it by 1/fps, whatever the
    machine's speed, and nothing else does. Once left, the clock runs on real time again
    from where it stood (it never goes back)."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def usleep(self, microseconds: float) -> None:
        fps = Clock._max_fps or FPS
        self.now = max(self.now + microseconds / 1e6, Clock._last_tick + 1 / fps)

    def __enter__(self) -> VirtualClock:
        self.now = Clock.get_time()
        self.fps = Clock._max_fps
        Clock.time = self.time
        Clock.usleep = self.usleep
        return self

    def __exit__(self, *exc: object) -> None:
        offset = self.now - time.perf_counter()
        Clock.time = lambda: time.perf_counter() + offset
        del Clock.usleep  # the clock's own sleep again
        Clock._max_fps = self.fps


class Touch(UnitTestTouch):
    """A finger, stamped with the clock's time (a real touch carries the moment it came
    down: the double-tap rule reads it)."""

    def __init__(self, x: float, y: float) -> None:
        super().__init__(x, y)
        self.time_start = self.time_update = Clock.get_time()

    def update_time_end(self) -> None:
        self.time_end = Clock.get_time()


@dataclass(frozen=True)
class Mark:
    """Where the game stood at a moment: the last record of the log, and the game's turn
    and phase (Tschak!'s floors and verdicts are phases)."""

    record: int
    game: int | None
    turn: tuple[int, str] | None
    phase: str


@dataclass
class Finger:
    """A touch as the oracle saw it come down: the control under it (the one the touch
    came to, or the one that took it and did nothing), what that control meant, and
    whether it had meant it for a second (the monkey's own reckoning, ``Watch``)."""

    at: float  # the clock when it came down
    control: str  # its class and words ("" for no control)
    meaning: str
    age: float | None  # seconds it had meant that; None: not drawn as it was
    held: bool  # the app took the touch and did nothing
    before: Mark

    @property
    def settled(self) -> bool:
        return self.age is not None and self.age >= SETTLE

    def said(self) -> str:
        if not self.control:
            return "a tap on no control"
        age = "never drawn so" if self.age is None else f"{self.age * 1000:.0f} ms"
        return f"a tap on {self.control} (meaning {self.meaning!r}, {age} old)"


class Watch:
    """The monkey's own reckoning of since when each control shown has meant what it
    means (its ``meaning`` where it says one, else its words; a control that starts to
    show starts to mean something): what the app's settle rule must agree with. It looks
    at the window as each frame is drawn. A control built again where one meaning the
    same lay in the frame before keeps that one's time (a list redrawn), as the issue of
    the rule asks."""

    def __init__(self) -> None:
        self.seen: weakref.WeakKeyDictionary[Widget, tuple[tuple[str, bool], float, int]] = (
            weakref.WeakKeyDictionary()
        )
        self.places: dict[tuple[Any, ...], float] = {}
        self.frame = 0

    def look(self, window: Any, *args: Any) -> None:
        now = Clock.time()
        self.frame += 1
        places, self.places = self.places, {}
        for w, where in controls(window):
            meaning = meaning_of(w)
            x, y = w.to_window(*w.pos)
            place = (where, meaning, round(x), round(y))
            seen = self.seen.get(w)
            if seen is None or seen[2] != self.frame - 1 or seen[0] != meaning:
                since = places.get(place, now)
            else:
                since = seen[1]
            self.seen[w] = (meaning, since, self.frame)
            self.places[place] = since

    def age(self, w: Widget) -> tuple[str, float | None]:
        """What ``w`` meant in the last frame drawn, and for how long (None: it was not
        in that frame)."""
        seen = self.seen.get(w)
        if seen is None or seen[2] != self.frame:
            return meaning_of(w)[0], None
        return seen[0][0], Clock.time() - seen[1]


def frame(*, draw: bool = True) -> None:
    """One frame of Kivy's loop (``EventLoop.idle``): the clock, the input, the layout,
    and (``draw``) the window drawn if anything changed."""
    from kivy.lang import Builder

    Clock.tick()
    EventLoop.dispatch_input()
    Builder.sync()
    Clock.tick_draw()
    Builder.sync()
    window = EventLoop.window
    if draw and window is not None and window.canvas.needs_redraw:
        window.dispatch("on_draw")
        window.dispatch("on_flip")


# ------------------------------------------------------------------ widgets
def ancestors(w: Widget) -> Iterator[Widget]:
    node = w.parent
    while isinstance(node, Widget):
        yield node
        node = node.parent


def shown(w: Widget, within: Widget | None = None) -> bool:
    """Visible: it and every ancestor (up to ``within``) not transparent."""
    node: Any = w
    while isinstance(node, Widget) and node is not within:
        if node.opacity <= 0.01:
            return False
        node = node.parent
    return True


def on_window(w: Widget) -> bool:
    return w.get_root_window() is not None


def box(w: Widget) -> tuple[float, float, float, float]:
    x, y = w.to_window(w.x, w.y)
    return x, y, w.width, w.height


def scroller(w: Widget) -> ScrollView | None:
    return next((a for a in ancestors(w) if isinstance(a, ScrollView)), None)


def in_view(w: Widget) -> bool:
    """Its middle is inside the window and inside the scrolling list that holds it."""
    x, y = w.to_window(*w.center)
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
        return False
    sv = scroller(w)
    return sv is None or covers(sv, x, y)


def covers(w: Widget | None, x: float, y: float) -> bool:
    """The window's point (x, y) lies on ``w``."""
    if w is None:
        return False
    left, bottom, width, height = box(w)
    return left <= x <= left + width and bottom <= y <= bottom + height


def touchable(w: Widget) -> bool:
    return isinstance(w, ButtonBehavior | TextInput)


def words_of(w: Widget) -> str:
    text = getattr(w, "text", "")
    text = text if isinstance(text, str) else ""
    text = " ".join(text.split())
    return text[:40] + ("..." if len(text) > 40 else "")


def name_of(w: Widget) -> str:
    text = words_of(w)
    return f"{type(w).__name__} {text!r}" if text else type(w).__name__


def drawn_texts(w: Widget) -> list[Any]:
    found = getattr(w, "drawn_texts", None)
    return list(found()) if callable(found) else []


def seen(screen: Widget) -> list[tuple[str, str, bool]]:
    """What a screen shows: every text (a Label's, a field's), every button with whether
    it takes a press, and what each drawn widget draws its texts from; sorted."""
    out = []
    for w in walk(screen):
        if not shown(w, screen.parent):
            continue
        pressable = isinstance(w, ButtonBehavior) and not w.disabled
        if isinstance(w, Label | TextInput):
            out.append((type(w).__name__, w.text, pressable))
        elif isinstance(w, ButtonBehavior):
            out.append((type(w).__name__, "", pressable))
        for name in getattr(w, "drawn_from", ()):
            out.append((type(w).__name__, f"{name}={_plain(getattr(w, name))}", False))
    return sorted(out)


def _plain(value: Any) -> str:
    """A property's value as text, its numbers rounded (colours computed two ways)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.3f}"  # 0 and 0.0 alike (a property keeps the type it was first given)
    if isinstance(value, list | tuple):
        return "(" + ", ".join(_plain(v) for v in value) + ")"
    return str(value)


def quiet(root: Widget) -> None:
    """A screen built only to be read: what it waits to do at the next frame (its
    textures, its layout, its drawing) is cancelled."""
    from kivy._clock import ClockEvent

    for w in walk(root):
        for value in vars(w).values():
            if isinstance(value, ClockEvent):
                value.cancel()


# ------------------------------------------------------------------ the table
@dataclass(frozen=True)
class Aim:
    """Where a finger goes, what it meant, and the turn it saw."""

    x: float
    y: float
    what: str
    intent: str = ""  # "end_turn", "undo" or ""
    turn: int | None = None
    widget: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class Table:
    """The game as the checks compare it before and after an event."""

    kind: str  # "clank", "tschak" or "" (no game)
    game: int | None
    phase: str
    turn: tuple[int, str] | None  # (number, active player)
    refill: bool  # a refill is open (End turn was pressed for this turn)
    work: str  # the work in progress as saved
    actions: int  # committed actions in the whole database
    players: tuple[tuple[str, str], ...] = ()  # (name, status) in seat order

    def game_state(self) -> tuple[Any, ...]:
        return (self.kind, self.game, self.phase, self.turn, self.refill, self.work, self.actions)


class Monkey:
    """The monkey and its checks over one seed (see the module). ``weights``: how often
    each event comes (see WEIGHTS); ``editions`` and ``languages``: the games it starts;
    ``setup``: called with the app each time it is built (the tests break it there on
    purpose); ``prepare``: called once with the harness before the first event (a game
    set out); ``tell``: each event and violation as it comes; ``quiet_before``: the
    violations of the steps before it are not told (a replay); ``move_on``: it starts
    games on the new-game screen and gives up long ones."""

    def __init__(
        self,
        seed: int,
        folder: Path,
        *,
        weights: dict[str, float] | None = None,
        editions: tuple[str, ...] = EDITIONS,
        languages: tuple[str, ...] = LANGUAGES,
        setup: Callable[[Any], None] | None = None,
        prepare: Callable[[Any], None] | None = None,
        tell: Callable[[str], None] | None = None,
        quiet_before: int = 0,
        progress: Callable[[int, int], None] | None = None,
        move_on: bool = True,
    ) -> None:
        self.seed = seed
        self.folder = Path(folder)
        self.rng = random.Random(seed)
        self.weights = {**WEIGHTS, **(weights or {})}
        self.editions = editions
        self.languages = languages
        self.setup = setup
        self.prepare = prepare
        self.tell = tell
        self.quiet_before = quiet_before  # violations before this step are not reported
        self.progress = progress  # told (events run, violations) every PROGRESS events
        self.move_on = move_on  # new games started on the new-game screen, long ones ended
        self.db = self.folder / "games.db"
        self.config_path = self.folder / "config.toml"
        self.report = Report(seed)
        self.pin = PIN
        self.aims: list[Aim] = []  # what the last glance saw
        self.asked: dict[int, Aim] = {}  # a question open -> the tap that asked it
        self.game_events = 0  # events since the game on the table started
        self.game_length = self.rng.randint(60, 400)  # events until the table may move on
        self.restart_due = False
        self.errors: list[logging.LogRecord] = []
        self.harness: Any = None
        self._asked_check = False  # the painter's check as it was before the monkey's app
        self.step = 0
        self.kind = ""  # the event under way
        self.target = ""  # the class of the widget it tapped
        self.pair: tuple[tuple[Table, Any], tuple[Table, Any]] | None = None  # a double one
        self.watch = Watch()  # since when each control has meant what it means
        self.tapped: Counter[tuple[str, str]] = Counter()  # (screen, control) -> taps
        self.fingers: list[Finger] = []  # the event's touches, as they came down
        self.pressed = False  # the event pressed a panel button
        self.moved_at = float("-inf")  # the turn or the screen changed at or after this
        self.moved_key: tuple[Any, ...] = ()
        self.carry: Finger | str = SKIP  # whose touch the next records follow
        self.started = 0.0
        self.event_mark = Mark(0, None, None, "")
        self.visited: set[str] = set()  # the screens drawn during the event
        self.stickers: dict[str, list[str]] = {}  # the monkey's stickers, by box
        self.cards: dict[tuple[str, str], str] = {}  # (box, card) -> its sticker
        self._window_due: str | None = None  # an event whose window is checked when drawn
        self._checked: tuple[Any, ...] | None = None  # the last screen found fresh
        self._stale: tuple[int, Any] | None = None  # the last screen found stale, and when

    # ------------------------------------------------------------------ running
    def run(self, events: int) -> Report:
        started = time.perf_counter()
        with self._world():
            self._open()
            if self.prepare is not None:
                self.prepare(self.harness)
                self.frames(3)
            try:
                for self.step in range(events):
                    self._event()
                    self.report.events += 1
                    if self.progress is not None and self.report.events % PROGRESS == 0:
                        self.progress(self.report.events, len(self.report.violations))
                self.frames(1)  # the last event's screen, drawn and checked
            finally:
                self._close()
        self.report.seconds = time.perf_counter() - started
        return self.report

    @contextlib.contextmanager
    def _world(self) -> Iterator[None]:
        """The environment of a run: its own files, clock, seeds and error log."""
        import companion.session
        from companion.config import AppConfig, Config, save_config

        saved_env = {k: os.environ.get(k) for k in ENVIRONMENT}
        os.environ.update(
            CLANK_CONFIG=str(self.config_path),
            CLANK_DB=str(self.db),
            CLANK_WEB_URL_FILE=str(self.folder / "join-url"),
        )
        for name in ("CLANK_CATALOG_DIR", "CLANK_READER"):
            os.environ.pop(name, None)
        self.folder.mkdir(parents=True, exist_ok=True)
        language = self.rng.choice(self.languages)
        config = Config(app=AppConfig(database=str(self.db), language=language))
        save_config(config, self.config_path)
        seeds = random.Random(f"server seeds {self.seed}")
        real_seed = companion.session.new_server_seed
        companion.session.new_server_seed = lambda: seeds.randbytes(32).hex()
        catcher = ErrorCatcher(self.errors)
        root = logging.getLogger()
        root.addHandler(catcher)
        try:
            with VirtualClock():
                yield
        finally:
            root.removeHandler(catcher)
            companion.session.new_server_seed = real_seed
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def _open(self) -> None:
        """The app, built over the database as ``clank-companion app`` starts it (its
        hardware aside: the monkey is the reader and the panel)."""
        from companion.config import load_config
        from companion.pin import Lockout
        from companion.ui.harness import Harness

        EventLoop.ensure_window()  # the oracle sees every frame, the app's first ones too
        EventLoop.window.fbind("on_draw", self.watch.look)
        self.harness = Harness(self.db, load_config(self.config_path))
        # every frame drawn where it changed is compared with the frame drawn whole
        painter = painter_of(self.harness.window)
        assert painter is not None
        self._asked_check = painter.check  # as the environment asked, for what runs next
        painter.check = True
        app = self.harness.app
        # the PIN pad's lock-out on the monkey's clock
        app.pin_lockout = Lockout.beside(self.db, clock=Clock.get_time)
        # Quit (Settings) ends the app: the kiosk's service starts it again
        app.stop = app.quit_companion = self._quit
        if not self._stickers():
            self._enroll()
        if self.setup is not None:
            self.setup(app)
        self.aims = []
        self.asked = {}

    def _close(self) -> None:
        if self.harness is not None:
            for w in list(self.harness.window.children):
                if isinstance(w, ModalView):
                    w.dismiss(animation=False)
            self.harness.window.funbind("on_draw", self.watch.look)
            painter = painter_of(self.harness.window)
            if painter is not None:
                painter.check = self._asked_check
            self.harness.close()
            self.harness = None

    def _restart(self) -> None:
        self._close()
        self._open()

    def _quit(self, *args: Any) -> None:
        self.restart_due = True

    def _enroll(self) -> None:
        """A sticker on every component of every box, badges too."""
        registry = self.app.tags
        n = 0
        with self.harness.store.db.atomic():
            for found in all_components().values():
                for c in found:
                    n += 1
                    registry.bind(f"04A1{n:010X}", c)
        self._stickers()

    @property
    def app(self) -> Any:
        return self.harness.app

    # ------------------------------------------------------------------ one event
    def _event(self) -> None:
        try:
            before = self.table()
            self.event_mark = self.mark()
            kind = self.kind = self._choose()
        except Exception:  # noqa: BLE001 - a fault of the app: told, and the app restarted
            self._violation(TRACEBACK, "reading the table raised", traceback.format_exc(), fault())
            self._restart_after_fault()
            return
        self.target = ""
        self.pair = None
        self.fingers = []
        self.pressed = False
        self.started = Clock.time()
        self.visited = set()
        try:
            note, intent = self._act(kind)
            # the window is checked as it is drawn next: a hasty event leaves the layout of
            # what it changed to the next frame (no one sees the window before it)
            self._window_due = note
            self.frames(self.rng.choice([0, 0, 1, 2]))
        except Missing as e:  # the monkey's own way was not there: no fault of the app
            note, intent = f"{kind}: {e}", None
        except Exception:  # noqa: BLE001 - a fault of the app: told, and the app restarted
            self._violation(TRACEBACK, f"{kind} raised", traceback.format_exc(), fault())
            self._restart_after_fault()
            return
        self.report.played[kind] += 1
        self.report.log.append(note)
        if self.tell is not None and self.step >= self.quiet_before:
            self.tell(f"step {self.step}: {note}")
        try:
            self._remember_questions(intent)
            self._check(note, before, intent)
        except Exception:  # noqa: BLE001
            self._violation(TRACEBACK, f"{note}: checking raised", traceback.format_exc(), fault())
            self._restart_after_fault()
            return
        if self.restart_due:
            self.restart_due = False
            self._restart()

    def _act(self, kind: str) -> tuple[str, Aim | None]:
        """Play one event of ``kind``: what it was, and what its tap or press meant."""
        if kind == "new_game":
            return self._new_game(), None
        if kind == "end_game":
            return self._end_game(), None
        if kind == "tschak_step":
            return self._tschak_step(), None
        if kind == "browse":
            return self._browse(), None
        if kind == "settings":
            return self._settings(), None
        if kind == "restart":
            self._restart()
            return "power cut: the app built again", None
        if kind == "wait":
            seconds = self.rng.choice([0.3, 0.7, 1.0, 2.0, 4.0])
            self.advance(seconds)
            return f"wait {seconds} s", None
        if kind == "scan":
            return self._scan(), None
        if kind == "hurt":
            return self._hurt(), None
        if kind == "type":
            return self._type(), None
        if kind == "point":
            x, y = self.rng.uniform(0, WIDTH - 1), self.rng.uniform(0, HEIGHT - 1)
            self.glance()
            # a spot on End turn or Undo means what a tap aimed at them means
            on = next((a for a in self.aims if a.intent and covers(a.widget, x, y)), None)
            self.touch(x, y)
            return f"tap at ({x:.0f}, {y:.0f})" + (f" on {on.what}" if on else ""), on
        if kind == "hasty":
            if not self.aims:
                self.glance()
            if not self.aims:
                return "hasty: nothing to tap", None
            aim = self.rng.choice(self.aims)
            self.touch(aim.x, aim.y, aim.what)
            return f"hasty tap on {aim.what}", aim
        if kind in ("press", "double_press"):
            # the panel's buttons: Undo is held (0.5 s) before it acts, so only End turn
            # is pressed twice in a moment (beyond its 50 ms of bounce)
            button = "end_turn" if kind == "double_press" else self.rng.choice(PANEL)
            return self._press(button, twice=kind == "double_press")
        aim = self._aim(kind)  # tap, double, undo, end_turn
        if aim is None:
            if kind in ("undo", "end_turn"):  # not on the screen: the panel's button
                return self._press(kind, twice=False)
            return f"{kind}: nothing to tap", None
        if aim.widget is not None and self.settled(aim.widget):  # a person waits for it
            aim = self._aim_at(aim.widget)
        if kind != "double":
            self.touch(aim.x, aim.y, aim.what)
            return f"tap on {aim.what}", aim
        zero = (self.table(), self.ui_state())
        self.touch(aim.x, aim.y, aim.what)
        one = (self.table(), self.ui_state())
        # a quick double tap, or a "did it take?" tap up to a second and a half later
        gap = self.rng.uniform(0.03, 1.5)
        self.advance(gap)
        self.touch(aim.x, aim.y, aim.what)
        self.pair = (zero, one)
        second = self.fingers[-1]
        self.report.retaps.append((gap, second.settled, second.held))
        return f"double tap on {aim.what}, {gap * 1000:.0f} ms apart", aim

    def settled(self, w: Widget) -> bool:
        """The clock moved on until ``w`` takes taps (it appeared or changed a moment ago:
        the settle rule), as a person waits for it; whether it had to be waited for."""
        left = RULE.left(w)
        if left is None:  # not drawn as it is yet
            self.frames(1)
            left = RULE.left(w)
        if not left:
            return False
        self.advance(left + 1 / FPS)
        return True

    def _restart_after_fault(self) -> None:
        try:
            self._restart()
        except Exception:  # noqa: BLE001
            text = traceback.format_exc()
            self._violation(TRACEBACK, "the app could not be built again", text, fault())
            raise

    def _choose(self) -> str:
        screen = self.app.screens.current
        popup = self.popups()
        table = self.table()
        if table.game is not None and table.kind:
            self.game_events += 1
        if self.move_on and screen == "newgame" and not popup:
            roll = self.rng.random()
            if roll < 0.35:
                return "new_game"
            if roll < 0.42:
                return "browse"
        long = self.game_events > self.game_length
        if self.move_on and long and table.kind and self.rng.random() < 0.2:
            return "end_game"
        tschak = table.kind == "tschak" or self.own() is not None  # its set-up too
        if self.move_on and tschak and self.rng.random() < TSCHAK_STEP:
            return "tschak_step"
        kinds = list(self.weights)
        return self.rng.choices(kinds, [self.weights[k] for k in kinds])[0]

    # ------------------------------------------------------------------ the finger
    def frames(self, n: int) -> None:
        """``n`` frames; the window drawn in the last one (the clock, the layout and the
        textures run in each: drawing every frame only costs time)."""
        for i in range(n):
            frame(draw=i == n - 1)
        if n:
            self._drawn()

    def _drawn(self) -> None:
        """The window was drawn: what it shows is checked if an event changed it."""
        self.visited.add(self._screen_name())
        if self._window_due is not None:
            note, self._window_due = self._window_due, None
            self._check_window(self.step, note)

    def advance(self, seconds: float) -> None:
        """The clock moves on ``seconds`` (a pause: fewer frames, the same time)."""
        end = Clock.get_time() + seconds
        fps = Clock._max_fps
        Clock._max_fps = WAIT_FPS if seconds > 0.3 else FPS
        try:
            first = True  # what the pause begins on is drawn: the person sees it then
            while Clock.get_time() < end - 1e-6:
                frame(draw=first or Clock.get_time() + 1 / Clock._max_fps >= end - 1e-6)
                first = False
        finally:
            Clock._max_fps = fps
        self._drawn()

    def touch(self, x: float, y: float, what: str = "") -> None:
        """A finger down and up at (x, y), noted as it came down (``Finger``): the control
        the touch came to (a button in a scrolling list gets it as the finger lifts),
        what the control meant, and since when."""
        self.target = what.split(" ")[0] if what else "a spot"
        finger = Touch(x, y)
        asked: list[Widget] = []  # the controls the touch reached, in order
        held: list[Widget] = []
        real = RULE.holds

        def holds(control: Widget, touch: Any) -> bool:
            took = real(control, touch)
            if touch is finger and control.collide_point(*touch.pos) and not control.disabled:
                asked.append(control)
                if took:
                    held.append(control)
            return took

        before = self.mark()
        at = Clock.time()
        ages = {}  # each control's meaning and age as the finger came down
        RULE.holds = holds  # type: ignore[method-assign]
        try:
            finger.touch_down()
            ages = {id(w): self.watch.age(w) for w in asked}
            finger.touch_up()
        finally:
            del RULE.holds
        ages.update({id(w): self.watch.age(w) for w in asked if id(w) not in ages})
        took = held[:1] or [w for w in asked if getattr(w, "last_touch", None) is finger][-1:]
        if took:
            meaning, age = ages[id(took[0])]
            self.fingers.append(Finger(at, name_of(took[0]), meaning, age, bool(held), before))
        else:
            self.fingers.append(Finger(at, "", "", None, False, before))

    def own(self) -> tuple[Any, Any] | None:
        """The Tschak! table the app is with (its game, its set-up, or one of its screens
        shown), its face and controller; None: the Clank! table's."""
        from companion.kinds import DEFAULT, kind_of

        face, ctl = self.app.on_table()
        return None if face is kind_of(DEFAULT).table_face() else (face, ctl)

    def mark(self) -> Mark:
        own = self.own()
        ctl = own[1] if own is not None else self.app.controller
        record = self.harness.store.read.execute("SELECT max(rowid) FROM log").fetchone()[0]
        turn = turn_of(ctl.snapshot()) if own is None and ctl.table is not None else None
        return Mark(int(record or 0), ctl.game_id, turn, str(ctl.phase))

    def glance(self) -> None:
        """A player looks before tapping: a few frames, and what can be tapped then."""
        self.frames(self.rng.randint(1, 4))
        self.aims = self.targets()

    def targets(self) -> list[Aim]:
        """Every visible, enabled touchable widget of the pop-up on top, else of the screen
        (and sometimes the screen under a pop-up)."""
        layers = [w for w in self.harness.window.children if on_window(w)]  # the top first
        top = layers[:1]
        if len(layers) > 1 and self.rng.random() < 0.15:
            top = layers[1:]
        found = []
        for layer in top:
            for w in walk(layer):
                if not touchable(w) or w.disabled or w.width < 1 or w.height < 1:
                    continue
                if not shown(w) or (not in_view(w) and scroller(w) is None):
                    continue
                found.append(w)
        return [self._aim_at(w) for w in found]

    def _aim_at(self, w: Widget) -> Aim:
        x, y = w.to_window(*w.center)
        intent, turn = self._intent(w)
        return Aim(x, y, name_of(w), intent, turn, w)

    def _aim(self, kind: str) -> Aim | None:
        self.glance()
        if not self.aims:
            return None
        wanted = [a for a in self.aims if a.intent == kind] if kind in ("undo", "end_turn") else []
        if kind in ("undo", "end_turn") and not wanted:
            return None
        if wanted:
            aim = self.rng.choice(wanted)
        else:  # what this screen's finger has tapped least comes first (the way on to a
            # screen seldom seen: the charts of all games behind the past games)
            screen = self.app.screens.current
            weights = [1 / (1 + self.tapped[(screen, a.what)]) for a in self.aims]
            aim = self.rng.choices(self.aims, weights)[0]
            self.tapped[(screen, aim.what)] += 1
        # a target of a scrolling list outside its view: the finger scrolls to it first
        widget = aim.widget
        sv = scroller(widget) if widget is not None else None
        if sv is not None and not in_view(widget):
            sv.scroll_to(widget, padding=10, animate=False)
            self.frames(3)
            aim = self._aim_at(widget)
        return aim

    def _intent(self, w: Widget) -> tuple[str, int | None]:
        """What a tap on ``w`` means to the table: End turn (of the turn on screen), Undo,
        or the answer to a question asked by one of them."""
        from companion.i18n import _

        turn = self._turn_number()
        for a in ancestors(w):
            asked = self.asked.get(id(a))
            if asked is not None:
                return asked.intent, asked.turn
        screen = self.app.screens.current_screen
        if screen.name != "table" or screen not in ancestors(w):
            return "", turn
        text = getattr(w, "text", "")
        if text and text == getattr(screen, "end_turn_text", None):
            return "end_turn", turn
        if text == _("Undo"):
            return "undo", turn
        return "", turn

    def _remember_questions(self, intent: Aim | None) -> None:
        """A question (Confirm) that an event opened answers for that event's tap."""
        from companion.ui.screens.popups import Confirm

        open_now = {id(w): w for w in self.harness.window.children if isinstance(w, Confirm)}
        self.asked = {k: v for k, v in self.asked.items() if k in open_now}
        for key in open_now:
            if key not in self.asked:
                self.asked[key] = intent or Aim(0, 0, "")

    def _press(self, button: str, *, twice: bool) -> tuple[str, Aim]:
        """A panel button (pressed twice: ``twice``), handed over to the main loop as the
        panel hands its presses over."""
        app = self.app

        def work() -> None:  # as the panel's thread hands a press over (_start_hardware)
            app.press(button)

        intent = Aim(0, 0, f"panel {button}", button, self._turn_number())
        self.target = f"panel {button}"
        self.pressed = True
        zero = (self.table(), self.ui_state())
        mark, at = self.mark(), Clock.time()
        Clock.schedule_once(lambda dt: work())
        self.frames(1)
        moved = self._moves(mark, self.mark())
        if moved and at - self.moved_at < SETTLE:  # the change came after moved_at
            self._violation(
                UNSETTLED,
                f"panel {button}: {moved}, pressed {(at - self.moved_at) * 1000:.0f} ms "
                "or less after the turn or the screen changed",
                sign=f"panel {button}: a press within a second of a change acted",
            )
        if not twice:
            return f"panel {button}", intent
        one = (self.table(), self.ui_state())
        gap = self.rng.uniform(0.06, 0.3)
        self.advance(gap)
        Clock.schedule_once(lambda dt: work())
        self.frames(1)
        self.pair = (zero, one)
        return f"panel {button} pressed twice, {gap * 1000:.0f} ms apart", intent

    # ------------------------------------------------------------------ scans
    def _scan(self) -> str:
        """A component laid on the reader (handed over to the main loop as the reader
        worker does): mostly of the box on the table, now and then another box's, or a tag
        nobody bound."""
        table = self.table()
        edition = self._edition()
        stickers = self.stickers or self._stickers()
        roll = self.rng.random()
        if roll < 0.04:
            uid = f"04EE{self.rng.randrange(16**10):010X}"
            what = "an unknown tag"
        else:
            box = edition if roll < 0.95 else self.rng.choice(list(stickers))
            if not table.kind and self.rng.random() < 0.5:
                box = "badge"  # a player's badge seats them on the new-game screen
            uid = self.rng.choice(stickers[box])
            component = self.app.tags.lookup(uid)
            row = self._row()
            if table.kind == "clank" and row and box == edition and self.rng.random() < 0.3:
                uid = self._uid_of(row, box) or uid  # a card of the row, taken
                component = self.app.tags.lookup(uid)
            what = str(component)
        Clock.schedule_once(lambda dt: self.app.on_scan(uid))
        self.frames(1)
        return f"scan {what}"

    def _stickers(self) -> dict[str, list[str]]:
        """The monkey's stickers, by box (after a restart: read back from the registry)."""
        out: dict[str, list[str]] = {}
        self.cards = {}
        for b in self.app.tags.bindings():
            if b.uid.startswith("04A1"):
                box = b.component.edition or "badge"
                out.setdefault(box, []).append(b.uid)
                if b.component.kind == "card":
                    self.cards.setdefault((box, b.component.name), b.uid)
        self.stickers = out
        return out

    def _uid_of(self, names: list[str], box: str) -> str | None:
        """The sticker of one of these cards."""
        return self.cards.get((box, self.rng.choice(names)))

    def _row(self) -> list[str]:
        snap = self.app.controller.snapshot()
        return list(snap["row"]) if snap and not self.own() else []

    def _edition(self) -> str:
        own = self.own()
        if own is not None:
            return "tschak"
        ctl = self.app.controller
        if ctl.phase in ("none", "abandoned"):
            screen = (
                self.app.screens.get_screen("newgame")
                if self.app.screens.has_screen("newgame")
                else None
            )
            return getattr(screen, "edition", "clank") if screen is not None else "clank"
        return str(ctl.edition)

    # ------------------------------------------------------------------ macros
    def _new_game(self) -> str:
        """A new game through the new-game screen: its language, its box, its players
        tapped in seat order, Start game (Tschak!: then Start the game, with its set-up as
        it stands)."""
        from companion.i18n import _, current_language, pgettext
        from companion.ui.screens.kit import LANGUAGE_NAMES

        language = self.rng.choice(self.languages)
        edition = self.rng.choice(self.editions)
        most = 4 if edition == "tschak" else 6
        players = self.rng.sample(SEATS, self.rng.randint(2, most))
        screen = self.app.screens.get_screen("newgame")
        if language != current_language():
            self.tap_text(screen.language_text)
            self.tap_text(LANGUAGE_NAMES[language])
            screen = self.app.screens.get_screen("newgame")
        names = {"clank": "Clank!", "catacombs": "Clank! Catacombs", "tschak": "Tschak!"}
        self.tap_text(pgettext("edition", names[edition]))
        if screen.seats:
            self.tap_text(_("Clear seats"))
        for colour in players:
            button = next(b for b in screen.ids.colours.children if b.colour_name == colour)
            self.tap(button)
        self.tap_text(_("Start game"))
        on_setup = self.app.screens.current == "tschak_setup"
        if edition == "tschak" and on_setup and self.rng.random() < 0.7:
            self.tap_text(_("Start the game"))  # else its settings are played first
        self.report.games[f"{edition} {len(players)} {language}"] += 1
        self.game_events = 0
        self.game_length = self.rng.randint(60, 400)
        return f"new game: {edition}, {', '.join(players)}, {language}"

    def _end_game(self) -> str:
        """The table moves on: a Clank! game played to its end (the dungeon knocks everyone
        out: the scoring follows) or given up (Settings: Abandon, confirmed); a scored one
        closed; a Tschak! set-up left."""
        own = self.own()
        ctl = own[1] if own is not None else self.app.controller
        game = ctl.game_id
        self.close_popups()
        if ctl.table is None:
            if getattr(ctl, "pending", None) is not None:
                ctl.cancel_setup()
            what = "the set-up left"
        elif ctl.phase in ("scoring", "over"):
            ctl.close_game()
            what = "closed"
        elif own is not None and self.rng.random() < 0.6:
            what = self._tschak_to_the_end(ctl)
            self.app.show_screen(self.app.home_screen())
            self.game_events = 0  # its end is played a while on screen
            return f"the table moves on: game {game} {what}"
        elif own is None and ctl.phase == "playing" and self.rng.random() < 0.5:
            snap = ctl.snapshot()
            for name, p in snap["players"].items():
                if p["status"] == "playing":
                    ctl.do({"do": "damage", "player": name, "n": 20})
            what = "played to its end: everyone knocked out"
        else:
            abandoned = ctl.abandon()
            if abandoned and own is None:
                ctl.close_game()  # as Settings' Abandon does for Clank!
            what = "given up"
        self.app.show_screen(self.app.home_screen())
        self.game_events = 0
        return f"the table moves on: game {game} {what}"

    def _browse(self) -> str:
        """Between games the table looks back: the past games, and now and then the
        charts of all games."""
        from companion.i18n import _

        self.tap_text(_("Past games"))
        if self.rng.random() < 0.5:
            self.tap_text(_("All games: fair draw, wins"))
            return "browse: the charts of all games"
        return "browse: the past games"

    def _tschak_step(self) -> str:
        """The Tschak! table does what the step on screen asks (a tower's six cards, each
        team, the last cards) as its reader would lay them, and then, mostly, taps the
        step's button once it takes taps: the game reaches its verdicts and its end."""
        from companion.i18n import _

        own = self.own()
        if own is None:
            return "tschak step: no Tschak! game"
        self.close_popups()  # a person puts a question or a picker away first
        ctl = own[1]
        phase = ctl.phase
        laid = 0
        if phase == "tower":
            laid = self._tschak_tower(ctl)
        elif phase in ("floor", "trophies"):
            for player in ctl.game.players:
                laid += self._tschak_team(ctl, player, phase)
        elif phase not in ("setup", "verdict", "trophy_verdict"):
            return f"tschak step: nothing to lay ({phase})"
        self.frames(2)
        screen = self.app.screens.current_screen
        button = {
            "setup": _("Start the game"),
            "tower": getattr(screen, "set_out_text", ""),
            "floor": getattr(screen, "resolve_text", ""),
            "trophies": getattr(screen, "resolve_text", ""),
        }.get(phase) or getattr(screen, "continue_text", "")
        tapped = ""
        if button and self.rng.random() < 0.7:
            with contextlib.suppress(Missing):
                self.tap_text(button)
                tapped = f", then {button!r}"
        return f"tschak step: {laid} cards laid ({phase}){tapped}"

    def _tschak_to_the_end(self, ctl: Any) -> str:
        """The Tschak! game played on to its end as the table lays it (the steps laid as
        ``_tschak_step`` lays them, each committed, each verdict read)."""
        for _ in range(80):  # four towers of five steps, with room for a refusal
            phase = ctl.phase
            if phase == "over":
                return "played to its end"
            if phase in ("verdict", "trophy_verdict"):
                ctl.go_on()
            elif phase == "tower":
                self._tschak_tower(ctl)
                ctl.set_out_tower()
            elif phase in ("floor", "trophies"):
                for player in ctl.game.players:
                    self._tschak_team(ctl, player, phase)
                if phase == "floor":
                    ctl.resolve_floor()
                else:
                    ctl.resolve_trophies()
                while ctl.question is not None:  # a tie the rules leave open: seat order
                    left = [p for p in ctl.question["tied"] if p not in ctl.question["order"]]
                    if not left or not ctl.answer_tie(left[0]):
                        break
        return f"played on, stopped at {ctl.phase}"

    def _tschak_tower(self, ctl: Any) -> int:
        """Each empty slot of the tower filled with a card the box still has; how many."""
        laid = 0
        for which in ("monsters", "treasures"):
            for floor in (1, 2, 3):
                choices = ctl.tower_choices(which)
                if ctl.slots[which][floor - 1] is None and choices:
                    laid += bool(ctl.set_slot(which, floor, self.rng.choice(choices)))
        return laid

    def _tschak_team(self, ctl: Any, player: str, phase: str) -> int:
        """A player's team (or last card) laid, card by card, from what their hand may
        still hold; how many cards."""
        from companion.kinds.tschak.rules import TschakError

        laid = 0
        if phase == "trophies":  # the card the hand has left: what makes it whole
            if player in ctl.last_cards or ctl.known_last(player) is not None:
                return 0
            choices = ctl.hand_choices(player)
            self.rng.shuffle(choices)
            for card in choices:
                with contextlib.suppress(TschakError):
                    ctl.game._check_hands({player: [ctl.hero(card)]}, complete=True)
                    return int(ctl.add_card(card, player))
            return 0
        for _ in range(ctl.team_slots()):
            team = ctl.teams.get(player, [])
            if ctl.team_complete(team):
                break
            colours = {ctl.hero(c).colour for c in team}
            choices = [c for c in ctl.hand_choices(player) if ctl.hero(c).colour not in colours]
            if not choices or not ctl.add_card(self.rng.choice(choices), player):
                break
            laid += 1
        return laid

    def _hurt(self) -> str:
        """A monster hits a player of the Clank! game on the table (as a table script's
        ``damage`` line): the games reach their end, the knock-outs and the scores."""
        ctl = self.app.controller
        snap = ctl.snapshot() if self.own() is None and ctl.phase == "playing" else None
        if not snap:
            return "nobody to hurt"
        inside = [name for name, p in snap["players"].items() if p["status"] == "playing"]
        if not inside:
            return "nobody to hurt"
        player, n = self.rng.choice(inside), self.rng.randint(2, 5)
        ctl.do({"do": "damage", "player": player, "n": n})
        return f"a monster hits {player}: {n} damage"

    def _settings(self) -> str:
        """Settings, behind the admin PIN: the pad opened as its buttons open it, the PIN
        typed."""
        from companion.i18n import _

        self.close_popups()
        self.app.ask_pin()
        self.frames(2)
        for digit in self.pin:
            self.tap_text(digit)
        self.tap_text(_("OK"))
        return "Settings, the admin PIN typed"

    def _type(self) -> str:
        fields = [w for w in walk(self.harness.window) if isinstance(w, TextInput) and on_window(w)]
        fields = [w for w in fields if shown(w) and not w.disabled]
        if not fields:
            return "nothing to type in"
        field_ = self.rng.choice(fields)
        words = self.rng.choice(WORDS)
        field_.text = words
        return f"typed {words!r}"

    def close_popups(self) -> None:
        for w in list(self.harness.window.children):
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        self.frames(2)

    def tap(self, w: Widget) -> None:
        self.frames(3)
        sv = scroller(w)
        if sv is not None and not in_view(w):
            sv.scroll_to(w, padding=10, animate=False)
            self.frames(3)
        self.settled(w)  # a target that just appeared or changed takes taps a moment later
        x, y = w.to_window(*w.center)
        self.touch(x, y)
        self.advance(0.45)  # the next tap is another tap, not the second of a double one

    def tap_text(self, text: str) -> None:
        for layer in list(self.harness.window.children):
            for w in walk(layer):
                if (
                    touchable(w)
                    and getattr(w, "text", None) == text
                    and shown(w)
                    and not w.disabled
                ):
                    self.tap(w)
                    return
        raise Missing(f"no button {text!r} on the screen")

    # ------------------------------------------------------------------ the state
    def table(self) -> Table:
        app = self.app
        own = self.own()
        ctl = own[1] if own is not None else app.controller
        kind = "tschak" if own is not None else "clank"
        actions = self.actions()
        game = ctl.game_id
        if ctl.table is None:
            return Table("", None, str(ctl.phase), None, False, "", actions)
        snap = ctl.snapshot() or {}
        number = turn_of(snap)
        players = snap.get("players") if kind == "clank" else None
        statuses = tuple((n, p["status"]) for n, p in players.items()) if players else ()
        work = json.dumps(self.harness.store.in_progress(game), sort_keys=True) if game else ""
        refill = kind == "clank" and snap.get("refill") is not None
        return Table(kind, game, str(ctl.phase), number, refill, work, actions, statuses)

    def actions(self) -> int:
        """The actions committed, the client seed's not counted: Start the first turn
        commits the seed and the opening row, one tap's one move."""
        row = self.harness.store.read.execute(
            "SELECT count(*) FROM log WHERE kind = 'action' AND "
            "coalesce(json_extract(CAST(body AS TEXT), '$.action.do'), '') != 'seed'"
        ).fetchone()
        return int(row[0])

    def _turn_number(self) -> int | None:
        snap = self.app.controller.snapshot() if not self.own() else None
        return snap["turn"]["number"] if snap else None

    def popups(self) -> list[ModalView]:
        return [w for w in self.harness.window.children if isinstance(w, ModalView)]

    def ui_state(self) -> tuple[Any, ...]:
        return (
            self.app.screens.current,
            tuple(type(p).__name__ + str(id(p)) for p in self.popups()),
        )

    # ------------------------------------------------------------------ the checks
    def _violation(
        self,
        kind: str,
        what: str,
        detail: str = "",
        sign: str = "",
        step: int | None = None,
        again: bool = False,
    ) -> None:
        step = self.step if step is None else step
        if step < self.quiet_before:
            return
        found = Violation(self.seed, step, kind, what, detail, f"{kind}: {sign}", again)
        self.report.violations.append(found)
        if self.tell is not None and not again:
            self.tell(str(found))

    def _check(self, note: str, before: Table, intent: Aim | None) -> None:
        after = self.table()
        self._cover()
        own = self.pair is not None and bool(self.fingers) and self.fingers[-1].settled
        if not own:
            # (a second tap that came after its control had settled is a tap of its own,
            # which may act as the control now says: End turn of the next player too)
            self._check_turn(note, before, after, intent)
        if self.pair is not None:
            self._check_double(note, self.pair, after, own=own)
        self._check_fingers(note)
        self._check_moved()
        self._check_errors(note)
        self._check_fresh(note)

    def _cover(self) -> None:
        """The screens the event saw drawn (a macro passes through some) and the pop-ups
        it left open, counted."""
        self.visited.add(self._screen_name())
        for screen in self.visited:
            self.report.screens[screen] += 1
        for popup in self.popups():
            self.report.popups[type(popup).__name__] += 1

    def _screen_name(self) -> str:
        """The screen shown; a Tschak! verdict by what it is the verdict of."""
        screen = str(self.app.screens.current)
        own = self.own()
        if screen == "tschak_verdict" and own is not None:
            screen += f" ({own[1].phase})"
        return screen

    def _check_fingers(self, note: str) -> None:
        """Each touch's own records: what the log gained, and how the turn or the phase
        moved, from the moment it came down to the next one's (or the event's end), was
        asked for by a control that had settled. What comes in a touch event before its
        first touch belongs to the last touch of the event before (its effect may wait a
        frame), and so does what a pause gains; what follows a scan, a press or a macro
        is theirs (SKIP)."""
        carry, self.carry = self.carry, SKIP
        if self.kind not in TOUCHES or self.pressed:
            return  # the reader, a monster, the panel or a macro may move the game
        now = self.mark()
        marks = [f.before for f in self.fingers] + [now]
        owners: list[Finger | str] = [carry, *self.fingers]
        for finger, a, b in zip(owners, [self.event_mark, *marks[:-1]], marks, strict=True):
            if not isinstance(finger, Finger):
                continue  # SKIP
            if finger.settled:
                self._check_meant(note, finger, a, b)
                continue
            moved = self._moves(a, b)
            if moved:
                self._violation(
                    UNSETTLED,
                    f"{note}: {moved}, after {finger.said()}",
                    sign=f"{self.kind}: the game moved after a tap on a control not settled",
                )
        self.carry = self.fingers[-1] if self.fingers else carry

    def _check_meant(self, note: str, finger: Finger, a: Mark, b: Mark) -> None:
        """A settled Undo (its meaning: "undo" and the move it takes back) records
        nothing but an undo: not another player's move, not a second action."""
        if not finger.meaning.startswith("undo ") or a.game != b.game:
            return
        done = [do for do in self._records(a, b) if do]
        if any(not do.startswith("'undo") for do in done) or len(done) > 1:
            self._violation(
                UNSETTLED,
                f"{note}: {finger.said()} recorded {', '.join(done)}",
                sign=f"{self.kind}: an Undo recorded something else",
            )

    def _records(self, a: Mark, b: Mark) -> list[str]:
        """The records the log gained from ``a`` to ``b``, each in a few words."""
        if b.record == a.record:
            return []
        rows = self.harness.store.read.execute(
            "SELECT kind, CAST(body AS TEXT) FROM log WHERE rowid > ? AND rowid <= ? "
            "ORDER BY rowid",
            (a.record, b.record),
        ).fetchall()
        return [told for told in (told_record(kind, body) for kind, body in rows) if told]

    def _moves(self, a: Mark, b: Mark) -> str:
        """What changed of the game from ``a`` to ``b``, in words ("" for nothing)."""
        if a.game != b.game:
            return ""  # another game on the table (a macro's; a new game is its own check)
        parts = []
        told = self._records(a, b)
        if told:
            parts.append("recorded " + ", ".join(told))
        if b.turn != a.turn:
            parts.append(f"the turn moved ({a.turn} -> {b.turn})")
        if b.phase != a.phase:
            parts.append(f"the phase moved ({a.phase} -> {b.phase})")
        return "; ".join(parts)

    def _check_moved(self) -> None:
        """Note when the turn or the screen last changed (at the latest, as the event
        that changed it began): the panel's buttons wait a second after it."""
        key = (self.app.screens.current, self.mark().turn)
        if key != self.moved_key:
            self.moved_key, self.moved_at = key, self.started

    def _check_turn(self, note: str, before: Table, after: Table, intent: Aim | None) -> None:
        if before.kind != "clank" or after.kind != "clank" or before.game != after.game:
            return
        if before.turn is None or after.turn is None or before.turn == after.turn:
            return
        (n0, p0), (n1, p1) = before.turn, after.turn
        step = n1 - n0
        meant = intent.intent if intent is not None else ""
        if step == 1:
            ended_own = meant == "end_turn" and intent is not None and intent.turn == n0
            stale = meant == "end_turn" and intent is not None and intent.turn != n0
            if stale:
                self._violation(
                    TURN,
                    f"{note}: End turn aimed at turn {intent.turn if intent else '?'} "
                    f"ended turn {n0} ({p0}) instead",
                    sign=f"{self.kind}: a stale End turn ended the next turn",
                )
            elif not ended_own and not before.refill:
                self._violation(
                    TURN,
                    f"{note}: turn {n0} ({p0}) ended without End turn",
                    sign=f"{self.kind} on {self.target}: a turn ended without End turn",
                )
            expected = next_player(after.players, p0)
            if expected is not None and p1 != expected:
                self._violation(
                    TURN,
                    f"{note}: after {p0}'s turn {p1} plays, not {expected}",
                    sign=f"{self.kind}: a player skipped",
                )
        elif step == -1:
            if meant != "undo":
                self._violation(
                    TURN,
                    f"{note}: turn {n0} ({p0}) went back to {p1} without Undo",
                    sign=f"{self.kind} on {self.target}: a turn taken back without Undo",
                )
        else:
            self._violation(
                TURN,
                f"{note}: the turn moved by {step} ({n0} {p0} -> {n1} {p1})",
                sign=f"{self.kind}: the turn moved by {step}",
            )

    def _check_double(
        self,
        note: str,
        pair: tuple[tuple[Table, Any], tuple[Table, Any]],
        after: Table,
        *,
        own: bool = False,
    ) -> None:
        """A double tap (or press) is one: at most one action committed, and once the
        first changed the table or the screen, the second changes nothing of the game.
        ``own``: the second came after what it touched had settled, a tap of its own;
        the first alone commits one action at most."""
        (before, ui_before), (first, ui_first) = pair
        what = DOUBLE if self.kind == "double" else DOUBLE_PRESS
        committed = (first if own else after).actions - before.actions
        if committed > 1:
            self._violation(
                what,
                f"{note}: {committed} actions committed" + (" by one tap" if own else ""),
                sign=f"{self.target}: more than one action committed",
            )
            return
        if own:
            return
        changed = first.game_state() != before.game_state() or ui_first != ui_before
        if changed and after.game_state() != first.game_state():
            self._violation(
                what,
                f"{note}: the second one acted too ({describe(first, after)})",
                sign=f"{self.target}: the second one acted too",
            )

    def _check_errors(self, note: str) -> None:
        errors, self.errors[:] = list(self.errors), []
        for record in errors:
            detail = ""
            if record.exc_info:
                detail = "".join(traceback.format_exception(*record.exc_info))
            self._violation(
                TRACEBACK,
                f"{note}: logged {record.getMessage()[:300]}",
                detail,
                sign=f"logged by {record.name} at {record.module}.{record.funcName}",
            )

    def _check_fresh(self, note: str) -> None:
        """The screen shows what the same screen built afresh shows (the same state)."""
        screen = self.app.screens.current_screen
        live = seen(screen)
        key = (screen.name, live, self._state_key())
        if key == self._checked:
            return
        try:
            fresh = fresh_screen(self.app, screen)
        except Exception:  # noqa: BLE001
            self._violation(
                STALE,
                f"{note}: {screen.name} cannot be built afresh",
                traceback.format_exc(),
                sign=f"{screen.name} cannot be built afresh: {fault()}",
            )
            return
        try:
            made = seen(fresh)
        finally:
            with contextlib.suppress(Exception):
                fresh.dispatch("on_leave")
            quiet(fresh)
        if made != live:
            # the live screen as its next frame draws it: a layout due runs before the
            # drawing (what a button reads may follow its width; no one sees it before)
            lay_out(screen, screen.size)
            live = seen(screen)
        if made == live:
            self._checked = key
            return
        only_live = [t for t in live if t not in made]
        only_fresh = [t for t in made if t not in live]
        classes = sorted({kind for kind, _text, _pressable in only_live + only_fresh})
        seen_now = (screen.name, only_live, only_fresh)
        again, self._stale = self._stale == (self.step - 1, seen_now), (self.step, seen_now)
        self._violation(
            STALE,
            f"{note}: {screen.name} shows {shorten(only_live)}; built afresh it shows "
            f"{shorten(only_fresh)}",
            sign=f"{screen.name}: {', '.join(classes)}",
            again=again,
        )

    def _state_key(self) -> tuple[Any, ...]:
        own = self.own()
        ctl = own[1] if own is not None else self.app.controller
        try:
            view = ctl.view()
        except Exception:  # noqa: BLE001 - told by the fresh screen's own build
            view = None
        return (view, self.table())

    def _check_window(self, step: int, note: str) -> None:
        """Nothing visible sticks out of the window (as drawn, during ``step``, after the
        event ``note``)."""
        out = []
        for layer in self.harness.window.children:
            for w in walk(layer):
                if not shown(w) or w.width < 1 or w.height < 1:
                    continue
                if scroller(w) is not None:
                    continue  # clipped by its list
                if isinstance(w, ModalView):
                    continue  # the pop-up's veil covers the window
                x, y, width, height = box(w)
                if x < -1 or y < -1 or x + width > WIDTH + 1 or y + height > HEIGHT + 1:
                    out.append(f"{name_of(w)} at ({x:.0f}, {y:.0f}) {width:.0f}x{height:.0f}")
                for t in drawn_texts(w):
                    if (
                        t.x < -1
                        or t.y < -1
                        or t.x + t.width > WIDTH + 1
                        or t.y + t.height > HEIGHT + 1
                    ):
                        out.append(f"{type(w).__name__} text {t.text!r} at ({t.x:.0f}, {t.y:.0f})")
        if out:
            classes = sorted({o.split()[0] for o in out})
            self._violation(
                OFF_SCREEN,
                f"{note}: " + "; ".join(out[:4]),
                sign=f"{self.app.screens.current}: {', '.join(classes)}",
                step=step,
            )


# ------------------------------------------------------------------ helpers
ENVIRONMENT = (
    "CLANK_CONFIG",
    "CLANK_DB",
    "CLANK_WEB_URL_FILE",
    "CLANK_CATALOG_DIR",
    "CLANK_READER",
)


class Missing(LookupError):
    """A button a macro looks for is not on the screen (the screen went elsewhere)."""


class ErrorCatcher(logging.Handler):
    """Errors logged while the monkey runs (Kivy's too; not its search for a clipboard,
    which this machine may lack)."""

    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith(("Cutbuffer:", "Clipboard:")):
            return
        self.into.append(record)


def all_components() -> dict[str, list[Any]]:
    """Every component of every box (one of each), and the players' badges."""
    from companion.kinds.clank.screens.choices import catalog_components, distinct
    from companion.store.tags import components, resolve

    out: dict[str, list[Any]] = {}
    for edition in ("clank", "catacombs"):
        out[edition] = catalog_components(
            edition, cards=("starter", "reserve", "dungeon", "promo"), tokens=True
        )
    out["tschak"] = distinct(components("tschak", ("card",), ()))
    out["badge"] = [resolve("badge", None, c) for c in SEATS]
    return out


def turn_of(snap: dict[str, Any] | None) -> tuple[int, str] | None:
    """A game's turn in its snapshot: its number and who plays it (None: no turns)."""
    turn = (snap or {}).get("turn")
    return (turn["number"], turn["active"]) if isinstance(turn, dict) else None


def every_screen() -> list[str]:
    """Every screen of the app and of each game kind's face, a Tschak! verdict by what it
    is the verdict of (a floor's or the trophies')."""
    from companion.kinds import editions
    from companion.ui.app import SCREENS, face_of

    names = list(SCREENS)
    for edition in editions():
        face = face_of(edition)
        if face is None:
            continue
        verdicts = sorted(p for p, screen in face.phase_screens.items() if "verdict" in screen)
        for name in face.screens:
            if name in names or any(n.startswith(name + " (") for n in names):
                continue
            if verdicts and name.endswith("_verdict"):
                names.extend(f"{name} ({p})" for p in verdicts)
            else:
                names.append(name)
    return names


def told_record(kind: str, body: str) -> str:
    """A record of the log in a few words ("" for one no tap asks for: the client seed)."""
    try:
        data = json.loads(body)
    except ValueError:
        return kind
    action = data.get("action") if isinstance(data, dict) else None
    if kind != "action" or not isinstance(action, dict):
        return kind
    if action.get("do") == "seed":
        return ""
    words = [str(action.get("do", "?"))]
    for key in ("player", "n", "card", "value"):
        if key in action:
            words.append(f"{key}={action[key]}")
    return "'" + " ".join(words) + "'"


def next_player(players: tuple[tuple[str, str], ...], active: str) -> str | None:
    """The seat after ``active`` still playing (statuses after the turn ended)."""
    names = [n for n, _ in players]
    if active not in names:
        return None
    i = names.index(active)
    for k in range(1, len(names) + 1):
        name, status = players[(i + k) % len(names)]
        if status == "playing":
            return name
    return None


def fault() -> str:
    """The exception being handled, and where it was raised (its innermost frame)."""
    kind, error, tb = sys.exc_info()
    if kind is None or tb is None:
        return ""
    frames = traceback.extract_tb(tb)
    last = frames[-1]
    return f"{kind.__name__} at {Path(last.filename).name}:{last.name}"


def describe(first: Table, after: Table) -> str:
    parts = []
    if after.actions != first.actions:
        parts.append(f"{after.actions - first.actions} more action committed")
    if after.turn != first.turn:
        parts.append(f"turn {first.turn} -> {after.turn}")
    if after.phase != first.phase:
        parts.append(f"phase {first.phase} -> {after.phase}")
    if after.refill != first.refill:
        parts.append("refill opened" if after.refill else "refill closed")
    if after.work != first.work and not parts:
        parts.append("the work in progress changed")
    return "; ".join(parts) or "the game changed"


def shorten(items: list[tuple[str, str, bool]]) -> str:
    shown_ = [
        f"{kind} {text!r}" + ("" if not pressable else " (pressable)")
        for kind, text, pressable in items[:4]
    ]
    more = f" and {len(items) - 4} more" if len(items) > 4 else ""
    return ("[" + ", ".join(shown_) + more + "]") if items else "nothing more"


# the screen's own state (not the game's), copied to the screen built afresh
LOCAL = {
    "newgame": ("edition", "seats"),
    "audit": ("game", "back_to", "result"),
    "tags": ("edition", "mode", "prompt", "bulk"),
    "settings": ("message",),
    "report": ("game", "back_to", "shown"),  # shown: the chart chosen
    "stats": ("back_to", "shown"),
}


def fresh_screen(app: Any, live: Any) -> Any:
    """The current screen built again and drawn as the app draws it when it comes up."""
    from companion.ui.app import screen_factory

    screen = screen_factory(live.name)(name=live.name)

    def local() -> None:
        for attr in LOCAL.get(live.name, ()):
            if hasattr(live, attr):
                value = getattr(live, attr)
                setattr(screen, attr, list(value) if isinstance(value, list) else value)

    local()
    screen.dispatch("on_pre_enter")
    local()  # what coming up reset (a message), as the live screen has it
    if app.game_screen(live.name):  # a kind's screen, drawn as the app draws it
        screen.show_own()
    if hasattr(screen, "show_unresumable"):
        screen.show_unresumable()
    lay_out(screen, live.size)
    return screen


def lay_out(widget: Any, size: Any) -> None:
    """``widget`` laid out at ``size`` now, as a frame would lay it out in the window
    (what a panel's header or the status line holds depends on its width)."""
    from kivy.uix.label import Label
    from kivy.uix.layout import Layout

    widget.size = tuple(size)
    for _ in range(3):  # a layout's size settles from the outside in
        for w in widget.walk(restrict=True):
            if isinstance(w, Label):
                w.texture_update()  # a button as wide as its words: its words first
            if isinstance(w, Layout):
                w.do_layout()


# ------------------------------------------------------------------ the command
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="./dev monkey",
        description="Drive the real app with random taps, double taps, scans, Undo and "
        "End turn; check the table's invariants after every event.",
    )
    parser.add_argument("events", nargs="?", type=int, default=1000, help="events to run (1000)")
    parser.add_argument("seed", nargs="?", type=int, default=1, help="the random seed (1)")
    parser.add_argument(
        "--from",
        dest="start",
        type=int,
        default=0,
        metavar="STEP",
        help="replay the seed's events up to STEP silently, then run EVENTS more, telling each",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="tell every event")
    args = parser.parse_args(argv)
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger().addHandler(logging.NullHandler())
    verbose = args.verbose or args.start > 0
    with tempfile.TemporaryDirectory(prefix="monkey-") as folder:
        monkey = Monkey(
            args.seed,
            Path(folder),
            # a violation is told as it is found (a long run's first one, at once)
            tell=lambda line: (
                print(line, flush=True) if verbose or line.startswith("seed ") else None
            ),
            quiet_before=args.start,
            progress=lambda done, bad: print(
                f"{done} of {args.start + args.events} events, {bad} violations",
                file=sys.stderr,
                flush=True,
            ),
        )
        report = monkey.run(args.start + args.events)
    report.events -= args.start
    print(report.summary())
    if report.violations:
        print(f"replay one: {report.violations[0].replay}")
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
