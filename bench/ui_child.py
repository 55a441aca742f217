"""Helper of bench_ui.py: one app in a fresh process, measured from the inside.

    python bench/ui_child.py bare|companion T0 FOLDER
    python bench/ui_child.py scan|bare-redraw T0 FOLDER SAMPLES
    python bench/ui_child.py census T0 FOLDER

T0 is the parent's ``time.time()`` just before it started this process; FOLDER holds
``games.db`` (a game in progress there is resumed by the companion). The child prints one
JSON line (starting with ``{``) and stops its app. KIVY_HOME and the other headless
settings come from the parent's environment (defaults: FOLDER/kivy-home).

- bare, companion: the figures at the end of the first frame drawn once the app runs its
  main loop (build and ``on_start`` done, input dispatched): seconds since T0, phase
  marks, VmRSS and VmHWM.
- scan: the companion on its table; a thread plays the reader: it hands each scan to the
  main loop with ``Clock.schedule_once_free`` on Kivy's ``free_all`` clock (as the app's
  reader worker does, started as ``clank-companion app`` starts it) and waits for
  the end of the next frame drawn. bare-redraw: the same, with the bare app changing a
  label's text: what a frame costs with this Kivy and this OpenGL, whatever the app.

- census: the companion on its table: what the frame after each kind of step draws (draw
  calls, framebuffers drawn again, textures, pixels covered), and the window's own draw
  calls by widget.

The end of a frame is after ``Window.flip`` and a ``glFinish``: the drawing is done, not
merely handed to the OpenGL driver.

Run without arguments (``./dev bench`` runs every file in bench/) it does nothing.
"""

from __future__ import annotations

import time

STARTED = time.time()  # before anything heavy is imported: the interpreter's start is done

import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["red", "yellow", "green", "blue"]
ROW = 6
Step = tuple[str, Callable[[], Any]]


def headless_env(kivy_home: Path) -> dict[str, str]:
    """What the tests set before Kivy is imported: no console, no arguments, mock GPIO."""
    return {
        "KIVY_NO_ARGS": "1",
        "KIVY_NO_FILELOG": "1",
        "KIVY_NO_CONSOLELOG": "1",
        "KIVY_LOG_MODE": "PYTHON",
        "KIVY_HOME": str(kivy_home),
        "GPIOZERO_PIN_FACTORY": "mock",
    }


# ------------------------------------------------------------------ the game
def calm_cards() -> list[str]:
    """Dungeon cards that neither bring the dragon nor do anything on arrival: refills of
    them keep the game going for as long as the benchmark wants."""
    from companion.kinds.clank.catalog import load_catalog

    catalog = load_catalog("clank")
    return sorted(
        c.name
        for c in catalog.cards.values()
        if c.set == "dungeon" and not c.dragon_attack and c.arrive is None
    )


def uid_of(name: str) -> str:
    """A made-up 7-byte NFC UID per card name."""
    return "04" + hashlib.sha1(name.encode()).hexdigest().upper()[:12]


def prepare_game(database: Path, players: list[str] = PLAYERS) -> None:
    """A game in progress: tags bound for the calm cards, the opening row laid out by
    scans, the first turn begun. No Kivy here."""
    from companion.kinds.clank.controller import Controller
    from companion.store import GameStore
    from companion.store.tags import Component, TagRegistry

    calm = calm_cards()
    with GameStore(database) as store:
        tags = TagRegistry(store.db)
        controller = Controller(store, registry=tags)
        for name in calm:
            tags.bind(uid_of(name), Component("card", "clank", name))
        controller.new_game(
            {"edition": "clank", "players": list(players), "party": len(players) > 4}
        )
        for name in random.Random(1).sample(calm, ROW):
            controller.scan(uid_of(name))
        if not controller.end_turn() or controller.phase != "playing":
            raise SystemExit("the benchmark game did not begin")
        if len(controller.table.game.state.row) != ROW:
            raise SystemExit("the opening row was not laid out")


# ------------------------------------------------------------------ measuring
def rss() -> dict[str, float]:
    """VmRSS and VmHWM (its peak so far) of this process, in MB."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


class Frames:
    """Times each frame's parts; listeners hear of each frame at its end."""

    def __init__(self) -> None:
        from kivy.core.window import Window
        from kivy.graphics.opengl import glFinish

        self.listeners: list[Callable[[dict[str, float]], None]] = []
        self.frame: dict[str, float] = {}
        dispatch, flip = Window.dispatch, Window.flip

        def timed_dispatch(event: str, *args: Any, **kw: Any) -> Any:
            if event != "on_draw":
                return dispatch(event, *args, **kw)
            self.frame = {"draw": time.perf_counter()}
            try:
                return dispatch(event, *args, **kw)
            finally:
                self.frame["drawn"] = time.perf_counter()

        def timed_flip() -> None:
            flip()
            self.frame["flipped"] = time.perf_counter()
            glFinish()
            self.frame["end"] = time.perf_counter()
            for listener in list(self.listeners):
                listener(self.frame)

        # the window dispatches on_draw (its handlers, then its drawing: Kivy's, or the
        # companion's painter) then on_flip, whose handler calls self.flip()
        Window.dispatch = timed_dispatch
        Window.flip = timed_flip


def start_kivy(marks: dict[str, float], t0: float, bare: bool = False) -> Frames:
    """The window, as the app opens it (``window_settings``, set by ``run_app`` before
    Kivy makes it); the bare app's with Kivy's own settings, at the same size."""
    if not bare:  # as clank-companion app does before it first imports Kivy
        from companion.cli.app import before_the_touchscreen

        before_the_touchscreen()
    from kivy.config import Config as KivyConfig

    if bare:
        KivyConfig.set("graphics", "width", "800")
        KivyConfig.set("graphics", "height", "480")
    else:  # as clank-companion app does before it imports Kivy's language
        from companion.ui.window_settings import window_settings

        window_settings()
    marks["kivy"] = time.time() - t0
    from kivy.core.window import Window

    Window.size = (800, 480)  # as run_app does
    marks["window"] = time.time() - t0
    return Frames()


def gl_renderer() -> str:
    from kivy.graphics.opengl import GL_RENDERER, glGetString

    raw = glGetString(GL_RENDERER)
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)


def bare_app(marks: dict[str, float], t0: float) -> Any:
    """A plain Kivy app: a label and a row of buttons."""
    from kivy.app import App
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.button import Button
    from kivy.uix.label import Label

    class BareApp(App):
        def build(self) -> BoxLayout:
            marks["build"] = time.time() - t0
            root = BoxLayout(orientation="vertical")
            self.label = Label(text="Bare Kivy app", font_size="24sp")
            root.add_widget(self.label)
            buttons = BoxLayout(size_hint_y=None, height=56)
            for text in ("One", "Two", "Three"):
                buttons.add_widget(Button(text=text))
            root.add_widget(buttons)
            return root

        def on_start(self) -> None:
            marks["on_start"] = time.time() - t0

    return BareApp()


def run_companion(marks: dict[str, float], t0: float, folder: Path) -> None:
    """As ``clank-companion app`` does (``run_app``), with build and on_start timed."""
    from companion.config import AppConfig, Config
    from companion.ui import app as ui_app

    marks["imports"] = time.time() - t0
    build, on_start = ui_app.CompanionApp.build, ui_app.CompanionApp.on_start

    def timed_build(self: Any) -> Any:
        marks["build"] = time.time() - t0
        return build(self)

    def timed_on_start(self: Any) -> None:
        marks["on_start"] = time.time() - t0
        on_start(self)

    ui_app.CompanionApp.build = timed_build  # timing only: the same methods run
    ui_app.CompanionApp.on_start = timed_on_start
    config = Config(app=AppConfig(database=str(folder / "games.db")))
    marks["run"] = time.time() - t0
    ui_app.run_app(config, fullscreen=False)


# ----------------------------------------------------------------- the modes
def first_frame(mode: str, t0: float, folder: Path) -> None:
    """Start the app, report at the end of its first frame in the main loop, stop."""
    marks: dict[str, float] = {"main": STARTED - t0}
    frames = start_kivy(marks, t0, bare=mode == "bare")
    from kivy.app import App
    from kivy.clock import Clock

    report: dict[str, Any] = {"mode": mode}

    def at_frame(frame: dict[str, float]) -> None:
        if "loop" not in marks or "frame" in marks:
            return
        marks["frame"] = time.time() - t0
        report.update(rss())
        report["marks"] = marks
        report["first_frame"] = marks["frame"]
        report["frame_ms"] = {
            "draw": (frame["drawn"] - frame["draw"]) * 1000,
            "flip": (frame["flipped"] - frame["drawn"]) * 1000,
            "finish": (frame["end"] - frame["flipped"]) * 1000,
        }
        report["gl"] = gl_renderer()
        app = App.get_running_app()
        report["screen"] = getattr(getattr(app, "screens", None), "current", None)
        print(json.dumps(report), flush=True)
        Clock.schedule_once(lambda dt: app.stop())

    frames.listeners.append(at_frame)

    def in_loop(dt: float) -> None:  # the main loop's first tick: build, on_start done
        marks["loop"] = time.time() - t0

    Clock.schedule_once(in_loop, 0)
    if mode == "bare":
        app = bare_app(marks, t0)
        marks["imports"] = marks["run"] = time.time() - t0
        app.run()
    else:
        run_companion(marks, t0, folder)


def redraws(mode: str, t0: float, folder: Path, count: int) -> None:
    """A thread hands ``count`` steps to the main loop, one at a time at a random moment
    within a frame, and waits for the end of the next frame drawn after each."""
    marks: dict[str, float] = {"main": STARTED - t0}
    frames = start_kivy(marks, t0, bare=mode == "bare-redraw")
    from kivy.app import App
    from kivy.clock import Clock

    rng = random.Random(2)
    lock = threading.Lock()
    waiting: list[tuple[dict[str, Any], threading.Event]] = []
    samples: list[dict[str, Any]] = []
    problems: list[str] = []
    steps: list[Step] = []
    counted = "scan" if mode == "scan" else "bare"
    # as the app's hand_over: the free_all clock wakes the loop at once
    hand_over = getattr(Clock, "schedule_once_free", None) or Clock.schedule_once

    def at_frame(frame: dict[str, float]) -> None:
        with lock:
            for sample, done in [w for w in waiting if "back" in w[0]]:
                sample.update(frame)
                waiting.remove((sample, done))
                done.set()
        if "loop" not in marks:
            marks["loop"] = time.time() - t0
            if mode == "bare-redraw":
                begin()

    def begin() -> None:
        """The steps begin once a scan can come: the bare app at once, the companion when
        its reader runs (it starts it once start-up's own work is done)."""
        marks["reader"] = time.time() - t0
        threading.Thread(target=reader, daemon=True).start()

    frames.listeners.append(at_frame)

    def reader() -> None:
        timed = 0
        turn = 0
        try:
            while timed < count and not problems:
                for name, step in steps:
                    time.sleep(rng.uniform(0.0, 0.017))  # any moment within a 60 Hz frame
                    sample: dict[str, Any] = {"kind": name, "turn": turn}
                    done = threading.Event()

                    def call(dt: float, step: Any = step, sample: dict[str, Any] = sample) -> None:
                        sample["call"] = time.perf_counter()
                        step()
                        with lock:
                            sample["back"] = time.perf_counter()

                    with lock:
                        waiting.append((sample, done))
                    sample["handed"] = time.perf_counter()
                    hand_over(call)
                    if not done.wait(5.0):
                        problems.append(f"{name}: no frame drawn within 5 s")
                        break
                    samples.append(sample)
                    timed += name.startswith(counted)
                turn += 1
        finally:
            Clock.schedule_once(lambda dt: finish(), 0)

    def finish() -> None:
        app = App.get_running_app()
        report: dict[str, Any] = {"mode": mode, "turns": turn_count(), "problems": problems}
        report["reader_after_s"] = marks["reader"] - marks["loop"]
        if mode == "scan":
            c = app.controller
            snap = c.snapshot()
            report |= {
                "phase": c.phase,
                "row": len(snap["row"]) if snap else None,
                "game_over": snap["game_over"] if snap else None,
                "screen": app.screens.current,
            }
        ms = 1000.0
        report["samples"] = [
            {
                "kind": s["kind"],
                "handed": (s["end"] - s["handed"]) * ms,  # reader hands it over -> drawn
                "call": (s["end"] - s["call"]) * ms,  # the main loop takes it -> drawn
                "wait": (s["call"] - s["handed"]) * ms,  # for the main loop's next tick
                "work": (s["back"] - s["call"]) * ms,  # controller, store, screen code
                "layout": (s["draw"] - s["back"]) * ms,  # clock triggers, kv rules, text
                "draw": (s["drawn"] - s["draw"]) * ms,  # on_draw: look, search, OpenGL
                "flip": (s["flipped"] - s["drawn"]) * ms,
                "finish": (s["end"] - s["flipped"]) * ms,  # rasterising (glFinish)
            }
            for s in samples
        ]
        report |= rss()
        report["gl"] = gl_renderer()
        print(json.dumps(report), flush=True)
        app.stop()

    def turn_count() -> int:
        return len({s["turn"] for s in samples})

    if mode == "bare-redraw":
        app = bare_app(marks, t0)
        n = iter(range(10**9))
        steps.append(("bare: label text", lambda: setattr(app.label, "text", f"{next(n)}")))
        app.run()
        return

    calm = calm_cards()

    def controller() -> Any:
        return App.get_running_app().controller

    def take() -> None:
        c = controller()
        c.scan(uid_of(c.table.game.state.row[0]))

    def reveal() -> None:
        controller().scan(uid_of(rng.choice(calm)))

    from companion.ui import app as ui_app

    start_hardware = ui_app.CompanionApp._start_hardware

    def hardware_then_scans(self: Any) -> None:
        start_hardware(self)
        begin()

    ui_app.CompanionApp._start_hardware = hardware_then_scans  # the same method runs
    steps += [
        ("scan: take a row card", take),
        ("tap: clank +1", lambda: controller().clank(1)),
        ("tap: clank -1", lambda: controller().clank(-1)),
        ("button: end turn (refill opens)", lambda: controller().end_turn()),
        ("scan: reveal (refill done)", reveal),
    ]
    run_companion(marks, t0, folder)


# ------------------------------------------------------------------ the census
def part_name(layout: Any) -> str:
    """A cached part of the table named by what it holds: its first widget's class, and
    the player's colour for a panel."""
    held = layout.children[-1] if layout.children else None
    name = type(held).__name__ if held is not None else type(layout).__name__
    if name.endswith("Layout") and held is not None and held.children:  # a row of things
        name = type(held.children[-1]).__name__ + "s"
    player = getattr(held, "player", None) or getattr(getattr(held, "view", None), "name", None)
    return f"{name} ({player})" if isinstance(player, str) and player else name


def count_frame(window: Any, names: dict[int, str] | None = None) -> dict[str, Any]:
    """What the window's next frame draws, read off its canvas before it is drawn: the
    draw calls in the window itself (a cached part is one), its framebuffers and those
    drawn again (something in them changed) with the draw calls inside them, the
    textures used, and the pixels covered (the drawing's cost where the CPU draws)."""
    from kivy.graphics import Fbo
    from kivy.graphics.instructions import InstructionGroup, VertexInstruction

    count: dict[str, Any] = {"draws": 0, "pixels": 0, "fbos": 0, "fbos_drawn": 0,
                             "fbo_draws": 0, "fbo_pixels": 0}  # fmt: skip
    textures: set[int] = set()

    def walk(group: Any, inside: bool) -> None:
        for item in group.children:
            if isinstance(item, Fbo):
                count["fbos"] += 1
                if item.needs_redraw:
                    count["fbos_drawn"] += 1
                    count.setdefault("redrawn", []).append((names or {}).get(id(item), "?"))
                    walk(item, True)
            elif isinstance(item, VertexInstruction):
                count["fbo_draws" if inside else "draws"] += 1
                size = getattr(item, "size", None)
                if size is not None:  # rectangles; lines and meshes are counted as 0
                    count["fbo_pixels" if inside else "pixels"] += round(size[0] * size[1])
                if item.texture is not None:
                    textures.add(item.texture.id)
            elif isinstance(item, InstructionGroup):
                walk(item, inside)

    walk(window.canvas, False)
    count["textures"] = len(textures)
    return count


def parts_of(window: Any) -> dict[str, dict[str, int]]:
    """The window's own draw calls and pixels, by the widget (class) that draws them: a
    cached part's framebuffer counts as its one rectangle."""
    from kivy.graphics.instructions import VertexInstruction

    parts: dict[str, dict[str, int]] = {}

    def walk(widget: Any) -> None:
        canvas = widget.canvas
        for part in (canvas.before if canvas.has_before else None, canvas,
                     canvas.after if canvas.has_after else None):  # fmt: skip
            for item in part.children if part is not None else ():
                if isinstance(item, VertexInstruction):
                    size = getattr(item, "size", None)
                    row = parts.setdefault(type(widget).__name__, {"draws": 0, "pixels": 0})
                    row["draws"] += 1
                    row["pixels"] += round(size[0] * size[1]) if size is not None else 0
        if getattr(widget, "fbo", None) is not None:  # a cached part: drawn as one
            return
        for child in widget.children:
            walk(child)

    for child in window.children:
        walk(child)
    return parts


def census(t0: float, folder: Path) -> None:
    """The companion on its table (the game in FOLDER): what each kind of step's frame
    draws (count_frame), and the parts of a frame in which nothing changed."""
    marks: dict[str, float] = {"main": STARTED - t0}
    start_kivy(marks, t0)
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window

    rng = random.Random(2)
    calm = calm_cards()
    report: dict[str, Any] = {"mode": "census", "steps": {}}
    counted: list[dict[str, Any]] = []
    draws: list[Callable[[], None]] = []  # the window's drawing: the companion's painter

    def counting_draw() -> None:
        from companion.ui.cached import Cached
        from companion.ui.damage import area
        from companion.ui.paint import painter_of

        names = {
            id(w.fbo): part_name(w)
            for root in Window.children
            for w in root.walk()
            if isinstance(w, Cached) and w.fbo is not None
        }
        count = count_frame(Window, names)
        draws[0]()
        painter = painter_of(Window)
        if painter is not None and painter.mode != "kivy":  # what the frame drew again
            count["page_boxes"] = len(painter.drawn)
            count["page_pixels"] = sum(area(b) for b in painter.drawn)
        counted.append(count)

    def controller() -> Any:
        return App.get_running_app().controller

    def take() -> None:
        c = controller()
        c.scan(uid_of(c.table.game.state.row[0]))

    steps: list[Step] = [
        ("scan: take a row card", take),
        ("tap: clank +1", lambda: controller().clank(1)),
        ("tap: clank -1", lambda: controller().clank(-1)),
        ("button: end turn (refill opens)", lambda: controller().end_turn()),
        ("scan: reveal (refill done)", lambda: controller().scan(uid_of(rng.choice(calm)))),
    ]
    queue = [*steps, *steps]  # the second round is reported (nothing made for the first time)

    def next_step(dt: float) -> None:
        if not queue:
            app = App.get_running_app()
            report["players"] = len(app.controller.view().players)
            Window.canvas.ask_update()
            counted.clear()
            Clock.schedule_once(lambda dt: finish(), 1.5)  # after the settle of the step
            return
        name, step = queue.pop(0)
        counted.clear()
        step()

        def after(dt: float) -> None:
            if counted:
                report["steps"][name] = counted[0]
            Clock.schedule_once(next_step, 0.05)

        Clock.schedule_once(after, 0.15)

    def finish() -> None:
        report["unchanged"] = counted[0] if counted else None
        report["parts"] = parts_of(Window)
        print(json.dumps(report), flush=True)
        App.get_running_app().stop()

    def begin(dt: float) -> None:
        draws.append(Window.on_draw)
        Window.on_draw = counting_draw
        next_step(0)

    Clock.schedule_once(begin, 1.5)  # the first frames drawn, the parts cached
    run_companion(marks, t0, folder)


def main(argv: list[str]) -> None:
    mode, t0, folder = argv[1], float(argv[2]), Path(argv[3])
    for key, value in headless_env(folder / "kivy-home").items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("KIVY_CLOCK", "free_all")  # as `clank-companion app` starts Kivy
    sys.path.insert(0, str(ROOT))
    if mode in ("scan", "bare-redraw"):
        redraws(mode, t0, folder, int(argv[4]))
    elif mode in ("bare", "companion"):
        first_frame(mode, t0, folder)
    elif mode == "census":
        census(t0, folder)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__" and len(sys.argv) > 1:
    main(sys.argv)
