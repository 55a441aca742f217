"""The phones' page on the Pi: its unit (the kiosk's hardening, with the network, and
the state folder read-only), installed, enabled, started and removed by deploy/ like
the kiosk; the token made by the installer; ``[web]`` turns it off or moves it. And the
read-only state folder for real: the server in a mount namespace where that folder is
read-only follows a table that writes beside it."""

from __future__ import annotations

import asyncio
import configparser
import json
import shlex
import shutil
import subprocess
from pathlib import Path

import aiohttp
import pytest

from companion.cli import build_parser
from companion.config import parse_config
from companion.script import parse_line
from tests.test_deploy import FakePi, _need, _ok
from tests.test_web_support import (
    CLI,
    REPO,
    SimulatedTable,
    expected,
    record,
    script,
)

SYSTEMD = REPO / "systemd"
WEB = "clank-companion-web.service"
KIOSK = "clank-companion.service"
TOKEN = "/var/lib/clank-companion/games.db.web-token"


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((SYSTEMD / name).read_text())
    return parser


def _environment(name: str) -> dict[str, str]:
    text = (SYSTEMD / name).read_text()
    pairs = [line.split("=", 1)[1] for line in text.splitlines() if line.startswith("Environment=")]
    return dict(pair.split("=", 1) for pair in pairs)


def test_the_unit_has_the_kiosks_hardening_with_the_network():
    web, kiosk = _unit(WEB)["Service"], _unit(KIOSK)["Service"]
    same = (
        "User",
        "Group",
        "Restart",
        "NoNewPrivileges",
        "ProtectSystem",
        "ProtectHome",
        "PrivateTmp",
        "ProtectKernelTunables",
        "ProtectKernelModules",
        "ProtectKernelLogs",
        "ProtectControlGroups",
        "ProtectHostname",
        "RestrictNamespaces",
        "RestrictRealtime",
        "RestrictSUIDSGID",
        "LockPersonality",
        "SystemCallArchitectures",
        "SystemCallFilter",
        "SystemCallErrorNumber",
        "ProtectProc",
        "CapabilityBoundingSet",
    )
    for key in same:
        assert web[key] == kiosk[key], key
    assert web["PrivateNetwork"] == "no"
    assert set(web["RestrictAddressFamilies"].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    # the state folder (database, its log, the token) only read, never written
    assert web["ReadOnlyPaths"] == "%S/clank-companion"
    assert "StateDirectory" not in web and "ReadWritePaths" not in web
    assert web["PrivateDevices"] == "yes" and web["MemoryDenyWriteExecute"] == "yes"
    assert int(web["Nice"]) > 0 and web["MemoryMax"]  # the table comes first
    # the same settings and database as the kiosk
    env, kiosk_env = _environment(WEB), _environment(KIOSK)
    assert env["CLANK_CONFIG"] == kiosk_env["CLANK_CONFIG"]
    assert env["CLANK_DB"] == kiosk_env["CLANK_DB"]
    words = shlex.split(web["ExecStart"])
    assert words[0] == "/opt/clank-companion/venv/bin/clank-companion"
    args = build_parser().parse_args(words[1:])
    assert args.command == "serve" and args.host is None and args.port is None
    assert _unit(WEB)["Install"]["WantedBy"] == "multi-user.target"


def test_the_join_link_is_left_in_the_units_runtime_folder_for_the_kiosk():
    """The kiosk has no network of its own (it cannot learn the Pi's address): the web
    unit writes its join link into a runtime folder of its own, and both units name that
    file; the hardening of both stays as it was."""
    web, kiosk = _unit(WEB)["Service"], _unit(KIOSK)["Service"]
    env, kiosk_env = _environment(WEB), _environment(KIOSK)
    assert web["RuntimeDirectory"] == "clank-companion-web"
    assert web["RuntimeDirectoryMode"] == "0750"  # the account's group, nobody else
    link = env["CLANK_WEB_URL_FILE"]
    assert link == "%t/clank-companion-web/join-url"
    assert link.startswith(f"%t/{web['RuntimeDirectory']}/")  # writable for it alone
    assert kiosk_env["CLANK_WEB_URL_FILE"] == link
    assert kiosk["RuntimeDirectory"] != web["RuntimeDirectory"]
    # no folder of the kiosk's made writable, nothing of the state folder either
    assert web["UMask"] == "0077" and web["ReadOnlyPaths"] == "%S/clank-companion"
    assert "ReadWritePaths" not in web and "StateDirectory" not in web
    assert kiosk["PrivateNetwork"] == "yes" and kiosk["ProtectSystem"] == "strict"
    assert web["User"] == kiosk["User"] and web["Group"] == kiosk["Group"]


def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    root = tmp_path / "verify-root"
    system_units = Path("/usr/lib/systemd/system")
    if not system_units.is_dir():
        system_units = Path("/lib/systemd/system")
    shutil.copytree(system_units, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    for unit in (WEB, KIOSK):
        shutil.copy2(SYSTEMD / unit, root / "etc/systemd/system" / unit)
    app = root / "opt/clank-companion/venv/bin/clank-companion"
    app.parent.mkdir(parents=True)
    app.write_text("#!/bin/sh\n")
    app.chmod(0o755)
    result = subprocess.run(
        [_need("systemd-analyze"), "verify", "--man=no", f"--root={root}", WEB],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout + result.stderr == ""


def test_install_makes_the_token_enables_and_starts_the_unit_once(tmp_path):
    pi = FakePi(tmp_path)
    out = _ok(pi.run("install.sh"))
    calls = pi.calls()
    installed = pi.file(f"/etc/systemd/system/{WEB}")
    assert installed.read_bytes() == (pi.src / "systemd" / WEB).read_bytes()
    assert installed.stat().st_mode & 0o777 == 0o644
    assert f"systemctl enable --quiet {WEB}" in calls
    assert f"systemctl start {WEB}" in calls
    # started before the kiosk: the kiosk's start is the installer's last word
    assert calls.index(f"systemctl start {WEB}") < calls.index(f"systemctl start {KIOSK}")
    token = pi.file(TOKEN)
    assert len(token.read_text().strip()) == 43
    assert token.stat().st_mode & 0o777 == 0o600
    assert f"chown clank:clank {token}" in calls
    assert "the phones' token" in out
    settings = pi.file("/etc/clank-companion/config.toml")
    config = parse_config(settings.read_text(), str(settings))
    assert config.web.enabled and config.web.address == "0.0.0.0" and config.web.port == 8765

    first = token.read_text()
    _ok(pi.run("install.sh"))
    assert pi.changes() == []
    assert token.read_text() == first  # the same token: the phones' links still work


def test_an_older_install_gets_the_web_settings_and_a_damaged_token_is_replaced(tmp_path):
    pi = FakePi(tmp_path)
    _ok(pi.run("install.sh"))
    settings = pi.file("/etc/clank-companion/config.toml")
    text = settings.read_text()
    settings.write_text(text[: text.index("\n[web]")] + "\n")  # as written before [web]
    pi.file(TOKEN).write_text("damaged\n")
    out = _ok(pi.run("update.sh"))
    assert "[web]" in settings.read_text()
    assert parse_config(settings.read_text(), "x").web.address == "0.0.0.0"
    assert len(pi.file(TOKEN).read_text().strip()) == 43
    assert "made the phones' token" in out
    assert f"systemctl restart {WEB}" in pi.changes()


def test_web_turned_off_is_not_started(tmp_path):
    pi = FakePi(tmp_path)
    _ok(pi.run("install.sh", "--no-start"))
    settings = pi.file("/etc/clank-companion/config.toml")
    settings.write_text(settings.read_text().replace("enabled = true", "enabled = false"))
    _ok(pi.run("install.sh"))
    assert f"systemctl start {WEB}" not in pi.calls()
    assert f"systemctl start {KIOSK}" in pi.calls()


def test_uninstall_stops_disables_and_removes_the_unit(tmp_path):
    pi = FakePi(tmp_path)
    _ok(pi.run("install.sh"))
    _ok(pi.run("uninstall.sh"))
    calls = pi.calls()
    assert f"systemctl stop {WEB}" in calls
    assert f"systemctl disable --quiet {WEB}" in calls
    assert not pi.file(f"/etc/systemd/system/{WEB}").exists()
    dropin = pi.file(f"/etc/systemd/system/{WEB}.d/override.conf")
    dropin.parent.mkdir(parents=True)
    dropin.write_text("[Service]\nEnvironment=X=1\n")
    _ok(pi.run("uninstall.sh", "--purge"))
    assert not dropin.parent.exists()


def _serve(db: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "serve", "--db", str(db), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "CLANK_CONFIG": str(config), "HOME": str(db.parent)},
    )


def test_web_settings_turn_it_off_or_move_it(tmp_path):
    db = tmp_path / "games.db"
    config = tmp_path / "config.toml"
    config.write_text("[web]\nenabled = false\n")
    off = _serve(db, config)
    assert off.returncode == 0 and off.stdout == ""
    assert "turned off" in off.stderr
    config.write_text('[web]\naddress = "127.0.0.2"\nport = 1\n')
    bad = _serve(db, config, "--port", "70000")
    assert bad.returncode == 2
    for text, words in (
        ("[web]\nport = 0\n", "port must be"),
        ("[web]\nport = 70000\n", "port must be"),
        ('[web]\naddress = "the kitchen"\n', "address must be an IP address"),
        ("[web]\nenabled = 1\n", "expected true or false"),
        ("[web]\nlisten = 1\n", "unknown key"),
    ):
        with pytest.raises(Exception, match=words):
            parse_config(text, "c.toml")


def test_web_settings_move_it(tmp_path):
    """Without --host and --port, [web] says where it listens."""
    import socket

    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:4])
    with socket.socket() as s:  # a port free just now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "config.toml"
    config.write_text(f'[web]\naddress = "127.0.0.1"\nport = {port}\n')
    proc = subprocess.Popen(
        [*CLI, "serve", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "CLANK_CONFIG": str(config), "HOME": str(tmp_path)},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=15)
    assert url.startswith(f"http://127.0.0.1:{port}/?t="), err


READ_ONLY = """
set -e
mount --bind "$1" "$1"
mount -o remount,bind,ro "$1" "$1"
shift
exec "$@"
"""


def _unshare_works(folder: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", READ_ONLY, "sh", str(folder), "true"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@pytest.mark.parametrize("table_open", [True, False])
def test_the_server_follows_the_table_from_a_read_only_folder(tmp_path, table_open):
    """As under ReadOnlyPaths=: the server cannot write a byte to the state folder
    (not even SQLite's -shm), and follows every commit of the table all the same,
    whether the table had the database open when it started or opened it later."""
    if not _unshare_works(tmp_path):
        pytest.skip("no mount namespace here (unshare -m needs CAP_SYS_ADMIN)")
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    from companion.web.access import load_token

    load_token(db)
    table = SimulatedTable(db, 1) if table_open else None
    proc = subprocess.Popen(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            READ_ONLY,
            "sh",
            str(tmp_path),
            *CLI,
            "serve",
            "--db",
            str(db),
            "--port",
            "0",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "CLANK_CONFIG": "", "HOME": str(tmp_path)},
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url, proc.stderr.read() if proc.stderr else ""
        base, _, token = url.partition("/?t=")
        if table is None:
            table = SimulatedTable(db, 1)  # the table starts after the phones' page

        async def main() -> list[dict]:
            auth = {"Authorization": f"Bearer {token}"}
            seen = []
            async with (
                aiohttp.ClientSession() as session,
                session.get(base + "/api/events", headers=auth) as response,
            ):
                loop = asyncio.get_running_loop()
                for number, text in lines[10:14]:
                    await loop.run_in_executor(None, table.apply, parse_line(number, text))
                while True:
                    chunk = (await response.content.readuntil(b"\n\n")).decode()
                    if chunk.startswith("event: state"):
                        state = json.loads(chunk.split("data: ", 1)[1])
                        seen.append(state)
                        if state.get("state") and state["state"]["actions"] == 13:
                            return seen

        seen = asyncio.run(asyncio.wait_for(main(), 20))
        assert seen[-1]["state"] == expected(lines[:14])
    finally:
        if table is not None:
            table.close()
        proc.terminate()
        _out, err = proc.communicate(timeout=15)
    assert "Traceback" not in err
    assert "WARNING" not in err and "ERROR" not in err, err  # nothing refused, nothing failed


def test_the_server_cannot_make_its_token_in_a_read_only_folder(tmp_path):
    if not _unshare_works(tmp_path):
        pytest.skip("no mount namespace here (unshare -m needs CAP_SYS_ADMIN)")
    db = tmp_path / "games.db"
    result = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            READ_ONLY,
            "sh",
            str(tmp_path),
            *CLI,
            "serve",
            "--db",
            str(db),
            "--port",
            "0",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "CLANK_CONFIG": "", "HOME": str(tmp_path)},
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "install.sh" in result.stderr and "Traceback" not in result.stderr
