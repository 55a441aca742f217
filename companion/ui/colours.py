"""Player colours, each with a letter so that colour never carries meaning alone.

The six player colours are told apart by lightness as well as by hue, so that they stay
apart for a player who sees reds and greens alike (deutan, protan) or blues and greens
alike (tritan): from dark to light, blue and red (white text), orange, purple (a light
violet), green (a light green) and yellow (dark text). Every two of them are at least
``tests/test_colours.py``'s ``LEAST_DISTANCE`` apart in CAM02-UCS, in normal vision and
in each simulated colour vision deficiency; each one's text (``text_colour``) keeps a
contrast of at least 4.5:1 on it, and each one at least 3:1 on the screens' dark
background (a chart's line, a panel's band). The turn marker is white: no player is
white, and none is near it.
"""

from __future__ import annotations

from companion.i18n import colour_letter

COLOURS: dict[str, tuple[float, float, float, float]] = {
    "red": (0.79, 0.22, 0.32, 1),
    "yellow": (1.0, 0.85, 0.01, 1),
    "green": (0.42, 0.86, 0.65, 1),
    "blue": (0.24, 0.38, 0.95, 1),
    "purple": (0.76, 0.6, 1.0, 1),
    "orange": (0.88, 0.54, 0.21, 1),
    "black": (0.35, 0.35, 0.38, 1),
    "ghost": (0.92, 0.92, 0.96, 1),
}
DARK_TEXT = {"yellow", "green", "purple", "orange", "ghost"}
DARK_INK = (0.08, 0.08, 0.1, 1)
LIGHT_INK = (1, 1, 1, 1)
# Whose turn it is: a white frame round their panel and a white badge with the word
# "turn" in TURN_INK (the phones' page marks the player the same way, from these two).
TURN_MARK = (1.0, 1.0, 1.0, 1.0)
TURN_INK = (0.1, 0.1, 0.12, 1.0)


def colour(name: str) -> tuple[float, float, float, float]:
    return COLOURS.get(name, (0.6, 0.6, 0.6, 1))


def text_colour(name: str) -> tuple[float, float, float, float]:
    """The colour of text drawn on ``colour(name)`` (a letter on a cube, a disc, a chip)."""
    return DARK_INK if name in DARK_TEXT else LIGHT_INK


def letter(name: str) -> str:
    """R, Y, G, B, P, O in English; each language has its own (companion.i18n)."""
    return colour_letter(name)
