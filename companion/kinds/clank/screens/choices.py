"""What the pickers offer: the catalog's components as the table names them (the scan
drawer, a tag's binding, a card added by hand) and a player's actions, in the table's
words."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from companion.i18n import _, ed_
from companion.kinds.clank.screens.shown import clank
from companion.kinds.clank.view import Offer
from companion.store.tags import Component, components


def component_label(c: Component) -> str:
    if c.kind == "card":
        return c.name
    kinds = {
        "artifact": _("Artifact {name}"),
        "major_secret": ed_(c.edition, "Secret: {name}"),
        "minor_secret": ed_(c.edition, "Secret: {name}"),
        "market": ed_(c.edition, "Market: {name}"),
        "special": _("{name}"),
        "prisoner": _("Prisoner: {name}"),
    }
    return kinds.get(c.kind, "{name}").format(name=c.name)


def distinct(found: list[Component]) -> list[Component]:
    seen: set[Component] = set()
    out = []
    for c in found:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def catalog_components(edition: str, *, cards: tuple[str, ...], tokens: bool) -> list[Component]:
    kinds: tuple[str, ...] = ("card",)
    if tokens:
        kinds = ("artifact", "major_secret", "minor_secret", "market", "special", "card")
        if edition == "catacombs":
            kinds += ("prisoner",)
    return distinct(components(edition, kinds, cards, party=True))


def player_actions(player: str) -> list[tuple[str, Callable[[], Any]]]:
    """What a player can do, a tap on their panel away: only what the rules allow now
    (the controller's offers, clank first), each in the table's words."""
    ctl = clank()
    edition = ctl.edition
    return [(offer_label(o, edition), partial(ctl.do, dict(o.action)))
            for o in ctl.offers(player)]  # fmt: skip


def offer_label(o: Offer, edition: str) -> str:
    if o.what == "clank":
        return ed_(edition, "Clank! {n}").format(n=f"{o.n:+d}".replace("-", "−"))
    if o.what == "gold":
        labels = {1: _("Gold +1"), 2: _("Gold +2"), 5: _("Gold +5"), -1: _("Gold −1"),
                  -7: _("Gold −7")}  # fmt: skip
        return labels.get(o.n, f"{o.n:+d}")
    if o.what == "damage":
        return _("Take 1 damage")
    if o.what == "heal":
        return _("Heal 1")
    if o.what == "depths":
        return ed_(edition, "Enter the Depths") if o.n else ed_(edition, "Leave the Depths")
    if o.what == "escape":
        return _("Escape with an artifact")
    if o.what == "artifact":
        return _("Artifact {name}").format(name=o.n)
    if o.what == "secret":
        return ed_(edition, "Secret: {name}").format(name=o.name)
    if o.what == "buy" and o.action.get("coupon"):
        return _("Buy {name} with the coupon ({price} gold)").format(name=o.name, price=o.n)
    if o.what == "buy":
        return _("Buy {name} ({price} gold)").format(name=o.name, price=o.n)
    if o.what == "token":
        return ed_(edition, "Monkey idol") if o.name == "monkey idol" else o.name
    if o.what == "shrine":
        return _("Mark a wayshrine")
    if o.what == "ghost":
        return _("A ghost appears")
    if o.what == "prisoner":
        return _("Free prisoner: {name}").format(name=o.name)
    if o.what == "removed":
        return _("Artifact {name}").format(name=o.n)
    if o.what == "deck_out":
        return ed_(edition, "The dungeon deck cannot refill the row: end the game")
    return o.what
