"""The settings, behind the admin PIN: the language, the reader picked from a list, the
pins by name, a new link for the phones, a new admin PIN, Abandon and Quit. Layout in
kv/settings.kv."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.config import LANGUAGES
from companion.i18n import N_, _
from companion.pin import hash_pin
from companion.ui.layouts import Layout
from companion.ui.screens.kit import app
from companion.ui.screens.popups import Picker

SERIAL_PORTS = ("/dev/serial0", "/dev/ttyUSB0", "/dev/ttyAMA0")
PIN_NAMES = {
    "end_turn": N_("End turn button"),
    "undo": N_("Undo button"),
    "led_green": N_("Green LED"),
    "led_red": N_("Red LED"),
    "buzzer": N_("Buzzer"),
}


def reader_names() -> dict[str, str]:
    """Each kind of hardware.readers.READERS as a person knows it."""
    return {
        "fake": _("Simulated (no reader)"),
        "mfrc522": _("MFRC522 on SPI"),
        "pn532": "PN532",
        "rdm6300": "RDM6300",
        "wedge": _("Keyboard wedge (USB)"),
    }


def reader_choices() -> list[tuple[str, str]]:
    """The readers the companion supports (hardware.readers.READERS), as a person picks
    one: (spec, what the button says); a serial reader once per usual port."""
    from hardware.readers import READERS

    names = reader_names()
    out = []
    for kind in READERS.values():
        name = names.get(kind.name, kind.name)
        if kind.needs_arg:
            for port in SERIAL_PORTS:
                label = _("{reader} on {port}").format(reader=name, port=port)
                out.append((f"{kind.name}:{port}", label))
        else:
            out.append((kind.name, name))
    return out


def reader_kind(spec: str) -> tuple[str, str]:
    """(kind, serial port) of a reader spec: 'pn532:/dev/serial0,x' -> ('pn532', '/dev/serial0')."""
    from hardware.readers import READERS

    head, _colon, rest = spec.strip().partition(":")
    kind = head.partition(",")[0].strip().lower()
    serial = kind in READERS and bool(READERS[kind].needs_arg)
    port = rest.partition(",")[0].strip() if serial else ""
    return kind, port


def reader_label(spec: str) -> str:
    """The reader a spec names, in words (never the wedge's device path)."""
    kind, port = reader_kind(spec)
    for choice, label in reader_choices():
        if reader_kind(choice) == (kind, port):
            return label
    name = reader_names().get(kind, kind)
    return _("{reader} on {port}").format(reader=name, port=port) if port else name


class SettingsScreen(Layout, Screen):
    """For people: the language (the chosen one marked), the reader picked from a list,
    the pins in a table with their names; no file paths, no internal keys."""

    layouts = ("settings.kv",)

    message = StringProperty("")
    language = StringProperty("")
    reader_text = StringProperty("")
    details = StringProperty("")
    has_game = BooleanProperty(False)

    def on_pre_enter(self, *args: Any) -> None:
        self.message = ""
        self.refresh()

    def refresh(self) -> None:
        from companion.i18n import current_language

        settings = app().settings_
        self.language = current_language()
        self.reader_text = reader_label(settings.reader.spec)
        pins = self.ids.pins
        pins.clear_widgets()
        for f in dataclasses.fields(settings.gpio):  # a row each: its name, its number
            name = Label(text=_(PIN_NAMES.get(f.name, f.name)), font_size="26sp",
                         halign="left", valign="middle", size_hint_y=None, height=48)  # fmt: skip
            name.bind(
                width=lambda w, width: setattr(w, "text_size", (width - 16, None)),
                texture_size=lambda w, size: setattr(w, "height", max(48, size[1] + 8)),
            )
            number = Label(text=str(getattr(settings.gpio, f.name)), font_size="26sp",
                           bold=True, size_hint=(None, None), width=120, height=48)  # fmt: skip
            number.ink_role = "text"  # a pin's number, not a figure of the game
            name.bind(height=lambda w, height, number=number: setattr(number, "height", height))
            pins.add_widget(name)
            pins.add_widget(number)
        ctl = app().controller  # the controller of the game on the table, of any kind
        self.has_game = ctl.may_abandon
        self.details = ctl.settings_note()

    def choose_reader(self) -> None:
        current = reader_kind(app().settings_.reader.spec)
        entries = []
        for spec, label in reader_choices():
            chosen = reader_kind(spec) == current
            shown = _("{reader} (chosen)").format(reader=label) if chosen else label
            entries.append((shown, lambda spec=spec: self.set_reader(spec)))
        Picker(_("Reader"), entries).open()

    def set_reader(self, spec: str) -> None:
        current = app().settings_.reader.spec
        if reader_kind(spec) == reader_kind(current):
            spec = current  # the same reader: its options (bus, reset pin) stay
        if self.save(reader={"spec": spec}):
            self.refresh()

    def save(self, **changes: Any) -> bool:
        problem = app().save_settings(**changes)
        if problem:
            self.message = problem
            return False
        self.message = _("Saved; the reader changes at the next start.")
        return True

    def set_language(self, language: str) -> None:
        if language in LANGUAGES:
            app().set_language(language)

    def ask_new_phone_link(self) -> None:
        """A new token for the phones (a link that got out, a guest gone home), once the
        table confirms: every link made with the old one stops working at once."""
        app().ask(
            _("Give the phones a new link? The old one stops working at once."),
            _("Yes, a new link"),
            self.new_phone_link,
            note=_("Every phone scans the new code again: Menu, then Phones."),
            tied=False,
        )

    def new_phone_link(self) -> None:
        """The token beside the game database renewed (``companion.join_link``: nothing
        of the web side is loaded). The phones' page takes it at its next request, and
        Menu, then Phones, shows the new link's code."""
        from companion.join_link import WebError, renew_token

        try:
            renew_token(app().store.path)
        except WebError as e:
            self.message = e.localized()
            return
        self.message = _("The phones have a new link: Menu, then Phones, shows its code.")

    def new_pin(self) -> None:
        """A new random PIN: saved as its hash, shown once (here) to be written down."""
        pin = f"{secrets.randbelow(10**6):06d}"  # as the installer makes it
        if self.save(app={"admin_pin_hash": hash_pin(pin), "admin_pin": ""}):
            self.message = _("The new admin PIN is {pin}: write it down.").format(pin=pin)
