"""The players' phones: the join link of the phones' page (docs/phones.md) as a QR code
large enough to scan at arm's length, the link in words under it. Layout in
kv/phones.kv.

Where the link comes from: the file the web service leaves it in (``$CLANK_WEB_URL_FILE``:
on the Pi the kiosk has no network of its own and cannot learn the Pi's address), or,
where no such file is named (a desktop, ``./dev app``), made here from the settings'
``[web]`` address and port and the token beside the game database. Nothing of the web
side is loaded for it (no aiohttp): ``companion.join_link`` only, when first shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion.config import Config
from companion.i18n import _
from companion.ui.layouts import Layout
from companion.ui.screens.kit import app

RECHECK_SECONDS = 2.0  # while shown: the web service may start (or stop) meanwhile
SHOWN_TOKEN = 4  # characters of the token the words show (the code holds it whole)


def phones_link(settings: Config, database: Path) -> tuple[str, str]:
    """The join link and, without one, why not (in the table's language): ``(url, "")``
    or ``("", problem)``."""
    if not settings.web.enabled:
        return "", _("Phones are off: turn them on in the settings' [web] section")
    from companion import join_link  # when first shown: nothing of it at the first frame

    named = join_link.url_file()
    if named is not None:  # the Pi: the web service says where it listens
        try:
            url = join_link.read_url_file(named)
        except join_link.WebError as e:
            return "", e.localized()
        if url is None:
            return "", _("The phones' page is not running yet: it starts just after the table")
        return url, ""
    try:
        token = join_link.read_token(join_link.token_path(database))
    except join_link.WebError as e:
        return "", e.localized()
    if token is None:
        return "", _("Phones are off: they have no token yet (clank-companion serve makes one)")
    return join_link.join_url(settings.web.address, settings.web.port, token), ""


def shown_link(url: str) -> str:
    """The link in words: its token shortened (nobody types it; the code holds it)."""
    base, mark, token = url.partition("?t=")
    if not mark or len(token) <= SHOWN_TOKEN:
        return url
    return f"{base}{mark}{token[:SHOWN_TOKEN]}…"


class PhonesScreen(Layout, Screen):
    """The QR code of the phones' join link, the link in words and how to scan it; or
    what keeps the phones off. Back returns to the table (or the new game)."""

    layouts = ("phones.kv",)

    url = StringProperty("")  # the join link, whole: what the code holds
    link_text = StringProperty("")  # the link in words, its token shortened
    problem = StringProperty("")  # why there is no code

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._recheck: Any = None

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()
        if self._recheck is None:
            self._recheck = Clock.schedule_interval(self._look_again, RECHECK_SECONDS)

    def on_leave(self, *args: Any) -> None:
        self._stop_looking()

    def _look_again(self, dt: float) -> None:
        """Every few seconds while shown; a screen no longer on the window (the layouts
        rebuilt for another language, the app stopped) stops looking."""
        manager = self.manager
        shown = manager is not None and manager.current_screen is self
        if shown and app() is not None and self.get_root_window() is not None:
            self.refresh()
        else:
            self._stop_looking()

    def _stop_looking(self) -> None:
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None

    def refresh(self) -> None:
        running = app()
        url, problem = phones_link(running.settings_, running.store.path)
        self.url, self.problem = url, problem
        self.link_text = shown_link(url) if url else ""

    def back(self) -> None:
        running = app()
        running.show_screen(running.home_screen())
