"""The widgets every table shares: behaviour here, layout in kv/*.kv."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.togglebutton import ToggleButton

from companion.ui.drawn import fitting_font_size
from companion.ui.layouts import Layout


def _register_fonts() -> None:
    """Kivy's DejaVuSans (arrows, hearts, the skull) and its monospaced font by name: a
    font given by a name Kivy does not know is looked up on disk at every text drawn."""
    import os

    from kivy import kivy_data_dir
    from kivy.core.text import LabelBase

    for name in ("DejaVuSans", "RobotoMono-Regular"):
        LabelBase.register(name, os.path.join(kivy_data_dir, "fonts", name + ".ttf"))


_register_fonts()

SEAT_COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


class Screens(Layout, ScreenManager):
    """The app's screens, one shown at a time, without a transition. Kivy's screen
    manager clips its screens to its box with a stencil (for transitions that slide one
    beside another); that cost every frame two fills of the whole window into the
    stencil buffer and a stencil test for every pixel drawn, where OpenGL is drawn by the
    CPU (a third of a redrawn table's time). Shown one at a time, full size, the screens
    need no clipping: its rule in common.kv draws nothing."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("transition", NoTransition())
        super().__init__(**kwargs)


class StatusBar(Layout, BoxLayout):
    text = StringProperty("")
    simulated = BooleanProperty(False)


if TYPE_CHECKING:  # the mixin is always mixed into a Label
    from kivy.uix.label import Label as _LabelBase
else:
    _LabelBase = object


class FitText(_LabelBase):
    """A text that must be read whole in every language: its font shrinks from
    ``full_font_size`` (to ``min_font_size`` at most) until the text fits the widget,
    wrapped to the widget's width when ``text_size`` has one."""

    full_font_size = NumericProperty("15sp")
    min_font_size = NumericProperty("11sp")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fitted: tuple[Any, ...] = ()
        self.bind(text=self._refit, size=self._refit, full_font_size=self._refit, bold=self._refit,
                  font_name=self._refit, markup=self._refit, text_size=self._refit)  # fmt: skip
        self._refit()

    def _refit(self, *args: Any) -> None:
        full, least = self.full_font_size, self.min_font_size
        wrap = None if self.shorten else self.text_size[0]  # shortened: one line
        state = (self.text, self.width, self.height, full, least, wrap, self.bold, self.font_name)
        if state == self._fitted:
            return
        self._fitted = state
        size = full
        if self.text and self.width > 1 and self.height > 1:
            options = {k: getattr(self, k) for k in Label._font_properties}
            size = fitting_font_size(options, full, least, (self.width, self.height), wrap)
        self.font_size = size


class FitLabel(FitText, Label):
    pass


class FitToggleButton(FitText, ToggleButton):
    pass
