"""The desktop's simulated table: a fake reader under the scan drawer, stickers on every
component.

On the Pi a tagged card is laid on the reader; the reader worker debounces it and hands
its UID to the app, which finds the card in the tag registry. The simulated table does
the same with a FakeReader run by the same ReaderWorker: a pick in the scan drawer lays
the component's sticker on the fake reader, the worker reports the UID, and the app hears
it exactly as it hears a real reader. Once the worker has reported a sticker it is lifted
again, and the next one picked meanwhile is laid (one sticker on the reader at a time,
in the order they were picked).

The stickers: each component has UIDs of its own, the same on every desktop
(``sticker_uid``: seven bytes like an NTAG213's, the first 0xF5), bound to it in the
local tag registry the first time it is laid, as a table sticks its tags once. A sticker
scanned a moment ago would be taken for the same tag lying there by the worker's
debounce, so a component picked again before that has passed is laid as its next copy
(another sticker of its own, as every physical copy of a card carries). A sticker bound
to something else since (re-bound on the tags screen) is that something else's now: the
next copy is used instead.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import deque
from collections.abc import Callable

from companion.store.tags import Component, TagRegistry
from hardware.readers import FakeReader

#: the first UID byte of the simulated table's stickers
STICKER_PREFIX = "F5"
#: copies tried before a component's stickers are given up as all bound to others
MAX_COPIES = 64
#: added to the worker's gone_after + window before a sticker is laid again
MARGIN = 0.25


def sticker_uid(component: Component, copy: int = 0) -> str:
    """The UID of copy ``copy`` of a component's simulated sticker."""
    key = "\0".join((component.kind, component.edition or "", component.name, str(copy)))
    return STICKER_PREFIX + hashlib.sha256(key.encode()).hexdigest()[:12].upper()


class SimulatedTable:
    """Stickers laid on ``reader`` (a FakeReader a ReaderWorker reads) and lifted again.

    ``sticker`` and ``lay`` are called on the main loop (the registry is the app's);
    ``reported`` on the worker's thread, for every scan it reports. ``settle`` is how long
    a lifted sticker must stay away before the worker scans it again: its ``gone_after``
    and ``window``.
    """

    def __init__(
        self,
        registry: TagRegistry,
        reader: FakeReader,
        *,
        settle: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = registry
        self.reader = reader
        self.settle = settle + MARGIN
        self.clock = clock
        self._lock = threading.Lock()
        self._lying: str | None = None
        self._waiting: deque[str] = deque()
        self._away_until: dict[str, float] = {}  # lifted stickers, until they may scan

    def sticker(self, component: Component) -> str:
        """A sticker of ``component`` that the worker will report when laid now; bound in
        the registry the first time."""
        uid = sticker_uid(component)
        for copy in range(MAX_COPIES):
            uid = sticker_uid(component, copy)
            bound = self.registry.lookup(uid)
            if bound is not None and bound != component:
                continue  # re-bound to something else: not this component's any more
            if bound is None:
                self.registry.bind(uid, component)
            if not self._busy(uid):
                return uid
        return uid  # every copy busy or taken: the last one (it may be debounced)

    def pick(self, component: Component) -> str:
        """Lay ``component``'s sticker; its UID."""
        uid = self.sticker(component)
        self.lay(uid)
        return uid

    def lay(self, uid: str) -> None:
        """Lay a tag on the reader, or after the ones laid before it."""
        with self._lock:
            if self._lying is None:
                self._lying = uid
                self.reader.present(uid)
            else:
                self._waiting.append(uid)

    def reported(self, uid: str) -> None:
        """The worker reported ``uid`` (on its thread): lift it, lay the next one."""
        with self._lock:
            if uid != self._lying:
                return
            self.reader.remove()
            self._away_until[uid] = self.clock() + self.settle
            self._lying = self._waiting.popleft() if self._waiting else None
            if self._lying is not None:
                self.reader.present(self._lying)

    @property
    def lying(self) -> str | None:
        """The tag on the reader now (not reported yet), if any."""
        return self._lying

    def _busy(self, uid: str) -> bool:
        with self._lock:
            now = self.clock()
            self._away_until = {u: t for u, t in self._away_until.items() if t > now}
            return uid == self._lying or uid in self._waiting or uid in self._away_until
