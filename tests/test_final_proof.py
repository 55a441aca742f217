"""One final proof (docs/proof.md, "The final chain head" and "What the QR holds"): while
the decks are being scanned the scoring screen says the head is not final; Close game
writes the close record and shows the final proof full screen, whose QR code a phone (here
zbarimg) reads whatever the client seed, and whose head is the log's last hash; nothing is
written after it."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.kinds.clank.rules.errors import RuleError  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.script import MAX_CLIENT_SEED  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.qr import INERT, ProofView, qr_matrix  # noqa: E402
from companion.ui.screens.kit import grouped, proof_data  # noqa: E402
from tests.helpers import popup  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402

BURGLE = "04b0b0b0b0b001"  # a Burgle card's tag, scanned at scoring
NOT_FINAL = "Not final yet: close the game to get the final proof"
PHOTOGRAPH = "Photograph this: it proves the game was not rewritten later"
# the longest client seed a table script accepts, in two-byte letters (the words typed on
# the opening screen have no limit of their own: the code holds the seed's SHA-256)
LONGEST = "ж" * MAX_CLIENT_SEED


@pytest.fixture
def ui(tmp_path):
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def to_scoring(ui: Harness, client_seed: str) -> int:
    """A two-player game with ``client_seed`` typed as the words, played to its end; red's
    deck scanned at scoring. Returns the game's number."""
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ctl.set_words(client_seed)
    assert ctl.begin()
    assert ctl.view().client_seed == client_seed
    ctl.do({"do": "damage", "player": "red", "n": 10})
    ctl.do({"do": "damage", "player": "blue", "n": 10})
    ui.frames(3)
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    assert ctl.phase == "scoring" and ui.app.screens.current == "scoring"
    ui.app.tags.bind(BURGLE, resolve("card", "clank", "Burgle"))
    ctl.scan(BURGLE)
    ui.frames(2)
    assert ctl.deck("red") == ["Burgle"]
    assert ctl.game_id is not None
    return ctl.game_id


def close_game(ui: Harness) -> ProofView:
    """Close game on the scoring screen, confirmed: the final proof that follows."""
    ui.tap("Close game")
    ui.armed()  # the confirmation's button is inert for a moment
    ui.tap("Yes, close the game")
    return popup(ui, ProofView)


def decode(ui: Harness, path: Path) -> str:
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        pytest.skip("zbarimg is missing (Debian: apt-get install zbar-tools)")
    ui.screenshot(path)
    found = subprocess.run(
        [zbarimg, "--raw", "-q", str(path)], capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.rstrip("\n")


def export(ui: Harness, game: int) -> list[dict]:
    out = io.StringIO()
    ui.app.archive.export(game, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("client_seed", ["dragon", LONGEST], ids=["short", "longest"])
def test_the_final_proof_full_screen_scans_and_is_the_closed_logs_head(ui, tmp_path, client_seed):
    game = to_scoring(ui, client_seed)
    ctl = ui.app.controller
    commitment = ctl.view().commitment
    proof = close_game(ui)
    # the close record is written, the table moves on: the final proof over the new game
    assert ctl.table is None and ui.app.screens.current == "newgame"
    assert proof.final and proof.get_parent_window() is not None
    records = export(ui, game)
    final = ui.store.chain_head(game)
    assert records[-1]["kind"] == "close" and records[-1]["hash"] == final
    assert ui.app.archive.verify(game).final
    # what the code holds (docs/proof.md, "What the QR holds")
    data = json.loads(proof.data)
    row = ui.store.game_row(game)
    assert data == {
        "game": game,
        "final": True,
        "commitment": commitment,
        "server_seed": row["server_seed"],
        "client_seed_sha256": hashlib.sha256(client_seed.encode("utf-8")).hexdigest(),
        "chain_head": final,
    }
    assert hashlib.sha256(bytes.fromhex(row["server_seed"])).hexdigest() == commitment
    ui.frames(2, seconds=INERT + 0.1)
    # full screen, in whole pixels of at least 2.5 px a module, read by a phone's decoder
    qr = proof.ids.qr
    assert qr.module >= 3 and qr.width >= 400 and qr.height >= 400
    assert decode(ui, tmp_path / "final.png") == proof.data
    # and in words beside it
    assert proof.head_text == grouped(final, per_line=2)
    head = ui.find(proof.head_text)
    assert head.font_size >= 20
    head.texture_update()
    assert head.texture_size[0] <= head.width + 1 and head.texture_size[1] <= head.height + 1
    assert shown(ui.find(PHOTOGRAPH)) and shown(ui.find("Final chain head"))
    assert shown(ui.find("In the code: the client seed as its SHA-256"))
    with pytest.raises(LookupError):
        ui.find(NOT_FINAL)
    assert problems(proof) == []


def test_the_head_before_the_close_is_not_final_and_the_one_after_is(ui, tmp_path):
    game = to_scoring(ui, "dragon")
    ctl = ui.app.controller
    scoring = ui.app.screens.get_screen("scoring")
    # the scoring screen: not the proof to photograph
    assert shown(ui.find(NOT_FINAL)) and shown(ui.find("Tap to see the proof so far"))
    with pytest.raises(LookupError):
        ui.find(PHOTOGRAPH)
    so_far = ui.app.archive.chain_head(game)
    assert scoring.head_text == grouped(so_far, per_line=2)
    assert json.loads(scoring.qr_data)["final"] is False
    # a tap: the proof so far full screen, said not to be final, in words and in its code
    ui.tap(scoring.ids.qr)
    proof = popup(ui, ProofView)
    assert not proof.final
    assert shown(ui.find(NOT_FINAL)) and shown(ui.find("Chain head so far"))
    with pytest.raises(LookupError):
        ui.find(PHOTOGRAPH)
    decoded = json.loads(decode(ui, tmp_path / "so-far.png"))
    assert decoded["final"] is False and decoded["chain_head"] == so_far
    assert problems(proof) == []
    # a deck scanned while it shows: the head moves on, and the proof shown follows it
    ctl.scan(BURGLE)
    ui.frames(2)
    moved = ui.app.archive.chain_head(game)
    assert moved != so_far
    assert json.loads(proof.data)["chain_head"] == moved
    assert proof.head_text == grouped(moved, per_line=2)
    ui.tap("Close")  # puts the proof so far away (the game goes on being scored)
    assert proof.get_parent_window() is None and ctl.phase == "scoring"
    # Close game: the final proof, its head the close record's (not the head so far)
    final_proof = close_game(ui)
    final = ui.app.archive.chain_head(game)
    assert final != moved
    assert final_proof.final and json.loads(final_proof.data)["chain_head"] == final
    assert final_proof.head_text == grouped(final, per_line=2)
    assert shown(ui.find(PHOTOGRAPH)) and shown(ui.find("Final chain head"))
    # the finger that confirmed may land again: Done is inert for a moment, a tap on the
    # code never puts the final proof away
    assert not final_proof.armed and final_proof.ids.done.disabled
    final_proof.close()
    assert final_proof.get_parent_window() is not None
    ui.armed()  # its moment over (it starts when the pop-up has opened: on the event)
    ui.tap(final_proof.ids.qr)
    assert final_proof.get_parent_window() is not None
    ui.tap("Done")
    assert final_proof.get_parent_window() is None
    assert ui.app.screens.current == "newgame"


def test_a_deck_scanned_after_the_close_is_refused_and_the_log_unchanged(ui):
    game = to_scoring(ui, "dragon")
    ctl = ui.app.controller
    proof = close_game(ui)
    records = export(ui, game)
    final = ui.app.archive.chain_head(game)
    shown_data = proof.data
    # the scan the reader reports: no game takes it
    ctl.scan(BURGLE)
    ui.frames(2)
    assert ui.app.status.text.endswith("Burgle (Clank!): no game is running")
    assert not ctl.add_to_deck("Burgle")  # nobody is being scored any more
    assert ctl.score_player("red") is None and ctl.table is None
    assert export(ui, game) == records and ui.app.archive.chain_head(game) == final
    assert proof.data == shown_data  # the final proof stays what it was
    # the closed game is not resumed at the next start, and its log refuses an action
    assert ctl.resume_last() is None and ctl.table is None
    table = Session(ui.store).resume(game)
    try:
        with pytest.raises(RuleError, match="the game is closed"):
            table.apply({"do": "cards", "player": "red", "cards": ["Burgle", "Burgle"]})
    finally:
        ui.store.release(game)
    assert export(ui, game) == records and ui.store.chain_head(game) == final


def test_the_code_keeps_one_size_whatever_the_client_seed():
    """The code holds the client seed's SHA-256: the words typed on the opening screen have
    no limit of their own, and the code of a seed of any length is the one the full-screen
    test reads."""
    head = "ab" * 32
    sizes = {
        len(qr_matrix(proof_data(99999, head, head, seed, head, final=final), border=4))
        for seed in ("", "dragon", LONGEST, "w" * 20 * MAX_CLIENT_SEED)
        for final in (False, True)
    }
    assert sizes == {len(qr_matrix(proof_data(1, head, head, "", head, final=True), border=4))}


@pytest.mark.parametrize("language", ["ru", "uk", "es"])
@pytest.mark.parametrize("final", [True, False], ids=["final", "so-far"])
def test_the_proof_holds_its_words_whole_in_every_language(tmp_path, language, final):
    """The proof's words are table-sized (26 px) and every one inside the screen, with
    the code still at least 400 px, in the longest languages."""
    from companion.config import AppConfig, Config
    from companion.ui.ink import screen_metrics

    db = tmp_path / "games.db"
    harness = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        seed, head = hashlib.sha256(b"seed").hexdigest(), hashlib.sha256(b"head").hexdigest()
        data = json.dumps({"game": 12, "final": final, "commitment": head, "server_seed": seed,
                           "client_seed_sha256": seed, "chain_head": head})  # fmt: skip
        proof = ProofView(data, grouped(seed, per_line=2), grouped(head, per_line=2), final)
        proof.open(animation=False)
        harness.frames(3, seconds=INERT + 0.1)
        qr = proof.ids.qr
        assert qr.width >= 400 and qr.height >= 400
        assert problems(proof) == []
        measured = screen_metrics(harness.window)
        assert measured["smallest_text_ink"] >= 18 and not measured["cut"], measured["cut"]
        proof.dismiss(animation=False)
    finally:
        harness.close()
