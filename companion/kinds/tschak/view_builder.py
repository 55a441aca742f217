"""The Tschak! controller's state as the screens see it: ``build_view`` makes the frozen
``TschakView`` of the table (the set-up, a tower's floors, the teams being entered, a
verdict, the end) and ``build_check_view`` the catalog check's card, from the
controller's public face only."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from companion.i18n import _, colour_letter, ngettext, pgettext
from companion.kinds.tschak.catalog_check import group_of
from companion.kinds.tschak.rules import SETTINGS_INFO, Hero, Settings
from companion.kinds.tschak.rules.cards import (
    ARTIFACT,
    DWARF,
    ELIXIR,
    MAGE,
    RING,
    TROGLODYTE,
    WAR_TROPHY,
    WARRIOR,
)
from companion.kinds.tschak.rules.settings import AMBIGUITY, CHOICES
from companion.kinds.tschak.verdicts import floor_verdict, trophy_verdict
from companion.kinds.tschak.views import (
    CheckView,
    FinalView,
    FloorSlotView,
    PileView,
    QuestionView,
    ScoreColumnView,
    SettingView,
    SetupView,
    TeamView,
    TschakView,
    card_view,
    seat_colour,
)
from companion.kinds.tschak.words import (
    COLOUR_WORDS,
    REVEALS,
    SETTING_TITLES,
    card_words,
    choice_text,
    fixed_lines,
    seating_text,
    signed,
    tower_words,
    tp,
    trophies_text,
    who,
)

if TYPE_CHECKING:
    from companion.kinds.tschak.control import TschakControl


def build_view(control: TschakControl) -> TschakView:
    """The table as the screens show it now."""
    phase = control.phase
    if phase == "none":
        return TschakView(phase, last=control.last)
    if phase == "setup":
        assert control.pending is not None
        return TschakView(
            phase,
            title=_("Tschak! · set-up"),
            setup=_setup_view(control),
            last=control.last,
            players=tuple(control.pending["players"]),
        )
    game = control.game
    assert game is not None
    s = game.state
    floor = s.floors_done + 1 if s.phase == "floor" else 0
    common: dict[str, Any] = {
        "game": control.game_id,
        "tower": s.tower if s.phase != "tower" else s.tower + 1,
        "floor": floor,
        "last": control.last,
        "can_undo": game.can_undo or control.entered,
        "scores_visible": control.scores_visible,
        "players": game.players,
        "totals": _totals(control),
    }
    question = None
    if control.question is not None:
        tied = tuple(
            (p, who(p)) for p in control.question["tied"] if p not in control.question["order"]
        )
        question = QuestionView(control.question_text(), tied)
    if phase == "verdict":
        assert control.showing is not None
        verdict = floor_verdict(game, control.showing[1])
        return TschakView(
            phase,
            title=verdict.title,
            verdict=verdict,
            floors=_floors(control),
            hint=control.hint(),
            **common,
        )
    if phase == "trophy_verdict":
        assert control.showing is not None
        trophies = trophy_verdict(game, control.showing[1])
        return TschakView(
            phase, title=trophies.title, trophies=trophies, hint=control.hint(), **common
        )
    if phase == "over":
        return TschakView(
            phase,
            title=_("Tschak! · the end"),
            final=_final(control),
            hint=control.hint(),
            **common,
        )
    if phase == "tower":
        return TschakView(
            phase,
            title=_("Tower {tower} of 4 · set out the floors").format(tower=s.tower + 1),
            floors=_floors(control),
            hint=control.hint(),
            can_resolve=None not in control.slots["monsters"] + control.slots["treasures"],
            **common,
        )
    teams = _team_views(control)
    if phase == "floor":
        title = _("Tower {tower} · floor {floor} of 3 · reveal {reveal}").format(
            tower=s.tower, floor=floor, reveal=REVEALS[floor]
        )
        ready = all(t.state == "complete" for t in teams)
    else:
        title = _("Tower {tower} · trophies: the last cards").format(tower=s.tower)
        ready = all(t.cards or t.known for t in teams)
    return TschakView(
        phase,
        title=title,
        teams=teams,
        floors=_floors(control),
        hint=control.hint(),
        can_resolve=ready and question is None,
        question=question,
        **common,
    )


def build_check_view(control: TschakControl) -> CheckView:
    """The catalog check's card as the table has set it, and its choices."""
    check = control.check
    card = control.check_draft or check.card()
    if isinstance(card, Hero):
        number: Any = "?" if card.value is None else card.value
        weapon = card.weapon
    else:
        number = card.skulls or card.gold
        weapon = ""
    group = group_of(check.card())
    instruction = {
        MAGE: _("Take a mage (blue) you have not checked yet. Set what it shows."),
        WARRIOR: _("Take a warrior (green) you have not checked yet. Set what it shows."),
        DWARF: _("Take a dwarf (red) you have not checked yet. Set what it shows."),
        ARTIFACT: _("Take an artifact (lilac): it shows no number. Is it one?"),
        "monster": _("Take a monster you have not checked yet. Set its skulls."),
        "treasure": _("Take a treasure you have not checked yet. Set what it shows."),
    }[group]
    if not isinstance(card, Hero) and card.kind in (TROGLODYTE, RING, ELIXIR, WAR_TROPHY):
        instruction = _("Take a {card} from the box: it has no number. Is it one?").format(
            card=tower_words(card)
        )
    message = check.problem or control.check_message
    if not message and control.table is not None:
        message = _("Corrections count from the next game on.")
    return CheckView(
        title=_("Check the cards"),
        progress=_("card {n} of {total} · {done} checked").format(
            n=check.position + 1, total=check.total, done=check.confirmed_count
        ),
        instruction=instruction,
        message=message,
        card=card_view(card.notation),
        checked=check.confirmed() and control.check_draft is None,
        numbers=tuple((label, v, v == number) for label, v in check.numbers(card)),
        weapons=tuple((label, w, w == weapon) for label, w in check.weapons(card)),
        position=check.position,
        total=check.total,
        confirmed=check.confirmed_count,
    )


def setting_views(settings: Settings) -> tuple[SettingView, ...]:
    out = []
    for key, default, _english in SETTINGS_INFO:
        value = getattr(settings, key)
        out.append(
            SettingView(
                key=key,
                ambiguity=", ".join(AMBIGUITY.get(key, ())),
                title=pgettext("tschak setting", SETTING_TITLES[key]),
                value=value,
                value_text=choice_text(key, value),
                default_text=choice_text(key, default),
                changed=value != default or type(value) is not type(default),
                choices=tuple((c, choice_text(key, c)) for c in CHOICES[key]),
            )
        )
    return tuple(out)


def _setup_view(control: TschakControl) -> SetupView:
    assert control.pending is not None
    players = tuple(control.pending["players"])
    settings = control.pending_settings()
    check = control.check
    if check.confirmed_count == check.total:
        text = _("Card catalog: all {n} cards checked against yours").format(n=check.total)
    else:
        text = _(
            "Card catalog: {done} of {n} cards checked. The others are a guess (the "
            "rulebook prints no values): check them once."
        ).format(done=check.confirmed_count, n=check.total)
    return SetupView(
        players=tuple(who(p) for p in players),
        seating=seating_text(players),
        settings=setting_views(settings),
        fixed=fixed_lines(),
        catalog_text=text,
        catalog_problem=check.problem,
        trophies=trophies_text(len(players), settings),
    )


def _floors(control: TschakControl) -> tuple[FloorSlotView, ...]:
    game = control.game
    assert game is not None
    s = game.state
    if s.phase == "tower":
        return tuple(
            FloorSlotView(
                i + 1,
                card_view(m) if (m := control.slots["monsters"][i]) else None,
                card_view(t) if (t := control.slots["treasures"][i]) else None,
                current=False,
                done=False,
            )
            for i in range(3)
        )
    tower = s.towers[-1]
    current = s.floors_done + 1 if s.phase == "floor" else 0
    return tuple(
        FloorSlotView(
            i + 1,
            card_view(tower["monsters"][i]),
            card_view(tower["treasures"][i]),
            current=i + 1 == current,
            done=i + 1 <= s.floors_done,
        )
        for i in range(3)
    )


def _totals(control: TschakControl) -> str:
    game = control.game
    if not control.scores_visible or game is None or game.game_over:
        return ""
    scores = game.scores()
    # three players or more: each by their letter, so that the line holds in every language
    name = colour_letter if len(game.players) > 2 else who
    shown = " · ".join(f"{name(p)} {signed(scores[p].total)}" for p in game.players)
    return _("Running totals (VP): {scores}").format(scores=shown)


def _running(control: TschakControl, player: str) -> str:
    game = control.game
    if not control.scores_visible or game is None:
        return ""
    score = game.scores()[player].total
    return ngettext("{n} VP so far", "{n} VP so far", score).format(n=score)


def _team_views(control: TschakControl) -> tuple[TeamView, ...]:
    game = control.game
    assert game is not None
    out = []
    for p in game.players:
        if control.phase == "trophies":
            entered = [control.last_cards[p]] if p in control.last_cards else []
            known = control.known_last(p)
            state = "complete" if entered or known else "empty"
            out.append(
                TeamView(
                    player=p,
                    label=who(p),
                    colour=seat_colour(game.players, p),
                    cards=tuple(card_view(c) for c in entered),
                    slots=1,
                    state=state,
                    problem="",
                    misplay=False,
                    selected=p == control.selected,
                    known=card_view(known) if known and not entered else None,
                    score=_running(control, p),
                )
            )
            continue
        team = control.teams.get(p, [])
        colours = [control.hero(c).colour for c in team]
        doubles = sorted({c for c in colours if colours.count(c) > 1})
        problem = ""
        if doubles:
            state = "illegal"
            problem = _("two {colour} cards: swap one").format(colour=tp(COLOUR_WORDS[doubles[0]]))
        elif control.team_complete(team):
            state = "complete"
        elif team:
            state = "partial"
        else:
            state = "empty"
        out.append(
            TeamView(
                player=p,
                label=who(p),
                colour=seat_colour(game.players, p),
                cards=tuple(card_view(c) for c in team),
                slots=control.team_slots(),
                state=state,
                problem=problem,
                misplay=p in control.misplays,
                selected=p == control.selected,
                score=_running(control, p),
            )
        )
    return tuple(out)


def _final(control: TschakControl) -> FinalView:
    game = control.game
    assert game is not None
    snap = game.snapshot()
    ranking = snap["ranking"] or []
    winners = tuple(snap["winners"] or [])
    scores = game.scores()
    best = scores[winners[0]].total if winners else 0
    if len(winners) == 1:
        winner_text = _("{player} wins with {n} VP").format(player=who(winners[0]), n=best)
    else:
        winner_text = _("{players} share the win with {n} VP").format(
            players=", ".join(who(w) for w in winners), n=best
        )
    tie_note = ""
    level = [r["player"] for r in ranking if r["score"] == best]
    if len(level) > len(winners):
        tie_note = _("Equal VP: fewer monsters wins")
    elif len(winners) > 1:
        tie_note = _("Equal VP and equal monsters: a shared win")
    rows = (
        _("Gold"),
        _("Chests"),
        _("Cursed chests"),
        _("Rings") + " (n → n²)",
        _("War trophy"),
        _("Monsters"),
        _("Troglodytes") + " (n → −n²)",
        _("Elixir"),
        _("Total"),
    )
    columns = []
    for r in ranking:
        p = r["player"]
        sc = scores[p]
        parts = sc.parts
        counts = sc.counts
        elixir = ""
        choices: list[tuple[str, str | None]] = []
        if sc.elixir is not None:
            discard = sc.elixir["discard"]
            elixir = card_words(discard) if discard else _("unused")
            if sc.elixir["by"] == "best":
                elixir = _("{choice} (best)").format(choice=elixir)
            for option in sc.options:
                label = card_words(option["discard"]) if option["discard"] else _("unused")
                choices.append(
                    (
                        _("{choice}: {n} VP").format(choice=label, n=option["score"]),
                        option["discard"],
                    )
                )
        cells = (
            str(parts["gold"]),
            signed(parts["chests"]),
            signed(parts["cursed_chests"]),
            f"{counts['rings']} → {parts['rings']}" if counts["rings"] else "0",
            signed(parts["war_trophy"]),
            signed(parts["monsters"]),
            f"{counts['troglodytes']} → {signed(parts['troglodytes'])}"
            if counts["troglodytes"]
            else "0",
            elixir or "—",
            str(sc.total),
        )
        columns.append(
            ScoreColumnView(
                player=p,
                label=who(p),
                colour=seat_colour(game.players, p),
                place=r["place"],
                total=sc.total,
                cells=cells,
                elixir=elixir,
                elixir_choices=tuple(choices),
            )
        )
    return FinalView(
        winners=winners,
        winner_text=winner_text,
        tie_note=tie_note,
        rows=rows,
        columns=tuple(columns),
        piles=_piles(control, snap),
        revealed=control.revealed,
    )


NAMED = 1  # the wrong cards a pile's panel names; the rest it counts


def few(cards: Counter[str]) -> str:
    """The cards by name, the first of them and then how many more: a panel a quarter
    of the screen wide holds the words at the table's size (a card's words are several:
    "chest, 5 gold") whatever a player scans."""
    names = [card_words(c) for c in sorted(cards.elements())]
    if len(names) <= NAMED:
        return ", ".join(names)
    rest = len(names) - NAMED
    return ngettext("{cards} and {n} more", "{cards} and {n} more", rest).format(
        cards=", ".join(names[:NAMED]), n=rest
    )


def _piles(control: TschakControl, snap: dict[str, Any]) -> tuple[PileView, ...]:
    game = control.game
    assert game is not None
    out = []
    for p in game.players:
        held = Counter([*snap["players"][p]["monsters"], *snap["players"][p]["treasures"]])
        scanned = control.piles.get(p, [])
        have = Counter(scanned)
        missing = held - have
        extra = have - held
        if extra:
            status = "mismatch"
            text = _("not in the game's record: {cards}").format(cards=few(extra))
        elif not scanned and held:
            status, text = (
                "unscanned",
                ngettext("{n} card to scan", "{n} cards to scan", sum(held.values())).format(
                    n=sum(held.values())
                ),
            )
        elif missing:
            status = "partial"
            text = ngettext(
                "{n} card still to scan", "{n} cards still to scan", sum(missing.values())
            ).format(n=sum(missing.values()))
        else:
            status = "match"
            text = _("piles match the game")
        out.append(
            PileView(
                player=p,
                label=who(p),
                colour=seat_colour(game.players, p),
                expected=sum(held.values()),
                scanned=tuple(card_view(c) for c in scanned),
                status=status,
                status_text=text,
                selected=p == (control.selected or game.players[0]),
            )
        )
    return tuple(out)
