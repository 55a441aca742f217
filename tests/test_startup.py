"""What the first frame does not need is not loaded before it: resuming a game only
reads the database (sqlite-utils, which writes, is loaded at the first write), and the
touchscreen's modules leave the audit, the charts, the Tschak! rules and the scoring at
the end of a game for later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return out.stdout.strip()


def recorded(db: Path) -> None:
    """A game of two players in ``db``, one action played, recorded by another process."""
    run(
        "from companion.store import GameStore; from companion.session import Session\n"
        f"s = GameStore({str(db)!r}); t = Session(s).start("
        "{'edition': 'clank', 'players': ['red', 'blue']})\n"
        "t.apply({'do': 'clank', 'player': 'red', 'n': 2}); s.close()"
    )


def test_resuming_a_game_reads_without_sqlite_utils_and_the_first_write_loads_it(tmp_path):
    db = tmp_path / "games.db"
    recorded(db)
    out = run(
        "import sys\n"
        "from companion.kinds.clank.controller import Controller\n"
        "from companion.store import GameStore\n"
        f"c = Controller(GameStore({str(db)!r})); c.resume_last()\n"
        "print(c.phase, 'sqlite_utils' in sys.modules)\n"
        "c.table.apply({'do': 'clank', 'player': 'blue', 'n': 1})\n"
        "print('sqlite_utils' in sys.modules, c.table.actions_seen)"
    )
    assert out.splitlines() == ["playing False", "True 2"]


def test_a_game_resumed_in_play_is_shown_without_the_scoring(tmp_path):
    db = tmp_path / "games.db"
    recorded(db)
    out = run(
        "import sys\n"
        "from companion.kinds.clank.controller import Controller\n"
        "from companion.store import GameStore\n"
        f"c = Controller(GameStore({str(db)!r})); c.resume_last(); c.view()\n"
        "print(c.phase, 'companion.kinds.clank.rules.scoring' in sys.modules)"
    )
    assert out == "playing False"


def test_the_touchscreen_leaves_the_audit_charts_and_tschak_rules_for_later():
    out = run(
        "import os, sys\n"
        "os.environ.update(KIVY_NO_ARGS='1', KIVY_NO_CONSOLELOG='1', KIVY_NO_FILELOG='1')\n"
        "import companion.ui.app\n"
        "later = ('companion.audit', 'companion.history', 'companion.ui.report',\n"
        "         'companion.kinds.tschak.rules', 'companion.kinds.clank.rules.scoring',\n"
        "         'sqlite_utils')\n"
        "print(sorted(m for m in later if m in sys.modules))"
    )
    assert out == "[]"


def test_a_new_database_for_the_touchscreen_gets_its_schema_at_its_first_use(tmp_path):
    db = tmp_path / "games.db"
    out = run(
        "import sys\n"
        "from companion.store import GameStore\n"
        "from companion.session import Session\n"
        f"s = GameStore({str(db)!r}, later_schema=True)\n"
        "print(s.last_unfinished(), s.last_game(), 'sqlite_utils' in sys.modules)\n"
        "t = Session(s).start({'edition': 'clank', 'players': ['red', 'blue']})\n"
        "print(t.log.game, 'sqlite_utils' in sys.modules, s.last_unfinished())\n"
        "s.close()\n"
        f"s = GameStore({str(db)!r}, create=False); print(len(s.games()))"
    )
    assert out.splitlines() == ["None None False", "1 True 1", "1"]
    unused = tmp_path / "unused.db"  # made and closed unused: a companion database all the same
    run(
        "from companion.store import GameStore\n"
        f"GameStore({str(unused)!r}, later_schema=True).close()"
    )
    from companion.store import GameStore

    with GameStore(unused, create=False) as store:
        assert store.games() == [] and store.last_game() is None


def test_a_full_disk_under_a_new_database_is_said_at_its_first_use(tmp_path, monkeypatch):
    import sqlite3

    import pytest

    from companion.session import Session
    from companion.store import GameStore, StoreError

    real = sqlite3.connect

    def connect(*args, **kwargs):
        conn = real(*args, **kwargs)
        conn.execute("PRAGMA max_page_count = 1")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    store = GameStore(tmp_path / "games.db", later_schema=True)
    assert store.last_unfinished() is None
    with pytest.raises(StoreError, match="full"):
        Session(store).start({"edition": "clank", "players": ["red", "blue"]})
    with pytest.raises(StoreError, match="full"):
        store.close()


def test_kivy_loads_no_pillow_for_the_touchscreen_and_still_reads_its_pictures(tmp_path):
    """Pillow is installed here (the tests read screenshots with it) but not on the table:
    Kivy would import it as one more image reader before the first frame; SDL2 reads all
    that Kivy shows, its theme's atlas among it."""
    out = run(
        "import importlib.util, os, sys\n"
        "os.environ.update(KIVY_NO_ARGS='1', KIVY_NO_CONSOLELOG='1', KIVY_NO_FILELOG='1',\n"
        f"                  KIVY_HOME={str(tmp_path)!r})\n"
        "os.environ.pop('KIVY_IMAGE', None)\n"
        "from companion.ui.window_settings import window_settings\n"
        "window_settings()\n"
        "from kivy.core.window import Window  # the theme is read into a texture\n"
        "from kivy.core.image import Image, ImageLoader\n"
        "print(importlib.util.find_spec('PIL') is not None, 'PIL' in sys.modules)\n"
        "print(sorted(loader.__name__ for loader in ImageLoader.loaders))\n"
        "theme = Image('atlas://data/images/defaulttheme/button')\n"
        "print(theme.width > 0 and theme.height > 0)"
    )
    assert out.splitlines() == [
        "True False",
        "['ImageLoaderDDS', 'ImageLoaderSDL2', 'ImageLoaderTex']",
        "True",
    ]


def test_the_app_command_imports_no_kivy_before_it_sets_what_kivy_reads_as_it_starts():
    """``clank-companion app`` sets Kivy's image readers and its rules' kept readings
    (``before_kivy``) before Kivy is first imported: Kivy reads them then, and a module
    of the command line that imported Kivy earlier would leave them unread."""
    out = run(
        "import os, sys\n"
        "os.environ.pop('KIVY_IMAGE', None)  # as on the table: set by nobody but the app\n"
        "import companion.cli, companion.cli.app, companion.config\n"
        "print('kivy' in sys.modules)\n"
        "import companion.ui.window_settings as settings\n"
        "print('kivy' in sys.modules)\n"
        "settings.before_kivy()\n"
        "import kivy\n"
        "print(kivy.kivy_options['image'])"
    )
    assert out.splitlines() == ["False", "False", "['tex', 'dds', 'sdl2']"]
