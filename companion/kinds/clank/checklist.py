"""What the table does by hand before the first turn, in words: the set-up checklist and
the names of the numbers no rulebook prints. Words are chosen here, at the edge, in the
table's language of the moment; the rules give the set-up's values."""

from __future__ import annotations

from collections.abc import Sequence

from companion.i18n import _, ed_, ned_, ngettext, player_name
from companion.kinds.clank.rules.setup import Setup


def setup_checklist(setup: Setup, removed: Sequence[int] | None = None) -> list[str]:
    """What the table does by hand before the first turn, in plain words (in the
    language chosen with companion.i18n, in the edition's own words). ``removed``: the
    artifacts recorded as removed at set-up so far (the game's; None: the set-up's)."""
    ed = setup.catalog.edition
    edition = setup.edition
    count = len(setup.players)
    per_attack = setup.rage_track[setup.rage_start - 1]
    lines = [
        ned_(
            edition,
            "Put the dragon on space {space} of the rage track ({n} cube per attack).",
            "Put the dragon on space {space} of the rage track ({n} cubes per attack).",
            per_attack,
        ).format(space=setup.rage_start, n=per_attack),
    ]
    for seat, name in enumerate(setup.players):
        n = ed.starting_clank[seat]
        lines.append(
            ned_(
                edition,
                "{name}: {n} cube into the Clank! area.",
                "{name}: {n} cubes into the Clank! area.",
                n,
            ).format(name=player_name(name), n=n)
        )
    wanted = ed.artifacts_removed.get(count, 0)
    recorded = tuple(setup.removed_artifacts or () if removed is None else removed)
    if wanted and len(recorded) < wanted:
        lines.append(
            ngettext(
                "Remove {n} random artifact unseen.", "Remove {n} random artifacts unseen.", wanted
            ).format(n=wanted)
        )
        lines.append(
            ngettext(
                "Once the game is under way, record the removed artifact in the Menu: "
                "nobody is offered it then.",
                "Once the game is under way, record the removed artifacts in the Menu: "
                "nobody is offered them then.",
                wanted,
            )
        )
    if recorded:
        lines.append(
            ngettext(
                "Removed at set-up: the artifact worth {values}.",
                "Removed at set-up: the artifacts worth {values}.",
                len(recorded),
            ).format(values=", ".join(str(v) for v in recorded))
        )
    lines.append(
        ned_(
            edition,
            "Deal the opening dungeon row of {n} card: replace any card with a "
            "dragon-attack symbol and reshuffle it into the deck.",
            "Deal the opening dungeon row of {n} cards: replace any card with a "
            "dragon-attack symbol and reshuffle it into the deck.",
            ed.row_size,
        ).format(n=ed.row_size)
    )
    for name in setup.unconfirmed:
        lines.append(
            _("Check on your board: {what} is not printed in the rulebook.").format(
                what=unconfirmed_label(edition, name)
            )
        )
    return lines


def unconfirmed_label(edition: str, name: str) -> str:
    """A setting no rulebook prints ('rage_start.5'), as the checklist and the Settings
    screen name it."""
    base, _dot, players = name.partition(".")
    if name == "rage_track.party":
        return ed_(edition, "the 5-6 player rage track")
    if name == "artifacts":
        return _("each artifact's value")
    if name == "artifacts.party":
        return _("the 5-6 player artifact pile")
    if name == "cloaks.party":
        return _("the cloak count")
    if name == "master_key.party":
        return _("the 5-6 player extra master key")
    if name == "minor_secrets":
        return ed_(edition, "the set of minor secrets")
    if name == "chalice_vp":
        return ed_(edition, "the chalice's victory points")
    if name == "backpack_vp":
        return ed_(edition, "the backpack's victory points")
    if name == "crowns":
        return ed_(edition, "the middle crown's value")
    if name == "prisoners":
        return ed_(edition, "how many prisoners of each kind the box holds")
    if base == "rage_track":
        return ed_(edition, "rage track")
    if base == "rage_start":
        if players:
            return ed_(edition, "where the dragon starts with {n} players").format(n=players)
        return ed_(edition, "rage start")
    if base == "health":
        return ed_(edition, "health")
    if base == "starting_clank" and players:
        return ed_(edition, "the starting clank of seat {n}").format(n=players)
    return name.replace("_", " ")
