"""The rules give codes and values; words are chosen at the edges. Importing the rules
(Clank! and Tschak!) loads no translation machinery."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "modules",
    [
        "companion.kinds.clank.rules, companion.kinds.clank.rules.odds",
        "companion.kinds.tschak.rules",
        "companion.kinds.clank.catalog",
    ],
)
def test_the_rules_import_no_translations(modules):
    code = f"import sys, {modules}; print(sorted(m for m in sys.modules if 'i18n' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_message_from_the_rules_is_still_shown_in_the_tables_language():
    from companion import i18n
    from companion.kinds.clank.rules import RuleError, make_setup

    with pytest.raises(RuleError) as refused:
        make_setup({"edition": "clank", "players": ["red"]})
    assert str(refused.value).startswith("new: ")
    i18n.set_language("ru")
    try:
        assert refused.value.localized() != str(refused.value).removeprefix("new: ")
    finally:
        i18n.set_language("en")


def test_the_store_does_not_import_the_audit():
    code = "import sys, companion.store; print(sorted(m for m in sys.modules if 'audit' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _imports_between_parts() -> dict[str, set[str]]:
    """Which parts of the program import which (every import, lazy ones included): a
    part is a package (companion.store, companion.ui, hardware...), a module of
    companion (companion.session...), or a game kind (companion.kinds.clank...; the
    registry and what it asks of a kind are the part "kinds")."""
    import ast

    root = Path(__file__).resolve().parent.parent

    def part(module: str) -> str | None:
        names = module.split(".")
        if names[0] == "hardware":
            return "hardware"
        if names[:2] == ["companion", "kinds"] and len(names) > 2 and names[2] != "base":
            return "kinds." + names[2]  # each game kind is a part of its own
        return names[1] if names[0] == "companion" and len(names) > 1 else None

    graph: dict[str, set[str]] = {}
    for path in [*(root / "companion").rglob("*.py"), *(root / "hardware").rglob("*.py")]:
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        here = part(module.removesuffix(".__init__"))
        if here is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                there = part(name)
                if there is not None and there != here:
                    graph.setdefault(here, set()).add(there)
    return graph


def test_no_two_parts_of_the_program_import_each_other():
    graph = _imports_between_parts()
    # the one exception, by design: a message (companion.msg, standard library only)
    # loads the translations when it is shown, and companion.i18n re-exports it
    graph["msg"].discard("i18n")

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            for nxt in graph.get(node, ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    cycles = sorted(f"{a} -> {b} -> ... -> {a}" for a in graph for b in graph[a] if reaches(b, a))
    assert cycles == []
    assert "store" in graph and "rules" not in graph["store"]  # the store plays no game
    assert not {"rules", "table", "session", "draw"} & graph["store"]
