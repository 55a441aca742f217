"""The web companion: the table's game on every player's phone, read-only.

``clank-companion serve`` runs it, in a process of its own beside the table's app
(``companion.web.server``). It reads the game database read-only and never the seal key
(``companion.web.reader``), so a running game gives nothing away and nothing it does can
touch the game; the phones join with a link that holds a long random token
(``companion.web.access``). The page (``static/``) is served by the Pi itself, every
byte, in the table's language (``companion.web.words``, ``companion.web.view``). See
docs/phones.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.config import ConfigError, load_config
from companion.i18n import _, localized


def serve_command(args: argparse.Namespace) -> int:
    """``clank-companion serve [--db PATH] [--host ADDRESS] [--port N]``: the address and
    port default to the configuration's ``[web]`` (127.0.0.1 and 8765 without one); with
    ``[web] enabled = false`` it says so and ends at once (status 0: a service that is
    turned off is not a failure)."""
    from companion.web.access import WebError

    try:
        config = load_config()
    except ConfigError as e:  # the defaults: the phones still see the game
        print(localized(e), file=sys.stderr)
        config = None
    if config is not None and not config.web.enabled:
        print(_("the web companion is turned off ([web] enabled = false)"), file=sys.stderr)
        return 0
    host = args.host or (config.web.address if config is not None else "127.0.0.1")
    port = args.port if args.port is not None else (config.web.port if config else 8765)
    if not 0 <= port <= 65535:
        print(_("--port must be a whole number from 0 to 65535"), file=sys.stderr)
        return 2
    from companion.web.server import run  # aiohttp only when it is wanted

    try:
        return run(Path(args.db), host, port)
    except WebError as e:
        print(localized(e), file=sys.stderr)
        return 2
