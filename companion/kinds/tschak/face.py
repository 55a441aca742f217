"""The Tschak! screens as the touchscreen app reaches them (``GameKind.table_face``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.kinds.base import KindControl, MenuEntry, TagTarget

if TYPE_CHECKING:
    from companion.kinds.tschak.control import TschakControl

# the screens, imported when first built (the app's first frame does without them)
SCREENS = {
    "tschak_setup": ("companion.kinds.tschak.screens.setup", "TschakSetupScreen"),
    "tschak_catalog": ("companion.kinds.tschak.screens.catalog", "TschakCatalogScreen"),
    "tschak_tower": ("companion.kinds.tschak.screens.tower", "TschakTowerScreen"),
    "tschak_floor": ("companion.kinds.tschak.screens.floor", "TschakFloorScreen"),
    "tschak_verdict": ("companion.kinds.tschak.screens.verdict", "TschakVerdictScreen"),
    "tschak_final": ("companion.kinds.tschak.screens.final", "TschakFinalScreen"),
}


class TschakFace:
    screens: Mapping[str, tuple[str, str]] = SCREENS
    # its set-up visits the card catalog: an update does not take the table away from it
    visited: tuple[str, ...] = ("tschak_catalog",)

    @property
    def phase_screens(self) -> Mapping[str, str]:
        from companion.kinds.tschak.screens.base import PHASE_SCREENS

        return PHASE_SCREENS

    def make_control(self, app: Any) -> TschakControl:
        from companion.kinds.tschak.screens.base import make_control

        return make_control(app)

    def scan(self, app: Any, uid: str) -> None:
        from companion.kinds.tschak.screens.base import tschak_scan

        tschak_scan(app, uid)

    def open_drawer(self) -> None:
        from companion.kinds.tschak.screens.base import open_tschak_drawer

        open_tschak_drawer()

    def menu_entries(self, app: Any) -> list[MenuEntry]:
        """None before the screens every table has: its screens open a menu of their own."""
        return []

    def press(self, app: Any, button: str) -> None:
        """Undo on the panel takes back what its screen's Undo does (End turn: a Tschak!
        turn ends as its cards are entered)."""
        from companion.kinds.tschak.screens.base import tschak_press

        tschak_press(app, button)

    def turn(self, control: KindControl) -> object:
        return control.phase

    def tag_choices(self, edition: str) -> list[tuple[str, TagTarget]]:
        """Its cards, in words."""
        from companion.store.tags import component_words, components

        return [(component_words(c), c) for c in components(edition, ("card",), ())]


FACE = TschakFace()
