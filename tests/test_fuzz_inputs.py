"""Fuzzing the two readers of files a person hands the companion: the table script
(a line becomes an action) and a shared tag set (CSV). Whatever the text, the reader
accepts it or refuses it with its own error class (ScriptError, TagError) and a
one-line message; never another exception, and a refused tag import changes nothing."""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.kinds.clank.rules.actions import ACTION_NAMES
from companion.kinds.clank.table import Table
from companion.script import Replay, ScriptError, numbered, parse_line, play, replay
from companion.session import Session
from companion.store import GameStore
from companion.store.tags import KINDS, TagError, TagRegistry, resolve

FUZZ = settings(
    max_examples=int(os.environ.get("CLANK_FUZZ_EXAMPLES", "400")),  # more: a longer hunt
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
NEW = {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}


def one_line(text: str) -> bool:
    return bool(text) and text.splitlines() == [text]


def refused_in_one_line(error: ScriptError) -> None:
    assert one_line(str(error)), repr(str(error))
    assert one_line(error.localized()), repr(error.localized())
    assert str(error).startswith(f"line {error.line}: ")


# ---------------------------------------------------------------- what the lines hold
# every character, lone surrogates and controls included
ANY_CHAR = st.characters(exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=12)
WORDS = st.sampled_from(
    ["red", "blue", "pink", "Sneak", "Orc Grunt", "dragon egg", "crown", "", " ", "\udcff"]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**25), max_value=10**25),
    st.floats(allow_nan=True, allow_infinity=True),
    WORDS,
    ANY_TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(WORDS, ANY_TEXT), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["player", "n", "card", "cards", "value", "name", "item", "in", "revealed", "voluntary"]
    + ["coupon", "client_seed", "do", "new", "x"]
)


def render(obj: Any, ascii_only: bool) -> str:
    return json.dumps(obj, ensure_ascii=ascii_only)  # NaN and Infinity as Python writes them


@st.composite
def action_lines(draw: st.DrawFn) -> str:
    """An action as a script writes one, some of its fields wrong; written as JSON text,
    keys possibly repeated."""
    pairs = [("do", draw(st.one_of(st.sampled_from(ACTION_NAMES), VALUES)))]
    pairs += draw(st.lists(st.tuples(FIELDS, VALUES), max_size=4))
    ascii_only = draw(st.booleans())
    body = ", ".join(f"{render(k, ascii_only)}: {render(v, ascii_only)}" for k, v in pairs)
    return "{" + body + "}"


@st.composite
def deep_lines(draw: st.DrawFn) -> str:
    depth = draw(st.integers(min_value=1, max_value=3000))
    opening, closing = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    inside = draw(st.sampled_from(["1", "[]", "{}", '"x"']))
    text = opening * depth + inside + closing * depth
    return '{"do": "rage", "n": ' + text + "}" if draw(st.booleans()) else text


@st.composite
def number_lines(draw: st.DrawFn) -> str:
    digits = draw(st.integers(min_value=1, max_value=6000))
    number = draw(st.sampled_from(["1", "-1", "9"])) * digits
    suffix = draw(st.sampled_from(["", ".5", "e5", "e400", "e-400"]))
    field = draw(st.sampled_from(["n", "value", "x"]))
    return '{"do": "rage", "' + field + '": ' + number + suffix + "}"


SCRIPT_LINES = st.one_of(
    action_lines(),
    deep_lines(),
    number_lines(),
    st.builds(lambda v, a: render(v, a), VALUES, st.booleans()),  # non-objects too
    st.text(ANY_CHAR, max_size=40),  # garbage
    st.sampled_from(["NaN", "Infinity", "-Infinity", '{"do": NaN}', '{"do": "rage", "n": -0}']),
)


@FUZZ
@given(SCRIPT_LINES)
@example('{"do": "clank", "player": "red", "n": 1, "n": 2}')
@example("[" * 1000 + "]" * 1000)
@example('{"do": "rage", "n": ' + "1" * 5000 + "}")
@example('{"do": "secret", "player": "red", "name": "\\udcff"}')
def test_a_script_line_is_an_object_or_a_one_line_refusal(text):
    try:
        obj = parse_line(7, text)
    except ScriptError as e:
        assert e.line == 7
        refused_in_one_line(e)
    else:
        assert isinstance(obj, dict)
        json.dumps(obj, ensure_ascii=False).encode("utf-8")  # it can go to the log as it is


@FUZZ
@given(SCRIPT_LINES)
@example('{"do": "clank", "player": "red", "n": 1, "n": 2}')
@example('{"do": "rage", "n": ' + "1" * 5000 + "}")
@example('{"do": "rage", "n": 1e400}')
@example('{"do": "gold", "player": "red", "n": 9223372036854775807}')
def test_a_script_line_is_played_or_refused_and_keep_going_goes_on(text):
    """Through the replay: one line after a good "new" line, then a good line that must
    still apply with --keep-going."""
    table = Table.from_options(dict(NEW))
    before = table.snapshot()
    result = Replay(table=table)
    lines = [(2, text), (3, '{"do": "clank", "player": "red", "n": 1}')]
    try:
        play(result, iter(lines[:1]), keep_going=False, on_step=None)
    except ScriptError as e:
        refused_in_one_line(e)
        assert table.snapshot() == before  # a refused line never changes the game
    again = Replay(table=Table.from_options(dict(NEW)))
    play(again, iter(lines), keep_going=True, on_step=None)
    assert again.actions + len(again.errors) == 2
    assert again.actions >= 1  # the good line after the bad one was played
    for error in again.refused:
        refused_in_one_line(error)


NEW_KEYS = st.sampled_from([*sorted(NEW), "client_seed", "party", "health", "rage_track"])


@FUZZ
@given(st.one_of(VALUES, st.dictionaries(NEW_KEYS, VALUES, max_size=3)))
@example({"client_seed": "\udcff"})
@example({"health": 10**30})
def test_the_new_line_is_a_game_or_a_one_line_refusal(tmp_path_factory, options):
    """The first line's options, from plausible to garbage; a game that starts can be
    written down (the log and the --json output are UTF-8)."""
    script = tmp_path_factory.mktemp("new") / "game.jsonl"
    new = {"new": {**NEW, **options} if isinstance(options, dict) else options}
    script.write_text(json.dumps(new) + "\n", encoding="utf-8")
    try:
        result = replay(script)
    except ScriptError as e:
        refused_in_one_line(e)
    else:
        json.dumps(result.output(), ensure_ascii=False).encode("utf-8")


@FUZZ
@given(st.lists(st.one_of(st.binary(max_size=30), st.text(ANY_CHAR, max_size=30)), max_size=6))
def test_raw_lines_are_text_or_a_one_line_refusal(raw):
    """Lines as a file or standard input gives them: bytes, or text with surrogates."""
    try:
        for number, text in numbered(raw):
            assert number >= 1 and text == text.strip() and text
            text.encode("utf-8")
    except ScriptError as e:
        refused_in_one_line(e)


# actions of the right shape with values from ordinary to extreme: the rules' side
BIG = st.one_of(
    st.integers(min_value=-12, max_value=12),
    st.sampled_from([2**31, -(2**31), 2**53 + 1, 2**62, -(2**62), 2**63 - 1, -(2**63 - 1)]),
)
TYPED = {
    "str": st.one_of(WORDS, st.sampled_from(["Ladder", "Kobold", "backpack", "priest"])),
    "int": BIG,
    "bool": st.booleans(),
    "cards": st.lists(st.sampled_from(["Sneak", "Kobold", "Orc Grunt", "Ruby", "x"]), max_size=3),
}
SHAPES = {
    "row": {"cards": "cards"},
    "clank": {"player": "str", "n": "int"},
    "end_turn": {"revealed": "cards"},
    "take": {"card": "str"},
    "attack": {},
    "rage": {"n": "int"},
    "artifact": {"player": "str", "value": "int"},
    "secret": {"player": "str", "name": "str"},
    "buy": {"player": "str", "item": "str", "coupon": "bool"},
    "gold": {"player": "str", "n": "int"},
    "damage": {"player": "str", "n": "int", "voluntary": "bool"},
    "heal": {"player": "str", "n": "int"},
    "depths": {"player": "str", "in": "bool"},
    "escape": {"player": "str"},
    "undo": {},
    "seed": {"client_seed": "str"},
}


@st.composite
def typed_actions(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(sorted(SHAPES)))
    action = {"do": name} | {k: draw(TYPED[kind]) for k, kind in SHAPES[name].items()}
    return json.dumps(action)


@settings(FUZZ, max_examples=max(FUZZ.max_examples // 4, 25))
@given(st.lists(typed_actions(), min_size=1, max_size=12))
@example(['{"do": "seed", "client_seed": "\\udcff"}'])
@example(
    [
        '{"do": "gold", "player": "red", "n": 9223372036854775807}',
        '{"do": "gold", "player": "red", "n": 9}',
    ]
)
def test_typed_actions_with_extreme_values_are_recorded_or_refused(tmp_path_factory, texts):
    """Into a database, with --keep-going: each line is played and committed, or refused
    in one line; never another exception."""
    folder = tmp_path_factory.mktemp("fuzz")
    script = folder / "game.jsonl"
    script.write_text("\n".join([json.dumps({"new": NEW}), *texts]) + "\n", encoding="utf-8")
    with GameStore(folder / "games.db") as store:
        result = replay(script, keep_going=True, start=Session(store).start)
    assert result.actions + len(result.errors) == len(texts)
    for error in result.refused:
        refused_in_one_line(error)
    json.dumps(result.output(), ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------- the tag set CSV
UIDS = st.one_of(
    st.sampled_from(["01020304", "0a0b0c0d", "04:A2:24:B2:C3:5E:80", "zz", "", "0102030"]),
    st.text(ANY_CHAR, max_size=10),
)
EDITIONS = st.one_of(st.sampled_from(["clank", "catacombs", "", "monopoly"]), ANY_TEXT)
NAMES = st.one_of(
    st.sampled_from(["Ruby", "Kobold", "dragon egg", "red", "black", "monkey idol", "Nope"]),
    st.text(ANY_CHAR, max_size=16),
    st.builds(lambda n: "x" * n, st.integers(min_value=131_000, max_value=140_000)),
)
KIND_WORDS = st.one_of(st.sampled_from(KINDS), ANY_TEXT)
HEADERS = st.sampled_from(
    [
        "uid,kind,edition,name\n",
        "\ufeffuid,kind,edition,name\n",
        "uid,kind,name\n",
        "",
        '"uid","kind","edition","name"\r\n',
        "uid,kind,edition,name,extra\n",
    ]
)


def csv_field(text: str, quote: bool) -> str:
    return '"' + text.replace('"', '""') + '"' if quote else text


@st.composite
def csv_texts(draw: st.DrawFn) -> str | bytes:
    rows = draw(st.lists(st.tuples(UIDS, KIND_WORDS, EDITIONS, NAMES, st.booleans()), max_size=4))
    text = draw(HEADERS) + "".join(
        ",".join(csv_field(f, quote) for f in fields) + "\n" for *fields, quote in rows
    )
    form = draw(st.sampled_from(["text", "utf-8", "bytes", "nul"]))
    if form == "utf-8":
        return text.encode("utf-8", "surrogatepass")  # a surrogate as bytes: not UTF-8
    if form == "bytes":
        cut = draw(st.integers(min_value=0, max_value=len(text)))
        return text[:cut].encode("utf-8", "surrogatepass") + draw(st.binary(max_size=8))
    if form == "nul":
        return text + "\0"
    return text


@pytest.fixture
def registry(tmp_path):
    store = GameStore(tmp_path / "games.db")
    registry = TagRegistry(store.db)
    registry.bind("01020304", resolve("card", "clank", "Ruby"))
    registry.bind("A1A2A3A4", resolve("badge", None, "blue"))
    yield registry
    store.close()


def test_a_tag_set_is_imported_or_refused_in_one_line_and_nothing_changes(registry):
    @FUZZ
    @given(csv_texts(), st.booleans())
    @example("uid,kind,edition,name\n01020304,card,clank," + "x" * 131_073 + "\n", False)
    @example(b"uid,kind,edition,name\n05060708,card,clank,Ruby\xff\n", False)
    @example("uid,kind,edition,name\n05060708,card,clank,Ru\0by\n", False)
    @example("05060708,card,clank,Ruby\n", False)
    def check(text, rebind):
        before = registry.bindings()
        try:
            with registry.db.atomic():  # each example starts from the same registry
                try:
                    registry.import_csv(text, rebind=rebind)
                except TagError as e:
                    assert one_line(str(e)), repr(str(e))
                    assert one_line(e.localized()), repr(e.localized())
                    assert str(e).startswith(("line ", "nothing was imported"))
                    assert registry.bindings() == before
                raise _Undo
        except _Undo:
            pass
        assert registry.bindings() == before

    check()


class _Undo(Exception):
    """Rolls an accepted import back, so that every example sees the same registry."""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "uid,kind,edition,name\n01020304,card,clank," + "x" * 131_073 + "\n",
            "line 2: not readable as CSV (field larger than field limit (131072))",
        ),
        ("uid,kind,edition,name\n" + "x" * 131_073 + ",card,clank,Ruby\n", "line 2: "),
        (b"uid,kind,edition,name\n05060708,card,clank,Ruby\xff\n", "line 2: not UTF-8 text"),
        ("uid,kind,edition,name\n05060708,card,clank,Ru\0by\n", "line 2: a NUL character"),
        ("uid,kind,edition,name\n05060708,card,clank,Ruby\udcff\n", "line 2: not UTF-8 text"),
        ('uid,kind,edition,name\r\n05060708,card,clank,"Ruby\r\n', "line 2: not readable as CSV"),
    ],
)
def test_hostile_tag_sets_name_the_line(registry, text, reason):
    before = registry.bindings()
    with pytest.raises(TagError) as caught:
        registry.import_csv(text)
    assert str(caught.value).startswith(reason) and one_line(str(caught.value))
    assert registry.bindings() == before


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_a_tag_set_saved_with_a_bom_is_read(registry, end):
    """As a spreadsheet saves "CSV UTF-8" (a BOM, any line ending); text or bytes."""
    text = f"\ufeffuid,kind,edition,name{end}05060708,card,clank,Ruby{end}"
    assert registry.import_csv(text) == 1
    assert registry.lookup("05060708").name == "Ruby"
    assert registry.import_csv(text.replace("05060708", "0A0B0C0E").encode("utf-8")) == 1


# ---------------------------------------------------------------- sizes
@given(st.integers(min_value=1001, max_value=5000), st.booleans())
@FUZZ
def test_a_client_seed_over_1000_characters_is_refused_by_the_script_reader(length, seed_line):
    """At the reader, naming the line: the rules never see it, the table never starts."""
    long_seed = "c" * length
    if seed_line:
        lines = [
            (1, json.dumps({"new": NEW})),
            (2, json.dumps({"do": "seed", "client_seed": long_seed})),
        ]
    else:
        lines = [(1, json.dumps({"new": {**NEW, "client_seed": long_seed}}))]
    with pytest.raises(ScriptError) as caught:
        replay(iter(lines))
    refused_in_one_line(caught.value)
    assert caught.value.line == len(lines)
    assert caught.value.reason == (
        f'"client_seed" is {length} characters long: at most 1000 are allowed'
    )
    if seed_line:  # and with keep-going, the game goes on without it
        result = replay(iter(lines), keep_going=True)
        assert [e["line"] for e in result.errors] == [2] and result.actions == 0


@pytest.mark.parametrize("kind", [bytes, str])
def test_a_line_over_1_mib_is_refused_and_one_of_1_mib_is_read(kind):
    limit = 1024 * 1024
    fits, too_long = "#" + "x" * (limit - 1), "#" + "x" * limit
    raw = [fits, "{}\n", too_long, "{}"]
    lines = [line.encode() if kind is bytes else line for line in raw]
    read = numbered(lines)
    assert next(read) == (2, "{}")
    with pytest.raises(ScriptError) as caught:
        next(read)
    refused_in_one_line(caught.value)
    assert (
        caught.value.line == 3
        and caught.value.reason == "longer than 1 MiB: not a table-script line"
    )


def test_standard_input_is_read_a_line_at_a_time_and_never_beyond_the_limit():
    from companion.script import MAX_LINE, stream_lines

    stream = io.BytesIO(b'{"do": "ghost"}\n' + b"x" * (3 * MAX_LINE))
    read = numbered(stream_lines(stream))
    assert next(read) == (1, '{"do": "ghost"}')
    with pytest.raises(ScriptError, match="^line 2: longer than 1 MiB"):
        next(read)
    assert stream.tell() == 16 + MAX_LINE + 1  # what was read of the endless line
