"""The README and the command line do not drift apart."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from companion.cli import build_parser
from companion.rules import ACTION_NAMES

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    names = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                names.append(f"{prefix}{name}")
                names += _commands(sub, f"{prefix}{name} ")
    return names


def test_every_command_is_in_the_readme():
    for command in _commands(build_parser()):
        if command == "demo":
            continue  # what `clank-companion` alone runs
        assert f"clank-companion {command}" in README, command


def test_every_readme_command_exists():
    known = set(_commands(build_parser()))
    for match in re.finditer(r"clank-companion ([a-z]+(?: [a-z]+)?)", README):
        words = match.group(1).split()
        assert words[0] in known or " ".join(words) in known, match.group(0)


def test_every_action_is_documented():
    for name in ACTION_NAMES:
        assert f"`{name}`" in README, name


def test_quick_start_has_exactly_the_two_commands():
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [line.strip() for line in quick.splitlines() if line.startswith("    ./")]
    assert [c.split("#")[0].strip() for c in commands] == ["./dev app", "./dev test"]


def test_every_picture_the_readme_shows_is_in_the_repository():
    import shutil
    import subprocess

    root = Path(__file__).resolve().parent.parent
    pictures = sorted(set(re.findall(r"\]\((docs/[^)\s]+\.png)\)", README)))
    assert pictures, "the README shows no picture"
    git = shutil.which("git")
    tracked = subprocess.run(
        [git or "true", "ls-files", "--", *pictures], cwd=root, capture_output=True, text=True
    )
    if git and tracked.returncode == 0:  # a checkout: each one committed, not only on disk
        assert sorted(tracked.stdout.split()) == pictures
    assert [p for p in pictures if not (root / p).is_file()] == []
