"""The phone page's fixed words, in the table's language.

Marked here with ``N_`` (``python -m companion.i18n_tools extract`` puts them in the
catalogs) and sent to the page once as JSON (``/api/words``): the page itself holds no
text of its own. What depends on the game (whose turn, the odds, the last action) is
worded by ``companion.web.view`` with each state. A word with ``{...}`` is filled in by
the page (the placeholders stay as they are in every language).
"""

from __future__ import annotations

from typing import Any

from companion.i18n import COLOUR_LETTERS, CUBE_NAMES, _, current_language, pgettext
from companion.msg import N_

WORDS = {
    # the page's title and the join step
    "title": N_("Table companion"),
    "connecting": N_("Connecting to the table…"),
    "offline": N_("No connection to the table: trying again"),
    "no_game": N_("No game yet: the table has not started one."),
    "unreadable": N_("The table's game cannot be read just now."),
    "pick_colour": N_("Which colour are you?"),
    "pick_name": N_("Who are you?"),
    "watching": N_("Just watching"),
    "change": N_("Change"),
    "damaged": N_("The log does not check from record {n} on: the table's audit says more."),
    "you": N_("you"),
    # the table while it plays
    "your_turn": N_("Your turn"),
    "health_left": N_("health left"),
    "in_area": N_("cubes in the area"),
    "knock_out": N_("knock-out"),
    "supply": N_("in supply"),
    "bag": N_("The bag"),
    "next_attack": N_("Next attack"),
    "cubes": N_("cubes"),
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
    "earlier": N_("Earlier floors ({n})"),
    "this_tower": N_("This tower"),
    "strength": N_("strength"),
    "treasure": N_("treasure"),
    "monster": N_("monster"),
    # after the game
    "game_over": N_("Game over"),
    "abandoned": N_("The game was abandoned"),
    "winner": N_("Winner"),
    "winners": N_("Winners"),
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
    "records": N_("records in the log"),
    "download": N_("Download the log"),
    "verify": N_("Check every draw on this phone"),
    "verify_log": N_("Check the log on this phone"),
    "verifying": N_("Checking…"),
    "verified": N_("Every draw checks ({n} recomputed)"),
    "verified_log": N_("The log checks: every record is chained"),
    "verify_failed": N_("The log does not check: {message}"),
    "not_fair": N_("The log holds together, but its draws prove nothing: {message}"),
    "sealed": N_("Not yet: the seed is sealed until the game ends"),
    "verify_missing": N_("The checker could not be loaded on this phone."),
    "bgstats": N_("Add to BG Stats"),
    "bgstats_note": N_("Opens the BG Stats app with this game's scores, for you to confirm."),
}


def page_words() -> dict[str, Any]:
    """Every word of the page in the current language, with the colours' names and
    letters; ``lang`` for the page's ``lang`` attribute."""
    return {
        "lang": current_language(),
        "words": {key: _(text) for key, text in WORDS.items()},
        "colours": {name: pgettext("colour", text) for name, text in CUBE_NAMES.items()},
        "letters": {name: pgettext("colour letter", text) for name, text in COLOUR_LETTERS.items()},
    }
