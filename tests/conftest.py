"""Test environment: Kivy and gpiozero headless, before anything imports them."""

import os
import tempfile

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    # each worker its own Kivy home: the workers inherit the first process's environment,
    # and Kivy writes its config.ini there
    os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix=f"kivy-home-{_worker}-")
else:
    os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="kivy-home-"))
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
# Mesa's software OpenGL (llvmpipe) draws in the thread that asks: its own drawing threads
# only wait on one another between two frames of a test, and cost CPU time the suite's
# workers need (the pixels drawn are the same)
os.environ.setdefault("LP_NUM_THREADS", "0")

# The tests read English unless they choose a language: the machine's locale does not count.
for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"

# Kivy's rules read as the app reads them, and the window the app opens (whichever test
# module makes it first)
from companion.ui.window_settings import window_settings  # noqa: E402

window_settings()


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _english_unless_told():
    """Each test starts in English, whatever language an earlier test switched to."""
    from companion.i18n import set_language

    set_language("en")
    yield
