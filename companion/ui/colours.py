"""Player colours, each with a letter so that colour never carries meaning alone."""

from __future__ import annotations

from companion.i18n import colour_letter

COLOURS: dict[str, tuple[float, float, float, float]] = {
    "red": (0.86, 0.22, 0.2, 1),
    "yellow": (0.95, 0.78, 0.12, 1),
    "green": (0.22, 0.68, 0.32, 1),
    "blue": (0.22, 0.46, 0.9, 1),
    "purple": (0.6, 0.32, 0.8, 1),
    "orange": (0.96, 0.55, 0.12, 1),
    "black": (0.35, 0.35, 0.38, 1),
    "ghost": (0.92, 0.92, 0.96, 1),
}
DARK_TEXT = {"yellow", "ghost", "orange"}


def colour(name: str) -> tuple[float, float, float, float]:
    return COLOURS.get(name, (0.6, 0.6, 0.6, 1))


def text_colour(name: str) -> tuple[float, float, float, float]:
    return (0.08, 0.08, 0.1, 1) if name in DARK_TEXT else (1, 1, 1, 1)


def letter(name: str) -> str:
    """R, Y, G, B, P, O in English; each language has its own (companion.i18n)."""
    return colour_letter(name)
