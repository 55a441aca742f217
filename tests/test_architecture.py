"""docs/architecture.md and the imports do not drift apart.

The page's table of parts (``| part | what it holds | may import |``) is the contract:
every part it names exists, every package and top-level module of companion/ and
hardware/ is named, and every import in the code (lazy ones included) is one the table
allows. The rules that matter most are also checked here by name, so that loosening the
table does not loosen them.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
TOP = ("companion", "hardware")
HEADER = "| part | what it holds | may import |"


@dataclass
class Part:
    name: str
    holds: str
    may: set[str] = field(default_factory=set)  # parts and libraries
    lazy: set[str] = field(default_factory=set)  # of those, imported inside functions only


# ------------------------------------------------------------------ the page's table
@cache
def parts() -> dict[str, Part]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    assert HEADER in lines, f"docs/architecture.md has no table headed {HEADER}"
    start = lines.index(HEADER) + 2  # past the header and its --- row
    found: dict[str, Part] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, line
        name = re.fullmatch(r"`([\w.]+)`", cells[0])
        assert name, f"a part is one name in backticks: {cells[0]}"
        part = Part(name[1], cells[1])
        if cells[2] != "—":
            for entry in cells[2].split(", "):
                got = re.fullmatch(r"`([\w.]+)`( \(lazy\))?", entry)
                assert got, f"{part.name}: not `name` or `name` (lazy): {entry!r}"
                part.may.add(got[1])
                if got[2]:
                    part.lazy.add(got[1])
        assert part.name not in found, f"{part.name} is named twice"
        found[part.name] = part
    return found


# ------------------------------------------------------------------ the code
@cache
def modules() -> dict[str, Path]:
    """Every module of companion/ and hardware/, by dotted name (a package by its own)."""
    found = {}
    for top in TOP:
        for path in sorted((ROOT / top).rglob("*.py")):
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[dotted.removesuffix(".__init__")] = path
    return found


def packages() -> set[str]:
    return {m for m, p in modules().items() if p.name == "__init__.py"}


def top_level_modules() -> set[str]:
    return {m for m in modules() if m.count(".") == 1}


def part_of(name: str) -> str | None:
    """The part a module (or a name imported from it) belongs to: the longest name of
    the table that it is, or is inside; None outside companion and hardware."""
    best = None
    for part in parts():
        if (name == part or name.startswith(part + ".")) and len(part) > len(best or ""):
            best = part
    return best


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it is lazy: inside a function, or under
    ``if TYPE_CHECKING:`` (never run). A nested class does not make it lazy."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
    statements = (ast.stmt, ast.excepthandler, ast.match_case)  # imports are statements

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, statements):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append((child, lazy))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, True)
            elif isinstance(child, ast.If) and _type_checking(child):
                for inner in child.body:
                    visit(ast.Module(body=[inner], type_ignores=[]), True)
                for inner in child.orelse:
                    visit(ast.Module(body=[inner], type_ignores=[]), lazy)
            else:
                visit(child, lazy)

    visit(tree, False)
    return found


def _imported_names(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:  # relative: from the module's package up
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join([*up, *([node.module] if node.module else [])])
    # ``from companion import kinds`` imports the module companion.kinds
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules() else base for a in node.names]


@dataclass(frozen=True)
class Import:
    here: str  # the importing part
    there: str  # the imported part, or a library's top-level name
    module: str  # the importing module
    line: int
    lazy: bool


@cache
def imports() -> list[Import]:
    """Every import from one part to another part or to a library (not the standard
    library), lazy ones included."""
    found = []
    for module, path in modules().items():
        here = part_of(module)
        assert here is not None, f"{module} belongs to no part of the table"
        for node, lazy in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported_names(module, path, node):
                top = name.split(".")[0]
                there = part_of(name) if top in TOP else top
                if there is None:
                    raise AssertionError(f"{module}:{node.lineno} imports {name}: no such part")
                if there == here or there in sys.stdlib_module_names or there == "__future__":
                    continue
                found.append(Import(here, there, module, node.lineno, lazy))
    return found


def _where(found: list[Import]) -> list[str]:
    return sorted(f"{i.module}:{i.line} imports {i.there}" for i in found)


# ------------------------------------------------------------------ (a) and (b)
def test_the_page_has_its_table_of_parts():
    assert len(parts()) >= 30


def test_every_part_the_page_names_exists():
    missing = [name for name in parts() if name not in modules()]
    assert missing == []


def test_every_part_may_import_only_parts_that_exist():
    for part in parts().values():
        for name in part.may:
            if name.split(".")[0] in TOP:
                assert name in parts(), f"{part.name} may import {name}: not a part"


def test_every_package_and_top_level_module_is_named():
    unnamed = sorted((packages() | top_level_modules()) - set(parts()))
    assert unnamed == []


def test_the_modules_and_folders_a_part_is_said_to_hold_exist():
    """A package's row names its modules as `name.py` and its packages as `name/`."""
    for part in parts().values():
        folder = ROOT.joinpath(*part.name.split("."))
        for name, kind in re.findall(r"`([\w]+)(\.py|/)`", part.holds):
            if kind == "/" and name in ("kv", "data", "static", "locale"):
                assert (folder / name).is_dir() or (ROOT / name).is_dir(), f"{part.name}: {name}/"
                continue
            assert (folder / f"{name}{'.py' if kind == '.py' else ''}").exists(), (
                f"{part.name} holds {name}{kind}: there is no such file"
            )


def test_a_packages_row_names_each_of_its_modules():
    """Where a row lists its package's modules, it lists them all (a new module of the
    Tschak! kind, say, is said where it goes)."""
    for part in parts().values():
        path = modules().get(part.name)
        listed = set(re.findall(r"`([\w]+)\.py`", part.holds))
        if path is None or path.name != "__init__.py" or not listed:
            continue
        own = {p.stem for p in path.parent.glob("*.py") if p.name != "__init__.py"}
        assert own - listed == set(), f"{part.name}: not named: {sorted(own - listed)}"


# ------------------------------------------------------------------ (c) the imports
def test_every_import_is_one_the_table_allows():
    table = parts()
    wrong = [i for i in imports() if i.there not in table[i.here].may]
    assert _where(wrong) == []


def test_an_import_the_table_calls_lazy_is_made_inside_a_function():
    table = parts()
    eager = [i for i in imports() if i.there in table[i.here].lazy and not i.lazy]
    assert _where(eager) == []


def top_part(name: str) -> str:
    """The part as a whole: a package nested in a part counts as that part."""
    names = name.split(".")
    if names[0] == "hardware" or names[:2] != ["companion", "kinds"]:
        return ".".join(names[:2])
    return ".".join(names[:3])


# the one exception, by design: a message loads the translations when it is shown
LOOP_ALLOWED = {("companion.msg", "companion.i18n")}


def test_no_two_parts_import_each_other():
    graph: dict[str, set[str]] = {}
    for i in imports():
        a, b = top_part(i.here), top_part(i.there)
        if i.there.split(".")[0] in TOP and a != b and (a, b) not in LOOP_ALLOWED:
            graph.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    loops = sorted(f"{a} -> {b} -> ... -> {a}" for a in graph for b in graph[a] if reaches(b, a))
    assert loops == []


def test_the_exception_is_lazy_in_the_table():
    for here, there in LOOP_ALLOWED:
        assert there in parts()[here].lazy


# ------------------------------------------------ the rules that matter, by name
# derived from the code: the kinds' packages are the subpackages of companion/kinds/, a
# kind's parts every part inside its package, the screens every part that is a screens'
# package, the libraries every import of the table that is neither companion nor hardware
KINDS_DIR = ROOT / "companion" / "kinds"
KIND_PACKAGES = {f"companion.kinds.{p.name}" for p in sorted(KINDS_DIR.iterdir())
                 if (p / "__init__.py").is_file()}  # fmt: skip
# each kind's pure rules: companion/kinds/<kind>/rules/
KIND_RULES = {
    f"{k}.rules" for k in KIND_PACKAGES if (KINDS_DIR / k.rpartition(".")[2] / "rules").is_dir()
}


def _within(name: str, packages: set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def kind_parts() -> set[str]:
    """Every part inside a kind's package: what knows a game."""
    return {name for name in parts() if _within(name, KIND_PACKAGES)}


def screen_parts() -> set[str]:
    """The touchscreen's parts: companion.ui and every kind's screens' package."""
    return {name for name in parts()
            if _within(name, {"companion.ui"}) or name.endswith(".screens")}  # fmt: skip


def libraries() -> set[str]:
    return {m for part in parts().values() for m in part.may if m.split(".")[0] not in TOP}


def own_kind(name: str) -> str:
    return next(k for k in KIND_PACKAGES if _within(name, {k}))


SHARED_LAYERS = ("companion.session", "companion.start", "companion.script", "companion.history",
                 "companion.audit", "companion.live", "companion.cli")  # fmt: skip


@cache
def forbidden() -> dict[str, set[str]]:
    """What the rules of the page forbid each part it names, whatever its row says."""
    kinds_ = kind_parts()
    screens = screen_parts()
    never: dict[str, set[str]] = {}
    for rules in KIND_RULES:
        # the rules are pure: no store, screen, session, registry, table, translations
        # (at import), no other part of any kind but their own catalog, no library
        catalog = f"{own_kind(rules)}.catalog"
        never[rules] = {
            "companion.store", "companion.session", "companion.start", "companion.script",
            "companion.kinds", "companion.live", "companion.history", "companion.archive",
            "companion.audit", "companion.i18n", "companion.config", "companion.web",
            "companion.cli", *screens, *(kinds_ - {rules, catalog}), *libraries(),
        }  # fmt: skip
    # the store plays no game
    never["companion.store"] = {
        "companion.session", "companion.start", "companion.draw", "companion.audit",
        "companion.history", *kinds_, *screens,
    }  # fmt: skip
    # the shared layers reach a game through the registry only
    for shared in SHARED_LAYERS:
        never[shared] = {*kinds_, *screens} - (
            {"companion.ui"} if shared == "companion.cli" else set()
        )
    return never


FORBIDDEN = sorted({*KIND_RULES, "companion.store", *SHARED_LAYERS})  # the parts held to it
STANDARD_LIBRARY_ONLY = ("companion.verify_log", "companion.draw", "companion.story",
                         "companion.resources", "companion.pin")  # fmt: skip


def test_the_kinds_their_rules_and_the_screens_are_found() -> None:
    assert {"companion.kinds.clank", "companion.kinds.tschak"} <= KIND_PACKAGES
    assert {"companion.kinds.clank.rules", "companion.kinds.tschak.rules"} <= KIND_RULES
    assert {
        "companion.ui",
        "companion.ui.screens",
        "companion.kinds.tschak.screens",
    } <= screen_parts()
    assert {"kivy", "sqlite_utils", "aiohttp"} <= libraries()


def test_each_kinds_rules_are_a_part_of_the_table() -> None:
    assert sorted(KIND_RULES - set(parts())) == []


def test_every_allowance_of_the_table_is_used() -> None:
    """A "may import" no import uses is stale: the table says more than the code does."""
    used = {(i.here, i.there) for i in imports()}
    stale = sorted(f"{part.name} may import {name}" for part in parts().values()
                   for name in part.may if (part.name, name) not in used)  # fmt: skip
    assert stale == []


def test_the_rules_the_page_states_hold_in_its_table():
    table = parts()
    for name, never in forbidden().items():
        assert table[name].may & never == set(), name
    for name in STANDARD_LIBRARY_ONLY:
        assert table[name].may == set(), name
    # the rules load no translations when imported
    for part in table.values():
        if part.name.endswith(".catalog") and _within(part.name, KIND_PACKAGES):
            assert part.lazy >= {"companion.i18n"} & part.may, part.name
    screens = screen_parts()
    for part in table.values():
        if part.name.startswith("hardware"):
            assert not any(m.startswith("companion") for m in part.may), part.name
        if "kivy" in part.may and part.name not in screens:
            assert "kivy" in part.lazy, f"{part.name} may import Kivy only lazily"


@pytest.mark.parametrize("name", FORBIDDEN)
def test_the_rules_the_page_states_hold_in_the_code(name):
    never = forbidden()[name]
    wrong = [i for i in imports() if i.here == name and i.there in never]
    assert _where(wrong) == []


def test_hardware_imports_nothing_from_the_companion():
    wrong = [i for i in imports() if i.here.startswith("hardware") and i.there in parts()
             and not i.there.startswith("hardware")]  # fmt: skip
    assert _where(wrong) == []


def test_kivy_is_imported_by_the_screens_alone_and_lazily_by_the_command_line():
    screens = screen_parts()
    wrong = [i for i in imports() if i.there == "kivy" and i.here not in screens
             and not (i.here == "companion.cli" and i.lazy)]  # fmt: skip
    assert _where(wrong) == []


# ------------------------------------------------ one room per module
LONG = 600  # lines: a module longer than this says at its top why it is one module


def test_a_module_over_600_lines_says_at_its_top_why_it_is_one():
    unsaid = []
    for path in sorted((ROOT / "companion").rglob("*.py")) + sorted(
        (ROOT / "hardware").rglob("*.py")
    ):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LONG:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if "Why one module" not in doc:
            unsaid.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert unsaid == [], unsaid
