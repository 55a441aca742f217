"""The phone page's fixed words, in the table's language.

Marked here with ``N_`` and ``NN_`` (``python -m companion.i18n_tools extract`` puts them
in the catalogs) and sent to the page as JSON (``/api/words``): the page itself holds no
text of its own. What depends on the game (whose turn, the odds, the last action) is
worded by its kind's phones part (``companion.web.view``) with each state. A word with
``{...}`` is filled in by the page (the placeholders stay as they are in every language).

A word with a count the page learns itself (``PLURALS``: the draws its own verifier
recomputed, the records of the log...) comes with every plural form the table's language
has (Russian and Ukrainian have three) and which form each count takes.

The language is the table's (``[app] language`` of the settings): ``TableLanguage``
follows the settings file, so that a change on the table reaches the phones without a
restart of the server.
"""

from __future__ import annotations

from typing import Any

from companion.config import ConfigError, candidates, load_config
from companion.i18n import (
    COLOUR_LETTERS,
    CUBE_NAMES,
    _,
    current_language,
    ngettext,
    pgettext,
    resolve_language,
)
from companion.join_link import file_signature
from companion.msg import N_, NN_

WORDS = {
    # the page's title and the join step
    "title": N_("Table companion"),
    "connecting": N_("Connecting to the table…"),
    "offline": N_("No connection to the table: trying again"),
    "no_game": N_("No game yet: the table has not started one."),
    "unreadable": N_("The table's game cannot be read just now."),
    # a game of a box whose games the phones have no page for: followed on the table alone
    "not_shown": N_("The phones cannot show this game: follow it on the table."),
    "pick_colour": N_("Which colour are you?"),
    "pick_name": N_("Who are you?"),
    "watching": N_("Just watching"),
    "change": N_("Change"),
    "damaged": N_("The log does not check from record {n} on: the table's audit says more."),
    "you": N_("you"),
    "new_link": N_(
        "The table gave the phones a new link: scan its code again (on the table: Menu, "
        "then Phones)."
    ),
    # the table while it plays
    "your_turn": N_("Your turn"),
    # TRANSLATORS: the badge on the panel of the player whose turn it is (as on the table)
    "turn": N_("turn"),
    "health_left": N_("health left"),
    "in_area": N_("cubes in the area"),
    "knock_out": N_("knock-out"),
    "supply": N_("in supply"),
    "bag": N_("The bag"),
    "next_attack": N_("Next attack"),
    "last": N_("Last action"),
    "others": N_("The other players"),
    "your_odds": N_("Your odds at the next draw"),
    "all_odds": N_("Everybody's odds"),
    "gold": N_("gold"),
    "artifacts": N_("artifacts"),
    "danger": N_("danger"),
    "countdown": N_("countdown space {space} of 5"),
    # Tschak!
    "tower": N_("Tower {tower} of 4"),
    "floor": N_("floor {floor}"),
    "floors": N_("The floors so far"),
    "this_tower": N_("This tower"),
    "strength": N_("strength"),
    "treasure": N_("treasure"),
    "monster": N_("monster"),
    # after the game
    "game_over": N_("Game over"),
    "abandoned": N_("The game was abandoned"),
    "scores": N_("Scores"),
    "proof": N_("The proof"),
    "proof_note": N_(
        "Before the first draw the table showed the commitment; now the seed is revealed "
        "and every draw can be recomputed. Compare the commitment and the final chain head "
        "with the photographs taken at the table."
    ),
    "commitment": N_("Commitment"),
    "seed": N_("Server seed (revealed)"),
    "seed_lost": N_("The seed was lost with its seal key: its draws can never be recomputed."),
    "no_bag": N_("This game has no dragon bag: its log is chained, with no draw to check."),
    "seed_given": N_("seed chosen outside the companion: draws reproducible, not provably fair"),
    "client_seed": N_("Client seed"),
    "head_final": N_("Final chain head"),
    "head_so_far": N_("Chain head so far (the game was not closed)"),
    "download": N_("Download the log"),
    "verify": N_("Check every draw on this phone"),
    "verify_log": N_("Check the log on this phone"),
    "verifying": N_("Checking…"),
    "verified_log": N_("The log checks: every record is chained"),
    "verify_failed": N_("The log does not check: {message}"),
    "not_fair": N_("The log holds together, but its draws prove nothing: {message}"),
    "sealed": N_("Not yet: the seed is sealed until the game ends"),
    "verify_missing": N_("The checker could not be loaded on this phone."),
    "bgstats": N_("Add to BG Stats"),
    "bgstats_note": N_("Opens the BG Stats app with this game's scores, for you to confirm."),
    # no news from the table for too long ({time}: the last): the page connects again
    "stale": N_("Not up to date since {time}: connecting to the table again"),
    # the games before the one the table plays now
    "earlier_games": N_("Earlier games"),
    "earlier_game": N_("An earlier game"),
    "back_live": N_("Back to the table's game"),
    "pick_again": N_("The table began a new game: choose again."),
    # TRANSLATORS: beside the colour (or the name) this phone chose in the game before
    "last_choice": N_("last game"),
    # the phone as a witness of the proof: {commitment} is the commitment's first digits,
    # {time} (and {later}) when this phone saw it
    "witness": N_("What this phone saw"),
    "witness_saw": N_("This phone saw commitment {commitment} at {time}"),
    "witness_note": N_("It keeps it, and checks the revealed seed against it at the end."),
    "witness_match": N_(
        "This phone saw commitment {commitment} at {time}; the revealed seed matches it"
    ),
    "witness_checked": N_(
        "This phone saw commitment {commitment} at {time}; the revealed seed matches it: "
        "every draw checks"
    ),
    "witness_mismatch": N_(
        "This phone saw commitment {commitment} at {time}; the revealed seed does NOT match it"
    ),
    "witness_changed": N_(
        "The commitment changed during the game: this phone saw {commitment} at {time}, "
        "then {other} at {later}"
    ),
    "witness_other": N_(
        "This phone saw commitment {commitment} at {time}, but the table's proof names {other}"
    ),
    "witness_none": N_(
        "This phone did not see this game's commitment while it was played: it cannot witness it."
    ),
}


# The words the page shows with a count ({n}), in the plural form for that count.
PLURALS = {
    # the next attack, when there are no odds to word it
    "cubes": NN_("{n} cube", "{n} cubes"),
    # the folded floors of a Tschak! game: while it runs, and after it
    "earlier": NN_("{n} earlier floor", "{n} earlier floors"),
    "floors_played": NN_("{n} floor played", "{n} floors played"),
    # TRANSLATORS: above the winners' names; the form follows how many won (no number shown)
    "winners": NN_("Winner", "Winners"),
    "records": NN_("{n} record in the log", "{n} records in the log"),
    # TRANSLATORS: {n} is how many draws the phone recomputed, each one checking
    "verified": NN_("Every draw checks: {n} recomputed", "Every draw checks: {n} recomputed"),
}
# Which form a count takes is asked of the catalog for every count below PICKED; a larger
# count takes the form of 100 plus its last two digits: the plural rules of gettext's
# languages look at a count's last two digits, and at small counts alone.
PICKED = 200


def plural_forms(singular: str, plural: str) -> dict[str, Any]:
    """The plural forms of a word in the current language and which one each count
    takes: ``{"forms": [...], "pick": "0120..."}``, ``pick[n]`` the form of ``n`` for
    ``n`` below PICKED (one digit each: gettext has at most six forms)."""
    forms: list[str] = []
    pick = []
    for n in range(PICKED):
        text = ngettext(singular, plural, n)
        if text not in forms:
            forms.append(text)
        pick.append(str(forms.index(text)))
    return {"forms": forms, "pick": "".join(pick)}


def page_words() -> dict[str, Any]:
    """Every word of the page in the current language, with the colours' names and
    letters; ``lang`` for the page's ``lang`` attribute."""
    return {
        "lang": current_language(),
        "words": {key: _(text) for key, text in WORDS.items()},
        "plurals": {key: plural_forms(*forms) for key, forms in PLURALS.items()},
        "colours": {name: pgettext("colour", text) for name, text in CUBE_NAMES.items()},
        "letters": {name: pgettext("colour letter", text) for name, text in COLOUR_LETTERS.items()},
    }


def page_html(html: bytes) -> bytes:
    """The page (``static/index.html``) as it is sent, in the current language: its
    ``lang`` and its title, which show before the script has asked for its words."""
    import html as markup
    import re

    named = WORDS["title"]  # a name, not a literal, in _(): no message of its own
    title = markup.escape(_(named)).encode("utf-8")
    lang = markup.escape(current_language()).encode("ascii")
    out = re.sub(rb'<html lang="[^"]*">', b'<html lang="' + lang + b'">', html, count=1)
    out = re.sub(rb"<title>[^<]*</title>", b"<title>" + title + b"</title>", out, count=1)
    return re.sub(rb'(<h1 id="title">)[^<]*(</h1>)', rb"\g<1>" + title + rb"\g<2>", out, count=1)


class TableLanguage:
    """The table's language as its settings file says it now (``[app] language``, saved
    by the table's Settings screen). ``changed`` costs a ``stat`` of each place the file
    may be (``companion.config.candidates``); the file is read only when one of them
    changed. A file that cannot be read keeps the language the server speaks."""

    def __init__(self) -> None:
        self.places = candidates()
        self._seen: tuple[tuple[int, ...] | None, ...] | None = None

    def changed(self) -> str | None:
        """The language to speak from now on, if the settings changed it since the last
        look; None when it stays."""
        seen = tuple(file_signature(place) for place in self.places)
        if seen == self._seen:
            return None
        self._seen = seen
        try:
            setting = load_config().app.language
        except ConfigError:
            return None
        language = resolve_language(setting)
        return None if language == current_language() else language
