"""What a player may do now in a game of Clank! (``legal_actions``, as OpenSpiel's): the
panel's menu offers these and nothing else, each one the table-script action it commits.
Only what the rules allow is offered: an artifact already taken (or removed at set-up)
is not, nor escaping without an artifact, nor an item the player cannot pay or the
market no longer has, nor a prisoner already freed. What the table records for no one
player (``table_actions``) is the Menu's."""

from __future__ import annotations

from collections import Counter
from typing import Any

from companion.kinds.clank.rules import Game
from companion.kinds.clank.view import Offer


def legal_actions(game: Game, player: str) -> list[Offer]:
    """What ``player`` may do now, clank first (nothing once the game is over, or for a
    player out of it)."""
    s = game.state
    p = s.players.get(player)
    if p is None or not p.playing or s.game_over:
        return []
    health = game.setup.health - p.damage
    out: list[Offer] = []

    def add(what: str, fields: dict[str, Any], name: str = "", value: int = 0) -> None:
        action = {"do": what, **fields}
        if what != "ghost":
            action["player"] = player
        out.append(Offer(what, action, name, value))

    for n in (1, 2, 3, -1):  # cubes into (or back out of) the Clank! area
        add("clank", {"n": n}, value=n)
    for n in (1, 2, 5):
        add("gold", {"n": n}, value=n)
    for n in (1, 7):
        if p.gold >= n:
            add("gold", {"n": -n}, value=-n)
    if p.supply >= 1 and health > 1:  # chosen damage may not fill the meter
        add("damage", {"n": 1, "voluntary": True}, value=1)
    if p.damage > 0:
        add("heal", {"n": 1}, value=1)
    add("depths", {"in": not p.in_depths}, value=0 if p.in_depths else 1)
    if p.artifacts and not p.in_depths:
        add("escape", {})
    if len(p.artifacts) < 1 + p.tokens.get("backpack", 0):  # room in the pack
        for value in sorted(set(s.artifacts_left)):
            add("artifact", {"value": value}, value=value)
    for t in game.catalog.tokens_of("major_secret", "minor_secret"):
        add("secret", {"name": t.name}, t.name)
    market = {t.name: t for t in game.catalog.tokens_of("market", party=game.setup.party)}
    for name, token in market.items():
        price = token.cost if token.cost is not None else 7
        crowns = token.effect("crowns") is not None
        left = len(s.crowns_left) if crowns else s.stock.get(name, 0)
        if p.gold >= price and left > 0:
            add("buy", {"item": name}, name, price)
        # the discount coupon (Catacombs ru:83-89): 5 gold less for one purchase
        discounted = max(0, price - game.coupon_value())
        if p.coupons > 0 and p.gold >= discounted and left > 0:
            add("buy", {"item": name, "coupon": True}, name, discounted)
    if s.stock.get("monkey idol", 0) > 0:
        add("token", {"name": "monkey idol"}, "monkey idol")
    if game.edition.name == "catacombs":
        if p.supply >= 1:
            add("shrine", {})
        if s.ghost_treasury > 0:
            add("ghost", {})
        freed = Counter(name for q in s.players.values() for name in q.prisoners)
        kinds = game.catalog.tokens_of("prisoner")
        box = sum(t.count for t in kinds)  # the printed total (20)
        for t in kinds:
            # a guessed count (settings.unconfirmed "prisoners") limits nothing: the
            # kind is offered while the box has prisoners left, as a scan frees it
            if freed[t.name] < t.count if t.verified else freed.total() < box:
                add("prisoner", {"name": t.name}, t.name)
    return out


def table_actions(game: Game, *, opening: bool = False) -> list[Offer]:
    """What the table (no one player) may record now from the Menu: an artifact removed
    unseen at set-up, while fewer are recorded than the rule removes (each value still in
    the pile, once); during play in Catacombs, the dungeon deck that cannot refill the row
    (it ends the game)."""
    s = game.state
    if s.game_over:
        return []
    out: list[Offer] = []
    if len(s.removed) < game.setup.artifacts_to_remove():
        for value in sorted(set(s.artifacts_left)):
            out.append(Offer("removed", {"do": "removed", "artifact": value}, n=value))
    if not opening and game.edition.name == "catacombs":
        out.append(Offer("deck_out", {"do": "deck_out"}))
    return out
