"""Tschak! (Хрясь!): the rules, pure. No I/O but the shipped catalog, no translations:
codes, values and plain English for the ``why`` of a floor. A refusal's English template
is marked with ``N_`` (companion.msg, standard library only) for the catalogs.

See TSCHAK_SPEC.md (rules, ambiguities) and TABLE_SCRIPT.md (actions, JSON output).
"""

from companion.kinds.tschak.rules.cards import (
    Catalog,
    CatalogRow,
    Hero,
    TowerCard,
    apply_corrections,
    load_catalog,
    parse_hero,
    parse_tower_card,
)
from companion.kinds.tschak.rules.errors import TschakError
from companion.kinds.tschak.rules.game import EDITION, TschakGame, seating
from companion.kinds.tschak.rules.scoring import Score, rank, score_player
from companion.kinds.tschak.rules.settings import FIXED, SETTINGS_INFO, Settings

__all__ = [
    "EDITION",
    "FIXED",
    "SETTINGS_INFO",
    "Catalog",
    "CatalogRow",
    "Hero",
    "Score",
    "Settings",
    "TowerCard",
    "TschakError",
    "TschakGame",
    "apply_corrections",
    "load_catalog",
    "parse_hero",
    "parse_tower_card",
    "rank",
    "score_player",
    "seating",
]
