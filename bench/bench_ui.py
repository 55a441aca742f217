"""The touchscreen against a bare Kivy app started the same way, in the same run.

Prints:

1. the time to the first interactive frame: from just before the process is started to
   the end of the first frame drawn in the main loop (build and ``on_start`` done).
   Target: the companion at most 1.5 x the bare app (medians), on its new-game screen
   (empty database) and on its table (a game in progress, resumed); at a Pi's speed
   (``./dev bench --pi``) also at most 1.5 s;
2. the resident memory (VmRSS) at that frame. Target: at most the bare app's + 60 MB;
3. the time from a scan to the redrawn table: a thread plays the reader, hands each scan
   to the main loop as the app's reader worker does, and the time runs to the end of the
   next frame drawn. Target: p99 at most 3 x the bare app's label change measured in
   the same run; at a Pi's speed also at most 100 ms.

Each start is a fresh process (bench/ui_child.py), the apps alternating, after one
warm-up start each (Kivy's configuration file, the disk cache, the bytecode: as on the
table after its first start). Kivy is headless as in the tests (without a display SDL
draws offscreen). A frame ends after the flip and a glFinish: the OpenGL driver has
drawn it. Where OpenGL is Mesa's software renderer (llvmpipe) rather than a GPU, drawing
costs far more than on the Pi's GPU: the bare app's own redraw is measured the same way
and printed beside the scans for that reason.

4. the same scans again with six phones following the table: ``clank-companion serve``
   beside the app, with six event streams open (as six phones on the live table page),
   and the server's resident memory meanwhile.

5. what a frame of the table draws at 2, 4 and 6 players, after each kind of step and
   when nothing changed (``--only census`` prints it alone; ``--only starts`` and
   ``--only scans`` the other parts).

Not a test: a missed target is printed as missed; the exit status is 0 unless a
measurement could not be made.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ui_child import headless_env, prepare_game  # noqa: E402

CHILD = Path(__file__).resolve().parent / "ui_child.py"
STARTS = 11  # per app: a median of many, for the machine is noisy (a start takes 0.4-0.9 s here)
SCANS = 220  # timed scans (take from the row, reveal into it), with taps in between
BARE_REDRAWS = 200
STARTUP_RATIO = 1.5
EXTRA_MB = 60.0
SCAN_RATIO = 3.0  # the scan's p99 at most this many times the bare app's label change's
PI_SCAN_MS = 100.0  # ... and, at a Pi's speed, at most this
PI_FIRST_S = 1.5  # the first frame at a Pi's speed, at most
# bench/pi_speed.sh says the share of one core it holds the benchmark to
AT_PI_SPEED = int(os.environ.get("COMPANION_PI_SPEED", "0") or 0)
APPS = {  # the child's mode, whether the database holds a game in progress, the screen
    "bare": ("bare", False, None),
    "new game": ("companion", False, "newgame"),
    "table": ("companion", True, "table"),
}
PHASES = (  # a name, the mark it ends at (seconds since the parent started the process)
    ("interpreter", "main"),
    ("import kivy", "kivy"),
    ("window", "window"),
    ("app imports", "imports"),
    ("until build", "build"),
    ("build", "on_start"),
    ("on_start", "loop"),
    ("first frame", "frame"),
)
PARTS = ("wait", "work", "layout", "draw", "flip", "finish")


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def median(values: Any) -> float:
    return statistics.median(list(values))


def child(env: dict[str, str], mode: str, folder: Path, *extra: str) -> dict[str, Any]:
    t0 = time.time()
    done = subprocess.run(
        [sys.executable, str(CHILD), mode, repr(t0), str(folder), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"ui_child.py {mode} failed (exit status {done.returncode})")
    return json.loads(lines[-1])


def folder_with(scratch: Path, name: str, game: Path | None) -> Path:
    folder = scratch / name
    folder.mkdir()
    if game is not None:
        for f in game.parent.glob(game.name + "*"):  # games.db and any -wal, -shm
            shutil.copy(f, folder / f.name)
    return folder


def start(env: dict[str, str], scratch: Path, app: str, game: Path, n: int) -> dict:
    mode, in_progress, screen = APPS[app]
    folder = folder_with(scratch, f"{app.replace(' ', '-')}-{n}", game if in_progress else None)
    report = child(env, mode, folder)
    if report["screen"] != screen:
        raise SystemExit(f"{app}: the first frame shows {report['screen']!r}, not {screen!r}")
    return report


def emit(figure: str, value: float, unit: str, **more: Any) -> None:
    print(json.dumps({"figure": figure, "value": round(value, 4), "unit": unit, **more}))


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def starts_(env: dict[str, str], scratch: Path, game: Path) -> dict[str, list[dict]]:
    order = list(APPS)
    for app in order:  # warm-up, not counted
        start(env, scratch, app, game, 0)
    runs: dict[str, list[dict]] = {app: [] for app in order}
    for n in range(1, STARTS + 1):
        for app in order[n % 3 :] + order[: n % 3]:  # alternating, rotating who goes first
            runs[app].append(start(env, scratch, app, game, n))

    print(f"first frame and memory: {STARTS} starts per app, alternating")
    print("  app         first frame s: median    min    max    VmRSS MB: median    min   peak")
    for app, reports in runs.items():
        first = [r["first_frame"] for r in reports]
        rss = [r["VmRSS"] for r in reports]
        peak = max(r["VmHWM"] for r in reports)
        print(
            f"  {app:10}               {median(first):6.3f} {min(first):6.3f} {max(first):6.3f}"
            f"               {median(rss):6.1f} {min(rss):6.1f} {peak:6.1f}"
        )
    print("  where the time goes, median seconds from the previous mark:")
    print("  " + " " * 10 + "".join(f"{name:>12}" for name, _ in PHASES))
    for app, reports in runs.items():
        cells = [
            median(r["marks"][mark] - (r["marks"][PHASES[i - 1][1]] if i else 0) for r in reports)
            for i, (_, mark) in enumerate(PHASES)
        ]
        print(f"  {app:10}" + "".join(f"{c:12.3f}" for c in cells))
    for app, reports in runs.items():
        ms = {k: median(r["frame_ms"][k] for r in reports) for k in ("draw", "flip", "finish")}
        print(
            f"  {app:10} its first frame: canvas {ms['draw']:.1f} ms, flip {ms['flip']:.1f} ms,"
            f" rasterising (glFinish) {ms['finish']:.1f} ms"
        )
    return runs


def redraws(env: dict[str, str], scratch: Path, game: Path) -> tuple[dict, dict]:
    bare = child(env, "bare-redraw", folder_with(scratch, "bare-redraw", None), str(BARE_REDRAWS))
    scan = child(env, "scan", folder_with(scratch, "scan", game), str(SCANS))
    for report in (bare, scan):
        if report["problems"]:
            raise SystemExit(f"{report['mode']}: {'; '.join(report['problems'])}")
    if scan["phase"] != "playing" or scan["game_over"] or scan["row"] != 6:
        raise SystemExit(f"the scanned game went wrong: {scan}")

    samples = scan["samples"] + bare["samples"]
    kinds = list(dict.fromkeys(s["kind"] for s in samples))
    scans = [s["handed"] for s in scan["samples"] if s["kind"].startswith("scan")]
    print(
        f"\nscan to redrawn table: {len(scans)} scans in {scan['turns']} turns of 4 players "
        "(take from the row, clank +1 -1, End turn, reveal), the companion on its table; "
        f"the first handed over when its reader ran, {scan['reader_after_s']:.2f} s after "
        "the first frame"
    )
    print("  from the hand-over to the end of the frame, ms     p50    p95    p99    max")
    for kind, xs in [(k, [s["handed"] for s in samples if s["kind"] == k]) for k in kinds] + [
        ("all scans", scans)
    ]:
        print(
            f"  {kind:44} {pct(xs, 50):6.1f} {pct(xs, 95):6.1f} {pct(xs, 99):6.1f} {max(xs):6.1f}"
            f"  ({len(xs)})"
        )
    print("  where the time goes, median ms: " + "".join(f"{p:>9}" for p in PARTS))
    print(
        "  (wait: for the main loop's next tick; work: controller, store and screen code; "
        "layout: clock triggers, kv rules, text; draw: the window's on_draw, the settle rule's "
        "look and the painter's search and drawing, canvas to OpenGL; finish: rasterising)"
    )
    for kind in kinds:
        xs = [s for s in samples if s["kind"] == kind]
        print(f"  {kind:32}" + "".join(f"{median(s[p] for s in xs):9.1f}" for p in PARTS))
    print("  the slowest scans, ms:")
    for s in sorted(scan["samples"], key=lambda s: -s["handed"])[:3]:
        parts = "".join(f"{s[p]:9.1f}" for p in PARTS)
        print(f"  {s['kind']:32}{parts}  = {s['handed']:.1f}")
    print(f"  the companion's VmRSS after the scans: {scan['VmRSS']:.1f} MB")
    return bare, scan


SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]


def census_(env: dict[str, str], scratch: Path) -> None:
    """What a frame of the table draws at 2, 4 and 6 players (bench/ui_child.py census)."""
    print("\nwhat a frame of the table draws (the window's draw calls, a cached part being")
    print("one; its framebuffers drawn again, with the draw calls inside them; textures; pixels")
    print("covered, in thousands: the drawing's cost where the CPU draws; drawn again: the")
    print("places of the window drawn again, and their pixels, companion/ui/paint.py):")
    print(
        f"  {'players, frame after':44} draws  kpx  fbos drawn  draws inside  kpx  textures"
        "  drawn again: places  kpx"
    )
    for players in (2, 4, 6):
        game = scratch / f"census-{players}" / "games.db"
        game.parent.mkdir()
        prepare_game(game, SEATS[:players])
        report = child(env, "census", game.parent)
        frames = [*report["steps"].items(), ("nothing changed", report["unchanged"])]
        for name, f in frames:
            print(
                f"  {players} {name:42} {f['draws']:5} {f['pixels'] / 1000:4.0f}"
                f" {f['fbos']:5} {f['fbos_drawn']:5} {f['fbo_draws']:13}"
                f" {f['fbo_pixels'] / 1000:4.0f} {f['textures']:9}"
                f" {f.get('page_boxes', '-'):>20} {f.get('page_pixels', 0) / 1000:4.0f}"
            )
        for name, f in frames:
            print(f"    {name}: drawn again: {', '.join(f.get('redrawn', [])) or 'none'}")
        parts = sorted(report["parts"].items(), key=lambda kv: -kv[1]["pixels"])
        print("    the window's own draws by widget: " + ", ".join(
            f"{name} {p['draws']} ({p['pixels'] / 1000:.0f} kpx)" for name, p in parts
        ))  # fmt: skip


PHONES = 6


def _stream(url: str, stop: threading.Event, got: list[int], lost: list[str]) -> None:
    """One phone: the live table's event stream, read until ``stop``; why it could not
    follow it goes into ``lost`` (a slow first answer at Pi speed is waited for)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    try:
        conn.request("GET", f"/api/events?{parts.query}")
        response = conn.getresponse()
        if response.status != 200:
            lost.append(f"HTTP {response.status}")
            return
        if conn.sock is not None:
            # from now on it waits as long as the table is quiet (a read that timed out
            # leaves the stream unreadable); the server's end closes it
            conn.sock.settimeout(None)
        while not stop.is_set():
            line = response.readline()
            if not line:
                if not stop.is_set():
                    lost.append("the server ended the stream")
                break
            if line.startswith(b"data:"):
                got.append(1)
    except OSError as e:
        lost.append(repr(e))
    finally:
        conn.close()


def with_phones(env: dict[str, str], scratch: Path, game: Path) -> tuple[dict, float]:
    """The scans again, with the web companion serving six phones the same database."""
    folder = folder_with(scratch, "scan-phones", game)
    server = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--db", str(folder / game.name),
         "--host", "127.0.0.1", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    stop = threading.Event()
    got: list[int] = []
    lost: list[str] = []
    threads: list[threading.Thread] = []
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        if not url.startswith("http"):
            raise SystemExit("clank-companion serve did not start")
        for _ in range(PHONES):
            t = threading.Thread(target=_stream, args=(url, stop, got, lost), daemon=True)
            t.start()
            threads.append(t)
        scan = child(env, "scan", folder, str(SCANS))
        status = Path(f"/proc/{server.pid}/status").read_text()
        rss = next(int(x.split()[1]) / 1024 for x in status.splitlines() if x.startswith("VmRSS"))
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=10)
        for t in threads:
            t.join(timeout=3)
    scans = [s["handed"] for s in scan["samples"] if s["kind"].startswith("scan")]
    print(
        f"\nthe same scans with {PHONES} phones following the table ({len(got)} updates "
        f"pushed to them): p50 {pct(scans, 50):.1f} ms, p99 {pct(scans, 99):.1f} ms, "
        f"max {max(scans):.1f} ms; the web companion's VmRSS {rss:.1f} MB"
    )
    if lost:
        print(f"  {len(lost)} of {PHONES} phones lost the stream: {'; '.join(sorted(set(lost)))}")
    return scan, rss


def verdicts(
    runs: dict[str, list[dict]] | None, bare: dict | None, scan: dict | None,
    phones: dict | None = None, server_mb: float = 0.0,
) -> None:  # fmt: skip
    rows = []
    if runs is not None:
        rows += first_frame_verdicts(runs)
    if scan is not None and bare is not None:
        scans = [s["handed"] for s in scan["samples"] if s["kind"].startswith("scan")]
        p99, bare_p99 = pct(scans, 99), pct([s["handed"] for s in bare["samples"]], 99)
        target = f"<= {SCAN_RATIO:g}x bare" + (f", {PI_SCAN_MS:.0f} ms" if AT_PI_SPEED else "")
        met = p99 <= SCAN_RATIO * bare_p99 and (not AT_PI_SPEED or p99 <= PI_SCAN_MS)
        rows.append(("scan to redrawn table, p99 (ms)", f"{bare_p99:.1f}",
                     f"{p99:.1f} ({p99 / bare_p99:.1f}x)", target, met))  # fmt: skip
        if phones is not None:
            with_p = [s["handed"] for s in phones["samples"] if s["kind"].startswith("scan")]
            p99_phones = pct(with_p, 99)
            rows.append((f"... with {PHONES} phones streaming, p99 (ms)", "", f"{p99_phones:.1f}",
                         target, p99_phones <= SCAN_RATIO * bare_p99
                         and (not AT_PI_SPEED or p99_phones <= PI_SCAN_MS)))  # fmt: skip
            emit("scan_to_frame_ms.p99.phones", pct(with_p, 99), "ms", phones=PHONES,
                 p50=round(pct(with_p, 50), 2), web_vmrss_mb=round(server_mb, 1))  # fmt: skip
        emit("scan_to_frame_ms.p99", p99, "ms", p50=round(pct(scans, 50), 2),
             p95=round(pct(scans, 95), 2), max=round(max(scans), 2), samples=len(scans),
             bare_label_p99=round(bare_p99, 2), ratio=round(p99 / bare_p99, 2), target=target,
             met=met, pi_speed=AT_PI_SPEED, gl=scan["gl"])  # fmt: skip

    print(f"\n  {'figure':38} {'bare':>9}  {'companion':>17}  {'target':>16}  met")
    for figure, b, c, target, ok in rows:
        print(f"  {figure:38} {b:>9}  {c:>17}  {target:>16}  {'yes' if ok else 'NO'}")
    if scan is not None:
        print("  (bare, for the scans: the bare app's label changed the same way: a frame's floor)")
        print(f"  OpenGL: {scan['gl']}")
    speed = f"at Pi speed ({AT_PI_SPEED} % of one core)" if AT_PI_SPEED else "at full speed"
    print(f"  measured {speed}; load average now {load()}")


def first_frame_verdicts(runs: dict[str, list[dict]]) -> list[tuple[str, str, str, str, bool]]:
    first = {app: [r["first_frame"] for r in reports] for app, reports in runs.items()}
    rss = {app: [r["VmRSS"] for r in reports] for app, reports in runs.items()}
    bare_first, bare_rss = median(first["bare"]), median(rss["bare"])
    rows = []
    for app in ("new game", "table"):
        ratio = median(first[app]) / bare_first
        met = ratio <= STARTUP_RATIO and (not AT_PI_SPEED or median(first[app]) <= PI_FIRST_S)
        target = f"<= {STARTUP_RATIO}x bare" + (f", {PI_FIRST_S} s" if AT_PI_SPEED else "")
        rows.append(
            (
                f"first frame, {app} (median s)",
                f"{bare_first:.3f}",
                f"{median(first[app]):.3f} ({ratio:.2f}x)",
                target,
                met,
            )
        )
        emit(f"first_frame_s.{app}", median(first[app]), "s", min=round(min(first[app]), 4),
             bare=round(bare_first, 4), bare_min=round(min(first["bare"]), 4),
             ratio=round(ratio, 3), target=target, met=met, pi_speed=AT_PI_SPEED)  # fmt: skip
    for app in ("new game", "table"):
        extra = median(rss[app]) - bare_rss
        met = extra <= EXTRA_MB
        rows.append(
            (
                f"VmRSS at first frame, {app} (MB)",
                f"{bare_rss:.1f}",
                f"{median(rss[app]):.1f} (+{extra:.1f})",
                f"<= bare + {EXTRA_MB:.0f}",
                met,
            )
        )
        emit(f"vmrss_mb.{app}", median(rss[app]), "MB", min=round(min(rss[app]), 1),
             bare=round(bare_rss, 1), extra=round(extra, 1),
             target=f"<= bare + {EXTRA_MB:.0f} MB", met=met)  # fmt: skip
    return rows


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("starts", "scans", "census"),
                        help="one part: the first frames, the scans (with and without the "
                             "phones), or what a frame draws")  # fmt: skip
    only = parser.parse_args().only
    scratch = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    try:
        env = {**os.environ, **headless_env(scratch / "kivy-home")}
        # the bytecode is cached by the warm-up (as on the table after its first start),
        # in the scratch folder rather than beside the sources
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        print(f"load average {load()}")
        game = scratch / "game" / "games.db"
        game.parent.mkdir()
        prepare_game(game)
        if only in (None, "census"):
            census_(env, scratch)
        if only == "census":
            return
        runs = starts_(env, scratch, game) if only in (None, "starts") else None
        if only == "starts":
            assert runs is not None
            verdicts(runs, None, None)
            return
        bare, scan = redraws(env, scratch, game)
        phones, server_mb = with_phones(env, scratch, game)
        verdicts(runs, bare, scan, phones, server_mb)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
