"""The desktop's simulated table goes through the real reader worker, as the Pi does.

The scan drawer lays a component's sticker on a FakeReader; the ReaderWorker reports it
and the app hears the UID as from a real reader; the sticker is lifted once reported.
Every wait is on something that happens (a scan in a queue, the controller's update),
never on time.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.kinds.clank.controller import Update  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.store.tags import Component, TagRegistry, resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.screens.popups import INERT  # noqa: E402
from companion.ui.simulated import SimulatedTable, sticker_uid  # noqa: E402
from hardware.readers import FakeReader, ReaderWorker, Scan  # noqa: E402

TIMEOUT = 30.0  # only ever reached when something is broken

TATTLE = resolve("card", "clank", "Tattle")
SNEAK = resolve("card", "clank", "Sneak")
SEARCH = resolve("card", "clank", "Search")
RED = resolve("badge", None, "red")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# --------------------------------------------------------- the table, no screen
class Table:
    """A SimulatedTable on a FakeReader, read by a real ReaderWorker."""

    def __init__(self, registry: TagRegistry) -> None:
        self.reader = FakeReader("simulated")
        self.clock = Clock()
        self.registry = registry
        self.table = SimulatedTable(registry, self.reader, settle=1.5, clock=self.clock)
        self.scans: queue.Queue[Scan] = queue.Queue()
        self.worker = ReaderWorker(self.reader, self._scanned, gone_after=0.5, window=1.0)

    def _scanned(self, scan: Scan) -> None:  # as the app does it: lift, then hand over
        self.table.reported(scan.uid)
        self.scans.put(scan)

    def scan(self) -> str:
        return self.scans.get(timeout=TIMEOUT).uid


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[TagRegistry]:
    store = GameStore(tmp_path / "games.db")
    yield TagRegistry(store.db)
    store.close()


@pytest.fixture
def table(registry: TagRegistry) -> Iterator[Table]:
    t = Table(registry)
    t.worker.start()
    yield t
    t.worker.stop()


def test_stickers_are_seven_bytes_and_the_same_on_every_desktop() -> None:
    uid = sticker_uid(TATTLE)
    assert uid == sticker_uid(resolve("card", "clank", "Tattle"))
    assert len(bytes.fromhex(uid)) == 7 and uid.startswith("F5") and uid == uid.upper()
    others = {sticker_uid(TATTLE, 1), sticker_uid(SNEAK), sticker_uid(RED)}
    assert uid not in others and len(others) == 3
    # the same name in the other box is another component: another sticker
    assert sticker_uid(Component("card", "catacombs", "Tattle")) != uid


def test_a_pick_is_laid_reported_by_the_worker_bound_and_lifted(table: Table) -> None:
    assert table.registry.lookup(sticker_uid(TATTLE)) is None
    uid = table.table.pick(TATTLE)
    assert uid == sticker_uid(TATTLE)
    assert table.registry.lookup(uid) == TATTLE  # stuck on the first time it was laid
    assert table.scan() == uid  # through the worker
    assert table.table.lying is None  # lifted once reported
    assert table.reader.read(0) == []


def test_picks_in_a_row_are_reported_in_order(table: Table) -> None:
    uids = [table.table.pick(c) for c in (TATTLE, SNEAK, SEARCH, RED)]
    assert [table.scan() for _ in uids] == uids


def test_a_component_picked_again_at_once_is_its_next_copy(table: Table) -> None:
    """The same sticker laid again so soon would be taken for one tag lying there (the
    worker's debounce): the second pick is the component's second copy."""
    first = table.table.pick(TATTLE)
    assert table.scan() == first
    second = table.table.pick(TATTLE)
    assert second == sticker_uid(TATTLE, 1) != first
    assert table.scan() == second
    assert table.registry.lookup(second) == TATTLE
    table.clock.now += 1.5 + 1.0  # long enough away: the first copy again
    assert table.table.sticker(TATTLE) == first


def test_a_sticker_bound_to_something_else_is_that_something_now(table: Table) -> None:
    table.registry.bind(sticker_uid(TATTLE), SNEAK)  # re-bound on the tags screen
    uid = table.table.pick(TATTLE)
    assert uid == sticker_uid(TATTLE, 1)
    assert table.registry.lookup(uid) == TATTLE
    assert table.scan() == uid


def test_an_unknown_tag_is_laid_as_it_is(table: Table) -> None:
    table.table.lay("F0123456789A")
    assert table.scan() == "F0123456789A"
    assert table.registry.lookup("F0123456789A") is None  # nobody bound it


# ------------------------------------------------------------------ the app
@pytest.fixture
def ui(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path / "games.db")
    harness.app._start_hardware()  # what on_start does just after the first frame
    yield harness
    harness.close()


class Updates:
    """The controller's updates, as the screens hear them (on the main loop)."""

    def __init__(self, ui: Harness) -> None:
        self.ui = ui
        self.seen: list[Update] = []
        ui.app.controller.listeners.append(self.seen.append)

    def wait(self, kind: str) -> Update:
        """Run the main loop until the controller tells an update of this kind."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for update in self.seen:
                if update.kind == kind:
                    self.seen.remove(update)
                    return update
            assert time.monotonic() < deadline, f"no {kind} update: {self.seen}"
            self.ui.frames(1)


def drawer(ui: Harness, pick: str) -> None:
    ui.tap("Scan drawer")
    ui.tap(pick)


def test_the_simulated_table_runs_a_fake_reader_through_the_worker(ui: Harness) -> None:
    app = ui.app
    assert isinstance(app.worker, ReaderWorker) and isinstance(app.worker.device, FakeReader)
    assert app.simulated_table is not None and app.simulated_table.reader is app.worker.device
    ui.frames(2)
    assert "Reader" not in app.status.text  # no "Reader connected: fake" over the notice


def test_a_badge_from_the_drawer_reaches_the_controller_through_the_worker(
    ui: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    updates = Updates(ui)
    reader = ui.app.worker.device
    laid: list[str] = []
    lay = reader.present

    def present(uid: str) -> None:
        laid.append(uid)
        lay(uid)

    monkeypatch.setattr(reader, "present", present)
    drawer(ui, "Badge: red")
    seat = updates.wait("seat")
    assert seat.component == RED
    assert seat.uid == sticker_uid(RED)  # a scan of a tag, not a picked component
    assert laid == [seat.uid]  # laid on the fake reader the worker reads
    assert ui.app.tags.lookup(seat.uid) == RED
    ui.frames(2)
    assert ui.app.screens.get_screen("newgame").seats == ["red"]


def test_opening_cards_from_the_drawer_are_scanned_tags_in_order(ui: Harness) -> None:
    updates = Updates(ui)
    ui.tap("Red")
    ui.tap("Blue")
    ui.tap("Start game")
    updates.wait("game")
    for name in ("Tattle", "Sneak", "Search"):
        drawer(ui, name)  # one after the other, without waiting for the worker
    for _ in range(3):
        assert updates.wait("entry").what == "opening"
    ctl = ui.app.controller
    assert ctl.opening == [{"name": c.name, "uid": sticker_uid(c)} for c in (TATTLE, SNEAK, SEARCH)]
    assert ctl.client_seed() == " ".join(sticker_uid(c) for c in (TATTLE, SNEAK, SEARCH))


def test_a_new_unknown_tag_from_the_drawer_asks_what_it_is(ui: Harness) -> None:
    updates = Updates(ui)
    drawer(ui, "A new, unknown tag")
    unknown = updates.wait("unknown_tag")
    assert unknown.uid is not None and ui.app.tags.lookup(unknown.uid) is None
    ui.frames(2)
    ui.find(f"Tag {unknown.uid}: which component is it?")


def test_no_tag_entries_are_no_scans(ui: Harness) -> None:
    updates = Updates(ui)
    ui.tap("Red")
    ui.tap("Blue")
    ui.tap("Start game")
    ui.tap("Start the first turn")
    ui.frames(2, seconds=INERT + 0.1)  # a short opening row asks first
    ui.tap("Yes, start the first turn")
    updates.wait("game")
    ui.tap("End Red's turn")
    assert ui.snapshot is not None and ui.snapshot["refill"] == []
    drawer(ui, "No tag: dragon symbol")  # straight to the controller, nothing laid
    assert ui.snapshot["refill"] == ["Untagged card (dragon)"]  # at once: no worker
    table = ui.app.simulated_table
    assert table is not None and table.lying is None
    assert updates.seen[-1].what == "refill"
