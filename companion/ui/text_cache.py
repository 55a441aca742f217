"""A label's words drawn once: the texture of a text drawn lately is shown again.

Kivy draws a label's text into a texture each time the text changes, even back to a text
it showed a moment ago. The table says the same things over and over: "End Red's turn"
every round, the names of the row's cards, the status line after each reveal, "No tag".
So each label's texture is kept under a key of everything that draws it (the renderer's
kind, the text, its colour, the box it is wrapped in, every option of Kivy's text
renderer), and a label that comes to a text drawn lately under the same key shows that
texture instead of drawing it again: the same pixels, drawn once.

A kept texture is never drawn into again: a label whose text changes gets a new texture
(Kivy would draw the new text into the old one when their sizes match, and the old one
may be showing in another label) and has it drawn at once rather than at its first
frame. Labels with references or anchors in their markup are not kept (their zones come
from the drawing). At most ``KEPT`` textures are kept, the one shown longest ago dropped
first. ``install`` puts this in every Label's ``texture_update``, Kivy's own included.

A kept texture holds its pixels for as long as the OpenGL context lives. Kivy reloads
the context (and asks each label's renderer to fill its texture again) only where it
makes a new window for an old one; on Linux it never does.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

KEPT = 256
# what Kivy's text renderer holds after drawing a text (its lines, read by
# companion.ui.ink, and its sizes): given back with the texture, as a drawing leaves them
CORE = ("_cached_lines", "_internal_size", "_size_texture", "_size", "is_shortened")
SKIPPED = frozenset({"text", "text_size"})
_kept: OrderedDict[tuple[Any, ...], tuple[Any, dict[str, Any]]] = OrderedDict()
stats = {"kept": 0, "drawn": 0}  # texts shown again, texts drawn (the tests read them)


def key(widget: Any) -> tuple[Any, ...] | None:
    """Everything that decides the pixels of the widget's text; None when its texture must
    not be kept (no text, or markup whose references come from the drawing)."""
    label, text = widget._label, widget.text
    if not text or ("[ref=" in text or "[anchor=" in text) and widget.markup:
        return None
    # the renderer's options but its text (the widget's is the one drawn) and its box (Kivy
    # copies the box the text is wrapped in into the options only as it draws)
    options = tuple((name, tuple(value) if isinstance(value, list) else value)
                    for name, value in label.options.items() if name not in SKIPPED)  # fmt: skip
    return (type(label), text, tuple(label._text_size), widget.markup, widget.disabled,
            tuple(widget.color), tuple(widget.disabled_color), options)  # fmt: skip


def install() -> None:
    """Every Label's texture goes through the kept ones from now on (done once)."""
    from kivy.uix.label import Label

    if getattr(Label, "_kept_texts", False):
        return
    update = Label.texture_update

    def texture_update(self: Any, *args: Any) -> None:
        k = key(self)
        if k is None or (found := _kept.get(k)) is None:
            self._label.texture = None  # a new texture: the old one may be kept
            update(self, *args)
            stats["drawn"] += 1
            texture = self.texture
            if k is None or texture is None or texture is self._label.texture_1px:
                return
            texture.bind()  # drawn now: nothing draws into a kept texture again
            _kept[k] = (texture, {name: getattr(self._label, name) for name in CORE})
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
            return
        _kept.move_to_end(k)
        stats["kept"] += 1
        texture, core = found
        label = self._label
        for name, value in core.items():
            setattr(label, name, value)
        label.texture = texture
        if self.markup:
            self.refs, self.anchors = {}, {}
        self.texture = texture
        self.texture_size = list(texture.size)
        self.is_shortened = label.is_shortened

    Label.texture_update = texture_update
    Label.drawn_by_kivy = update  # Kivy's own, which the tests compare with
    Label._kept_texts = True
