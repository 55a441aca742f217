"""The tags screen: enroll one tag, walk a whole box (bulk), or re-bind a tag; while it
listens, the next scan is its own. Layout in kv/tags.kv.

The boxes it offers are the registry's (``companion.kinds.editions()``), each by its
kind's title, and what a bulk enrollment walks is the kind's (``GameKind.bulk_sets``,
``bulk_label``): a new kind's tags are enrolled here as they are."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import _, ngettext
from companion.kinds import DEFAULT, editions, kind_of
from companion.store.tags import BulkEnrollment, TagError, edition_title
from companion.ui.layouts import Layout
from companion.ui.screens.kit import app


def titled_editions() -> list[tuple[str, str]]:
    """Every edition a kind plays, with its title in the table's language: (edition,
    title), in the registry's order (an edition its kind gives no title is left out)."""
    return [(e, edition_title(e)) for e in editions() if kind_of(e).titles.get(e)]


class TagsScreen(Layout, Screen):
    """Enroll one tag, walk a whole box (bulk), or re-bind a tag: the next scan is ours."""

    follows_game = True  # redrawn (refresh) as the game on the table changes

    layouts = ("tags.kv",)

    mode = StringProperty("")  # "", "enroll", "rebind", "bulk"
    prompt = StringProperty("")
    summary = StringProperty("")
    edition = StringProperty(DEFAULT)
    bulk_text = StringProperty("")  # the bulk button: what the edition's kind walks

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bulk: BulkEnrollment | None = None
        self.on_edition()

    def on_pre_enter(self, *args: Any) -> None:
        table = app().controller.table  # the game on the table's box first
        if table is not None:
            self.edition = table.edition
        self.show_editions()
        self.refresh()

    def on_leave(self, *args: Any) -> None:
        self.stop()

    def show_editions(self) -> None:
        """One toggle per edition of the registry, the edition chosen down; a long title
        is given a wider toggle (on two lines rather than shortened)."""
        row = self.ids.editions
        row.clear_widgets()
        for edition, title in titled_editions():
            toggle = Factory.TagsToggle(text=title, size_hint_x=max(1.0, len(title) / 10))
            toggle.edition = edition
            toggle.state = "down" if edition == self.edition else "normal"
            toggle.bind(on_release=lambda t: setattr(self, "edition", t.edition))
            row.add_widget(toggle)

    def on_edition(self, *args: Any) -> None:
        self.bulk_text = _(kind_of(self.edition).bulk_label)
        for toggle in self.ids.editions.children if "editions" in self.ids else ():
            toggle.state = "down" if toggle.edition == self.edition else "normal"

    def refresh(self) -> None:
        count = app().tags.count()
        self.summary = ngettext("{n} tag enrolled", "{n} tags enrolled", count).format(n=count)
        if self.mode == "":
            self.prompt = _("Choose what the next scans do.")

    def start(self, mode: str) -> None:
        """Listen for the next scans: "enroll", "bulk" or "rebind". Re-binding during a
        game (of any box) changes what the table's tags mean: it needs the admin PIN
        first."""
        a = app()
        if mode == "rebind" and a.controller.in_play:  # the game on the table, of any kind
            a.ask_pin(lambda: self._start(mode), prompt=_("Admin PIN: re-bind a tag during a game"))
            return
        self._start(mode)

    def _start(self, mode: str) -> None:
        self.mode = mode
        if mode == "bulk":
            self.bulk = app().tags.bulk_enrollment(self.edition)
            self.prompt = self.bulk.progress().localized()
        elif mode == "enroll":
            self.prompt = _("Scan the new tag.")
        elif mode == "rebind":
            self.prompt = _("Scan the tag to re-bind.")

    def stop(self) -> None:
        self.mode = ""
        self.bulk = None
        self.refresh()

    def skip(self) -> None:
        if self.bulk is not None:
            self.bulk.skip()
            self.prompt = self.bulk.progress().localized()

    def scanned(self, uid: str) -> None:
        """A raw tag scan while this screen listens."""
        if self.mode == "bulk" and self.bulk is not None:
            try:
                binding = self.bulk.scanned(uid)
            except TagError as e:
                self.prompt = e.localized() + "\n" + self.bulk.progress().localized()
                return
            self.prompt = (
                _("{uid} is {component}").format(
                    uid=binding.uid, component=binding.component.localized()
                )
                + "\n"
                + self.bulk.progress().localized()
            )
            if self.bulk.done:
                self.mode = ""
            self.refresh()
            return
        if self.mode in ("enroll", "rebind"):
            current = app().tags.lookup(uid)
            if current is not None and self.mode == "enroll":
                self.prompt = _("{uid} is already {component}: use Re-bind").format(
                    uid=uid, component=current.localized()
                )
                return
            app().choose_binding(uid, rebind=self.mode == "rebind", then=self._bound)

    def _bound(self, message: str) -> None:
        self.prompt = message
        self.mode = ""
        self.refresh()
