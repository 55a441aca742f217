"""The README, the pages under docs/ and the command line do not drift apart."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.cli import build_parser
from companion.kinds.clank.rules import ACTION_NAMES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# the README and every page under docs/, by their path from the checkout
PAGES = {
    "README.md": README,
    **{
        f"docs/{p.name}": p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "docs").glob("*.md"))
    },
}
DOCS = "\n".join(PAGES.values())
# the pages the README sends a reader to
FRONT_DOOR_LINKS = (
    "docs/playing.md",
    "docs/hardware.md",
    "docs/proof.md",
    "docs/table-script.md",
    "docs/architecture.md",
)


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    names = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                names.append(f"{prefix}{name}")
                names += _commands(sub, f"{prefix}{name} ")
    return names


def test_every_command_is_documented():
    for command in _commands(build_parser()):
        assert f"clank-companion {command}" in DOCS, command


def test_every_documented_command_exists():
    known = set(_commands(build_parser()))
    for page, text in PAGES.items():
        for match in re.finditer(r"clank-companion ([a-z]+(?: [a-z]+)?)", text):
            words = match.group(1).split()
            assert words[0] in known or " ".join(words) in known, f"{page}: {match.group(0)}"


def test_every_action_is_documented():
    for name in ACTION_NAMES:
        assert f"`{name}`" in DOCS, name


def test_every_tschak_action_is_documented():
    from companion.kinds.tschak.rules.game import TschakGame

    names = [n.removeprefix("_do_") for n in dir(TschakGame) if n.startswith("_do_")]
    assert names
    for name in [*names, "undo"]:
        assert f"`{name}`" in DOCS, name


def test_quick_start_has_exactly_the_two_commands():
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [line.strip() for line in quick.splitlines() if line.startswith("    ./")]
    assert [c.split("#")[0].strip() for c in commands] == ["./dev app", "./dev test"]


def test_the_readme_is_a_front_door():
    """What it is, the two commands, a picture, where to read on: the rest is on the
    pages under docs/."""
    assert len(README.splitlines()) <= 100
    for page in FRONT_DOOR_LINKS:
        assert f"]({page})" in README, page


def _tracked(paths: list[str]) -> list[str] | None:
    """Which of ``paths`` git tracks, or None outside a checkout."""
    git = shutil.which("git")
    if not git:
        return None
    tracked = subprocess.run([git, "ls-files", "--", *paths], cwd=ROOT, capture_output=True,
                             text=True)  # fmt: skip
    return sorted(tracked.stdout.split()) if tracked.returncode == 0 else None


def _pictures(page: str, text: str) -> list[str]:
    """The pictures a page shows (``![...](path.png)``), by their path from the checkout."""
    folder = Path(page).parent
    found = re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", text)
    return sorted({(folder / p).as_posix() for p in found})


def test_every_picture_the_readme_shows_is_in_the_repository():
    pictures = _pictures("README.md", README)
    assert pictures, "the README shows no picture"
    tracked = _tracked(pictures)
    if tracked is not None:  # a checkout: each one committed, not only on disk
        assert tracked == pictures
    assert [p for p in pictures if not (ROOT / p).is_file()] == []


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_picture_a_page_shows_is_in_the_repository(page):
    pictures = _pictures(page, PAGES[page])
    if not pictures:
        return
    tracked = _tracked(pictures)
    if tracked is not None:
        assert tracked == pictures
    assert [p for p in pictures if not (ROOT / p).is_file()] == []


def _anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces
    to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"\n    .*", "", text), re.M)
    return {_anchor(h) for h in headings}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_link_of_a_page_leads_somewhere(page):
    """A relative link names a file of the checkout, and its #anchor a heading there."""
    folder = (ROOT / page).parent
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", PAGES[page]):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (folder / path).resolve() if path else ROOT / page
        if not file.exists():
            broken.append(target)
            continue
        if anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text()):
            broken.append(target)
    assert broken == []


# the folders of the checkout a page may name a file in
NAMED = r"(?:companion|hardware|kv|examples|deploy|systemd|tests|bench|docs)/[\w./-]*"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_file_a_page_names_exists(page):
    """A path in backticks (`companion/ui/trouble.py`, `kv/tschak/`) is a file or
    folder of the checkout; a path with a placeholder (`<screen>`, `*`) is a pattern."""
    missing = []
    for path in re.findall(rf"`({NAMED})`", PAGES[page]):
        if path.endswith(".mo"):
            continue  # compiled, never committed
        if not (ROOT / path).exists():
            missing.append(path)
    assert missing == []
