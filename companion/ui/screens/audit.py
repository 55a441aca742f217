"""The audit of a game: every draw, the chain head to photograph, Verify and Export (to
a USB stick when one is plugged in). Layout in kv/audit.kv."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.archive import LoggedDraw
from companion.i18n import Msg, _, localized, ngettext, player_name
from companion.ui.layouts import Layout
from companion.ui.screens.kit import GAME_STATUS, app, edition_title, game_date, grouped


def export_folder() -> Path:
    """A USB stick if one is mounted (/media/<user>/<stick>), else the data folder."""
    for base in (Path("/media"), Path("/run/media")):
        if base.is_dir():
            for user in sorted(base.iterdir()):
                sticks = sorted(p for p in user.iterdir() if p.is_dir()) if user.is_dir() else []
                for stick in sticks:
                    if os.access(stick, os.W_OK):
                        return stick
    return app().archive.data_folder / "exports"


def draw_line(d: LoggedDraw) -> str:
    """One draw of the audit: its number, the bag before it, the cubes drawn; an undone
    draw is said to be undone (its nonce stays used: the next draw has the next one)."""
    bag = ", ".join(f"{player_name(k)} {v}" for k, v in d.bag if v)
    drawn = ", ".join(player_name(c) for c in d.drawn) or "—"
    line = _("#{nonce}: bag {bag} → drew {drawn}").format(nonce=d.nonce, bag=bag, drawn=drawn)
    if d.undone:
        return "[color=9a9ca4]" + _("{draw} (undone)").format(draw=line) + "[/color]"
    return line


class AuditScreen(Layout, Screen):
    """Every draw of a game, the chain head to photograph, Verify and Export: of the
    game on the table (``game`` None), or of a past game chosen from Past games."""

    follows_game = True  # redrawn (refresh) as the game on the table changes

    layouts = (
        "proof.kv",
        "audit.kv",
    )

    game = ObjectProperty(None, allownone=True)
    back_to = StringProperty("")  # the screen that opened it ("": the game's own)
    title_text = StringProperty("")
    draws_text = StringProperty("")
    commitment_text = StringProperty("")  # the commitment in full, in groups of 8
    commitment_note = StringProperty("")
    ranking_text = StringProperty("")  # a past game's ranking
    head_text = StringProperty("")  # the chain head in full, in groups of 8
    head_note = StringProperty("")
    result = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.result = ""
        self.refresh()

    def shown_game(self) -> int | None:
        return self.game if self.game is not None else app().controller.game_id

    def refresh(self) -> None:
        """The game's draws, commitment and chain head as its log holds them (the game on
        the table's too: every action is committed before it is shown)."""
        a = app()
        game = self.shown_game()
        self.ranking_text = ""
        summary = a.archive.game_summary(game) if game is not None else None
        if game is None or summary is None:
            self.title_text = _("Audit: every draw of this game")
            self.draws_text = _("No game is open.")
            self.commitment_text = self.commitment_note = self.head_text = self.head_note = ""
            return
        draws = a.archive.logged_draws(game)
        commitment = summary.commitment or ""
        if self.game is None:
            # the game on the table is closed only as it leaves
            table = a.controller.table
            final = table is not None and bool(table.abandoned)
            self.title_text = _("Audit: every draw of this game")
        else:
            final = summary.closed or summary.status == "abandoned"
            status = summary.status or ""
            self.title_text = _("Game {game} · {edition} · {date} · {status}").format(
                game=game,
                edition=edition_title(summary.edition or ""),
                date=game_date(summary.created_at or ""),
                status=_(GAME_STATUS.get(status, status)),
            )
            places = [
                _("{place}. {player}: {score} VP").format(
                    place=r.place, player=player_name(r.player, capital=True), score=r.score
                )  # fmt: skip
                for r in summary.ranking or ()
            ]
            self.ranking_text = "   ".join(places)
        self.draws_text = "\n".join(draw_line(d) for d in draws) or _("No draws yet.")
        undone = sum(1 for d in draws if d.undone)
        if undone:  # counted in the title, as on the table screen
            counted = ngettext("{n} draw undone", "{n} draws undone", undone).format(n=undone)
            self.title_text = f"{self.title_text} · {counted}"
        self.commitment_note = _(
            "Game {game}: its commitment, the bag sealed before the first draw"
        ).format(game=game)
        self.commitment_text = grouped(commitment) if commitment else ""
        self.head_text = grouped(a.archive.chain_head(game))
        self.head_note = (
            _("Final chain head. Photograph this: it proves the game was not rewritten later")
            if final
            else _("Chain head so far: it is final once the game is closed")
        )

    def on_draws_text(self, *args: Any) -> None:
        """Every draw a line of its own (two when long), in the table's words."""
        box = self.ids.draws
        box.clear_widgets()
        for line in self.draws_text.split("\n"):
            box.add_widget(Factory.AuditLine(text=line, markup=True, font_size="26sp",
                                             font_name="DejaVuSans"))  # fmt: skip

    def back(self) -> None:
        if self.back_to:
            app().show_screen(self.back_to)
        elif self.game is not None:
            app().show_screen("pastgames")
        else:
            app().show_screen(app().home_screen())

    def verify(self) -> None:
        game = self.shown_game()
        if game is None:
            return
        check = app().archive.verify(game)
        if not check.ok:
            self.result = _("NOT verified: {message}").format(message=localized(check.message))
            return
        message = check.message
        detail = message.params.get("detail") if isinstance(message, Msg) else None
        shown = localized(detail) if detail is not None else ""
        from companion.verify_log import EXIT_NOT_PROVABLY_FAIR  # with the first check

        if check.status == EXIT_NOT_PROVABLY_FAIR:
            self.result = _("Not provably fair: {detail}").format(detail=shown)
            return
        self.result = ngettext(
            "Verified: {n} record chained; {detail}",
            "Verified: {n} records chained; {detail}",
            check.records,
        ).format(n=check.records, detail=shown)

    def export(self) -> None:
        game = self.shown_game()
        if game is None:
            return
        folder = export_folder()
        target = folder / f"clank-game-{game}.jsonl"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                count = app().archive.export(game, out)
        except OSError as e:
            self.result = _("Export failed: {reason}").format(reason=e.strerror or e)
            return
        where = _("the USB stick") if _on_stick(folder) else _("the companion's exports folder")
        self.result = ngettext(
            "Exported {n} record to {where}: {name}",
            "Exported {n} records to {where}: {name}",
            count,
        ).format(n=count, where=where, name=target.name)
        summary = app().archive.game_summary(game)
        if summary is None or summary.status != "over":
            return
        results = folder / f"clank-game-{game}-results.csv"  # for spreadsheets
        try:
            with open(results, "w", encoding="utf-8", newline="") as out:
                app().archive.results_csv(game, out)
        except (OSError, ValueError):  # ValueError: NoResults, none to write
            results.unlink(missing_ok=True)
            return
        self.result += "\n" + _("and the results: {name}").format(name=results.name)


def _on_stick(folder: Path) -> bool:
    return folder.parts[:2] in (("/", "media"), ("/", "run"))
