"""The Raspberry Pi installer, its service files and the documents that go with them.

The installer runs for real against a fake root (``CLANK_ROOT``): every file it writes
lands there, and the commands that would change the machine (apt-get, raspi-config,
systemctl, useradd, pip ...) are stand-ins that record their arguments and keep a
little state, so a second run sees what the first one did. The service unit itself
runs under a private ``systemd --user`` instance to show how it restarts.
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from companion import pin
from companion.cli import build_parser
from companion.config import SYSTEM_FILE, parse_config
from hardware.gpio import PanelPins

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
SYSTEMD = REPO / "systemd"
# the stand-ins the installer tests run, as real files (shellcheck and ruff read them)
SUPPORT = Path(__file__).resolve().parent / "deploy_support"
FAKES = {p.name: p for p in sorted((SUPPORT / "bin").iterdir())}
VENV_PYTHON = SUPPORT / "venv-python"
FAKE_APP = (SUPPORT / "fake-app.sh").read_text()
DRIVER = SUPPORT / "driver.py"
UNITS = (
    "clank-companion.service",
    "clank-companion-backup.service",
    "clank-companion-backup.timer",
)
SCRIPTS = ("install.sh", "update.sh", "uninstall.sh", "lib.sh")
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"
GROUPS = ("video", "render", "input", "spi", "gpio", "dialout")

# ------------------------------------------------------------------ stand-in commands
# Each appends "name args" to $FAKE_LOG; state lives in $FAKE_STATE.

# The venv's python: pip is recorded; -c runs the real interpreter on the project (the
# installer checks the settings file it wrote with the companion's own parser).

# What changes the machine, as opposed to looking at it.
MUTATING = re.compile(
    r"^(apt-get|useradd|usermod|userdel|python3 -m venv|venv-python -m pip|backup ran"
    r"|raspi-config nonint do_"
    r"|systemctl (enable|disable|start|stop|restart|daemon-reload|set-default))"
)


def _checkout(tmp_path: Path) -> Path:
    """A copy of the project, to be changed as a `git pull` would."""
    src = tmp_path / "checkout"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("companion", "hardware", "kv", "examples", "deploy", "systemd"):
        shutil.copytree(REPO / part, src / part, ignore=skip)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, src / name)
    return src


class FakePi:
    """A fake root and stand-in commands for one installer run or several."""

    def __init__(
        self,
        tmp: Path,
        *,
        model: str | None = PI5,
        codename: str = "bookworm",
        os_id: str = "debian",
        arch: str = "arm64",
        uid: int = 0,
        target: str = "multi-user.target",
        src: Path | None = None,
    ) -> None:
        # a copy of the project, so that the second run sees the same one as the first
        src = src or _checkout(tmp / "project")
        self.src = src
        self.root = tmp / "root"
        self.state = tmp / "state"
        self.bin = tmp / "bin"
        self.log = tmp / "calls.log"
        for d in (self.root / "etc", self.root / "proc/device-tree", self.state, self.bin):
            d.mkdir(parents=True, exist_ok=True)
        self.log.write_text("")
        pretty = f"Debian GNU/Linux ({codename})" if os_id == "debian" else f"{os_id} {codename}"
        (self.root / "etc/os-release").write_text(
            f'PRETTY_NAME="{pretty}"\nID={os_id}\nVERSION_CODENAME={codename}\n'
        )
        if model is not None:
            (self.root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
        (self.state / "groups").write_text("\n".join(GROUPS) + "\n")
        (self.state / "raspi-spi").write_text("1\n")  # off
        (self.state / "raspi-serial_hw").write_text("1\n")  # off
        (self.state / "raspi-serial_cons").write_text("0\n")  # login console on the UART
        (self.state / "default-target").write_text(f"{target}\n")
        for name, source in FAKES.items():
            shutil.copy(source, self.bin / name)
            (self.bin / name).chmod(0o755)
        self.venv_python = tmp / "venv-python"
        shutil.copy(VENV_PYTHON, self.venv_python)
        self.venv_python.chmod(0o755)
        self.env = {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(tmp),
            "CLANK_ROOT": str(self.root),
            "FAKE_LOG": str(self.log),
            "FAKE_STATE": str(self.state),
            "FAKE_ARCH": arch,
            "FAKE_UID": str(uid),
            "FAKE_VENV_PYTHON": str(self.venv_python),
            "FAKE_REAL_PYTHON": sys.executable,
            "PYTHONPATH": str(src),
        }
        self._mark = 0

    def run(self, script: str, *args: str) -> subprocess.CompletedProcess[str]:
        self._mark = len(self.log.read_text().splitlines())
        return subprocess.run(
            ["bash", str(self.src / "deploy" / script), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def calls(self) -> list[str]:
        """The commands the last run called."""
        return self.log.read_text().splitlines()[self._mark :]

    def changes(self) -> list[str]:
        return [c for c in self.calls() if MUTATING.match(c)]

    def snapshot(self) -> dict[str, tuple[str, ...]]:
        """Every file and link under the root: mode, content hash, modification time."""
        found: dict[str, tuple[str, ...]] = {}
        for path in sorted(self.root.rglob("*")):
            rel = str(path.relative_to(self.root))
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_file():
                st = path.stat()
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[rel] = (oct(st.st_mode), digest, str(st.st_mtime_ns))
            else:
                found[rel] = ("dir", oct(path.stat().st_mode))
        return found

    def file(self, rel: str) -> Path:
        return self.root / rel.lstrip("/")


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


# ------------------------------------------------------------------ install, twice
def test_install_does_every_step_once_and_a_second_run_changes_nothing(tmp_path):
    pi = FakePi(tmp_path)
    out = _ok(pi.run("install.sh"))
    calls = pi.calls()
    first = pi.changes()

    # the Debian packages, in one apt-get after an update
    installs = [c for c in calls if c.startswith("apt-get")]
    assert installs[0] == "apt-get update -qq"
    for package in ("python3-venv", "python3-dev", "libegl1", "libgles2", "libgbm1", "libdrm2"):
        assert package in installs[1].split(), installs
    # the service account in the device groups
    assert any(c.startswith("useradd --system") and c.endswith(" clank") for c in calls)
    assert f"usermod --append --groups {','.join(GROUPS)} clank" in calls
    # SPI and the UART through raspi-config, the serial console off
    for step in ("do_spi 0", "do_serial_cons 1", "do_serial_hw 0"):
        assert f"raspi-config nonint {step}" in calls
    # the app with its pi extra in a venv, RPi.GPIO replaced by rpi-lgpio
    assert f"python3 -m venv {pi.root}/opt/clank-companion/venv" in calls
    pip = [c for c in calls if c.startswith("venv-python -m pip")]
    app = f"venv-python -m pip install --quiet {pi.root}/opt/clank-companion/src[pi]"
    assert app in pip
    assert pip.index("venv-python -m pip uninstall --quiet --yes RPi.GPIO") > pip.index(app)
    assert "venv-python -m pip install --quiet --force-reinstall --no-deps rpi-lgpio==0.6" in pip
    # the units, enabled and started
    assert "systemctl daemon-reload" in calls
    for unit in ("clank-companion.service", "clank-companion-backup.timer"):
        assert f"systemctl enable --quiet {unit}" in calls
        assert f"systemctl start {unit}" in calls

    # the files
    for unit in UNITS:
        installed = pi.file(f"/etc/systemd/system/{unit}")
        assert installed.read_bytes() == (pi.src / "systemd" / unit).read_bytes()
        assert installed.stat().st_mode & 0o777 == 0o644
    settings = pi.file("/etc/clank-companion/config.toml")
    config = parse_config(settings.read_text(), str(settings))
    assert config.reader.spec == "mfrc522"
    assert config.app.database == "/var/lib/clank-companion/games.db"
    assert config.app.fullscreen is True
    # the admin PIN: 6 digits, shown once for the owner at the very end, kept in the
    # settings only as its hash
    printed = re.findall(r"Admin PIN for the Settings screen: (\d+)\n", out)
    assert len(printed) == 1 and len(printed[0]) == 6, out
    assert out.count(printed[0]) == 1, out
    assert out.rstrip().splitlines()[-2:] == [
        f"Admin PIN for the Settings screen: {printed[0]}",
        "Write it down now: it is shown only this once (the settings keep only its hash).",
    ]
    assert config.app.admin_pin == "" and "admin_pin =" not in settings.read_text()
    assert pin.is_pin_hash(config.app.admin_pin_hash)
    assert config.app.pin_matches(printed[0]) and not config.app.pin_matches("2468")
    assert printed[0] not in settings.read_text().replace(config.app.admin_pin_hash, "")
    assert settings.stat().st_mode & 0o777 == 0o660
    kivy = pi.file("/var/lib/clank-companion/kivy/config.ini")
    assert kivy.read_text() == (pi.src / "deploy/kivy-config.ini").read_text()
    assert os.readlink(pi.file("/usr/local/bin/clank-companion")) == (
        "/opt/clank-companion/venv/bin/clank-companion"
    )
    kv = pi.file("/opt/clank-companion/venv/share/clank-companion/kv")
    layouts = sorted(p.name for p in (pi.src / "kv").glob("*.kv"))
    assert sorted(p.name for p in kv.iterdir()) == layouts
    for folder, owner in (
        ("/var/lib/clank-companion", "clank:clank"),
        ("/var/backups/clank-companion", "clank:clank"),
        ("/etc/clank-companion", "root:clank"),
    ):
        assert pi.file(folder).is_dir()
        assert f"chown {owner} {pi.file(folder)}" in calls
    # it says what it changed, and that a reboot is needed for SPI and the UART
    assert "Changed:" in out
    assert "switched on SPI" in out and "sudo reboot" in out

    before = pi.snapshot()
    again = _ok(pi.run("install.sh"))
    assert pi.changes() == [], "a second run must change nothing"
    assert "Nothing changed" in again
    assert pi.snapshot() == before  # not a file rewritten, not even touched
    chowns = sorted(c for c in calls if c.startswith("chown"))
    assert sorted(c for c in pi.calls() if c.startswith("chown")) == chowns
    assert first  # the first run did change things


def test_install_options_reader_and_rotation_are_kept_by_later_runs(tmp_path):
    pi = FakePi(tmp_path, model=PI4)
    out = _ok(pi.run("install.sh", "--reader", "pn532:/dev/serial0", "--rotate", "180"))
    assert "Raspberry Pi 4" in out
    settings = pi.file("/etc/clank-companion/config.toml")
    kivy = pi.file("/var/lib/clank-companion/kivy/config.ini")
    assert tomllib.loads(settings.read_text())["reader"]["spec"] == "pn532:/dev/serial0"
    assert "\nrotation = 180\n" in kivy.read_text()

    _ok(pi.run("install.sh"))
    assert pi.changes() == []
    assert tomllib.loads(settings.read_text())["reader"]["spec"] == "pn532:/dev/serial0"
    assert "\nrotation = 180\n" in kivy.read_text()

    out = _ok(pi.run("install.sh", "--reader", "rdm6300:/dev/serial0", "--rotate", "0"))
    assert tomllib.loads(settings.read_text())["reader"]["spec"] == "rdm6300:/dev/serial0"
    assert "\nrotation = 0\n" in kivy.read_text()
    assert pi.changes() == ["systemctl restart clank-companion.service"]
    assert "set the reader to rdm6300:/dev/serial0" in out


def test_install_on_the_desktop_image_boots_to_the_console_instead(tmp_path):
    pi = FakePi(tmp_path, target="graphical.target")
    out = _ok(pi.run("install.sh"))
    assert "systemctl set-default multi-user.target" in pi.calls()
    assert "the desktop no longer starts at boot" in out and "sudo reboot" in out
    _ok(pi.run("install.sh"))
    assert pi.changes() == []


def test_install_builds_from_a_copy_and_leaves_the_checkout_alone(tmp_path):
    pi = FakePi(tmp_path)
    src = pi.src
    before = sorted(str(p.relative_to(src)) for p in src.rglob("*"))
    _ok(pi.run("install.sh"))
    assert sorted(str(p.relative_to(src)) for p in src.rglob("*")) == before
    copy = pi.file("/opt/clank-companion/src")
    for name in ("pyproject.toml", "README.md", "companion/cli/__init__.py", "hardware/gpio.py"):
        assert (copy / name).read_bytes() == (src / name).read_bytes()
    assert not list(copy.rglob("__pycache__"))


def test_install_stopped_by_an_error_says_what_it_did_and_a_new_run_carries_on(tmp_path):
    pi = FakePi(tmp_path)
    pi.env["FAKE_PIP_FAILS"] = "1"
    failed = pi.run("install.sh")
    assert failed.returncode != 0
    assert "Stopped by the error above. Changed until then:" in failed.stderr
    assert "created the service account clank" in failed.stderr
    assert not pi.file("/etc/systemd/system/clank-companion.service").exists()
    del pi.env["FAKE_PIP_FAILS"]
    out = _ok(pi.run("install.sh"))
    assert "installed the companion" in out and "created the service account" not in out
    assert pi.file("/etc/systemd/system/clank-companion.service").exists()
    _ok(pi.run("install.sh"))
    assert pi.changes() == []


def test_the_admin_pin_is_six_digits_each_equally_likely(tmp_path):
    """A draw from the million PINs (a 16-bit number modulo 10000 made some PINs likelier
    than others, and 4 digits are 10000 tries)."""
    venv = tmp_path / "opt/clank-companion/venv/bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    draws = f". {DEPLOY / 'lib.sh'}; trap - EXIT; for i in $(seq 30); do new_pin; echo; done"
    drawn = subprocess.run(
        ["bash", "-c", draws],
        env={"PATH": os.environ["PATH"], "CLANK_ROOT": str(tmp_path)},
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.split()  # fmt: skip
    assert len(drawn) == 30 and all(re.fullmatch(r"[0-9]{6}", p) for p in drawn), drawn
    assert len(set(drawn)) >= 29
    text = (DEPLOY / "lib.sh").read_text()
    assert "secrets.randbelow(10**6)" in text and "% 10000" not in text


def test_an_install_stopped_after_writing_the_settings_still_shows_the_pin_once(tmp_path):
    """The settings keep only the PIN's hash and are not written again: a run stopped
    later must still show the PIN, or nobody would ever know it."""
    pi = FakePi(tmp_path)
    pi.file("/var/lib/clank-companion/kivy/config.ini.new").mkdir(parents=True)  # in the way
    failed = pi.run("install.sh")
    assert failed.returncode != 0
    printed = re.findall(r"Admin PIN for the Settings screen: (\d{6})\n", failed.stderr)
    assert len(printed) == 1, failed.stderr
    assert printed[0] not in failed.stdout and failed.stderr.count(printed[0]) == 1
    config = parse_config(pi.file("/etc/clank-companion/config.toml").read_text(), "config.toml")
    assert config.app.pin_matches(printed[0])
    pi.file("/var/lib/clank-companion/kivy/config.ini.new").rmdir()
    out = _ok(pi.run("install.sh"))
    assert "Admin PIN" not in out  # the settings were there: no new PIN


def test_install_keeps_settings_made_on_the_settings_screen(tmp_path):
    pi = FakePi(tmp_path)
    _ok(pi.run("install.sh"))
    settings = pi.file("/etc/clank-companion/config.toml")
    edited = settings.read_text().replace('language = "en"', 'language = "uk"')
    settings.write_text(edited)
    _ok(pi.run("install.sh"))
    assert settings.read_text() == edited
    assert pi.changes() == []


@pytest.mark.parametrize(
    ("system", "reason"),
    [
        ({"codename": "bullseye"}, "Bookworm is needed; this is bullseye"),
        ({"arch": "armhf", "os_id": "raspbian"}, "64-bit system (arm64) is needed; this is armhf"),
        ({"model": "Raspberry Pi 3 Model B Plus Rev 1.3"}, "Raspberry Pi 4 or 5 is needed"),
        ({"model": None, "arch": "amd64"}, "no Raspberry Pi model"),
        ({"os_id": "ubuntu", "codename": "noble"}, "not Raspberry Pi OS"),
    ],
)
def test_install_refuses_an_unsupported_system_before_changing_anything(tmp_path, system, reason):
    pi = FakePi(tmp_path, **system)
    before = pi.snapshot()
    result = pi.run("install.sh")
    assert result.returncode == 2
    assert reason in result.stderr
    assert "Raspberry Pi OS Bookworm (64-bit) on a Raspberry Pi 4 or 5" in result.stderr
    assert "Nothing was changed." in result.stderr
    assert pi.changes() == [] and pi.calls() == []
    assert pi.snapshot() == before


def test_install_refuses_without_raspi_config(tmp_path):
    pi = FakePi(tmp_path)
    (pi.bin / "raspi-config").unlink()
    result = pi.run("install.sh")
    assert result.returncode == 2
    assert "raspi-config is missing" in result.stderr


def test_install_refuses_to_run_as_a_user(tmp_path):
    pi = FakePi(tmp_path, uid=1000)
    result = pi.run("install.sh")
    assert result.returncode == 1
    assert "run this as root: sudo" in result.stderr
    assert pi.calls() == []


@pytest.mark.parametrize(
    "args",
    [("--rotate", "45"), ("--reader", 'mfrc522"; rm -rf /'), ("--reader",), ("--colour", "red")],
)
def test_install_refuses_bad_options(tmp_path, args):
    pi = FakePi(tmp_path)
    result = pi.run("install.sh", *args)
    assert result.returncode != 0
    assert pi.calls() == []
    assert not pi.file("/opt").exists()


# ------------------------------------------------------------------ uninstall, update
def _games(pi: FakePi) -> dict[str, bytes]:
    """A database, its key and a backup, as the running companion leaves them."""
    files = {
        "/var/lib/clank-companion/games.db": b"SQLite format 3\0 games and tags",
        "/var/lib/clank-companion/games.db.key": b"0123abcd\n",
        "/var/backups/clank-companion/games-20250101-200000.db": b"SQLite format 3\0 older",
    }
    for rel, data in files.items():
        pi.file(rel).write_bytes(data)
    return files


def test_uninstall_leaves_the_database_behind(tmp_path):
    pi = FakePi(tmp_path)
    _ok(pi.run("install.sh"))
    games = _games(pi)

    out = _ok(pi.run("uninstall.sh"))
    calls = pi.calls()
    for unit in ("clank-companion-backup.timer", "clank-companion.service"):
        assert f"systemctl stop {unit}" in calls
        assert f"systemctl disable --quiet {unit}" in calls
    assert "systemctl daemon-reload" in calls
    for unit in UNITS:
        assert not pi.file(f"/etc/systemd/system/{unit}").exists()
    assert not pi.file("/opt/clank-companion").exists()
    assert not pi.file("/usr/local/bin/clank-companion").is_symlink()
    for rel, data in games.items():
        assert pi.file(rel).read_bytes() == data
    assert pi.file("/etc/clank-companion/config.toml").is_file()
    assert "Kept: the games, tags and seal key in /var/lib/clank-companion" in out

    # again: nothing left to do
    again = _ok(pi.run("uninstall.sh"))
    assert pi.changes() == [] and "Nothing changed" in again

    # --purge: settings, drop-ins and account go, the games still stay
    dropin = pi.file("/etc/systemd/system/clank-companion.service.d/override.conf")
    dropin.parent.mkdir(parents=True)
    dropin.write_text("[Service]\nEnvironment=KCFG_GRAPHICS_MAXFPS=20\n")
    _ok(pi.run("uninstall.sh", "--purge"))
    assert "userdel clank" in pi.calls()
    assert not pi.file("/etc/clank-companion").exists()
    assert not dropin.parent.exists()
    for rel, data in games.items():
        assert pi.file(rel).read_bytes() == data

    # and a new installation finds them where they were
    _ok(pi.run("install.sh"))
    for rel, data in games.items():
        assert pi.file(rel).read_bytes() == data


def test_update_backs_up_first_reinstalls_and_keeps_games_and_settings(tmp_path):
    pi = FakePi(tmp_path)
    src = pi.src
    refused = pi.run("update.sh")
    assert refused.returncode == 1 and "not installed here yet" in refused.stderr
    _ok(pi.run("install.sh", "--rotate", "90"))
    games = _games(pi)
    settings = pi.file("/etc/clank-companion/config.toml").read_text()

    # nothing new: only the backup
    backup = ["systemctl start clank-companion-backup.service", "backup ran"]
    _ok(pi.run("update.sh"))
    assert pi.changes() == backup

    # a new version of the app and of the unit
    with (src / "companion/__init__.py").open("a") as f:
        f.write("# a new version\n")
    with (src / "systemd/clank-companion.service").open("a") as f:
        f.write("# a changed unit\n")
    out = _ok(pi.run("update.sh"))
    changes = pi.changes()
    assert changes[:2] == backup
    assert f"venv-python -m pip install --quiet {pi.root}/opt/clank-companion/src[pi]" in changes
    # what pip installed is a copy of the new version
    copied = pi.file("/opt/clank-companion/src/companion/__init__.py").read_text()
    assert copied.endswith("# a new version\n")
    assert changes.index("systemctl daemon-reload") > changes.index("backup ran")
    assert changes[-1] == "systemctl restart clank-companion.service"
    assert "Backed up the game database" in out
    assert (
        pi.file("/etc/systemd/system/clank-companion.service")
        .read_text()
        .endswith("# a changed unit\n")
    )
    for rel, data in games.items():
        assert pi.file(rel).read_bytes() == data
    assert pi.file("/etc/clank-companion/config.toml").read_text() == settings
    assert "\nrotation = 90\n" in pi.file("/var/lib/clank-companion/kivy/config.ini").read_text()
    # no account, package or interface changes on an update of an installed box
    assert not [c for c in changes if c.startswith(("apt-get", "useradd", "usermod", "raspi"))]


# ------------------------------------------------------------------ the scripts and units
def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.fail(f"{tool} is not installed (Debian: apt-get install {tool}; CI installs it)")
    return found


def test_every_script_passes_shellcheck():
    shellcheck = _need("shellcheck")
    scripts = [DEPLOY / s for s in SCRIPTS] + [REPO / ".ci/run", REPO / "dev"]
    scripts += [*FAKES.values(), VENV_PYTHON, SUPPORT / "fake-app.sh"]  # the stand-ins too
    assert {p.name for p in DEPLOY.glob("*.sh")} == set(SCRIPTS)  # a new script is checked too
    result = subprocess.run(
        [shellcheck, "--severity=style", *map(str, scripts)],
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _verify_root(tmp_path: Path) -> Path:
    """A root with systemd's own units, ours, and an executable where ExecStart points."""
    root = tmp_path / "verify-root"
    system_units = Path("/usr/lib/systemd/system")
    if not system_units.is_dir():
        system_units = Path("/lib/systemd/system")
    shutil.copytree(system_units, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    for unit in UNITS:
        shutil.copy2(SYSTEMD / unit, root / "etc/systemd/system" / unit)
    app = root / "opt/clank-companion/venv/bin/clank-companion"
    app.parent.mkdir(parents=True)
    app.write_text("#!/bin/sh\n")
    app.chmod(0o755)
    return root


def _verify(root: Path, *units: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_need("systemd-analyze"), "verify", "--man=no", f"--root={root}", *units],
        capture_output=True,
        text=True,
        check=False,
    )


def test_units_pass_systemd_analyze_verify(tmp_path):
    root = _verify_root(tmp_path)
    result = _verify(root, *UNITS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout + result.stderr == ""  # not a warning either

    # and the check is real: a unit with a mistake fails it
    broken = (SYSTEMD / "clank-companion.service").read_text()
    broken = broken.replace("Restart=on-failure", "Restart=sometimes")
    (root / "etc/systemd/system/broken.service").write_text(broken)
    result = _verify(root, "broken.service")
    assert "Failed to parse service restart specifier" in result.stdout + result.stderr


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((SYSTEMD / name).read_text())
    return parser


def _environment(unit: configparser.ConfigParser) -> dict[str, str]:
    lines = [
        line.split("=", 1)[1]
        for line in (SYSTEMD / "clank-companion.service").read_text().splitlines()
        if line.startswith("Environment=")
    ]
    return dict(line.split("=", 1) for line in lines)


def _argv(exec_start: str) -> list[str]:
    words = shlex.split(exec_start.replace("%S", "/var/lib").replace("%t", "/run"))
    assert words[0] == "/opt/clank-companion/venv/bin/clank-companion"
    return words[1:]


def test_kiosk_unit_restart_hardening_and_environment():
    unit = _unit("clank-companion.service")
    service = unit["Service"]
    assert unit["Unit"]["StartLimitIntervalSec"] == "300"
    assert unit["Unit"]["StartLimitBurst"] == "5"
    assert service["Restart"] == "on-failure"
    assert service["User"] == "clank"
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "PrivateTmp": "yes",
        "PrivateNetwork": "yes",
        "ProtectHome": "yes",
        "StateDirectory": "clank-companion",
        "SystemCallFilter": "@system-service",
        "SystemCallErrorNumber": "EPERM",
        "ProtectProc": "invisible",
    }.items():
        assert service[key] == value, key
    # off on purpose, and the unit says why: Mesa's llvmpipe and libffi write code to run
    assert "MemoryDenyWriteExecute" not in service
    unit_text = (SYSTEMD / "clank-companion.service").read_text()
    assert "# MemoryDenyWriteExecute= stays off" in unit_text
    # ProtectClock= would close every device but the clock (DeviceAllow=char-rtc)
    assert "ProtectClock" not in service and "PrivateDevices" not in service
    env = _environment(unit)
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["KIVY_WINDOW"] == "sdl2"
    assert env["KIVY_GL_BACKEND"] == "sdl2"
    assert env["KIVY_HOME"] == "%S/clank-companion/kivy"
    assert env["KIVY_NO_ARGS"] == "1"
    assert env["GPIOZERO_PIN_FACTORY"] == "lgpio"
    assert env["CLANK_CONFIG"] == str(SYSTEM_FILE)
    # the command line is one the companion accepts
    args = build_parser().parse_args(_argv(service["ExecStart"]))
    assert args.command == "app" and args.fullscreen is True
    # the database in the settings is in the StateDirectory
    text = (DEPLOY / "config.toml").read_text().replace("@READER@", "fake")
    config = parse_config(text.replace("@ADMIN_PIN_HASH@", pin.hash_pin("0000")), "config.toml")
    assert config.app.pin_matches("0000")
    assert Path(config.app.database).parent == Path("/var/lib") / service["StateDirectory"]


def test_kiosk_unit_restarts_every_end_the_table_did_not_ask_for():
    """Every end of the app but systemctl stop is restarted: a crash, a kill, the
    touchscreen ending by itself (a failure), and Quit on the Settings screen (its own
    non-zero status: the kiosk comes back afresh)."""
    from companion.ui.app import EXIT_UNASKED

    unit = _unit("clank-companion.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and service["RestartSec"] == "2"
    assert EXIT_UNASKED != 0  # what run_app returns for an end nobody asked for
    for key in ("RestartPreventExitStatus", "SuccessExitStatus"):
        assert key not in service  # no non-zero status counts as a success
    text = (SYSTEMD / "clank-companion.service").read_text()
    assert f"exits with status {EXIT_UNASKED}" in text  # the unit's comment says which
    assert "Restart=always would" in text  # and why not always
    # the database is the same file whatever the settings file says (the defaults the
    # trouble screen offers for an unreadable one name no database), and the backup
    # unit copies that file
    env = _environment(unit)
    assert env["CLANK_DB"] == "%S/clank-companion/games.db"
    database = env["CLANK_DB"].replace("%S", "/var/lib")
    backup_args = build_parser().parse_args(
        _argv(_unit("clank-companion-backup.service")["Service"]["ExecStart"])
    )
    assert backup_args.db == database
    text = (DEPLOY / "config.toml").read_text().replace("@READER@", "fake")
    config = parse_config(text.replace("@ADMIN_PIN_HASH@", pin.hash_pin("0000")), "config.toml")
    assert config.app.database == database


def test_backup_unit_and_timer():
    unit = _unit("clank-companion-backup.service")
    service = unit["Service"]
    assert service["Type"] == "oneshot"
    assert service["User"] == "clank"
    assert service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == "/var/backups/clank-companion"
    args = build_parser().parse_args(_argv(service["ExecStart"]))
    assert args.command == "backup"
    assert args.db == "/var/lib/clank-companion/games.db"
    assert args.to == "/var/backups/clank-companion"
    assert 3 <= args.keep <= 20
    timer = _unit("clank-companion-backup.timer")["Timer"]
    # a copy after each boot, then hourly; skipped while there is no database yet
    assert timer["OnBootSec"] == "10min" and timer["OnCalendar"] == "hourly"
    assert "ConditionPathExists" in unit["Unit"]


# ------------------------------------------------------------------ restarts, for real
# The kiosk unit runs under a private `systemd --user` manager. Only three lines differ
# from systemd/clank-companion.service: no User=/Group= (a user manager runs everything
# as its own user) and ExecStart runs a stand-in that records its starts and what its
# sandbox looks like, then waits to be killed or told to exit.


def _test_unit() -> str:
    lines = []
    for line in (SYSTEMD / "clank-companion.service").read_text().splitlines():
        if line.startswith(("User=", "Group=")):
            continue
        if line.startswith("ExecStart="):
            line = "ExecStart=/bin/sh /mnt/app/fake-app.sh"
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_the_real_unit_restarts_a_crashed_app_and_gives_up_at_the_start_limit(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace (CI runs as root)")
    manager = next(
        (p for p in ("/usr/lib/systemd/systemd", "/lib/systemd/systemd") if os.path.exists(p)),
        None,
    )
    if manager is None:
        pytest.fail("systemd is not installed (Debian: apt-get install systemd; CI installs it)")
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(
            f"no private mount namespace here ({probe.stderr.strip()}); "
            "deploy/README.md shows the same check on a Pi"
        )
    marker = tmp_path / "host-tmp-marker"
    marker.write_text("visible only without PrivateTmp")
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "unit": _test_unit(),
                "app": FAKE_APP.replace("@MARKER@", str(marker)),
                "systemd": manager,
            }
        )
    )
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", sys.executable, str(DRIVER), str(spec)],
        capture_output=True,
        text=True,
        timeout=900,  # each step has its own deadline; this one only stops a hang
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout.splitlines()[-1])

    # the sandbox the unit builds
    box = seen["probe"]
    state = box["state_directory"]
    assert box["pwd"] == state and box["kivy_home"] == f"{state}/kivy"
    assert box["lg_wd"] == box["runtime_directory"]
    assert box["sdl"] == "kmsdrm"
    assert box["usr"] == "read-only" and box["etc"] == "read-only"  # ProtectSystem=strict
    assert box["state"] == "writable"  # the database folder
    assert box["tmp"] == "private"  # PrivateTmp
    assert box["net"].split() == ["lo"]  # PrivateNetwork
    assert box["nnp"] == "1"  # NoNewPrivileges
    assert box["home_entries"] == "0"  # ProtectHome
    assert box["seccomp"] == "2"  # SystemCallFilter: a seccomp filter
    assert "hidepid=invisible" in box["proc"]  # ProtectProc

    # killed: back after RestartSec=2
    assert seen["start"]["ActiveState"] == "active"
    assert seen["after_kill"]["ActiveState"] == "active"
    assert seen["after_kill"]["NRestarts"] == "1"
    assert seen["after_kill"]["MainPID"] != seen["start"]["MainPID"]
    assert 2.0 <= seen["restart_delay"] < 60  # RestartSec=2, and no other wait of its own
    # crashed with an error: back again
    assert seen["after_crash"]["ActiveState"] == "active"
    assert seen["after_crash"]["NRestarts"] == "2"
    # quit cleanly (Quit on the Settings screen): stays stopped
    assert seen["after_quit"]["ActiveState"] == "inactive"
    assert seen["after_quit"]["SubState"] == "dead"
    assert seen["after_quit"]["Result"] == "success"
    assert seen["starts_after_quit"] == 3
    # crashing over and over: 5 starts (StartLimitBurst=5), then it gives up
    assert seen["kills_to_limit"] == 5
    assert seen["starts_total"] == 3 + 5
    assert seen["after_limit"]["ActiveState"] == "failed"
    # a start by hand is refused too, until a person resets the failure
    assert seen["manual_start"]["rc"] != 0
    assert seen["after_manual_start"]["ActiveState"] == "failed"
    assert seen["after_reset"]["ActiveState"] == "active"


# ------------------------------------------------------------------ Kivy's settings
def _kivy_run(home: Path, code: str) -> str:
    env = {
        **os.environ,
        "KIVY_HOME": str(home),
        "KIVY_NO_ARGS": "1",
        "KIVY_NO_CONSOLELOG": "1",
        "KIVY_NO_FILELOG": "1",
    }
    env.pop("KIVY_NO_CONFIG", None)
    env.pop("KIVY_USE_DEFAULTCONFIG", None)
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout


def test_kivy_settings_are_read_as_written_with_exactly_one_touch_input(tmp_path):
    home = tmp_path / "kivy"
    home.mkdir()
    ours = (DEPLOY / "kivy-config.ini").read_text()
    (home / "config.ini").write_text(ours)
    out = _kivy_run(
        home,
        "import json; from kivy.config import Config\n"
        "print(json.dumps({'input': Config.items('input'),"
        " 'cursor': Config.get('graphics', 'show_cursor'),"
        " 'escape': Config.get('kivy', 'exit_on_escape'),"
        " 'rotation': Config.get('graphics', 'rotation')}))",
    )
    seen = json.loads(out)
    # one provider: the touchscreen through hidinput; no "mouse" (SDL's touch-made mouse
    # events would be a second copy of every touch)
    assert seen["input"] == [["touch_%(name)s", "probesysfs,provider=hidinput,select_all=0"]]
    assert seen["cursor"] == "0" and seen["escape"] == "0" and seen["rotation"] == "0"
    # Kivy did not upgrade (rewrite) the file, so nothing adds a provider behind our back
    assert (home / "config.ini").read_text() == ours


def test_kivy_settings_have_every_key_of_this_kivy(tmp_path):
    """If Kivy's own defaults grow (a new Kivy), the template must follow."""
    home = tmp_path / "defaults"
    home.mkdir()
    _kivy_run(home, "import kivy.config")
    defaults = configparser.ConfigParser(interpolation=None)
    defaults.read(home / "config.ini")
    ours = configparser.ConfigParser(interpolation=None)
    ours.read(DEPLOY / "kivy-config.ini")
    for section in defaults.sections():
        if section == "input":
            continue
        assert set(defaults[section]) == set(ours[section]), section
    assert ours["kivy"]["config_version"] == defaults["kivy"]["config_version"]


# ------------------------------------------------------------------ documents
def test_wiring_uses_the_default_pins():
    wiring = (REPO / "hardware/WIRING.md").read_text()
    labels = {
        "end_turn": "End turn button",
        "undo": "Undo button",
        "led_green": "Green LED",
        "led_red": "Red LED",
        "buzzer": "Buzzer",
    }
    pins = PanelPins()
    for f in fields(PanelPins):
        rows = [r for r in wiring.splitlines() if r.startswith(f"| {labels[f.name]} ")]
        assert rows, labels[f.name]
        assert f"GPIO {getattr(pins, f.name)} " in rows[0], rows[0]
    for needed in ("NTAG213", "NTAG215", "CE0", "GPIO 25", "level", "rotation", "invx"):
        assert needed in wiring or needed in (REPO / "hardware/README.md").read_text(), needed


def test_build_your_own_commands_and_files_exist():
    """The README's "Build your own" names only real commands and files."""
    readme = (REPO / "README.md").read_text()
    assert "\n## Build your own\n" in readme
    text = readme.split("\n## Build your own\n", 1)[1].split("\n## ", 1)[0]
    known = set()
    stack = [("", build_parser())]
    while stack:
        prefix, parser = stack.pop()
        for action in parser._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for name, sub in action.choices.items():
                    known.add(f"{prefix}{name}")
                    stack.append((f"{prefix}{name} ", sub))
    for match in re.finditer(r"clank-companion ([a-z]+(?: [a-z]+)?)", text):
        words = match.group(1).split()
        assert words[0] in known or " ".join(words) in known, match.group(0)
    for path in re.findall(r"\((?:\./)?((?:deploy|hardware|systemd)/[\w./-]+)\)", text):
        assert (REPO / path).exists(), path
    for script in ("deploy/install.sh", "deploy/update.sh", "deploy/uninstall.sh"):
        assert script in text
