"""Each game told in pictures, and every game of the database at once.

- The game report: over the game's actions, each player's cubes in the Clank! area, the
  damage each has taken, the rage track, the dragon's draws marked; at the end the score
  of each player as a stacked bar. Opened from Past games and from the scoring screen.
- All games: the colours the dragon drew against what a fair draw gives (with the
  chi-square test and its p-value), wins by colour and by seat, average scores.
- ``write_pngs``: the same charts as PNG files (``clank-companion report``).

The numbers come from companion.history through the controller; the words are chosen
here, in the table's language.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.history import Fairness, GameHistory, Point, Record
from companion.i18n import _, ed_, ngettext, player_name
from companion.kinds import kind_of
from companion.ui.charts import Bar, BarData, LineData, Series
from companion.ui.colours import colour, letter
from companion.ui.layouts import Layout
from companion.ui.screens.kit import edition_title, part_name

RAGE = (0.85, 0.3, 0.2, 1)
PART_COLOURS = {
    "artifacts": (0.95, 0.75, 0.2, 1),
    "gold": (0.98, 0.88, 0.45, 1),
    "tokens": (0.45, 0.75, 0.95, 1),
    "secrets": (0.7, 0.5, 0.95, 1),
    "prisoners": (0.55, 0.85, 0.55, 1),
    "cards": (0.85, 0.85, 0.88, 1),
    # Tschak!: what counts for, then against
    "chests": (0.55, 0.8, 0.45, 1),
    "rings": (0.95, 0.6, 0.2, 1),
    "war_trophy": (0.45, 0.65, 0.95, 1),
    "cursed_chests": (0.65, 0.4, 0.85, 1),
    "monsters": (0.85, 0.3, 0.25, 1),
    "troglodytes": (0.55, 0.2, 0.2, 1),
}
FAIR = {"black": (0.36, 0.36, 0.4, 1), "ghost": (0.9, 0.92, 0.98, 1)}


def chart_part_name(part: str, edition: str) -> str:
    """A part of a score in the legend, in the table's language: Clank!'s as the scoring
    screen names them, Tschak!'s as its final scores do."""
    names = {
        "chests": _("Chests"),
        "cursed_chests": _("Cursed chests"),
        "rings": _("Rings"),
        "war_trophy": _("War trophy"),
        "monsters": _("Monsters"),
        "troglodytes": _("Troglodytes"),
    }
    return names.get(part) or part_name(part, edition)


def category_name(category: str) -> str:
    if category.startswith("seat"):
        return _("seat {n}").format(n=category[4:])
    return player_name(category)


def category_short(category: str) -> str:
    """A category in a narrow bar's room: a seat's number after a hash (black and the
    ghosts keep their short names)."""
    if category.startswith("seat"):
        return "#" + category[4:]
    return category_name(category)


# ------------------------------------------------------------------ the charts
def _turns(h: GameHistory) -> tuple[list[Point], tuple[int, ...]]:
    """The table at the start, then at the end of each turn; and the turns in which the
    dragon drew (the steps the kind marks: indexes into the first list)."""
    ends: dict[int, Point] = {}
    drew: set[int] = set()
    for pt in h.points:
        ends[pt.turn] = pt
        if pt.marked:
            drew.add(pt.turn)
    turns = sorted(ends)
    shown = ([h.start] if h.start is not None else []) + [ends[t] for t in turns]
    first = 1 if h.start is not None else 0
    return shown, tuple(first + i for i, t in enumerate(turns) if t in drew)


def _line(h: GameHistory, title: str, series: list[Series], marks: tuple[int, ...]) -> LineData:
    steps = max((len(s.values) for s in series), default=2) - 1
    return LineData(
        title=title,
        series=series,
        marks=marks,
        x_label=_("Turns"),
        mark_label=_("pale marks: the dragon drew"),
        steps=max(steps, 1),
    )


def _per_player(h: GameHistory, title: str, key: str) -> LineData:
    points, marks = _turns(h)
    series = []
    for p in h.players:
        values = [pt.tally(key, p) for pt in points]
        series.append(Series(player_name(p, capital=True), colour(p), values, letter(p)))
    return _line(h, title, series, marks)


def noise_chart(h: GameHistory) -> LineData:
    return _per_player(h, ed_(h.edition, "Cubes in the Clank! area"), "noise")


def damage_chart(h: GameHistory) -> LineData:
    return _per_player(h, _("Damage taken"), "damage")


def rage_chart(h: GameHistory) -> LineData:
    points, marks = _turns(h)
    rage = Series(ed_(h.edition, "Rage"), RAGE, [pt.levels.get("rage", 0) for pt in points])
    return _line(h, ed_(h.edition, "The rage track"), [rage], marks)


def scores_chart(h: GameHistory) -> BarData | None:
    if not h.scores or h.totals is None:
        return None
    parts = list(dict.fromkeys(part for s in h.scores.values() for part in s))
    order = [p for p, _score in h.ranking or []] or list(h.players)
    bars = []
    for p in order:
        score = h.scores.get(p, {})
        qualifies = (h.qualifies or {}).get(p, True)
        bars.append(
            Bar(
                name=player_name(p, capital=True),
                parts=[
                    (
                        part,
                        score.get(part, 0) if qualifies else 0,
                        PART_COLOURS.get(part, (0.6, 0.6, 0.6, 1)),
                    )
                    for part in parts
                ],  # fmt: skip
                total=str(h.totals.get(p, 0)),
                short=letter(p),
            )
        )
    # the parts somebody scored (a part nobody scored has no colour to tell apart)
    scored = [part for part in parts if any(s.get(part, 0) for s in h.scores.values())]
    legend = [(chart_part_name(part, h.edition), PART_COLOURS.get(part, (0.6, 0.6, 0.6, 1)))
              for part in scored]  # fmt: skip
    return BarData(title=_("Scores"), bars=bars, legend=legend)


def fairness_chart(f: Fairness) -> BarData:
    bars = [
        Bar(
            name=category_name(c),
            parts=[(c, n, FAIR.get(c, (0.45, 0.62, 0.9, 1)))],
            total=str(n),
            target=f.expected.get(c),
            short=category_short(c),
        )
        for c, n in f.observed.items()
    ]
    return BarData(
        title=_("Cubes drawn, against a fair draw"),
        bars=bars,
        legend=[(_("white line: what a fair draw gives"), (1, 1, 1, 1))],
    )


def wins_chart(r: Record) -> BarData:
    colours = sorted(r.played_by_colour, key=lambda c: -r.played_by_colour[c])
    bars = [
        Bar(
            name=player_name(c, capital=True),
            parts=[(c, r.wins_by_colour.get(c, 0), colour(c))],
            total=_("{won}/{played} · {avg:.0f} VP").format(
                won=r.wins_by_colour.get(c, 0),
                played=r.played_by_colour[c],
                avg=r.average_score_by_colour.get(c, 0),
            ),
            short=letter(c),
        )
        for c in colours
    ]
    return BarData(title=_("Wins by colour (won/played · average score)"), bars=bars)


def fairness_text(f: Fairness) -> str:
    if f.draws == 0:
        return _("No draws yet.")
    counted = ngettext("{n} draw", "{n} draws", f.draws).format(n=f.draws)
    cubes = ngettext("{n} cube", "{n} cubes", f.cubes).format(n=f.cubes)
    verdict = (
        _("as a fair draw would give")
        if f.p_value >= 0.01
        else _("unusual for a fair draw: export and check the logs")
    )
    return _("{draws}, {cubes}: chi-square {x:.2f} ({df} df), p = {p:.3f}: {verdict}").format(
        draws=counted, cubes=cubes, x=f.chi_square, df=f.df, p=f.p_value, verdict=verdict
    )


def finished_text(r: Record) -> str:
    if r.games == 0:
        return _("No finished games yet.")
    return ngettext("{n} finished game", "{n} finished games", r.games).format(n=r.games)


def seat_lines(r: Record) -> list[str]:
    """Each seat's record, a line each: how often it won, its average score."""
    return [
        _("seat {n}: {wins}/{played} won, {avg:.0f} VP").format(
            n=s,
            wins=r.wins_by_seat.get(s, 0),
            played=r.played_by_seat[s],
            avg=r.average_score_by_seat.get(s, 0),
        )
        for s in sorted(r.played_by_seat)
    ]


def game_charts(h: GameHistory) -> dict[str, Any]:
    """The game's charts by name, in the order the screen offers them (a game without
    a dragon, Tschak!, has its scores only)."""
    charts: dict[str, Any] = {}
    if kind_of(h.edition).has_bag:  # the noise, the damage and the dragon's rage
        charts |= {"noise": noise_chart(h), "damage": damage_chart(h), "rage": rage_chart(h)}
    scores = scores_chart(h)
    if scores is not None:
        charts["scores"] = scores
    return charts


# ------------------------------------------------------------------ the screens
class ReportScreen(Layout, Screen):
    """One game in charts: a button per chart, the audit, back."""

    follows_game = True  # redrawn (refresh) as the game on the table changes

    layouts = ("report.kv",)

    game = ObjectProperty(None, allownone=True)
    back_to = StringProperty("pastgames")
    title_text = StringProperty("")
    ranking_text = StringProperty("")
    head_text = StringProperty("")  # the title in bold, then the ranking (markup)
    shown = StringProperty("noise")
    charts = DictProperty({})

    def on_title_text(self, *args: Any) -> None:
        # a line broken between two places only, never inside one
        places = [p.replace(" ", "\u00a0") for p in self.ranking_text.split("   ")]
        self.head_text = heading(self.title_text, "   ".join(places))

    on_ranking_text = on_title_text

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        app = App.get_running_app()
        ctl = app.controller
        game = self.game if self.game is not None else ctl.game_id
        if game is None:
            self.charts = {}
            self.title_text = _("No game is open.")
            self.ranking_text = ""
            return
        h = app.archive.history(game)
        self.charts = game_charts(h)
        if self.shown not in self.charts:
            self.shown = next(iter(self.charts), "noise")
        self.title_text = _("Game {game} · {edition}").format(
            game=game, edition=edition_title(h.edition)
        )
        ranking = h.ranking or ()
        many = len(ranking) > 4  # five or six players: their letters, to fit two lines
        self.ranking_text = "   ".join(
            _("{place}. {player}: {score} VP").format(
                place=(h.places or {}).get(p, i + 1),
                player=letter(p) if many else player_name(p, capital=True),
                score=score,
            )
            for i, (p, score) in enumerate(ranking)
        )
        self.show(self.shown)

    def show(self, name: str) -> None:
        if name not in self.charts:
            return
        self.shown = name
        self.ids.line.opacity = 1 if name != "scores" else 0
        self.ids.bars.opacity = 1 if name == "scores" else 0
        if name == "scores":
            self.ids.bars.data = self.charts[name]
        else:
            self.ids.line.data = self.charts[name]

    def audit(self) -> None:
        app = App.get_running_app()
        game = self.game if self.game is not None else app.controller.game_id
        app.open_audit(game, back_to="report")

    def back(self) -> None:
        App.get_running_app().show_screen(self.back_to)


class StatsScreen(Layout, Screen):
    """Every game of the database: the draws' fairness, wins by colour, and each seat's
    record a line each."""

    layouts = ("report.kv",)

    shown = StringProperty("fairness")  # "fairness", "wins" or "seats"
    fairness_text = StringProperty("")
    finished_text = StringProperty("")
    seat_lines = ListProperty([])
    head_text = StringProperty("")
    charts = DictProperty({})

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        archive = App.get_running_app().archive
        f, r = archive.fairness(), archive.record()
        self.charts = {"fairness": fairness_chart(f), "wins": wins_chart(r)}
        self.fairness_text = fairness_text(f)
        self.finished_text = finished_text(r)
        self.seat_lines = seat_lines(r)
        self.show(self.shown)

    def on_seat_lines(self, *args: Any) -> None:
        grid = self.ids.seats
        grid.clear_widgets()
        for line in self.seat_lines:
            label = Label(text=line, font_size="26sp", size_hint_y=None, halign="left")
            label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)))
            label.bind(texture_size=lambda w, size: setattr(w, "height", max(dp(40), size[1])))
            grid.add_widget(label)

    def show(self, name: str) -> None:
        self.shown = name
        summary = self.fairness_text if name == "fairness" else self.finished_text
        self.head_text = heading(_("All games"), summary, " · ")
        if name in self.charts:
            self.ids.bars.data = self.charts[name]


def heading(title: str, rest: str, between: str = "   ") -> str:
    """A screen's title in bold, then what it says of the game (markup)."""
    if not rest:
        return f"[b]{escape_markup(title)}[/b]"
    return f"[b]{escape_markup(title)}[/b]{between}{escape_markup(rest)}"


def report_charts(
    history: GameHistory | None, f: Fairness | None = None, r: Record | None = None
) -> dict[str, Any]:
    """Every chart ``clank-companion report`` writes, by file name."""
    charts: dict[str, Any] = {}
    if history is not None:
        charts |= {f"game-{history.game}-{k}": v for k, v in game_charts(history).items()}
    if f is not None:
        charts["all-games-fairness"] = fairness_chart(f)
    if r is not None:
        charts["all-games-wins"] = wins_chart(r)
    return charts


def write_pngs(
    charts: dict[str, Any], folder: Path, size: tuple[int, int] = (800, 480)
) -> list[Path]:
    """Each chart drawn at ``size`` into ``folder`` as NAME.png (needs Kivy's window: the
    caller sets up a headless one where there is no display)."""
    from kivy.core.window import Window

    from companion.ui.charts import BarChart, LineChart

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in charts.items():
        widget = (BarChart if isinstance(data, BarData) else LineChart)(size=size, pos=(0, 0))
        widget.data = data
        Window.add_widget(widget)
        try:
            path = folder / f"{name}.png"
            widget.export_to_png(str(path))
            written.append(path)
        finally:
            Window.remove_widget(widget)
    return written
