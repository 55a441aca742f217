"""Texts that say who reads them (TABLE_SCREEN.md), for the screens around the table: the
dragon attack, the scoring screen and the odds of the next draw.

A figure (a number that tells the state of the game) is drawn on its own, at the size
the whole table reads, and the words beside it at theirs: the measure of the screens
(companion.ui.ink) reads a number alone's digits exactly, and each label says what it
is in ``ink_role``: "figure" or "watched". Roboto draws a digit or a capital about 0.71
of its font size high.
"""

from __future__ import annotations

from kivy.metrics import sp
from kivy.properties import StringProperty
from kivy.uix.label import Label

from companion.ui.widgets import FitLabel

FIGURE = "44sp"  # about 31 px of digits: 30 at least with 2-4 players
CROWDED_FIGURE = "38sp"  # about 27 px: 26 at least with 5-6 players
WATCHED = "30sp"  # about 21 px of capitals: words the whole table reads
TEXT = "26sp"  # about 18 px: words for the player who taps
CROWDED = 5  # players from which six panels share the screen


def figure_size(players: int) -> float:
    """A figure's font size (px) at a table of ``players``."""
    return float(sp((CROWDED_FIGURE if players >= CROWDED else FIGURE).removesuffix("sp")))


def around(words: str, figure: str) -> tuple[str, str]:
    """The words before and after ``figure`` in a sentence that holds it ("2 damage":
    "", "damage"), trimmed: the figure is drawn apart, at its own size, and the
    sentence keeps its language's order."""
    before, found, after = words.partition(figure)
    if not found:
        return words.strip(), ""
    return before.strip(), after.strip()


class WatchedFigure(Label):
    """A number alone that tells the state of the game (bold, at ``figure_size``)."""

    ink_role = StringProperty("figure")


class WatchedWords(Label):
    """Words beside a figure that the whole table reads (WATCHED: 21 px)."""

    ink_role = StringProperty("watched")


class FitWatchedWords(FitLabel):
    """Watched words that shrink to their room, never under WATCHED."""

    ink_role = StringProperty("watched")
