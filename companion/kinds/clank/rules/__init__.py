"""The rules of Clank! and Clank! Catacombs, as pure functions over plain data."""

from companion.kinds.clank.rules.actions import ACTION_NAMES, check_action
from companion.kinds.clank.rules.errors import RuleError
from companion.kinds.clank.rules.game import Chance, DrawRecord, DrawRequest, Game
from companion.kinds.clank.rules.setup import Setup, make_setup

__all__ = [
    "ACTION_NAMES",
    "Chance",
    "DrawRecord",
    "DrawRequest",
    "Game",
    "RuleError",
    "Setup",
    "check_action",
    "make_setup",
]
