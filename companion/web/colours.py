"""The players' colours on the phone page: the touchscreen's own palette
(``companion.ui.colours``: told apart in every colour vision, each with the colour of
the text drawn on it), made into the style sheet the page loads (``/static/colours.css``)
when the server starts. The page's own style (``static/app.css``) names the colours
(``var(--red)``, ``c-red``...) and holds none of them: the table and the phones cannot
disagree.

The player whose turn it is is marked as the table marks them (``TURN_MARK``: white,
which is no player's colour, with ``TURN_INK`` on it), never in yellow, a player's
colour: ``--turn`` and ``--turn-ink``."""

from __future__ import annotations

from collections.abc import Sequence

NAME = "colours.css"  # served beside the page's files, as /static/colours.css
PLAYERS = ("red", "yellow", "green", "blue", "purple", "orange")  # a panel's band each


def hex_colour(rgba: Sequence[float]) -> str:
    """``#rrggbb`` of a colour given as 0..1 channels (its alpha left out)."""
    r, g, b = (min(255, max(0, round(v * 255))) for v in rgba[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def palette() -> dict[str, tuple[str, str]]:
    """Each colour the page may show (the six players, black, the ghost): (its own
    colour, the colour of text on it), as ``#rrggbb``."""
    from companion.ui.colours import COLOURS, text_colour  # the palette only: no Kivy

    return {name: (hex_colour(c), hex_colour(text_colour(name))) for name, c in COLOURS.items()}


def turn_mark() -> tuple[str, str]:
    """The table's turn marker: (its colour, the colour of the word on it)."""
    from companion.ui.colours import TURN_INK, TURN_MARK

    return hex_colour(TURN_MARK), hex_colour(TURN_INK)


def palette_css() -> str:
    """The style sheet: a custom property per colour and for the turn marker, a chip of
    each colour (``c-NAME``: the colour with its text) and a panel's band in each
    player's colour."""
    colours = palette()
    lines = [
        "/* The players' colours, made by the server from the table's palette",
        "   (companion/ui/colours.py): not to be edited here. */",
        ":root {",
    ]
    lines += [f"  --{name}: {colour};" for name, (colour, _ink) in colours.items()]
    mark, mark_ink = turn_mark()
    lines += [f"  --turn: {mark};", f"  --turn-ink: {mark_ink};"]
    lines.append("}")
    lines += [f".c-{name} {{ background: var(--{name}); color: {ink}; }}"
              for name, (_colour, ink) in colours.items()]  # fmt: skip
    lines += [f".band-{name} {{ border-left-color: var(--{name}); }}"
              for name in PLAYERS if name in colours]  # fmt: skip
    return "\n".join(lines) + "\n"
