"""How high the texts of a screen are drawn, measured from the window's pixels: the ink a
player 80 cm away reads (TABLE_SCREEN.md), not the font size asked for.

``screen_metrics`` reads the window once and, for every text shown on top (a pop-up's
only, while one is open), finds the rows of its box that hold ink: pixels that stand
out from the box's own background (its most common colour). A text's ink height is the
tallest run of such rows (one line of it: a digit, a capital with what hangs below the
line). Figures (a Label's number alone, or the numbers a drawn widget names as its
figures: cubes, health, the next attack) and other texts are told apart, and the
texts shortened with "..." or with a word wider than their box are listed. The
screenshots (``./dev screenshots``) write these beside them, in
``metrics.json``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

FIGURE = re.compile(r"^[−+\-]?\d+([.,]\d+)?\s*%?$")  # a number alone: a figure
LETTER = re.compile(r"[^\W_]")  # a letter or a digit: what a text's height is read from
INK = 90  # how far (summed over R, G, B) a pixel stands from the background to be ink

Pixels = list[list[tuple[int, int, int]]]  # rows, bottom first


def window_image(window: Any) -> Pixels:
    """The window's pixels, row by row from the bottom (after a frame)."""
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glPixelStorei, glReadPixels

    glPixelStorei(0x0D05, 1)  # GL_PACK_ALIGNMENT: rows as they are
    w, h = (int(v) for v in window.size)
    data = glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE)
    return [
        [(data[i], data[i + 1], data[i + 2]) for i in range(row * w * 3, (row + 1) * w * 3, 3)]
        for row in range(h)
    ]


def ink_height(image: Pixels, x: float, y: float, w: float, h: float) -> int:
    """The tallest run of rows holding ink in the box (window coordinates)."""
    height = len(image)
    width = len(image[0]) if image else 0
    x0, y0 = max(0, int(x)), max(0, int(y))
    x1, y1 = min(width, int(x + w)), min(height, int(y + h))
    if x1 <= x0 or y1 <= y0:
        return 0
    rows = [image[r][x0:x1] for r in range(y0, y1)]
    background = Counter(p for row in rows for p in row).most_common(1)[0][0]

    def inked(row: list[tuple[int, int, int]]) -> bool:
        return any(sum(abs(a - b) for a, b in zip(p, background, strict=True)) > INK for p in row)

    best = run = 0
    for row in rows:
        run = run + 1 if inked(row) else 0
        best = max(best, run)
    return best


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
        core = (MarkupLabel if label.markup else CoreLabel)(**options)  # tags take no room
        core.refresh()
        return float(core.content_size[0])

    if label.shorten and natural(label.text) > width + 2:
        return "shortened"
    for word in set(re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", label.text).split()):
        if "/" in word.strip("'\"«»“”()"):  # a file's path: no word, it breaks where it must
            continue
        if natural(word) > width + 2:
            return f"the word {word!r} is broken"
    return ""


def screen_metrics(window: Any) -> dict[str, Any]:
    """The smallest ink of the figures and of the other texts on top of the window, and
    the texts cut; every text measured, for a closer look."""
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
                # where its texture is drawn (centred on the widget), within the widget
                tw, th = (min(a, b) for a, b in zip(w.texture_size, w.size, strict=True))
                x, y = w.to_window(w.center_x - tw / 2, w.center_y - th / 2)
                if not _within_view(w, x, y, tw, th):
                    continue
                texts.append(
                    {
                        "text": w.text,
                        "ink": ink_height(image, x, y, tw, th),
                        # a number alone, unless the label says it is no figure
                        "figure": getattr(w, "figure", True) and bool(FIGURE.match(w.text.strip())),
                        "cut": _cut(w),
                    }
                )
            if hasattr(w, "drawn_texts"):
                # a drawn widget names its figures (the numbers a player looks for); its
                # other numbers (a rage space, a count in the bag) are texts
                named = set(w.figures()) if hasattr(w, "figures") else set()
                for t in w.drawn_texts():
                    if not t.text.strip() or not _within_view(w, t.x, t.y, t.width, t.height):
                        continue
                    texts.append(
                        {
                            "text": t.text,
                            "ink": ink_height(image, t.x, t.y, t.width, t.height),
                            "figure": t in named,
                            "cut": "shortened" if t.shortened else "",
                        }
                    )
    # a text's height is a digit's or a capital's: a dash or a dot alone has neither
    inked = [t for t in texts if t["ink"] > 0 and LETTER.search(t["text"])]
    figures = [t["ink"] for t in inked if t["figure"]]
    words = [t["ink"] for t in inked if not t["figure"]]
    return {
        "smallest_figure_ink": min(figures) if figures else None,
        "smallest_text_ink": min(words) if words else None,
        "cut": [f"{t['text']!r}: {t['cut']}" for t in texts if t["cut"]],
        "texts": texts,
    }
