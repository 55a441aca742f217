"""The window's settings that the table's picture depends on, set before Kivy makes the
window (importing ``kivy.core.window`` makes it): the app, its tests, its monkey and its
benchmark all open the same window, read Kivy's rules the same way and draw its labels'
words the same way. And what must be set before Kivy is imported at all
(``before_kivy``)."""

from __future__ import annotations

import os

WIDTH, HEIGHT = 800, 480  # the 7" touchscreen's pixels
# the image readers Kivy may load: its own texture and DDS files, and SDL2 (PNG, JPEG),
# which reads everything Kivy shows here (the app has no picture of its own). Without this
# Kivy imports every reader it knows, Pillow's among them where Pillow is installed (a
# development machine: the tests read screenshots with it): a tenth of a second at a
# Pi's speed before the first frame, for a reader that SDL2 comes before anyway.
IMAGE_READERS = "tex,dds,sdl2"


def before_kivy() -> None:
    """What must be set before Kivy is first imported (``clank-companion app`` and its
    benchmark do it first): the image readers Kivy loads, which it reads from the
    environment as it is imported (one set there by hand is kept), and the kept readings
    of its rules (``kv_cache``: Kivy parses ``style.kv`` as its language is imported)."""
    from companion.ui import kv_cache

    os.environ.setdefault("KIVY_IMAGE", IMAGE_READERS)
    kv_cache.install()


def window_settings() -> None:
    """800x480 from the first frame, and no multisampling: the table is drawn again only
    where it changed (``companion.ui.paint``), and a frame drawn in part must be the
    frame drawn whole to the pixel; Kivy's default of 2 samples per pixel softens edges
    only where a shape is drawn straight into the window."""
    from companion.ui import text_cache

    before_kivy()  # before the labels below import Kivy's language, which parses its rules
    from kivy.config import Config as KivyConfig

    KivyConfig.set("graphics", "width", str(WIDTH))
    KivyConfig.set("graphics", "height", str(HEIGHT))
    KivyConfig.set("graphics", "multisamples", "0")
    text_cache.install()  # a label's words drawn once, not at every return to them
