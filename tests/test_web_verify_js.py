"""The browser verifier (companion/web/static/verify.js) against the Python one: its own
tests run in node (tests/js/), and on every fixture export it must give the verdict that
companion/verify_log.py gives, with WebCrypto and without it (a phone on a plain http
page: static/sha256.js). Skipped only where node is not installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.draw import commitment, draw_cubes
from companion.verify_log import canonical

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "tests" / "js"
FIXTURES = JS / "fixtures"
VERIFIER = ROOT / "companion" / "verify_log.py"
VERIFY_JS = ROOT / "companion" / "web" / "static" / "verify.js"
EXPECTED: dict[str, str] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
# the Python verifier's exit status, as the browser verifier's status
STATUS = {0: "ok", 1: "failed", 3: "not_provably_fair", 4: "sealed"}

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: verify.js untested")

# The browser verifier's verdict on each file named on the command line, as JSON.
VERDICTS_JS = """
import { readFileSync } from "node:fs";
const { verifyExport } = await import(process.argv[1]);
const out = {};
for (const file of process.argv.slice(2)) {
  out[file] = await verifyExport(readFileSync(file, "utf8"));
}
console.log(JSON.stringify(out));
"""
# As a browser gives a page over plain http: crypto without subtle.
WITHOUT_SUBTLE = 'Object.defineProperty(globalThis, "crypto", { value: {} });\n'


@needs_node
def test_the_node_tests_pass():
    # the test files by name (`node --test tests/js/` in node 20; later nodes take globs)
    files = sorted(p.relative_to(ROOT).as_posix() for p in JS.glob("*.test.mjs"))
    assert {"tests/js/verify.test.mjs", "tests/js/sha256.test.mjs"} <= set(files)
    result = subprocess.run(
        [NODE, "--test", *files], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    for line in result.stdout.splitlines():  # sha256.js's speed (pytest -s shows it)
        if line.lstrip().startswith("# sha256.js"):
            print(line.strip())


@needs_node
@pytest.mark.parametrize("webcrypto", [True, False], ids=["webcrypto", "sha256.js"])
def test_both_verifiers_give_every_fixture_the_same_verdict(webcrypto):
    files = [str(FIXTURES / name) for name in EXPECTED]
    script = VERDICTS_JS if webcrypto else WITHOUT_SUBTLE + VERDICTS_JS
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script, VERIFY_JS.as_uri(), *files],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    browser = json.loads(result.stdout)
    for name, status in EXPECTED.items():
        path = str(FIXTURES / name)
        python = subprocess.run(
            [sys.executable, "-I", "-S", str(VERIFIER), path], capture_output=True, text=True
        )
        said = python.stdout.splitlines()
        assert STATUS[python.returncode] == status, f"{name}: {python.stdout}"
        assert browser[path]["status"] == status, f"{name}: {browser[path]['message']}"
        if status == "failed":  # the same first finding: the record or line it names
            named = re.search(r"(record|line) \d+", said[0])
            if named:
                assert named[0] in browser[path]["message"], name
        else:  # the same head, finality and draws recomputed
            assert f"head {browser[path]['head']}" in said[0], name
            assert said[1].startswith("FINAL:" if browser[path]["final"] else "CHECK:"), name
            recomputed = re.search(r"(\d+) draws recomputed", python.stdout)
            assert browser[path]["draws"] == (int(recomputed[1]) if recomputed else 0), name


def test_the_fixtures_agree_with_the_companion_as_it_is():
    """The draw vector and the canonical texts were made by the companion's code: they
    still are what it gives (else run tests/js/make_fixtures.py again)."""
    v = json.loads((FIXTURES / "draw-vector.json").read_text(encoding="utf-8"))
    assert commitment(v["server_seed"]) == v["commitment"]
    drawn = draw_cubes(v["server_seed"], v["client_seed"], v["nonce"], v["bag"], v["seats"], v["m"])
    assert drawn == v["drawn"]
    for case in json.loads((FIXTURES / "canonical.json").read_text(encoding="utf-8")):
        assert canonical(json.loads(case["json"])) == case["canonical"]
    assert set(EXPECTED) == {p.name for p in FIXTURES.glob("*.jsonl")}
