"""``python -m companion.cli``: the ``clank-companion`` command."""

import sys

from companion.cli import main

sys.exit(main())
