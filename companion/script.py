"""Reading and replaying a table script (JSON Lines of actions)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.i18n import N_, Msg, Refusal, _, localized
from companion.kinds import GameTable, kind_for, kind_of
from companion.start import SeedError, start_table


class ScriptError(ValueError):
    """A problem with a script line; ``str()`` is ``line N: reason`` in English (the
    ``reason`` of the replay's ``errors``); ``localized()`` says it in the reader's
    language."""

    def __init__(self, line: int, problem: str | Msg | Refusal) -> None:
        self.line = line
        self.problem = problem
        self.reason = str(problem)
        super().__init__(f"line {line}: {self.reason}")

    def localized(self, edition: str | None = None) -> str:
        reason = localized(self.problem, edition)
        if isinstance(self.problem, Refusal) and self.problem.during:
            reason = f"{self.problem.during}: {reason}"  # the script's own word for the action
        return _("line {line}: {reason}").format(line=self.line, reason=reason)


# A table-script line is a flat action: a few levels of objects and lists at most.
MAX_DEPTH = 32
# Whole numbers fit in 64 bits (the log's SQLite and every reader of an export).
MAX_INT = 2**63 - 1
# What a file the companion reads may hold (a table script, more actions, a tag set): a
# whole evening is a few hundred kilobytes; /dev/zero or a disk image is refused unread.
MAX_FILE_MIB = 16
MAX_FILE = MAX_FILE_MIB * 1024 * 1024
MAX_LINE_MIB = 1
MAX_LINE = MAX_LINE_MIB * 1024 * 1024
# A table's client seed is the opening row's tag UIDs: a few hundred characters.
MAX_CLIENT_SEED = 1000


def read_file(path: Path, most: int = MAX_FILE) -> bytes:
    """A file's bytes, read with a limit: ScriptError on line 0 if it cannot be read or
    holds more than ``most`` bytes (never more than that is read)."""
    try:
        with path.open("rb") as f:
            data = f.read(most + 1)
    except (OSError, ValueError) as e:  # ValueError: a path the system cannot name
        problem = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ScriptError(
            0, Msg(N_("cannot read {path}: {problem}"), path=shown_path(path), problem=problem)
        ) from None
    if len(data) > most:
        raise ScriptError(
            0,
            Msg(
                N_("{path} is larger than {size} MiB: not a file the companion reads"),
                path=shown_path(path),
                size=most // (1024 * 1024),
            ),
        )
    return data


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The script's meaningful lines with their 1-based numbers. The file is read at
    once, at most MAX_FILE bytes (ScriptError on line 0 if it cannot be); each line is
    decoded when its turn comes."""
    return numbered(read_file(path).splitlines())


def stream_lines(stream: Any) -> Iterator[bytes | str]:
    """The raw lines of a stream (standard input), read as they come; a line is read
    up to one byte beyond MAX_LINE, never the whole of an endless one."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        yield line


def numbered(source: Iterable[bytes | str]) -> Iterator[tuple[int, str]]:
    """Numbered meaningful lines of raw lines (bytes, or text already decoded, such as
    standard input's): blank lines and ``#`` comments skipped, a UTF-8 BOM dropped;
    ScriptError for a line that is not UTF-8 text or is longer than MAX_LINE."""
    lines = iter(source)
    number = 0
    while True:
        number += 1
        try:
            raw = next(lines)
        except StopIteration:
            return
        except UnicodeDecodeError:  # a text stream that decodes strictly
            raise ScriptError(number, Msg(N_("not UTF-8 text"))) from None
        except OSError as e:
            raise ScriptError(
                number, Msg(N_("cannot read: {problem}"), problem=str(e.strerror or e))
            ) from None
        length = len(raw.rstrip(b"\r\n")) if isinstance(raw, bytes) else len(raw.rstrip("\r\n"))
        if length > MAX_LINE:
            raise ScriptError(
                number,
                Msg(N_("longer than {size} MiB: not a table-script line"), size=MAX_LINE_MIB),
            )
        try:
            # text from a stream that kept undecodable bytes as surrogates is checked too
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            text.encode("utf-8")
        except UnicodeError:
            raise ScriptError(number, Msg(N_("not UTF-8 text"))) from None
        text = text.strip()
        if number == 1:
            text = text.removeprefix("\ufeff")
        if text and not text.startswith("#"):
            yield number, text


def shown_path(path: object) -> str:
    """A path as one printable line: what cannot be printed is written as an escape."""
    text = str(path)
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def parse_line(number: int, text: str) -> dict[str, Any]:
    """A script line as a JSON object; ScriptError (one line) for anything else: not
    JSON, not an object, a key twice in one object, NaN or an infinite number, a whole
    number beyond 64 bits, a lone surrogate (``\\udcff``), more than ``MAX_DEPTH``
    levels of nesting."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in items:
            if key in obj:
                raise ScriptError(
                    number, Msg(N_("the key {key} appears twice in one object"), key=_quoted(key))
                )
            obj[key] = value
        return obj

    def whole(digits: str) -> int:
        if len(digits.lstrip("-")) > 19 or abs(int(digits)) > MAX_INT:
            raise _too_large(number, digits)
        return int(digits)

    def real(digits: str) -> float:
        value = float(digits)
        if math.isinf(value):
            raise _too_large(number, digits)
        return value

    def constant(name: str) -> Any:
        raise ScriptError(number, Msg(N_("{constant} is not a JSON number"), constant=name))

    try:
        obj = json.loads(
            text,
            object_pairs_hook=pairs,
            parse_int=whole,
            parse_float=real,
            parse_constant=constant,
        )
    except json.JSONDecodeError as e:
        raise ScriptError(
            number,
            Msg(N_("not valid JSON ({problem} at column {column})"), problem=e.msg, column=e.colno),
        ) from None
    except RecursionError:
        raise ScriptError(number, _too_deep()) from None
    if not isinstance(obj, dict):
        raise ScriptError(number, Msg(N_("each line is one JSON object")))
    _check_values(number, obj)
    return obj


def _too_large(number: int, digits: str) -> ScriptError:
    return ScriptError(number, Msg(N_("the number {number} is too large"), number=_cut(digits)))


def _too_deep() -> Msg:
    return Msg(N_("nested more than {depth} levels deep"), depth=MAX_DEPTH)


def _quoted(text: str) -> str:
    return json.dumps(_cut(text))  # one line, every surrogate and control written as \u


def _cut(text: str, most: int = 24) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


def _check_values(number: int, obj: dict[str, Any]) -> None:
    """No deeper than MAX_DEPTH, and every string (keys too) encodable as UTF-8: JSON's
    ``\\ud800``-style escapes can name half a surrogate pair, which no file, database or
    screen can hold. Walked without recursion."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise ScriptError(number, _too_deep())
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    stack.append((key, depth))
                stack.append((item, depth + 1))
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ScriptError(
                    number,
                    Msg(
                        N_("{escape} is half of a surrogate pair, not a character"),
                        escape=ascii(e.object[e.start])[1:-1],
                    ),
                ) from None


def _check_client_seed(number: int, options: Any) -> None:
    """A ``client_seed`` (in a ``new`` line's options or a ``seed`` action) of at most
    MAX_CLIENT_SEED characters: it is hashed into every draw and kept in the log."""
    seed = options.get("client_seed") if isinstance(options, dict) else None
    if isinstance(seed, str) and len(seed) > MAX_CLIENT_SEED:
        raise ScriptError(
            number,
            Msg(
                N_('"client_seed" is {length} characters long: at most {most} are allowed'),
                length=len(seed),
                most=MAX_CLIENT_SEED,
            ),
        )


@dataclass
class Replay:
    table: GameTable | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)  # as the JSON output says
    refused: list[ScriptError] = field(default_factory=list)  # the same, to localize
    actions: int = 0

    def output(self) -> dict[str, Any]:
        if self.table is None:
            raise RuntimeError("no game was created")
        out = kind_of(self.table.edition).output(self.table)
        out["errors"] = list(self.errors)
        out["actions"] = self.actions
        return out


def new_table(options: Any) -> GameTable:
    """A table (not recorded) from a ``new`` line's options, of the kind they name, set
    up as a recorded game's is (``companion.start``: a given seed used and checked)."""
    return start_table(options).table


def kind_refused(error: Exception, edition: Any, during: str | None = None) -> Refusal | None:
    """An error of the game kind of ``edition`` (a table's, or a ``new`` line's options)
    as the table reads it, or a bad seed of a ``new`` line; None for any other error."""
    if isinstance(error, SeedError):
        return error
    kind = kind_of(edition) if isinstance(edition, str) else kind_for(edition)
    return kind.refusal(error, during)


def replay(
    path: Path | Iterable[tuple[int, str]],
    *,
    keep_going: bool = False,
    on_step: Any = None,
    start: Callable[[Any], GameTable] = new_table,
) -> Replay:
    """Replay a script (a file, or its lines as ``read_lines`` gives them); raises
    ScriptError on the first bad line unless ``keep_going``.

    ``start`` makes the table from the first line's options: by default one that is not
    recorded, set up as the session's (``Session.start``, which records the game in a
    database) sets it up, so a script replays the same with a database and without.
    """
    result = Replay()
    lines = iter(read_lines(path) if isinstance(path, Path) else path)
    for number, text in lines:
        obj = parse_line(number, text)
        if "new" not in obj or len(obj) != 1:
            raise ScriptError(number, Msg(N_("the first line must be {new}"), new='{"new": {...}}'))
        if not isinstance(obj["new"], dict):  # true, a list, a text, null or a number
            raise ScriptError(number, Msg(N_('"new" must be an object')))
        _check_client_seed(number, obj["new"])
        try:
            result.table = start(obj["new"])
        except ValueError as e:  # the kinds' refusals are ValueErrors
            refusal = kind_refused(e, obj["new"], "new")
            if refusal is None:
                raise
            raise ScriptError(number, refusal) from None
        break
    else:
        raise ScriptError(
            0, Msg(N_("the script is empty: it needs a {new} line"), new='{"new": {...}}')
        )
    play(result, lines, keep_going=keep_going, on_step=on_step)
    return result


def play(
    result: Replay, lines: Iterable[tuple[int, str]], *, keep_going: bool, on_step: Any
) -> None:
    """Apply numbered action lines to the replay's table."""
    table = result.table
    assert table is not None
    for number, text in lines:
        try:
            action = parse_line(number, text)
            if "new" in action:
                raise ScriptError(number, Msg(N_('a script holds one game: a second "new" line')))
            if action.get("do") == "seed":
                _check_client_seed(number, action)
            try:
                events = table.apply(action)
            except ValueError as e:  # the kinds' refusals are ValueErrors
                refusal = kind_refused(e, table.edition)
                if refusal is None:
                    raise
                raise ScriptError(number, refusal) from None
        except ScriptError as e:
            if not keep_going:
                raise
            result.errors.append({"line": e.line, "reason": e.reason})
            result.refused.append(e)
            if on_step is not None:
                on_step(number, None, None, e)
            continue
        result.actions += 1
        if on_step is not None:
            on_step(number, action, events, None)
