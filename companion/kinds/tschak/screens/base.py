"""What the Tschak! screens share, and the app's side of them: the base of every screen
(a function of the controller's view), which screen shows which phase, the controller the
app makes, where a scan goes, the simulated reader's drawer."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import _
from companion.kinds.tschak.screens.popups import CardPicker, Choices, ask_tie, open_menu
from companion.kinds.tschak.screens.widgets import Tschak, app, ctl
from companion.kinds.tschak.views import TschakView, Update, card_view

if TYPE_CHECKING:
    from companion.kinds.tschak.control import TschakControl

# the controller's phase -> the screen that shows it
PHASE_SCREENS = {
    "setup": "tschak_setup",
    "tower": "tschak_tower",
    "floor": "tschak_floor",
    "trophies": "tschak_floor",
    "verdict": "tschak_verdict",
    "trophy_verdict": "tschak_verdict",
    "over": "tschak_final",
}
SCREEN_NAMES = (
    "tschak_setup",
    "tschak_catalog",
    "tschak_tower",
    "tschak_floor",
    "tschak_verdict",
    "tschak_final",
)


# ======================================================================= the screens' base
class TschakScreen(Tschak, Screen):
    """A Tschak! screen: every text and button comes from the controller's view
    (``show_tschak``); its buttons call the controller (``ctl()``), never the game,
    the store or the rules."""

    title = StringProperty("")
    hint = StringProperty("")
    last = StringProperty("")
    totals = StringProperty("")
    _shown: object = None  # the part of the view last built (see part_changed)

    def on_pre_enter(self, *args: Any) -> None:
        self.show_own()

    def show_own(self) -> None:
        """Redrawn from the controller's view (the app asks this of a kind's screen)."""
        self.show_tschak(ctl().view())

    def show_tschak(self, view: TschakView) -> None:
        self.title = view.title
        self.hint = view.hint
        self.last = view.last
        self.totals = view.totals

    def on_touch_down(self, touch: Any) -> bool:
        """The table's moment when the finger came down is what the tap aims at (a card
        scanned before it lifts makes the tap stale: ``aimed``)."""
        self.pressed = ctl().moment()
        return bool(super().on_touch_down(touch))

    def aimed(self) -> bool:
        """Whether the last tap meets the table it was aimed at (else it is said)."""
        return ctl().aimed(getattr(self, "pressed", None))

    def undo(self) -> None:
        if self.aimed():
            ctl().undo()

    def menu(self) -> None:
        open_menu()

    def part_changed(self, part: object) -> bool:
        """Whether this part of the view differs from the one the screen last built
        (which it then remembers): what is shown again as it was is not built again."""
        if part == self._shown:
            return False
        self._shown = part
        return True


# ======================================================================= the app's side
def open_tschak_drawer() -> None:
    """The simulated reader for Tschak!: every face of the box, a tap 'scans' it."""
    a, c = app(), ctl()
    uid = "F" + secrets.token_hex(6).upper()[1:]
    extra = [(_("A new, unknown tag"), lambda: a.on_scan(uid))]
    if a.screens.current == "tschak_catalog":
        CardPicker(_("Scan drawer: tap what you would scan"), [], lambda n: None, extra).open()
        return
    faces = c.drawer_faces()
    CardPicker(
        _("Scan drawer: tap what you would scan"), [card_view(n) for n in faces], c.scan_card, extra
    ).open()


def choose_tschak_binding(uid: str) -> None:
    """An unknown tag during a Tschak! game: which card carries it?"""
    c = ctl()
    faces = c.drawer_faces()

    def bind(notation: str) -> None:
        message = c.bind_tag(uid, notation)
        app().status.text = message

    CardPicker(
        _("Tag {uid}: which card is it?").format(uid=uid), [card_view(n) for n in faces], bind
    ).open()


def make_control(a: Any) -> TschakControl:
    """The Tschak! controller of the app: games recorded through a Session of the app's
    store, tags looked up in its registry, the catalog's corrections beside its
    database (or in CLANK_CATALOG_DIR)."""
    from companion.kinds.tschak.catalog_check import default_catalog_path
    from companion.kinds.tschak.control import TschakControl
    from companion.kinds.tschak.progress import TschakTableLike
    from companion.session import Session

    session = Session(a.store)

    def start(options: dict[str, Any]) -> TschakTableLike:
        table = session.start(options)
        assert isinstance(table, TschakTableLike)
        return table

    def resume(game: int) -> TschakTableLike:
        table = session.resume(game)
        if getattr(table, "edition", None) != "tschak" or not isinstance(table, TschakTableLike):
            a.store.release(game)
            raise ValueError(f"game {game} is not a Tschak! game")
        return table

    control = TschakControl(
        start=start,
        resume=resume,
        store=a.store,
        registry=a.tags,
        catalog_path=default_catalog_path(a.store.path),
    )
    control.listeners.append(lambda update: tschak_update(a, update))
    return control


def tschak_scan(a: Any, uid: str) -> None:
    """A tag scanned while a Tschak! screen is on: the catalog check enrolls it, the
    game takes it."""
    if a.screens.current == "tschak_catalog":
        ctl().check_scan(uid)
    else:
        ctl().scan(uid)


def tschak_press(a: Any, button: str) -> None:
    """A button of the panel during a Tschak! game: Undo takes back the card entered
    last, or the last action, as the screen's Undo does. Tschak! has no turn to end (a
    floor's cards are entered, then the floor resolved): End turn says so, in words and
    with the buzzer's "not taken", rather than doing nothing unseen."""
    if button == "undo" and ctl().in_play:
        ctl().undo()
    elif button == "end_turn":
        a.status.text = _("Tschak! has no turns: End turn does nothing")
        if a.panel is not None:
            a.panel.signal("not_taken")


def tschak_update(a: Any, update: Update) -> None:
    """What the app does when the Tschak! controller tells it something."""
    if getattr(a, "_building", False):
        return
    a.follow(update.kind)
    if update.kind in ("rejected", "ignored", "unknown_tag") and update.message:
        a.status.text = update.message
    elif update.kind in ("action", "game", "entry", "setup"):
        a.status.text = a.ready_text
    if update.kind == "unknown_tag" and update.uid:
        choose_tschak_binding(update.uid)
    view = ctl().view()
    if view.question is not None:
        from kivy.core.window import Window

        if not any(isinstance(w, Choices) for w in Window.children):
            ask_tie(view)
