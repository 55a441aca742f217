"""The tag registry: which NFC sticker is which card, token or player badge.

It lives in the game database beside the games, so a table's tags travel with its
history. A tag is bound to one component (an edition's card or token, named as in the
catalog) or to a player badge (a colour). Many tags may name the same component: every
physical copy of a card carries its own sticker.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from companion.i18n import EN_, N_, Msg, Name, Refusal, pgettext
from companion.kinds import editions, kind_of
from companion.store.db import LazyDatabase
from hardware.uid import normalise_uid

TOKEN_KINDS = ("artifact", "major_secret", "minor_secret", "market", "special", "prisoner")
KINDS = ("card", *TOKEN_KINDS, "badge")
CSV_COLUMNS = ["uid", "kind", "edition", "name"]
_COLOUR = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")
# The longest UID a tag has is 10 bytes (ISO 14443 triple size); 16 bytes leave room.
MAX_UID_DIGITS = 32
# A tag set's line, as a table script's: a row is a few dozen characters.
MAX_LINE_MIB = 1
MAX_LINE = MAX_LINE_MIB * 1024 * 1024


# What a spreadsheet takes for the start of a formula in a cell (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(cell: object) -> object:
    """A CSV cell that a spreadsheet shows as the text it is: text that would start a
    formula (``=``, ``+``, ``-``, ``@``, a tab, a carriage return) is written after a
    single quote, as OWASP recommends for CSV files; numbers and other text as they are.
    Every CSV the companion writes for people (the tag set, a game's results) goes
    through it."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


class TagError(Refusal):
    """A binding the registry refuses; nothing was changed. ``localized()`` is the
    reason in the table's language."""


@dataclass(frozen=True)
class Component:
    kind: str
    edition: str | None  # None for a badge
    name: str

    def __str__(self) -> str:
        if self.kind == "badge":
            return f"badge {self.name}"
        what = "card" if self.kind == "card" else self.kind.replace("_", " ")
        return f"{what} {self.name} ({self.edition})"

    def localized(self, edition: str | None = None) -> str:
        """The component in the table's language (card and token names are the catalog's;
        a Tschak! card says what it shows)."""
        if self.kind == "badge":
            return Msg(N_("badge {colour}"), colour=Name(self.name)).localized()
        return Msg(
            N_("{kind} {name} ({edition})"),
            kind=_KindWord(self.kind),
            name=_Words(self.name, self.edition or ""),
            edition=_Title(self.edition or ""),
        ).localized(self.edition)


class _Title(str):
    """An edition's name inside a message: its title, in the table's language."""

    __slots__ = ()

    def __str__(self) -> str:
        return kind_of(str.__str__(self)).english_title(str.__str__(self))

    def localized(self, edition: str | None = None) -> str:
        return edition_title(str.__str__(self))


def edition_title(edition: str) -> str:
    """An edition's title in the table's language (the edition itself if none plays it)."""
    title = kind_of(edition).titles.get(edition) if edition in editions() else None
    return pgettext("edition", title) if title else edition


def edition_name(edition: str) -> _Title:
    """An edition inside a message: its title, in the reader's language."""
    return _Title(edition)


class _Words(str):
    """A component's name inside a message: what it shows, in the table's words (its
    kind's: a Clank! card's name, what a Tschak! card shows)."""

    edition: str

    def __new__(cls, name: str, edition: str) -> _Words:
        made = super().__new__(cls, name)
        made.edition = edition
        return made

    def localized(self, edition: str | None = None) -> str:
        return kind_of(self.edition).component_words(str.__str__(self))


def component_words(component: Component) -> str:
    """What a tag's component shows, in the table's words."""
    if component.kind == "badge" or component.edition is None:
        return component.name
    return kind_of(component.edition).component_words(component.name)


class _KindWord(str):
    """A token kind inside a message ("major secret"), in the table's language."""

    __slots__ = ()

    def __str__(self) -> str:
        return str.__str__(self).replace("_", " ")

    def localized(self, edition: str | None = None) -> str:
        return Msg(KIND_NAMES[str.__str__(self)]).localized(edition)


KIND_NAMES = {
    "card": N_("card"),
    "artifact": N_("artifact"),
    "major_secret": EN_("major secret"),
    "minor_secret": EN_("minor secret"),
    "market": EN_("market item"),
    "special": N_("token"),
    "prisoner": EN_("prisoner"),
    "badge": N_("badge"),
}


def kind_word(kind: str) -> _KindWord:
    """A component kind inside a message ("major secret"), in the reader's language."""
    return _KindWord(kind)


@dataclass(frozen=True)
class Binding:
    uid: str
    component: Component


def resolve(kind: str, edition: str | None, name: str) -> Component:
    """The component as the catalog names it; TagError when there is none."""
    if kind not in KINDS:
        raise TagError(
            N_("unknown kind {kind!r} (kinds: {kinds})"), kind=kind, kinds=", ".join(KINDS)
        )
    if kind == "badge":
        colour = name.strip().lower()
        if not _COLOUR.match(colour) or colour in ("black", "ghost"):
            raise TagError(N_("a badge names a player colour, not {name!r}"), name=name)
        return Component("badge", None, colour)
    found = kind_of(edition or "").resolve_component(edition, kind, name)
    return Component(found.kind, found.edition, found.name)


def components(
    edition: str,
    kinds: Iterable[str] = ("card",),
    sets: Iterable[str] = (),
    *,
    party: bool = False,
) -> list[Component]:
    """Every physical copy of an edition's components, in catalog order: what bulk
    enrollment walks through (a card with 3 copies appears 3 times), as its kind lists
    them; ``sets`` and ``party`` narrow them as the kind understands."""
    found = kind_of(edition).components(edition, kinds, sets, party)
    return [Component(c.kind, c.edition, c.name) for c in found]


def _row_component(kind: object, edition: object, name: object) -> Component | None:
    """A row of the tags table as a component; None for a row edited into something the
    companion never writes (an unknown kind or edition, a name that is not text)."""
    if not isinstance(kind, str) or kind not in KINDS or not isinstance(name, str):
        return None
    if kind == "badge":
        return Component(kind, None, name)
    if not isinstance(edition, str) or edition not in editions():
        return None
    return Component(kind, edition, name)


def shown_uid(uid: object) -> str:
    """A UID from the tags table as one printable line, whatever the cell holds."""
    if isinstance(uid, bytes):
        return f"x'{uid.hex().upper()}'"
    text = uid if isinstance(uid, str) else repr(uid)
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


class TagRegistry:
    def __init__(self, db: LazyDatabase) -> None:
        self.db = db

    def lookup(self, uid: str) -> Component | None:
        """The component a tag is bound to; None for a tag the registry does not know
        (a damaged row counts as unknown)."""
        row = (
            self.db.reader()
            .execute("SELECT kind, edition, name FROM tags WHERE uid = ?", [normalise_uid(uid)])
            .fetchone()
        )
        return _row_component(*row) if row else None

    def bind(self, uid: str, component: Component, *, rebind: bool = False) -> Binding:
        """Bind a tag; a tag bound to something else needs ``rebind``."""
        uid = normalise_uid(uid)
        current = self.lookup(uid)
        if current is not None and current != component and not rebind:
            raise TagError(
                N_("tag {uid} is already {component}; re-bind it to change that"),
                uid=uid,
                component=current,
            )
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        self.db.execute(
            "INSERT INTO tags (uid, kind, edition, name, enrolled_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (uid) DO UPDATE SET kind = excluded.kind, edition = excluded.edition,"
            " name = excluded.name, enrolled_at = excluded.enrolled_at",
            [uid, component.kind, component.edition, component.name, now],
        )
        return Binding(uid, component)

    def unbind(self, uid: str) -> bool:
        cursor = self.db.execute("DELETE FROM tags WHERE uid = ?", [normalise_uid(uid)])
        return cursor.rowcount > 0

    def count(self) -> int:
        """How many tags are bound (damaged rows not counted)."""
        return len(self.bindings())

    def bulk_enrollment(self, edition: str) -> BulkEnrollment:
        """Walk the cards of an edition that its kind has a bulk enrollment walk
        (``GameKind.bulk_sets``), binding each scanned tag to the next card."""
        return BulkEnrollment(self, components(edition, ("card",), kind_of(edition).bulk_sets))

    def bindings(
        self, edition: str | None = None, skipped: Callable[[str], None] | None = None
    ) -> list[Binding]:
        """The tags bound, in component order. A damaged row (a tags table edited by
        hand: an unknown kind, a uid that is not text) is left out, and ``skipped`` is
        told its uid (as ``shown_uid`` writes it)."""
        sql = "SELECT uid, kind, edition, name FROM tags"
        args: list[str] = []
        if edition:
            sql += " WHERE edition = ? OR kind = 'badge'"
            args.append(edition)
        order = " ORDER BY kind, edition, name, uid"
        rows = self.db.reader().execute(sql + order, args).fetchall()
        out = []
        for uid, kind, ed, name in rows:
            component = _row_component(kind, ed, name) if isinstance(uid, str) else None
            if component is None:
                if skipped is not None:
                    skipped(shown_uid(uid))
                continue
            out.append(Binding(uid, component))
        return out

    def export_csv(self, out: IO[str], skipped: Callable[[str], None] | None = None) -> int:
        """The tag set as CSV (damaged rows left out, see ``bindings``); the rows written."""
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        bindings = self.bindings(skipped=skipped)
        for b in bindings:
            row = [b.uid, b.component.kind, b.component.edition or "", b.component.name]
            writer.writerow([safe_cell(cell) for cell in row])
        return len(bindings)

    def import_csv(self, text: str | bytes, *, rebind: bool = False) -> int:
        """Import a shared tag set (its text, or the file's bytes: UTF-8, a BOM allowed);
        every row is checked first, then all are bound at once. TagError naming the line
        for anything wrong (not UTF-8, a NUL, a field beyond the CSV module's limit, a bad
        row); nothing is imported then."""
        read = 0  # the lines the CSV reader took: the csv module's own count lags at times

        def lines() -> Iterator[str]:
            nonlocal read
            for line in io.StringIO(_csv_text(text), newline=""):  # \n, \r\n or \r
                read += 1
                if len(line) > MAX_LINE:
                    raise TagError(
                        N_("line {line}: longer than {size} MiB; this is not a tag set"),
                        line=read,
                        size=MAX_LINE_MIB,
                    )
                yield line

        reader = csv.DictReader(lines(), strict=True)  # a stray quote is an error, not data
        try:
            planned = self._plan(reader, rebind=rebind)
        except csv.Error as e:
            raise TagError(
                N_("line {line}: not readable as CSV ({problem})"),
                line=max(read, 1),
                problem=str(e),
            ) from None
        try:
            with self.db.atomic():
                for uid, component in planned:
                    self.bind(uid, component, rebind=True)
        except sqlite3.Error as e:
            raise TagError(N_("nothing was imported: {problem}"), problem=str(e)) from None
        return len(planned)

    def _plan(self, reader: csv.DictReader[str], *, rebind: bool) -> list[tuple[str, Component]]:
        """The bindings a CSV asks for, every row checked; TagError at the first bad one."""
        if reader.fieldnames != CSV_COLUMNS:
            raise TagError(
                N_("line 1: the header must be {columns}"), columns=",".join(CSV_COLUMNS)
            )
        planned: list[tuple[str, Component]] = []
        seen: set[str] = set()
        for row in reader:
            line = reader.line_num
            if None in row or any(v is None for v in row.values()):
                raise TagError(N_("line {line}: wrong number of fields"), line=line)
            try:
                uid = normalise_uid(row["uid"])
            except ValueError as e:
                raise TagError(N_("line {line}: {problem}"), line=line, problem=str(e)) from None
            if len(uid) > MAX_UID_DIGITS:
                raise TagError(
                    N_(
                        "line {line}: a tag UID of {n} hexadecimal digits; a tag has at most {most}"
                    ),
                    line=line,
                    n=len(uid),
                    most=MAX_UID_DIGITS,
                )
            if uid in seen:
                raise TagError(N_("line {line}: tag {uid} is listed twice"), line=line, uid=uid)
            seen.add(uid)
            try:
                component = resolve(row["kind"], row["edition"] or None, row["name"])
            except TagError as e:
                raise TagError(N_("line {line}: {problem}"), line=line, problem=e.message) from None
            current = self.lookup(uid)
            if current is not None and current != component and not rebind:
                raise TagError(
                    N_("line {line}: tag {uid} is already {component} (import with re-bind)"),
                    line=line,
                    uid=uid,
                    component=current,
                )
            planned.append((uid, component))
        return planned


def _csv_text(data: str | bytes) -> str:
    """A tag set's text: UTF-8 (a BOM dropped), no NUL, no lone surrogate; TagError
    naming the line otherwise."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise _not_utf8(data.count(b"\n", 0, e.start) + 1) from None
    else:
        text = data
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _not_utf8(text.count("\n", 0, e.start) + 1) from None
    if "\0" in text:
        raise TagError(
            N_("line {line}: a NUL character; this is not a CSV text file"),
            line=text.count("\n", 0, text.index("\0")) + 1,
        )
    return text.removeprefix("\ufeff")


def _not_utf8(line: int) -> TagError:
    return TagError(N_("line {line}: not UTF-8 text; save the file as UTF-8 CSV"), line=line)


class BulkEnrollment:
    """Walk a list of components; each scan binds the tag to the component asked for."""

    def __init__(self, registry: TagRegistry, targets: list[Component]) -> None:
        self.registry = registry
        self.targets = targets
        self.position = 0
        self.bound: list[Binding] = []

    @property
    def current(self) -> Component | None:
        return self.targets[self.position] if self.position < len(self.targets) else None

    @property
    def done(self) -> bool:
        return self.current is None

    def progress(self) -> Msg:
        """Where the walk is: ``str()`` in English, ``localized()`` for the table."""
        if self.done:
            return Msg(N_("all {n} done"), n=len(self.targets))
        return Msg(
            N_("{position} of {n}: scan {component}"),
            position=self.position + 1,
            n=len(self.targets),
            component=self.current,
        )

    def scanned(self, uid: str, *, rebind: bool = False) -> Binding:
        """Bind the current component; TagError (position unchanged) if the tag is taken."""
        component = self.current
        if component is None:
            raise TagError(N_("enrollment is finished"))
        uid = normalise_uid(uid)
        if any(b.uid == uid for b in self.bound):
            raise TagError(
                N_("tag {uid} was just enrolled as {component}"),
                uid=uid,
                component=self.registry.lookup(uid),
            )
        binding = self.registry.bind(uid, component, rebind=rebind)
        self.bound.append(binding)
        self.position += 1
        return binding

    def skip(self, count: int = 1) -> None:
        """Pass over ``count`` components (no further than the end)."""
        self.position = min(len(self.targets), self.position + max(0, count))
