"""The Tschak! screens as the touchscreen app reaches them (``GameKind.table_face``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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


FACE = TschakFace()
