"""Reading and replaying a table script (JSON Lines of actions)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.i18n import N_, Msg, Refusal, _, localized
from companion.rules import RuleError
from companion.table import Table


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


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The script's meaningful lines with their 1-based numbers."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ScriptError(
            0,
            Msg(N_("cannot read {path}: {problem}"), path=str(path), problem=str(e.strerror or e)),
        ) from None
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ScriptError(number, Msg(N_("not UTF-8 text"))) from None
        text = text.strip()
        if number == 1:
            text = text.removeprefix("\ufeff")
        if text and not text.startswith("#"):
            yield number, text


def parse_line(number: int, text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScriptError(
            number,
            Msg(N_("not valid JSON ({problem} at column {column})"), problem=e.msg, column=e.colno),
        ) from None
    if not isinstance(obj, dict):
        raise ScriptError(number, Msg(N_("each line is one JSON object")))
    return obj


@dataclass
class Replay:
    table: Table | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)  # as the JSON output says
    refused: list[ScriptError] = field(default_factory=list)  # the same, to localize
    actions: int = 0

    def output(self) -> dict[str, Any]:
        if self.table is None:
            raise RuntimeError("no game was created")
        out = self.table.snapshot()
        out["errors"] = list(self.errors)
        out["actions"] = self.actions
        return out


def replay(
    path: Path,
    *,
    keep_going: bool = False,
    on_step: Any = None,
    start: Callable[[Any], Table] = Table.from_options,
) -> Replay:
    """Replay a script; raises ScriptError on the first bad line unless ``keep_going``.

    ``start`` makes the table from the first line's options (a store's ``start`` records
    the game in a database).
    """
    result = Replay()
    lines = read_lines(path)
    for number, text in lines:
        obj = parse_line(number, text)
        if "new" not in obj or len(obj) != 1:
            raise ScriptError(number, Msg(N_("the first line must be {new}"), new='{"new": {...}}'))
        try:
            result.table = start(obj["new"])
        except RuleError as e:
            raise ScriptError(number, e) from None
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
            try:
                events = table.apply(action)
            except RuleError as e:
                raise ScriptError(number, e) from None
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
