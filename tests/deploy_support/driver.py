"""The restart test's driver (tests/test_deploy.py)."""

# Runs inside a private mount namespace: a systemd --user manager and the unit under test.
import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

spec = json.loads(Path(sys.argv[1]).read_text())
UNIT = "clank-companion.service"
MNT = Path("/mnt")
ENV = {
    "PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
    "HOME": str(MNT / "home"),
    "XDG_CONFIG_HOME": str(MNT / "config"),
    "XDG_STATE_HOME": str(MNT / "state"),
    "XDG_RUNTIME_DIR": str(MNT / "runtime"),
    "LANG": "C.UTF-8",
}
# StateDirectory= of a user unit: $XDG_STATE_HOME since systemd 254, $XDG_CONFIG_HOME before
STATES = (MNT / "state" / "clank-companion", MNT / "config" / "clank-companion")


def state():
    return next((s for s in STATES if s.is_dir()), STATES[0])


def run(*args, check=True):
    return subprocess.run(args, env=ENV, capture_output=True, text=True, check=check, timeout=30)


def wait(what, cond, timeout=90.0):
    # every step waits for the state it expects, however busy the machine: the deadline
    # is only there so that a unit that never gets there fails the test instead of hanging
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}: {show()}")


def show():
    out = run("systemctl", "--user", "show", UNIT, "-p", "MainPID", "-p", "NRestarts",
              "-p", "ActiveState", "-p", "SubState", "-p", "Result",
              "-p", "ExecMainStartTimestampMonotonic", check=False).stdout  # fmt: skip
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def tell_app(code):
    # written whole, then renamed: the app never reads a half-written exit code
    (state() / "exit-code.new").write_text(code)
    os.replace(state() / "exit-code.new", state() / "exit-code")


def starts():
    path = state() / "starts"
    return path.read_text().split() if path.exists() else []


def running(n):
    # the n-th start of the stand-in is the service's main process
    return len(starts()) == n and show()["MainPID"] == starts()[-1]


def settled(sub):
    # SubState "dead" or "failed" is final: the manager will not restart the unit by
    # itself (unlike "auto-restart", or systemd 254's "failed-before-auto-restart", whose
    # ActiveState is "failed" for a moment before the restart)
    return show()["SubState"] == sub


def failed():
    return settled("failed")


def own_cgroup():
    # move into a cgroup of our own, so the manager sees only what it starts
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers == "name=systemd":
            base = Path("/sys/fs/cgroup/systemd")
            break
    else:
        base = Path("/sys/fs/cgroup")
        path = Path("/proc/self/cgroup").read_text().splitlines()[0].split(":", 2)[2]
    group = base / path.strip("/") / f"clank-restart-test-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return None
    return group


def remove_cgroup(group):
    if group is None:
        return
    (group.parent / "cgroup.procs").write_text(str(os.getpid()))
    # the manager's own cgroups below ours may still be going away as we look: anything
    # gone already is fine; what is left is killed and removed until nothing is
    end = time.monotonic() + 60
    while group.exists() and time.monotonic() < end:
        try:
            inner = sorted((p for p in group.rglob("*") if p.is_dir()),
                           key=lambda p: -len(p.parts))  # fmt: skip
        except OSError:
            inner = []
        for d in [*inner, group]:
            try:
                for pid in (d / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
                d.rmdir()
            except OSError:  # gone already, or its processes not yet dead
                pass
        time.sleep(0.05)


# a private /run/systemd saying "booted with systemd", and a scratch /mnt
if Path("/run/systemd").is_dir():
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/systemd"], check=True)
else:  # nothing to hide there, and nothing to leave behind on the host either
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run"], check=True)
os.makedirs("/run/systemd/system")
# what PID 1 makes at boot: the nodes that hide paths (ProtectHome=, ProtectKernel*=)
hide = Path("/run/systemd/inaccessible")
hide.mkdir()
(hide / "dir").mkdir()
(hide / "reg").touch()
os.mknod(hide / "chr", stat.S_IFCHR, os.makedev(0, 0))
os.mknod(hide / "blk", stat.S_IFBLK, os.makedev(0, 0))
os.mkfifo(hide / "fifo")
socket.socket(socket.AF_UNIX).bind(str(hide / "sock"))
for node in hide.iterdir():
    os.chmod(node, 0)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(MNT)], check=True)
for d in ("home", "config/systemd/user", "state", "runtime", "app"):
    (MNT / d).mkdir(parents=True)
(MNT / "runtime").chmod(0o700)
(MNT / "config/systemd/user" / UNIT).write_text(spec["unit"])
(MNT / "app/fake-app.sh").write_text(spec["app"])

group = own_cgroup()
log = open(MNT / "manager.log", "w")  # noqa: SIM115 (the manager writes it to the end)
manager = subprocess.Popen([spec["systemd"], "--user"], env=ENV, stdout=log, stderr=log)
seen = {"isolated": group is not None}
try:
    wait(
        "the manager",
        lambda: (
            run("systemctl", "--user", "is-system-running", check=False).stdout.strip()
            in ("running", "degraded")
        ),
    )
    run("systemctl", "--user", "start", UNIT)
    wait("the first start", lambda: running(1))
    wait(
        "the sandbox report",
        lambda: (
            (state() / "probe.txt").exists()
            and (state() / "probe.txt").read_text().endswith("end\n")
        ),
    )
    report = (state() / "probe.txt").read_text().splitlines()
    seen["probe"] = dict(line.split("=", 1) for line in report if "=" in line)
    seen["start"] = show()

    # killed: restarted after RestartSec; the delay by the manager's own clock (the
    # same CLOCK_MONOTONIC as ours), not by how soon a busy machine let us look
    t0 = time.monotonic()
    os.kill(int(starts()[0]), signal.SIGKILL)
    wait("a restart after the kill", lambda: running(2))
    seen["after_kill"] = show()
    seen["restart_delay"] = int(seen["after_kill"]["ExecMainStartTimestampMonotonic"]) / 1e6 - t0

    # crashed (exit 3): restarted
    tell_app("3")
    wait("a restart after the crash", lambda: running(3))
    seen["after_crash"] = show()

    # quit cleanly (exit 0, as Quit on the Settings screen): stays stopped. "dead" is
    # final: a unit about to be restarted is in "auto-restart" instead
    tell_app("0")
    wait("the clean exit", lambda: settled("dead") or failed())
    seen["after_quit"] = show()
    seen["starts_after_quit"] = len(starts())

    # crashing again and again: the start limit stops it
    before = len(starts())
    run("systemctl", "--user", "start", UNIT)
    kills = 0
    while kills < 10:
        wait("a start or the limit", lambda b=before: failed() or running(b + 1))
        if failed():
            break
        before = len(starts())
        os.kill(int(starts()[-1]), signal.SIGKILL)
        kills += 1
    seen["kills_to_limit"] = kills
    seen["after_limit"] = show()  # "failed" is final: no restart comes after it
    seen["starts_total"] = len(starts())

    # a person starting it by hand is refused too, until the failure is reset
    refused = run("systemctl", "--user", "start", UNIT, check=False)
    seen["manual_start"] = {"rc": refused.returncode, "stderr": refused.stderr}
    seen["after_manual_start"] = show()
    run("systemctl", "--user", "reset-failed", UNIT)
    before = len(starts())
    run("systemctl", "--user", "start", UNIT)
    wait("the start after reset-failed", lambda: len(starts()) > before)
    seen["after_reset"] = show()
finally:
    run("systemctl", "--user", "stop", UNIT, check=False)
    manager.terminate()
    try:
        manager.wait(timeout=15)
    except subprocess.TimeoutExpired:
        manager.kill()
        manager.wait()
    log.close()
    seen["manager_log"] = (MNT / "manager.log").read_text()[-2000:]  # its errors, if any
    remove_cgroup(group)
    print(json.dumps(seen))
