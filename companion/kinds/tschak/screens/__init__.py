"""The Tschak! (Хрясь!) screens, one module and one layout (its kv/<screen>.kv) each:
the set-up, the catalog check, a tower's floors, the teams of a floor (and the trophies'
last cards), the verdict, and the end.

Every screen is a function of the Tschak! controller's view
(``companion.kinds.tschak.views.TschakView``): ``show_tschak(view)`` sets every text and
builds every button from it and from nothing else. The screens call the controller
(``app.tschak``) and never the game, the store or the rules. The numbers a player looks
for (strengths, gold, the card's number) are 36 px or more, every other text 20 px, every
button at least 48 px high. ``base`` holds what the screens share and the app's side
(the controller it makes, where a scan goes, the scan drawer); ``widgets`` and ``popups``
the pieces they are made of.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.kinds.tschak.screens.catalog import TschakCatalogScreen
from companion.kinds.tschak.screens.final import TschakFinalScreen
from companion.kinds.tschak.screens.floor import TschakFloorScreen
from companion.kinds.tschak.screens.setup import TschakSetupScreen
from companion.kinds.tschak.screens.tower import TschakTowerScreen
from companion.kinds.tschak.screens.verdict import TschakVerdictScreen

SCREEN_CLASSES: dict[str, Callable[..., Any]] = {
    "tschak_setup": TschakSetupScreen,
    "tschak_catalog": TschakCatalogScreen,
    "tschak_tower": TschakTowerScreen,
    "tschak_floor": TschakFloorScreen,
    "tschak_verdict": TschakVerdictScreen,
    "tschak_final": TschakFinalScreen,
}
