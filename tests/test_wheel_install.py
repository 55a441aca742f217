"""The package as pip builds and installs it, not as the checkout runs it: a wheel built
from the project's files carries, inside the package, the translations compiled by the
build (setup.py, with Babel), the screen layouts and the example games (copied from the
checkout's top level by the build), and the card catalogs; installed into a new virtual
environment, away from the checkout's editable install, its command replays a game and
speaks Russian from the compiled catalog alone; installed with ``pip install --target
DIR`` (no prefix of its own: only DIR on PYTHONPATH), its command runs the demo, replays
an example as the checkout does, and the touchscreen shows its first screen.

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
from importlib.util import find_spec
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.i18n_tools import mo_data

ROOT = Path(__file__).resolve().parent.parent
LONG = 600  # seconds: only so that a stuck pip fails the test instead of hanging it
DEMO_LINE = "Replaying {name}: a recorded game, action by action."  # companion/cli/games.py
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


def test_the_wheel_carries_the_compiled_catalogs_and_the_package_data(project: Path, wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for po in catalogs(project):
            mo = po.with_suffix(".mo").relative_to(project).as_posix()
            assert mo in names, f"{mo} is not in the wheel"
            assert z.read(mo) == mo_data(po)  # what Babel compiles from the .po
        # the checkout's top-level layouts and examples, copied into the package
        # (subfolders too: a game kind's layouts in kv/<kind>/)
        for folder, suffix in (("kv", ".kv"), ("examples", ".jsonl")):
            files = sorted((project / folder).rglob(f"*{suffix}"))
            assert files, folder
            for path in files:
                name = f"companion/{path.relative_to(project).as_posix()}"
                assert name in names, f"{name} is not in the wheel"
                assert z.read(name) == path.read_bytes()
            copies = {n for n in names if n.startswith(f"companion/{folder}/")}
            assert len(copies) == len(files), copies
    for data in ("companion/kinds/clank/catalog/data/cards.csv",
                 "companion/kinds/clank/catalog/data/editions.toml",
                 "companion/kinds/tschak/rules/data/tschak_cards.csv"):  # fmt: skip
        assert data in names, f"{data} is not in the wheel"
    assert "companion/i18n_tools.py" in names and "companion/cli/__init__.py" in names
    assert not [n for n in names if n.startswith(("tests/", "setup.py", "kv/", "examples/"))]
    assert not [n for n in names if ".data/" in n]  # no data files outside the package


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
    for path in [*(project / "kv").rglob("*.kv"), *(project / "examples").rglob("*.jsonl")]:
        assert path.relative_to(project).as_posix() in members, path  # MANIFEST.in
    assert not [m for m in members if m.endswith(".mo")]
    built = build_wheel(out / name, tmp_path / "dist")
    with zipfile.ZipFile(built) as z:
        for po in catalogs(project):
            assert z.read(po.with_suffix(".mo").relative_to(project).as_posix()) == mo_data(po)


def new_venv(venv: Path) -> Path:
    """A new virtual environment (its python) with the current environment's
    site-packages (the dependencies, not the checkout) behind its own."""
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    paths = sysconfig.get_paths()
    own = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    deps = sorted({paths["purelib"], paths["platlib"]})
    (Path(own.stdout.strip()) / "current-venv-dependencies.pth").write_text("\n".join(deps) + "\n")
    return python


def pip_install(python: Path, wheel: Path, *options: str | Path) -> None:
    """The wheel alone installed for ``python`` by the current environment's pip."""
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", "-q", *options, wheel])  # fmt: skip


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    """A new virtual environment with the wheel installed."""
    venv = wheel.parent.parent / "venv"
    pip_install(new_venv(venv), wheel)
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


# where the installed package finds its files (printed as JSON by its own python)
WHERE = """if True:
    import json, sys, sysconfig
    import companion, companion.i18n, platformdirs
    from companion.kinds.clank.catalog import load as catalog
    from companion.resources import shared_folder
    print(json.dumps({
        "purelib": sysconfig.get_paths()["purelib"], "prefix": sys.prefix,
        "companion": companion.__file__, "locale": str(companion.i18n.LOCALE_DIR),
        "kv": str(shared_folder("kv")), "examples": str(shared_folder("examples")),
        "catalog": str(catalog.DATA_DIR),
        "editable": [m for m in sys.modules if "editable" in m],
        "dependency": platformdirs.__file__,
    }))
"""


def check_files_in_package(found: dict[str, str], package: Path) -> None:
    """Everything the program reads beside its modules is in its installed package."""
    assert Path(found["companion"]) == package / "__init__.py", found
    assert not Path(found["companion"]).is_relative_to(ROOT), found
    assert found["editable"] == []
    assert Path(found["locale"]) == package / "locale"
    assert Path(found["catalog"]) == package / "kinds" / "clank" / "catalog" / "data"
    assert Path(found["kv"]) == package / "kv" and (package / "kv" / "common.kv").is_file()
    assert Path(found["examples"]) == package / "examples"
    assert (package / "examples" / "clank-4-players.jsonl").is_file()


def test_the_installed_package_is_its_own(installed: Path, tmp_path):
    """companion comes from the new environment, not from the checkout's editable install;
    its layouts, examples, catalogs and translations from its own package folder."""
    found = json.loads(run([installed / "bin" / "python", "-c", WHERE], cwd=tmp_path,
                           env=environment(tmp_path, "en")).stdout)  # fmt: skip
    purelib = Path(found["purelib"])
    assert Path(found["prefix"]) == installed
    check_files_in_package(found, purelib / "companion")
    assert not (installed / "share" / "clank-companion").exists()
    assert not Path(found["dependency"]).is_relative_to(installed)  # the current venv's


def test_the_installed_command_replays_a_game(installed: Path, tmp_path):
    command = installed / "bin" / "clank-companion"
    env = environment(tmp_path, "en")
    demo = run([command, "demo", "--db", tmp_path / "demo.db"], cwd=tmp_path, env=env)
    assert demo.stdout.startswith(DEMO_LINE.format(name="clank-4-players.jsonl")), demo.stdout
    assert "ranking: 1." in demo.stdout
    purelib = next((installed / "lib").glob("python3*/site-packages"))
    example = purelib / "companion" / "examples" / "clank-2-players-short.jsonl"
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


# ------------------------------------------------------------------ pip install --target
@pytest.fixture(scope="module")
def target(wheel: Path) -> tuple[Path, Path]:
    """(python, DIR): the wheel installed with ``pip install --target DIR`` for a new
    virtual environment's python, which has the dependencies but not the package."""
    python = new_venv(wheel.parent.parent / "bare-venv")
    folder = wheel.parent.parent / "target"
    pip_install(python, wheel, "--target", folder)
    return python, folder


def on_target_path(env: dict[str, str], folder: Path) -> dict[str, str]:
    return env | {"PYTHONPATH": str(folder)}


def test_a_target_install_finds_its_files_in_the_package(target: tuple[Path, Path], tmp_path):
    python, folder = target
    env = on_target_path(environment(tmp_path, "en"), folder)
    found = json.loads(run([python, "-c", WHERE], cwd=tmp_path, env=env).stdout)
    check_files_in_package(found, folder / "companion")
    assert not (folder / "share").exists() and not (folder / "kv").exists()


def test_a_target_install_runs_the_demo(target: tuple[Path, Path], tmp_path):
    python, folder = target
    env = on_target_path(environment(tmp_path, "en"), folder)
    command = folder / "bin" / "clank-companion"
    demo = run([python, command, "demo", "--delay", "0", "--db", tmp_path / "demo.db"],
               cwd=tmp_path, env=env)  # fmt: skip
    assert demo.stdout.startswith(DEMO_LINE.format(name="clank-4-players.jsonl")), demo.stdout
    assert "ranking: 1." in demo.stdout


@pytest.mark.parametrize("name", ["clank-2-players-short.jsonl", "tschak-2-players.jsonl"])
def test_a_target_install_replays_an_example_as_the_checkout_does(
    target: tuple[Path, Path], name: str, tmp_path
):
    python, folder = target
    env = environment(tmp_path, "en")
    example = folder / "companion" / "examples" / name
    installed = run([python, folder / "bin" / "clank-companion", "replay", "--json", example],
                    cwd=tmp_path, env=on_target_path(env, folder))  # fmt: skip
    checkout = run([sys.executable, "-m", "companion.cli", "replay", "--json",
                    ROOT / "examples" / name], cwd=ROOT, env=env)  # fmt: skip
    state = json.loads(installed.stdout)
    assert state["game_over"] is True
    assert state == json.loads(checkout.stdout)


# the touchscreen as `clank-companion app --window` starts it, stopped after the first
# frame drawn in its main loop: the screen shown, the layouts read, the exit status
FIRST_FRAME = """if True:
    import json, sys
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.lang import Builder
    from companion.cli import main

    seen = {}
    looping = []

    def at_flip(*_):
        app = App.get_running_app()
        if not looping or seen or app is None:
            return
        seen["screen"] = app.screens.current
        seen["layouts"] = sorted(f for f in Builder.files if f.endswith(".kv"))
        Clock.schedule_once(lambda dt: app.stop(), 0)

    Clock.schedule_once(lambda dt: looping.append(True), 0)  # the main loop's first tick
    Window.bind(on_flip=at_flip)
    seen["status"] = main(["app", "--window", "--db", sys.argv[1]])
    print(json.dumps(seen))
"""


def test_a_target_install_shows_the_first_screen(target: tuple[Path, Path], tmp_path):
    python, folder = target
    env = on_target_path(environment(tmp_path, "en"), folder) | {
        "KIVY_NO_ARGS": "1", "KIVY_NO_FILELOG": "1", "KIVY_NO_CONSOLELOG": "1",
        "KIVY_LOG_MODE": "PYTHON", "KIVY_HOME": str(tmp_path / "kivy-home"),
        "KIVY_WINDOW": "sdl2", "GPIOZERO_PIN_FACTORY": "mock",
    }  # fmt: skip
    out = run([python, "-c", FIRST_FRAME, tmp_path / "games.db"], cwd=tmp_path, env=env).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["status"] == 0 and seen["screen"] == "newgame", seen
    kv = folder / "companion" / "kv"
    kivy = find_spec("kivy")
    assert kivy is not None and kivy.submodule_search_locations
    kivys = Path(kivy.submodule_search_locations[0])  # Kivy's own style.kv
    layouts = [Path(f) for f in seen["layouts"] if not Path(f).is_relative_to(kivys)]
    assert kv / "common.kv" in layouts and kv / "newgame.kv" in layouts, layouts
    assert all(f.is_relative_to(kv) for f in layouts), layouts


# ------------------------------------------------------------------ pip install --user
def test_a_user_install_runs_the_demo_and_an_example(wheel: Path, tmp_path):
    """``pip install --user`` for the interpreter the current environment was made from,
    with a user base of its own (PYTHONUSERBASE)."""
    base = Path(getattr(sys, "_base_executable", "") or "")
    if not base.is_file() or Path(sys.executable) == base:
        pytest.skip("no interpreter outside this virtual environment")
    managed = run([base, "-c", "import sysconfig, os; print(os.path.isfile(os.path.join("
                   "sysconfig.get_paths()['stdlib'], 'EXTERNALLY-MANAGED')))"])  # fmt: skip
    if managed.stdout.strip() == "True":
        pytest.skip(f"{base} is managed by the system: pip refuses --user")
    env = environment(tmp_path, "en") | {"PYTHONUSERBASE": str(tmp_path / "user")}
    env.pop("PYTHONNOUSERSITE", None)
    run([sys.executable, "-m", "pip", "--python", base, "install", "--user", "--no-deps",
         "--no-index", "--disable-pip-version-check", "--no-warn-script-location", "-q",
         wheel], env=env)  # fmt: skip
    site = Path(run([base, "-m", "site", "--user-site"], env=env).stdout.strip())
    paths = sysconfig.get_paths()  # the dependencies: the current environment's
    (site / "current-venv-dependencies.pth").write_text(
        "\n".join(sorted({paths["purelib"], paths["platlib"]})) + "\n"
    )
    found = json.loads(run([base, "-c", WHERE], cwd=tmp_path, env=env).stdout)
    check_files_in_package(found, site / "companion")
    command = tmp_path / "user" / "bin" / "clank-companion"
    demo = run([command, "demo", "--db", tmp_path / "demo.db"], cwd=tmp_path, env=env)
    assert demo.stdout.startswith(DEMO_LINE.format(name="clank-4-players.jsonl")), demo.stdout
    example = site / "companion" / "examples" / "catacombs-3-players.jsonl"
    state = json.loads(run([command, "replay", "--json", example], cwd=tmp_path, env=env).stdout)
    assert state["game_over"] is True and state["edition"] == "catacombs"


# ------------------------------------------------------------------ pip install -e (./dev)
def test_an_editable_install_reads_the_checkouts_own_folders(project: Path, tmp_path):
    """As ./dev installs the checkout (pip install -e): the layouts and examples are the
    checkout's top-level folders, and the build copies nothing into its package."""
    checkout = tmp_path / "checkout"
    shutil.copytree(project, checkout, ignore=NOT_SOURCES)
    python = new_venv(tmp_path / "venv")
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", "-q", "-e", checkout])  # fmt: skip
    env = environment(tmp_path, "en")
    found = json.loads(run([python, "-c", WHERE], cwd=tmp_path, env=env).stdout)
    assert Path(found["companion"]) == checkout / "companion" / "__init__.py"
    assert Path(found["kv"]) == checkout / "kv" and Path(found["examples"]) == checkout / "examples"
    assert Path(found["locale"]) == checkout / "companion" / "locale"
    assert Path(found["catalog"]) == checkout / "companion" / "kinds" / "clank" / "catalog" / "data"
    assert not (checkout / "companion" / "kv").exists()
    assert not (checkout / "companion" / "examples").exists()
    demo = run([python.parent / "clank-companion", "demo", "--db", tmp_path / "demo.db"],
               cwd=tmp_path, env=env)  # fmt: skip
    assert "ranking: 1." in demo.stdout
