"""What the shared layers ask of a game kind and of its table."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from companion.msg import Refusal

if TYPE_CHECKING:  # a type only: the story's dataclasses load with the first story told
    from companion.story import GameHistory

JSON = dict[str, Any]  # a record's body or a script's line, as JSON gives it


class ActionLog(Protocol):
    """Where a table commits what happens (the durable game log, ``store.log.GameLog``)."""

    def record(
        self,
        action: JSON,
        events: list[JSON],
        draws: list[JSON],
        ending: JSON | None,
        work: JSON | None = None,  # the table's work in progress after it, kept with it
    ) -> None: ...

    def abandon(self, server_seed: str | None, reason: str) -> None: ...

    def close(self, reason: str) -> None: ...


# ``ending`` of ActionLog.record: {"server_seed", "reason", "ranking"} when a game with a
# dragon bag ends (its seed revealed), {"reason", "ranking"} when a game without one
# ends, {"ranking"} when a score changes after the end.


class KindModules:
    """A kind whose story and tag face are modules of its own, imported when first
    asked for: ``story_module`` holds ``story(game_id, row, records, setup)``,
    ``tags_module`` holds ``TITLES``, ``english_title``, ``resolve``, ``components``,
    ``words``, ``BULK_SETS`` and ``BULK_LABEL`` (see GameKind)."""

    story_module: str
    tags_module: str

    def story(
        self, game_id: int, row: Mapping[str, Any], records: list[JSON], setup: Any
    ) -> GameHistory:
        told: GameHistory = importlib.import_module(self.story_module).story(
            game_id, row, records, setup
        )
        return told

    def _tags(self) -> Any:
        return importlib.import_module(self.tags_module)

    @property
    def titles(self) -> Mapping[str, str]:
        titles: Mapping[str, str] = self._tags().TITLES
        return titles

    def english_title(self, edition: str) -> str:
        return str(self._tags().english_title(edition))

    def resolve_component(self, edition: str | None, kind: str, name: str) -> TagTarget:
        found: TagTarget = self._tags().resolve(edition, kind, name)
        return found

    def components(
        self, edition: str, kinds: Iterable[str], sets: Iterable[str], party: bool
    ) -> Sequence[TagTarget]:
        found: Sequence[TagTarget] = self._tags().components(edition, kinds, sets, party)
        return found

    def component_words(self, name: str) -> str:
        return str(self._tags().words(name))

    @property
    def bulk_sets(self) -> tuple[str, ...]:
        return tuple(self._tags().BULK_SETS)

    @property
    def bulk_label(self) -> str:
        return str(self._tags().BULK_LABEL)


class TagTarget(Protocol):
    """What a tag names: a component of an edition (the tag registry's ``Component``)."""

    @property
    def kind(self) -> str: ...

    @property
    def edition(self) -> str | None: ...

    @property
    def name(self) -> str: ...


class GameTable(Protocol):
    """One game at the table, of any kind: it applies actions (committing each to its
    log, when it has one, before returning), and is abandoned or closed."""

    log: ActionLog | None
    abandoned: bool
    closed: bool

    @property
    def edition(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    @property
    def actions_seen(self) -> int: ...

    def apply(self, raw: Any) -> list[JSON]: ...

    def abandon(self, reason: str) -> None: ...

    def close(self, reason: str = ...) -> None: ...

    def snapshot(self) -> JSON: ...


class KindControl(Protocol):
    """What the app asks of the controller of a kind (a ``companion.live.LiveGame``): the
    screens ask it the rest, in the kind's own terms."""

    @property
    def in_play(self) -> bool:
        """Its game (or its set-up) is on the table."""
        ...

    @property
    def phase(self) -> str:
        """Where its game is: the face's ``phase_screens`` say which screen shows."""
        ...

    def resume_last(self) -> object:
        """At start-up: the game the table left, taken up again if it is the kind's."""
        ...

    def moment(self) -> tuple[object, ...]:
        """Where the table stands now (a question is answered for its moment only)."""
        ...

    @property
    def table(self) -> Any:
        """The kind's table of the game on the table (a ``GameTable``), or None."""
        ...

    @property
    def game_id(self) -> int | None:
        """The recorded game on the table, if any."""
        ...

    @property
    def may_abandon(self) -> bool:
        """The game on the table may be given up now."""
        ...

    def settings_note(self) -> str:
        """What the Settings screen says of the game on the table ("": nothing)."""
        ...

    def abandon(self, reason: str = ...) -> bool:
        """Give the game on the table up (its log keeps it, marked abandoned)."""
        ...

    def close_game(self) -> bool:
        """The scores have been read: the game's log is closed."""
        ...


MenuEntry = tuple[str, Callable[[], Any]]
"""One entry of a menu: its words, and what a tap on it does."""


class GameScreen(Protocol):
    """A screen of a kind's face: drawn again from its kind's controller (the app asks
    this of the screen shown whenever the game on the table changes)."""

    def show_own(self) -> None: ...


class TableFace(Protocol):
    """The touchscreen's side of a kind: its screens, the controller that drives them,
    where a scan goes while the kind is on the table, what its menu offers."""

    @property
    def screens(self) -> Mapping[str, tuple[str, str]]:
        """Each screen's name and (module, class): imported when first built. Each one
        is a ``GameScreen``."""
        ...

    @property
    def phase_screens(self) -> Mapping[str, str]:
        """The screen of each phase of the kind's controller."""
        ...

    @property
    def visited(self) -> tuple[str, ...]:
        """The screens its menu visits: an update of the game does not take the table
        away from them."""
        ...

    def make_control(self, app: Any) -> KindControl:
        """The kind's controller for this app (its store, its tag registry)."""
        ...

    def scan(self, app: Any, uid: str) -> None:
        """A tag scanned while the kind is on the table."""
        ...

    def open_drawer(self) -> None:
        """The simulated reader's drawer of the kind's components."""
        ...

    def menu_entries(self, app: Any) -> list[MenuEntry]:
        """The menu's entries of the kind's game on the table, before the screens every
        table has."""
        ...

    def press(self, app: Any, button: str) -> None:
        """A button of the panel ("end_turn", "undo") pressed while the kind is on the
        table."""
        ...

    def turn(self, control: KindControl) -> object:
        """Whose turn it is, as the panel's buttons heed it (they settle a moment after
        it changes)."""
        ...

    def tag_choices(self, edition: str) -> list[tuple[str, TagTarget]]:
        """What an unknown tag may be bound to among the edition's components (beside
        the players' badges), each in the table's words."""
        ...


LastAction = tuple[JSON, list[JSON], JSON | None]
"""A game's last action as the log keeps it, its events, and the action it undid (an undo)."""


class PhoneFace(Protocol):
    """The phones' side of a kind (``companion.web``): how a game of it is replayed from
    its log without its seed, what its page says of a state, and how BG Stats files its
    plays. A kind without one is a kind the phones cannot show."""

    def replay_table(self, record: JSON, draws: Callable[[Any], Sequence[str]]) -> GameTable:
        """The table again from its logged ``new`` record, never from its seed: every draw
        is handed the cubes the log recorded for it by ``draws`` (called once per draw,
        with the rules' request), and its commitment is the record's. Raises one of the
        kind's ``errors``, KeyError or TypeError for a set-up it cannot use."""
        ...

    def reveal(self, table: GameTable, seed: str | None) -> None:
        """The server seed the log revealed (None: none, or lost), shown once the game
        has ended; a kind without a bag has none to show."""
        ...

    def page_view(
        self, table: GameTable, state: Mapping[str, Any], last: LastAction | None
    ) -> JSON:
        """What the page says of one state (the kind's ``output``), in the table's
        language: ``title``; ``layout`` (which of the page's layouts shows the game:
        "dragon", "towers", or "lines", the layout of a box with none of its own) and
        ``pick`` ("colour" or "name": how a phone says whose it is); ``players``, each
        one's ``label``, ``letter`` and ``colour``; ``last``; once over, ``ranking``
        (``player``, ``label``, ``score``, ``place``) and ``winners``. With "lines":
        ``turn`` (whose turn it is, in words; "" for none) and ``lines``, short texts
        shown one to a line in one panel (the state's ``players``: an object keyed by
        player). docs/phones.md has every field."""
        ...

    def roles(self, seats: Sequence[str]) -> dict[str, str]:
        """Each player's role in a BG Stats play (their colour, in the table's words)."""
        ...

    def names(self, seats: Sequence[str]) -> dict[str, str]:
        """How a BG Stats play calls each player."""
        ...

    def bgstats_game(self, edition: str) -> tuple[str, int | None]:
        """The edition's game as BG Stats knows it: its name, and its BoardGameGeek id
        where one is confirmed (None: BG Stats matches the game by its name)."""
        ...


class GameKind(Protocol):
    """One box: how its games are set up, recorded and replayed."""

    @property
    def name(self) -> str:
        """The kind's own name."""
        ...

    @property
    def has_bag(self) -> bool:
        """A dragon bag: a server seed, committed and sealed, and draws."""
        ...

    @property
    def ending(self) -> str:
        """The record that ends a game: "reveal" (its seed with it) or "end"."""
        ...

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """The kind's refusals (nothing changed)."""
        ...

    def new_table(self, options: JSON, server_seed: str | None = None) -> GameTable:
        """A table (not recorded) from a ``new`` line's options; a kind with a bag is
        given the server seed (None: a fresh one). Raises one of ``errors``."""
        ...

    def commitment(self, table: GameTable) -> str:
        """The table's commitment to its server seed ("" without a bag)."""
        ...

    def setup_record(self, table: GameTable) -> JSON:
        """What the ``new`` record keeps of the set-up: ``setup`` (the options that make
        the game again), ``seats``, ``commitment`` ("" without a bag), ``client_seed``."""
        ...

    def rebuild_table(self, record: JSON, server_seed: str | None) -> GameTable:
        """The table again from its logged ``new`` record (as ``setup_record`` made it)
        and its seed (None: sealed, or none). Raises one of ``errors``, KeyError or
        TypeError for a set-up it cannot use."""
        ...

    def replay(self, table: GameTable, action: JSON, keep: bool) -> tuple[Any, list[JSON]]:
        """Apply a logged action without logging it: its events and draws as the log
        keeps them. ``keep`` False: the state before it need not be kept (a check of a
        whole log, which no undo needs)."""
        ...

    def is_over(self, table: GameTable) -> bool:
        """The game is over (not abandoned): only what scores it may follow."""
        ...

    def refusal(self, error: Exception, during: str | None = None) -> Refusal | None:
        """One of the kind's errors as the table reads it; None for any other error."""
        ...

    def output(self, table: GameTable) -> JSON:
        """The table as a script's ``--json`` output shows it (without its errors)."""
        ...

    def tell_event(self, event: JSON, edition: str) -> str:
        """One of its events in words, for the terminal (``edition``: the game's)."""
        ...

    def tell_state(self, out: JSON) -> list[str]:
        """A table as ``output`` shows it, in a few readable lines for the terminal
        (its errors are the caller's to add)."""
        ...

    def sample_script(self, edition: str) -> list[str]:
        """A short game of ``edition`` played to its end, as the lines of a table script
        (its ``new`` line first, with a ``server_seed`` for a kind with a bag; blank
        lines and ``#`` comments as a file may hold them): what the conformance suite
        plays through every registered kind."""
        ...

    @property
    def file_errors(self) -> tuple[type[Exception], ...]:
        """What its box's own files raise when they cannot be used (a catalog that does
        not follow its schema): the error's text says what is wrong."""
        ...

    @property
    def charted(self) -> bool:
        """Its games count in the table's record and the dragon's fairness (players
        who are the dragon's colours)."""
        ...

    def story(
        self, game_id: int, row: Mapping[str, Any], records: list[JSON], setup: Any
    ) -> GameHistory:
        """A game of this kind told as data from its log (``setup``: its ``new``
        record's, None when damaged); damaged records are passed over."""
        ...

    # ---------------------------------------------------------- its box's tags
    @property
    def titles(self) -> Mapping[str, str]:
        """Each edition's title, marked for the catalogs (context "edition")."""
        ...

    def english_title(self, edition: str) -> str:
        """An edition's title in English (logs, scripts)."""
        ...

    def resolve_component(self, edition: str | None, kind: str, name: str) -> TagTarget:
        """The component a tag may name, as the kind's catalog names it; the tag
        registry's TagError when there is none."""
        ...

    def components(
        self, edition: str, kinds: Iterable[str], sets: Iterable[str], party: bool
    ) -> Sequence[TagTarget]:
        """Every physical copy of the edition's components, in catalog order."""
        ...

    def component_words(self, name: str) -> str:
        """What a component (by the name a tag keeps) shows, in the table's words."""
        ...

    @property
    def bulk_sets(self) -> tuple[str, ...]:
        """The sets of its cards that a bulk enrollment walks (``components``' ``sets``;
        (): every card)."""
        ...

    @property
    def bulk_label(self) -> str:
        """What the tags screen's bulk button says it walks, marked for the catalogs
        (translated when shown)."""
        ...

    # ---------------------------------------------------------- the new game
    @property
    def player_limits(self) -> tuple[int, int]:
        """The fewest and the most players of a game of it."""
        ...

    def seats_note(self, count: int) -> str:
        """What the new-game screen says of ``count`` seats taken, in the table's
        language ("": nothing of its own to say)."""
        ...

    def prepare(self, control: Any, edition: str, seats: Sequence[str]) -> None:
        """A new game of ``edition`` for ``seats`` (in seat order) on the kind's
        controller (``TableFace.make_control``): started at once, or its set-up opened."""
        ...

    def table_face(self) -> TableFace:
        """The kind's screens on the touchscreen."""
        ...

    def phone_face(self) -> PhoneFace | None:
        """What the phones show of its games (None: the phones cannot show them)."""
        ...
