"""The table screen: the rage track, the bag, the players' panels, the dungeon row."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion.i18n import _, ed_, ned_, ngettext, player_name
from companion.ui.colours import colour, letter, text_colour


class RageCell(Label):
    current = BooleanProperty(False)


class HealthBar(Widget):
    damage = NumericProperty(0)
    health = NumericProperty(10)
    swatch = ListProperty([1, 1, 1, 1])


class PlayerPanel(BoxLayout):
    player = StringProperty("")
    letter = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    ink = ListProperty([1, 1, 1, 1])
    active = BooleanProperty(False)
    out = BooleanProperty(False)
    status_text = StringProperty("")
    clank_text = StringProperty("")
    holdings_text = StringProperty("")
    damage = NumericProperty(0)
    meter = NumericProperty(10)
    compact = BooleanProperty(False)  # 5-6 players: two rows of smaller panels
    short_text = StringProperty("")

    def clank(self, n: int) -> None:
        App.get_running_app().controller.clank(n, player=self.player)

    def show(
        self,
        name: str,
        p: dict[str, Any],
        area: int,
        active: bool,
        health: int,
        edition: str = "clank",
    ) -> None:
        self.player = name
        self.letter = letter(name)
        self.swatch = list(colour(name))
        self.ink = list(text_colour(name))
        self.active = active
        self.out = p["status"] != "playing"
        self.status_text = {
            "playing": ed_(edition, "in the Depths") if p["in_depths"] else _("in the dungeon"),
            "escaped": _("escaped"),
            "knocked_out": _("knocked out"),
        }[p["status"]]
        self.clank_text = ned_(edition, "{n} cube in Clank!", "{n} cubes in Clank!", area).format(
            n=area
        )
        state = "" if p["status"] == "playing" else " · " + self.status_text
        self.short_text = (
            ngettext("{player}: {n} cube", "{player}: {n} cubes", area).format(
                player=player_name(name), n=area
            )
            + state
        )
        self.damage = p["damage"]
        self.meter = health
        parts = [ngettext("{n} gold", "{n} gold", p["gold"]).format(n=p["gold"])]
        if p["artifacts"]:
            parts.append(_("artifact {v}").format(v="+".join(map(str, p["artifacts"]))))
        if p["credit"]:
            parts.append(ed_(edition, "anti-clank {n}").format(n=p["credit"]))
        self.holdings_text = " · ".join(parts)


class RowCard(Button):
    """A card of the dungeon row: tap it when it leaves the row (bought, defeated, used)."""

    card = StringProperty("")
    danger = BooleanProperty(False)
    revealed = BooleanProperty(False)


class TableScreen(Screen):
    attack_text = StringProperty("")
    row_label = StringProperty("")
    end_turn_text = StringProperty("")
    can_undo = BooleanProperty(False)
    refilling = BooleanProperty(False)
    game_over = BooleanProperty(False)

    def redraw(self, snap: dict[str, Any]) -> None:
        rage = self.ids.rage
        track = snap["rage"]["track"]
        if len(rage.children) != len(track):
            rage.clear_widgets()
            for _cubes in track:
                rage.add_widget(RageCell())
        for i, cell in enumerate(reversed(rage.children)):
            cell.text = str(track[i])
            cell.current = i + 1 == snap["rage"]["space"]
        danger = snap["danger"]
        n = snap["next_attack"]
        lines = [ngettext("Next attack: [b]{n}[/b] cube", "Next attack: [b]{n}[/b] cubes", n)
                 .format(n=n)]  # fmt: skip
        extra = []
        if danger:
            extra.append(_("Danger +{d}").format(d=danger))
        ghosts = snap["clank_area"].get("ghost", 0)
        if ghosts:
            extra.append(ngettext("{n} ghost", "{n} ghosts", ghosts).format(n=ghosts))
        if snap["countdown"]:
            extra.append(_("countdown {space}").format(space=snap["countdown"]["space"]))
        if extra:
            lines.append(" · ".join(extra))
        self.attack_text = "\n".join(lines)
        grid = self.ids.players
        names = list(snap["players"])
        grid.cols = len(names) if len(names) <= 4 else 3
        if [getattr(w, "player", None) for w in reversed(grid.children)] != names:
            grid.clear_widgets()
            for name in names:
                panel = PlayerPanel()
                panel.player = name
                panel.compact = len(names) > 4
                grid.add_widget(panel)
        active = snap["turn"]["active"]
        health = snap["settings"]["health"]
        for panel in reversed(grid.children):
            name = panel.player
            panel.show(
                name,
                snap["players"][name],
                snap["clank_area"][name],
                name == active and not snap["game_over"],
                health,
                snap["edition"],
            )
        self.refilling = snap["refill"] is not None
        self.game_over = snap["game_over"]
        revealed = snap["refill"] or []
        self._show_row(snap["row"], revealed)
        self.row_label = _("Revealed") if self.refilling else _("Dungeon row")
        if self.game_over:
            self.end_turn_text = _("Game over")
        elif self.refilling:
            self.end_turn_text = ngettext(
                "{n} card revealed: tap when the row is full",
                "{n} cards revealed: tap when the row is full",
                len(revealed),
            ).format(n=len(revealed))
        else:
            self.end_turn_text = _("End turn ({player})").format(player=player_name(active))
        self.can_undo = bool(snap["can_undo"]) or bool(snap["refill"])

    def _show_row(self, row: list[str], revealed: list[str]) -> None:
        """The row's buttons are kept and relabelled: rebuilding them at every scan would
        leave garbage for the collector to sweep in the middle of a game."""
        box = self.ids.row
        wanted = [(c, False) for c in row] + [(c, True) for c in revealed]
        cards = [w for w in reversed(box.children) if isinstance(w, RowCard)]
        if not wanted:
            if cards or not box.children:
                box.clear_widgets()
                box.add_widget(Label(text=_("empty: scan the cards as they are dealt"),
                                     font_size="15sp"))  # fmt: skip
            return
        if len(cards) != len(box.children):
            box.clear_widgets()  # the "empty" notice goes
        while len(cards) < len(wanted):
            button = RowCard()
            button.bind(on_release=self._row_tapped)
            box.add_widget(button)
            cards.append(button)
        while len(cards) > len(wanted):
            box.remove_widget(cards.pop())
        for button, (card, new) in zip(cards, wanted, strict=True):
            danger = _is_danger(card)
            button.card = card
            button.revealed = new
            button.danger = danger
            button.text = card + ("\n" + _("Danger") if danger else "")

    @staticmethod
    def _row_tapped(button: RowCard) -> None:
        if not button.revealed:  # a revealed card is not in the row yet
            App.get_running_app().controller.take(button.card)


def _is_danger(card: str) -> bool:
    app = App.get_running_app()
    catalog = app.controller.table.game.catalog if app and app.controller.table else None
    entry = catalog.card(card) if catalog else None
    return bool(entry and entry.danger)
