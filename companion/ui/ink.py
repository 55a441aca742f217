"""How high the texts of a screen are drawn, measured from the window's pixels: the ink a
player 80 cm away reads (TABLE_SCREEN.md), not the font size asked for.

``screen_metrics`` reads the window once and, for every text shown on top (a pop-up's
only, while one is open), measures the height of its digits, or else of its capitals:

- where each character lies comes from the text's own layout (the Kivy core label that
  drew it: its lines, its words, the font's extents of each word's beginnings);
- its height is read from the window: the rows, within the character's columns and its
  line, that hold ink (pixels that stand out from the box's most common colour), as one
  run: an accent apart above a capital, a descender or a "%" beside a digit, the next
  line below, are not counted. The window may show a character smaller than its font
  draws it (cut, covered), never taller: a run taller than the character rendered alone
  is a neighbour's stroke touching it (a tail of the line above), and the character's
  own height counts;
- a text of lowercase letters alone reports the height a capital of its font and size
  draws, rendered and measured the same way: the size a reader takes it for.

A text says what it is (``role``): a ``figure`` (a number that tells the state of the
game), ``watched`` (a text the whole table watches) or ``text``; a screen declares it
with ``ink_role`` on a Label or a drawn widget, or a drawn widget names its figures
(``figures()``) and its watched texts (``watched()``). ``problems`` holds the measures
to the limits of TABLE_SCREEN.md. The screenshots (``./dev screenshots``) write the
measures beside them, in ``metrics.json``.

``ink`` (the tallest run of inked rows in a text's box: a line with what hangs below
it) and the ``figure`` flag are the earlier measure, which some checks still read.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from itertools import chain
from typing import Any, NamedTuple

FIGURE = re.compile(r"^[−+\-]?\d+([.,]\d+)?\s*%?$")  # a number alone: a figure
LETTER = re.compile(r"[^\W_]")  # a letter or a digit: what a text's height is read from
INK = 90  # how far (summed over R, G, B) a pixel stands from the background to be ink
DIGITS = frozenset("0123456789")
# capitals that reach under the line or over the others (a tail, a leg, an upturn)
UNEVEN_CAPITALS = frozenset("QJДЦЩҐ")
ROLES = ("figure", "watched", "text")
# the least height (px of ink) per role (TABLE_SCREEN.md); a figure's with 5-6 players
LEAST = {"figure": 30, "watched": 21, "text": 18}
LEAST_FIGURE_CROWDED = 26
CROWDED = 5  # players (or teams) from which six panels share the screen
# a word's options that choose its font and its glyphs' advances
FONT_KEYS = ("font_name", "font_size", "bold", "italic", "font_hinting", "font_kerning",
             "font_features")  # fmt: skip

Pixels = list[list[tuple[int, int, int]]]  # rows, bottom first
Font = tuple[tuple[str, Any], ...]  # a word's font options, hashable


class Glyph(NamedTuple):
    """Where one character lies in its text's texture (px from the texture's left and
    top): its columns, and the rows of its line (``top`` None: the whole texture)."""

    char: str
    left: float
    right: float
    top: float | None
    bottom: float | None
    font: Font


class Placed(NamedTuple):
    """A text's texture as the window shows it: its lower left corner (window px), its
    size, and its characters."""

    x: int
    y: int
    width: int
    height: int
    glyphs: list[Glyph]


def window_image(window: Any) -> Pixels:
    """The window's pixels, row by row from the bottom (after a frame)."""
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glPixelStorei, glReadPixels

    glPixelStorei(0x0D05, 1)  # GL_PACK_ALIGNMENT: rows as they are
    w, h = (int(v) for v in window.size)
    data = bytes(glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE))
    step = w * 3
    return [
        list(
            zip(
                data[s : s + step : 3],
                data[s + 1 : s + step : 3],
                data[s + 2 : s + step : 3],
                strict=True,
            )
        )
        for s in range(0, h * step, step)
    ]


def _box(image: Pixels, x: float, y: float, w: float, h: float) -> tuple[int, int, int, int]:
    """The box's columns and rows (window coordinates) within the image."""
    height = len(image)
    width = len(image[0]) if image else 0
    return max(0, int(x)), max(0, int(y)), min(width, int(x + w)), min(height, int(y + h))


def _colours(image: Pixels, box: tuple[int, int, int, int]) -> Counter[tuple[int, int, int]]:
    """How many pixels of each colour the box holds (in the order first met, row by row
    from its bottom: the first of two colours as common is the lower one's)."""
    x0, y0, x1, y1 = box
    return Counter(chain.from_iterable(row[x0:x1] for row in image[y0:y1]))


def background(image: Pixels, x: float, y: float, w: float, h: float) -> tuple[int, int, int]:
    """The box's most common colour: the ground its text is drawn on."""
    x0, y0, x1, y1 = box = _box(image, x, y, w, h)
    if x1 <= x0 or y1 <= y0:
        return (0, 0, 0)
    return _colours(image, box).most_common(1)[0][0]


def _distance(p: tuple[int, int, int], q: tuple[int, int, int]) -> int:
    return abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2])


def _longest_run(flags: Iterator[bool]) -> int:
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def _run_of_rows(image: Pixels, ground: tuple[int, int, int],
                 box: tuple[int, int, int, int]) -> int:  # fmt: skip
    """The tallest run of rows of the box (columns x0..x1, rows y0..y1) holding ink."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return 0
    inked: dict[tuple[int, int, int], bool] = {}  # each colour judged once

    def holds_ink(row: list[tuple[int, int, int]]) -> bool:
        for p in set(row[x0:x1]):
            ink = inked.get(p)
            if ink is None:
                ink = inked[p] = _distance(p, ground) > INK
            if ink:
                return True
        return False

    return _longest_run(holds_ink(image[r]) for r in range(y0, y1))


def ink_height(image: Pixels, x: float, y: float, w: float, h: float) -> int:
    """The tallest run of rows holding ink in the box (window coordinates)."""
    return _run_of_rows(image, background(image, x, y, w, h), _box(image, x, y, w, h))


def glyph_height(image: Pixels, ground: tuple[int, int, int], placed: Placed,
                 glyph: Glyph) -> int:  # fmt: skip
    """The height of one character's ink: the tallest run of rows holding ink within its
    columns (a pixel in from each side, where a neighbour's stroke may reach) and its
    line's rows."""
    left, right = placed.x + glyph.left, placed.x + glyph.right
    if right - left > 4:
        left, right = left + 1, right - 1
    if glyph.top is None or glyph.bottom is None:
        bottom, top = float(placed.y), float(placed.y + placed.height)
    else:  # the texture's rows count from its top, the window's from its bottom
        bottom, top = placed.y + placed.height - glyph.bottom, placed.y + placed.height - glyph.top
    box = _box(image, round(left), round(bottom), round(right) - round(left),
               round(top) - round(bottom))  # fmt: skip
    return _run_of_rows(image, ground, box)


def _font(options: dict[str, Any]) -> Font:
    return tuple((k, options[k]) for k in FONT_KEYS if k in options)


_extent_cores: dict[Font, Any] = {}


def _advance(font: Font, text: str) -> float:
    """How far ``text`` reaches in its font (px): where the character after it starts."""
    from kivy.core.text import Label as CoreLabel

    core = _extent_cores.get(font)
    if core is None:
        core = _extent_cores.setdefault(font, CoreLabel(**dict(font)))
    return float(core.get_extents(text)[0]) if text else 0.0


def core_glyphs(core: Any) -> list[Glyph]:
    """Every character a rendered Kivy core label drew, where it drew it: read from its
    lines and words as its last rendering placed them."""
    glyphs = []
    for line in core._cached_lines:
        x = float(getattr(line, "x", 0))
        for word in line.words:
            options = word.options
            font = _font(options)
            # a word in a line of larger ones sits lower (Kivy's markup rendering)
            drop = max(0.0, (line.h - options.get("line_height", 1.0) * word.lh) / 1.25)
            top = float(getattr(line, "y", 0)) + drop
            for i, char in enumerate(word.text):
                if char.isspace():
                    continue
                start = x + _advance(font, word.text[:i])
                end = x + _advance(font, word.text[: i + 1])
                glyphs.append(Glyph(char, start, end, top, top + word.lh, font))
            x += word.lw
    return glyphs


def label_placed(label: Any) -> Placed | None:
    """Where a Label's texture is drawn (centred on the widget, as Kivy's rule draws it)
    and the characters in it."""
    core = getattr(label, "_label", None)
    texture = label.texture
    if core is None or texture is None:
        return None
    tw, th = (int(v) for v in label.texture_size)
    x, y = label.to_window(int(label.center_x - tw / 2), int(label.center_y - th / 2))
    return Placed(int(round(x)), int(round(y)), tw, th, core_glyphs(core))


_drawn_glyphs: dict[tuple[Any, ...], list[Glyph]] = {}


def drawn_placed(ink: Any, seen: Any) -> Placed:
    """Where a drawn text (companion.ui.drawn's Ink, as ``seen``) lies and the characters
    in it: laid out again as the Ink made it, one line (its whole box is its line)."""
    from kivy.core.text import Label as CoreLabel
    from kivy.core.text.markup import MarkupLabel

    made: tuple[Any, ...] = tuple(getattr(ink, "_made", ()))
    if len(made) == 5:
        text, font_size, width, halign, items = made
        options = {**dict(items), "text": text, "font_size": font_size}
        if width is not None:
            options.update(text_size=(max(1, width), None), shorten=True,
                           shorten_from="right", halign=halign)  # fmt: skip
    else:  # made otherwise: its text on one line, from its left
        options = {**getattr(ink, "options", {}), "text": seen.text, "font_size": seen.font_size}
    key = tuple(sorted(options.items()))
    glyphs = _drawn_glyphs.get(key)
    if glyphs is None:
        core = (MarkupLabel if options.get("markup") else CoreLabel)(**options)
        core.refresh()
        glyphs = [g._replace(top=None, bottom=None) for g in core_glyphs(core)]
        if len(_drawn_glyphs) > 2000:
            _drawn_glyphs.clear()
        _drawn_glyphs[key] = glyphs
    return Placed(int(round(seen.x)), int(round(seen.y)), int(seen.width), int(seen.height),
                  glyphs)  # fmt: skip


_alone_rows: dict[tuple[Font, str], list[int]] = {}


def alone_height(font: Font, char: str, contrast: int) -> int:
    """The height ``char`` of ``font`` draws when rendered alone, measured the same way
    as on the screen: the tallest run of its rows whose strongest pixel, laid at the
    text's contrast over its ground, stands out as ink. The screen may show a character
    smaller (cut, trimmed), never taller: more ink in its columns is a neighbour's (a
    descender of the line above, a stroke that reaches over)."""
    from kivy.core.text import Label as CoreLabel

    rows = _alone_rows.get((font, char))
    if rows is None:
        core = CoreLabel(**{**dict(font), "text": char})
        core.refresh()
        width, height = (int(v) for v in core.texture.size)
        alpha = core.texture.pixels[3::4]  # RGBA, the glyph's coverage in A
        rows = [max(alpha[r * width : (r + 1) * width], default=0) for r in range(height)]
        _alone_rows[(font, char)] = rows
    return _longest_run(a * contrast / 255 > INK for a in rows)


def _plain_capital(char: str) -> bool:
    return char.isupper() and not unicodedata.decomposition(char) and char not in UNEVEN_CAPITALS


def _ground(image: Pixels, placed: Placed) -> tuple[tuple[int, int, int], int]:
    """The ground a text is drawn on (its box's most common colour) and its contrast:
    how far its strongest ink stands from it."""
    x0, y0, x1, y1 = box = _box(image, placed.x, placed.y, placed.width, placed.height)
    if x1 <= x0 or y1 <= y0:
        return (0, 0, 0), 0
    colours = _colours(image, box)
    ground = colours.most_common(1)[0][0]
    return ground, max(_distance(p, ground) for p in colours)


def text_heights(image: Pixels, placed: Placed) -> tuple[int | None, int | None]:
    """A text's digit height (when it holds a digit) and else its cap height, from the
    window's pixels: the smallest of its digits, else of its plain capitals, else of its
    accented ones; a text of lowercase letters alone, the height its font's capital
    draws. None where the text has neither (a sign, a dash)."""
    glyphs = placed.glyphs
    if not glyphs:
        return None, None
    ground, contrast = _ground(image, placed)

    def smallest(chosen: list[Glyph]) -> int | None:
        heights = [
            min(seen, alone_height(g.font, g.char, contrast))
            for g in chosen
            if (seen := glyph_height(image, ground, placed, g))
        ]
        return min(heights) if heights else None

    digits = [g for g in glyphs if g.char in DIGITS]
    if digits:
        return smallest(digits), None
    capitals = [g for g in glyphs if _plain_capital(g.char)] or [
        g for g in glyphs if g.char.isupper() and g.char not in UNEVEN_CAPITALS
    ]
    cap = smallest(capitals)
    if cap is None:  # lowercase alone (or capitals that reach under the line)
        cased = [g for g in glyphs if g.char.islower() or g.char.isupper()]
        cap = (alone_height(cased[0].font, "H", contrast) or None) if cased else None
    return None, cap


def _shown(widget: Any) -> bool:
    if widget.get_root_window() is None or widget.width <= 1 or widget.height <= 1:
        return False
    node = widget
    while node is not None and node is not node.get_root_window():
        if getattr(node, "opacity", 1) <= 0:
            return False
        node = node.parent
    return True


def _within_view(widget: Any, x: float, y: float, w: float, h: float) -> bool:
    """The box (window coordinates) lies whole inside every scrolled view around the
    widget: a text scrolled partly out of sight is read once a finger scrolls to it."""
    from kivy.uix.stencilview import StencilView

    node = widget.parent
    while node is not None and node is not node.get_root_window():
        if isinstance(node, StencilView):
            left, bottom = node.to_window(node.x, node.y)
            if x < left - 1 or y < bottom - 1:
                return False
            if x + w > left + node.width + 1 or y + h > bottom + node.height + 1:
                return False
        node = node.parent
    return True


def walk(root: Any) -> Iterator[Any]:
    """``root`` and every widget under it."""
    stack = [root]
    while stack:
        w = stack.pop()
        yield w
        stack.extend(w.children)


_natural_widths: dict[tuple[bool, str], float] = {}  # a text's width on one line, by font


def _cut(label: Any) -> str:
    """Why a label's text does not show whole ("" when it does)."""
    from kivy.core.text import Label as CoreLabel
    from kivy.core.text.markup import MarkupLabel

    width = label.text_size[0]
    if width is None:
        return ""

    def natural(text: str) -> float:
        options = {k: getattr(label, k) for k in label._font_properties if hasattr(label, k)}
        options.update(text=text, text_size=(None, None), shorten=False)
        key = (bool(label.markup), repr(sorted(options.items())))
        width = _natural_widths.get(key)
        if width is None:
            core = (MarkupLabel if label.markup else CoreLabel)(**options)  # tags take no room
            core.refresh()
            width = _natural_widths[key] = float(core.content_size[0])
            if len(_natural_widths) > 5000:
                _natural_widths.clear()
        return width

    if label.shorten and natural(label.text) > width + 2:
        return "shortened"
    for word in set(re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", label.text).split()):
        if "/" in word.strip("'\"«»“”()"):  # a file's path: no word, it breaks where it must
            continue
        if natural(word) > width + 2:
            return f"the word {word!r} is broken"
    return ""


def declared_role(widget: Any) -> str:
    """The role a widget declares with ``ink_role`` (a class attribute or a Kivy
    property), "" when it declares none."""
    role = getattr(widget, "ink_role", "")
    return str(role) if role else ""


def label_role(label: Any) -> str:
    """A Label's role: as it declares it; else a number alone is a figure, unless the
    label says it is none (``figure = False``)."""
    return declared_role(label) or ("figure" if _old_figure(label) else "text")


def _old_figure(label: Any) -> bool:
    return bool(getattr(label, "figure", True) and FIGURE.match(label.text.strip()))


def _entry(text: str, ink: int, figure: bool, role: str, heights: tuple[int | None, int | None],
           cut: str) -> dict[str, Any]:  # fmt: skip
    digit, cap = heights
    return {"text": text, "ink": ink, "figure": figure, "role": role, "digit_height": digit,
            "cap_height": cap, "cut": cut}  # fmt: skip


def _label_entry(image: Pixels, w: Any) -> dict[str, Any] | None:
    # the old measure's box: the texture, centred on the widget, within the widget
    tw, th = (min(a, b) for a, b in zip(w.texture_size, w.size, strict=True))
    x, y = w.to_window(w.center_x - tw / 2, w.center_y - th / 2)
    if not _within_view(w, x, y, tw, th):
        return None
    placed = label_placed(w)
    heights = text_heights(image, placed) if placed else (None, None)
    return _entry(w.text, ink_height(image, x, y, tw, th), _old_figure(w), label_role(w),
                  heights, _cut(w))  # fmt: skip


def _drawn_entries(image: Pixels, w: Any) -> list[dict[str, Any]]:
    """A drawn widget's texts: the ones it names as figures (``figures()``) or as
    watched (``watched()``), the others as its ``ink_role`` says, else texts."""
    figures = set(w.figures()) if hasattr(w, "figures") else set()
    watched = set(w.watched()) if hasattr(w, "watched") else set()
    inks = {seen: ink for ink in getattr(w, "inks", ()) if (seen := ink.seen(w)) is not None}
    out = []
    for t in w.drawn_texts():
        if not t.text.strip() or not _within_view(w, t.x, t.y, t.width, t.height):
            continue
        role = "figure" if t in figures else "watched" if t in watched else ""
        ink = inks.get(t)
        heights = text_heights(image, drawn_placed(ink, t)) if ink is not None else (None, None)
        out.append(_entry(t.text, ink_height(image, t.x, t.y, t.width, t.height), t in figures,
                          role or declared_role(w) or "text", heights,
                          "shortened" if t.shortened else ""))  # fmt: skip
    return out


def _height(t: dict[str, Any]) -> int | None:
    """A text's height as its role is held to it: a figure's digits; another text's
    digits when it holds any, else its capitals."""
    if t["role"] == "figure":
        return t["digit_height"]
    return t["digit_height"] or t["cap_height"]


def _smallest(texts: list[dict[str, Any]], role: str) -> int | None:
    heights = [h for t in texts if t["role"] == role and (h := _height(t))]
    return min(heights) if heights else None


def screen_metrics(window: Any) -> dict[str, Any]:
    """The smallest digit height of the figures, cap height of the watched and of the
    other texts on top of the window, and the texts cut; every text measured, with its
    role, for a closer look (and the earlier measure: ``smallest_figure_ink``,
    ``smallest_text_ink``, each text's ``ink`` and ``figure``)."""
    from kivy.uix.label import Label
    from kivy.uix.modalview import ModalView

    image = window_image(window)
    layers = list(window.children)
    popups = [w for w in layers if isinstance(w, ModalView)]
    top = popups[:1] or layers
    texts: list[dict[str, Any]] = []
    for root in top:
        for w in walk(root):
            if not _shown(w):
                continue
            if isinstance(w, Label) and w.text.strip():
                entry = _label_entry(image, w)
                if entry is not None:
                    texts.append(entry)
            if hasattr(w, "drawn_texts"):
                texts.extend(_drawn_entries(image, w))
    # a text's height is a digit's or a capital's: a dash or a dot alone has neither
    inked = [t for t in texts if t["ink"] > 0 and LETTER.search(t["text"])]
    figures = [t["ink"] for t in inked if t["figure"]]
    words = [t["ink"] for t in inked if not t["figure"]]
    return {
        "smallest_figure_digits": _smallest(texts, "figure"),
        "smallest_watched_cap": _smallest(texts, "watched"),
        "smallest_text_cap": _smallest(texts, "text"),
        "smallest_figure_ink": min(figures) if figures else None,
        "smallest_text_ink": min(words) if words else None,
        "cut": [f"{t['text']!r}: {t['cut']}" for t in texts if t["cut"]],
        "texts": texts,
    }


def least_height(role: str, players: int) -> int:
    """The least height (px of ink) a text of ``role`` may have with ``players`` players
    (or teams) at the table."""
    if role == "figure" and players >= CROWDED:
        return LEAST_FIGURE_CROWDED
    return LEAST[role]


def problems(metrics: dict[str, Any], players: int) -> list[str]:
    """What a screen's measures (``screen_metrics``, or a screenshot's entry in
    ``metrics.json``) show under the limits of TABLE_SCREEN.md, with ``players`` players
    (or teams) at the table: a figure's digits, a watched text's and another text's
    height, and any role that is none of the three."""
    found = []
    for t in metrics["texts"]:
        role = t["role"]
        if role not in ROLES:
            found.append(f"{t['text']!r} says its role is {role!r} (one of {', '.join(ROLES)})")
            continue
        height = _height(t)
        if not height:
            continue
        least = least_height(role, players)
        if height < least:
            what = "digits" if t["digit_height"] else "capitals"
            found.append(f"{role} {t['text']!r}: {what} {height} px high, under {least}")
    return found


def held(shots: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Each screenshot of a ``metrics.json`` (``./dev screenshots``) held to the limits
    at its table's players (2-4 when it has none: a screen before a game): what each
    shows under them, for those that show any."""
    out = {}
    for name, metrics in sorted(shots.items()):
        found = problems(metrics, metrics.get("players") or 2)
        found += [f"cut: {c}" for c in metrics.get("cut", ())]
        if found:
            out[name] = found
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.ui.ink METRICS_JSON``: every screenshot held to the limits;
    exits 1 when one is under them (each problem told)."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m companion.ui.ink METRICS_JSON", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        shots = json.load(f)
    found = held(shots)
    for name, listed in found.items():
        for problem in listed:
            print(f"{name}: {problem}")
    print(f"{len(shots)} screenshots held to the limits: {len(found)} under them")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
