"""A Tschak! game in words for the terminal: one event, and the table as it stands
(players' names are their own)."""

from __future__ import annotations

from typing import Any

from companion.i18n import _


def tell_event(event: dict[str, Any]) -> str:
    """One event in words."""
    kind = event["event"]
    if kind == "tower":
        return _("tower {tower} set out").format(tower=event.get("tower"))
    if kind == "floor":
        return _("floor {floor} of tower {tower}: {why}").format(
            floor=event.get("floor"), tower=event.get("tower"), why=event.get("why", "")
        )
    if kind == "trophies":
        return _("trophies of tower {tower}").format(tower=event.get("tower"))
    if kind == "pass":
        return _("the hands pass on (tower {tower})").format(tower=event.get("tower"))
    if kind == "game_over":
        return _("game over: {winners} won").format(winners=", ".join(event.get("winners") or []))
    if kind == "elixir":
        return _("{player}: elixir, {discard} discarded").format(
            player=event.get("player"), discard=event.get("discard") or "-"
        )
    return kind.replace("_", " ")


def tell_state(out: dict[str, Any]) -> list[str]:
    """The table of a script's output (``--json``) in a few readable lines: where the
    game is, each player's gold and cards, the last floor and the ranking."""
    where = (
        _("tower {tower}, floor {floor}").format(tower=out["tower"], floor=out["floor"])
        if out["floor"]
        else _("tower {tower}").format(tower=out["tower"])
    )
    lines = ["Tschak! - " + (_("GAME OVER") if out["game_over"] else where)]
    for name, p in out["players"].items():
        held = ", ".join([*p["treasures"], *p["monsters"]]) or "-"
        score = "" if p["score"] is None else _(", score {score}").format(score=p["score"])
        lines.append(
            "  "
            + _("{player}: gold {gold}, cards {cards}").format(
                player=name, gold=p["gold"], cards=held
            )
            + score
        )
    if out["floors"]:
        last = out["floors"][-1]
        lines.append(
            _("last floor (tower {tower}, floor {floor}): {why}").format(
                tower=last["tower"], floor=last["floor"], why=last["why"]
            )
        )
    if out["ranking"]:
        places = "; ".join(f"{r['place']}. {r['player']} {r['score']}" for r in out["ranking"])
        lines.append(_("ranking: {places}").format(places=places))
    return lines
