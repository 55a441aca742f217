"""The Clank! screens as the touchscreen app reaches them (``GameKind.table_face``): the
opening, the table and the scoring, the controller with its desk
(``companion.kinds.clank.screens.desk``), where a scan goes, the scan drawer, the menu."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.kinds.base import KindControl, MenuEntry, TagTarget

if TYPE_CHECKING:
    from companion.kinds.clank.screens.desk import ClankControl

# the screens, each imported when first built (the first frame loads only the one it shows)
SCREENS = {
    "opening": ("companion.kinds.clank.screens.opening", "OpeningScreen"),
    "table": ("companion.kinds.clank.screens.table", "TableScreen"),
    "scoring": ("companion.kinds.clank.screens.scoring", "ScoringScreen"),
}
# the controller's phase -> the screen that shows it (no game: the new game's, shared)
PHASE_SCREENS = {
    "none": "newgame",
    "opening": "opening",
    "playing": "table",
    "scoring": "scoring",
    "abandoned": "newgame",
}
# the sets of cards a tag may be bound to (with the tokens)
BOUND_SETS = ("starter", "reserve", "dungeon", "promo")


class ClankFace:
    screens: Mapping[str, tuple[str, str]] = SCREENS
    phase_screens: Mapping[str, str] = PHASE_SCREENS
    visited: tuple[str, ...] = ()  # its menu opens questions, not screens

    def make_control(self, app: Any) -> ClankControl:
        from companion.kinds.clank.screens.desk import ClankControl

        return ClankControl(app)

    def scan(self, app: Any, uid: str) -> None:
        from companion.kinds.clank.screens.desk import desk_of

        desk_of(app).controller.scan(uid)

    def open_drawer(self) -> None:
        from companion.kinds.clank.screens.desk import open_clank_drawer

        open_clank_drawer()

    def menu_entries(self, app: Any) -> list[MenuEntry]:
        from companion.kinds.clank.screens.desk import desk_of

        return desk_of(app).menu_entries()

    def press(self, app: Any, button: str) -> None:
        from companion.kinds.clank.screens.desk import desk_of

        desk = desk_of(app)
        if button == "end_turn":
            desk.end_turn()
        elif button == "undo":
            desk.undo()

    def turn(self, control: KindControl) -> object:
        """The turn's number and its player, read off the game's state (not a whole view:
        a redraw builds one already)."""
        table = getattr(control, "table", None)
        if table is None:
            return None
        state = table.game.state
        return state.turn, state.active

    def tag_choices(self, edition: str) -> list[tuple[str, TagTarget]]:
        """Every card of the box and its tokens, as the scan drawer names them."""
        from companion.kinds.clank.screens.choices import catalog_components, component_label

        found = catalog_components(edition, cards=BOUND_SETS, tokens=True)
        return [(component_label(c), c) for c in found]


FACE = ClankFace()
