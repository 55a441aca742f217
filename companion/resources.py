"""Where the files that are not Python live: the screen layouts (kv/) and the example
games (examples/). In a checkout they are beside the package; a wheel installs them as
data files under ``<prefix>/share/clank-companion/``."""

from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def shared_folder(name: str) -> Path:
    """The folder ``name`` ("kv", "examples") of this install."""
    here = CHECKOUT / name
    if here.is_dir():
        return here
    return Path(sys.prefix) / "share" / "clank-companion" / name
