"""The package as pip builds and installs it, not as the checkout runs it: a wheel built
from the project's files carries the translations compiled by the build (setup.py, with
Babel), the screen layouts and the example games; installed into a new virtual
environment, away from the checkout's editable install, its command replays a game and
speaks Russian from the compiled catalog alone.

Nothing is downloaded: the build uses the current environment's setuptools and Babel
(--no-build-isolation; both are in the dev extra), the new environment installs the
wheel alone (--no-index) with the current environment's pip, and reads the dependencies
from the current environment's site-packages (a .pth file)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.i18n_tools import mo_data

ROOT = Path(__file__).resolve().parent.parent
LONG = 600  # seconds: only so that a stuck pip fails the test instead of hanging it
DEMO_LINE = "Replaying {name}: a recorded game, action by action."  # companion/cli.py
# what a build must not see: the checkout's compiled catalogs (the build makes its own),
# its build folders and environments
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".*_cache",
    ".hypothesis", "screenshots", "bench-store-*", "*.mo", "*.db", "*.sqlite",
)  # fmt: skip


def run(args: list[str | Path], **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=LONG, check=False,
        **kwargs,
    )  # fmt: skip
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result


def build_wheel(source: Path, out: Path) -> Path:
    out.mkdir()
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "-q", "-w", out, source])  # fmt: skip
    (wheel,) = out.glob("clank_companion-*.whl")
    return wheel


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the checkout's files without its .mo files and build folders."""
    copy = tmp_path_factory.mktemp("wheel") / "project"
    shutil.copytree(ROOT, copy, ignore=NOT_SOURCES)
    assert not list(copy.rglob("*.mo"))
    return copy


@pytest.fixture(scope="module")
def wheel(project: Path) -> Path:
    return build_wheel(project, project.parent / "dist")


def catalogs(project: Path) -> list[Path]:
    found = sorted((project / "companion" / "locale").glob("*/LC_MESSAGES/companion.po"))
    assert {p.parent.parent.name for p in found} == {"ru", "uk", "es"}
    return found


def test_the_wheel_carries_the_compiled_catalogs_and_the_data_files(project: Path, wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for po in catalogs(project):
            mo = po.with_suffix(".mo").relative_to(project).as_posix()
            assert mo in names, f"{mo} is not in the wheel"
            assert z.read(mo) == mo_data(po)  # what Babel compiles from the .po
    data = f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.data/data/share/clank-companion"
    for folder, pattern in (("kv", "*.kv"), ("examples", "*.jsonl")):
        files = sorted(p.name for p in (ROOT / folder).glob(pattern))
        assert files, folder
        for name in files:
            assert f"{data}/{folder}/{name}" in names, f"{folder}/{name} is not in the wheel"
    assert "companion/i18n_tools.py" in names and "companion/cli.py" in names
    assert not [n for n in names if n.startswith(("tests/", "setup.py", "kv/", "examples/"))]


def test_an_sdist_builds_into_a_wheel_with_the_compiled_catalogs(project: Path, tmp_path):
    """The sdist carries the .po sources and setup.py, not .mo files; a wheel built from
    it compiles them."""
    out = tmp_path / "sdist"
    code = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    name = run([sys.executable, "-c", code, out], cwd=project).stdout.strip().splitlines()[-1]
    with tarfile.open(out / name) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert "setup.py" in members and "pyproject.toml" in members
    assert "companion/locale/ru/LC_MESSAGES/companion.po" in members
    assert "kv/common.kv" in members and "examples/clank-4-players.jsonl" in members
    assert not [m for m in members if m.endswith(".mo")]
    built = build_wheel(out / name, tmp_path / "dist")
    with zipfile.ZipFile(built) as z:
        for po in catalogs(project):
            assert z.read(po.with_suffix(".mo").relative_to(project).as_posix()) == mo_data(po)


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    """A new virtual environment with the wheel installed, and the current environment's
    site-packages (the dependencies, not the checkout) behind its own."""
    venv = wheel.parent.parent / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", "-q", wheel])  # fmt: skip
    paths = sysconfig.get_paths()
    own = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    deps = sorted({paths["purelib"], paths["platlib"]})
    (Path(own.stdout.strip()) / "current-venv-dependencies.pth").write_text("\n".join(deps) + "\n")
    return venv


def environment(home: Path, language: str) -> dict[str, str]:
    """The new environment's command, run as a user of its own in ``language``."""
    config = home / f"{language}.toml"
    config.write_text(f'[app]\nlanguage = "{language}"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CLANK_DB")}  # fmt: skip
    return env | {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"), "CLANK_CONFIG": str(config),
        "LANG": "C.UTF-8",
    }  # fmt: skip


def test_the_installed_package_is_its_own(installed: Path, tmp_path):
    """companion comes from the new environment, not from the checkout's editable install;
    its layouts and examples from the new environment's share folder."""
    code = """if True:
        import json, sys, sysconfig
        import companion, companion.i18n, platformdirs
        from companion.resources import shared_folder
        print(json.dumps({
            "purelib": sysconfig.get_paths()["purelib"], "prefix": sys.prefix,
            "companion": companion.__file__, "locale": str(companion.i18n.LOCALE_DIR),
            "kv": str(shared_folder("kv")), "examples": str(shared_folder("examples")),
            "editable": [m for m in sys.modules if "editable" in m],
            "dependency": platformdirs.__file__,
        }))
    """
    found = json.loads(run([installed / "bin" / "python", "-c", code], cwd=tmp_path,
                           env=environment(tmp_path, "en")).stdout)  # fmt: skip
    purelib = Path(found["purelib"])
    assert Path(found["prefix"]) == installed
    assert Path(found["companion"]).is_relative_to(purelib), found
    assert Path(found["locale"]).is_relative_to(purelib), found
    assert not Path(found["companion"]).is_relative_to(ROOT), found
    assert found["editable"] == []
    share = installed / "share" / "clank-companion"
    assert Path(found["kv"]) == share / "kv" and (share / "kv" / "common.kv").is_file()
    assert Path(found["examples"]) == share / "examples"
    assert not Path(found["dependency"]).is_relative_to(installed)  # the current venv's


def test_the_installed_command_replays_a_game(installed: Path, tmp_path):
    command = installed / "bin" / "clank-companion"
    env = environment(tmp_path, "en")
    demo = run([command, "demo", "--db", tmp_path / "demo.db"], cwd=tmp_path, env=env)
    assert demo.stdout.startswith(DEMO_LINE.format(name="clank-4-players.jsonl")), demo.stdout
    assert "ranking: 1." in demo.stdout
    example = installed / "share" / "clank-companion" / "examples" / "clank-2-players-short.jsonl"
    replay = run([command, "replay", "--json", example], cwd=tmp_path, env=env)
    state = json.loads(replay.stdout)
    assert state["game_over"] is True and state["edition"] == "clank"


def test_the_installed_command_speaks_russian_from_the_compiled_catalog(
    installed: Path, project: Path, tmp_path
):
    """With the .po files taken away: the app reads the .mo the build compiled."""
    purelib = next((installed / "lib").glob("python3*/site-packages"))
    sources = list(purelib.glob("companion/locale/*/LC_MESSAGES/companion.po"))
    assert len(sources) == 3
    for po in sources:
        assert po.with_suffix(".mo").is_file()
        po.unlink()
    with open(project / "companion" / "locale" / "ru" / "LC_MESSAGES" / "companion.po", "rb") as f:
        russian = read_po(f).get(DEMO_LINE)
    assert russian is not None and russian.string, f"{DEMO_LINE!r}: no Russian translation"
    want = russian.string.format(name="clank-4-players.jsonl")
    demo = run([installed / "bin" / "clank-companion", "demo", "--db", tmp_path / "demo.db"],
               cwd=tmp_path, env=environment(tmp_path, "ru"))  # fmt: skip
    assert demo.stdout.splitlines()[0] == want
    assert "ranking: 1." not in demo.stdout  # the rest in Russian too
