"""What several screens use: the running app, a big button, and how a hash, a game's
proof, a date, a box and a part of a score are written on screen."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.metrics import dp
from kivy.uix.button import Button

from companion.i18n import N_, _, ed_

if TYPE_CHECKING:
    from companion.ui.app import CompanionApp

LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "uk": "Українська", "es": "Español"}


def app() -> CompanionApp:
    """The running companion (its controller, its store, its screens)."""
    running: CompanionApp = App.get_running_app()
    return running


def big_button(text: str, on_press: Callable[[], Any], **kwargs: Any) -> Button:
    """A button a finger finds at arm's length: 56 px high (about 11 mm on the 7" screen)."""
    options: dict[str, Any] = {
        "text": text,
        "size_hint_y": None,
        "height": 56,
        "font_size": "17sp",
        "halign": "center",
        "valign": "middle",
        "shorten": True,
        "background_normal": "",
        "background_color": (0.25, 0.27, 0.32, 1),
    }
    options.update(kwargs)
    button = Button(**options)
    button.bind(size=lambda b, size: setattr(b, "text_size", (size[0] - 8, size[1])))
    button.bind(on_release=lambda b: on_press())
    return button


def table_button(text: str, on_press: Callable[[], Any], **kwargs: Any) -> Button:
    """A big button in the table's words (26 px, about 18 px of ink), a long text on two
    lines rather than shortened."""
    options: dict[str, Any] = {"font_size": "26sp", "height": dp(72), "shorten": False,
                               "line_height": 0.88}  # fmt: skip
    return big_button(text, on_press, **{**options, **kwargs})


def grouped(digits: str, per_line: int = 4) -> str:
    """A hash to read aloud or photograph: groups of 8 digits, ``per_line`` to a line
    (64 hex digits: two lines of four groups)."""
    groups = [digits[i : i + 8] for i in range(0, len(digits), 8)]
    return "\n".join(" ".join(groups[i : i + per_line]) for i in range(0, len(groups), per_line))


def proof_data(
    game: int | None, commitment: str, seed: str, client_seed: str, head: str, *, final: bool
) -> str:
    """The verification data of a game, as the QR code carries it (JSON, no spaces; see
    docs/proof.md, "What the QR holds"): ``final`` says whether the chain head is the final
    one (the game was closed: nothing can follow it). The client seed goes in as the
    SHA-256 of its UTF-8 text: a seed may be long (a table script allows 1000 characters,
    the typed words have no limit), and the code keeps one size, readable full screen."""
    import hashlib

    return json.dumps(
        {
            "game": game,
            "final": final,
            "commitment": commitment,
            "server_seed": seed,
            "client_seed_sha256": hashlib.sha256(client_seed.encode("utf-8")).hexdigest(),
            "chain_head": head,
        },
        separators=(",", ":"),
    )


def game_date(created_at: str) -> str:
    """When a game was started, in the companion's local time (to the minute)."""
    try:
        when = datetime.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return str(created_at)
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


GAME_STATUS = {"playing": N_("running"), "over": N_("over"), "abandoned": N_("abandoned")}


def edition_title(edition: str) -> str:
    """An edition's title in the table's language, as its kind names it."""
    from companion.store.tags import edition_title as title

    return title(edition)


def part_name(part: str, edition: str) -> str:
    """A part of a score ("artifacts", "gold", ...) as the scoring screen and the charts
    name it."""
    names = {
        "artifacts": _("Artifacts"),
        "tokens": _("Tokens"),
        "gold": _("Gold"),
        "cards": _("Cards"),
        "secrets": ed_(edition, "Secrets"),
        "prisoners": _("Prisoners"),
    }
    return names.get(part, part.replace("_", " ").capitalize())
