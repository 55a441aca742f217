"""Debounce and presence: a tag lying on a reader is one scan.

A tag counts as present while it keeps being seen; it is gone once it has not been seen
for ``gone_after`` seconds. It scans again only after it was gone *and* ``window``
seconds have passed since its last scan, so a reader that repeats a tag twenty times a
second, or a hand that wobbles a card at the edge of the field, gives one scan.
"""

from __future__ import annotations


class Presence:
    def __init__(self, gone_after: float = 0.5, window: float = 1.0) -> None:
        if gone_after <= 0 or window < 0:
            raise ValueError("gone_after must be positive and window not negative")
        self.gone_after = gone_after
        self.window = window
        self._last_seen: dict[str, float] = {}
        self._last_scan: dict[str, float] = {}

    def expire(self, now: float) -> None:
        """Forget the tags that have not been seen for ``gone_after`` seconds."""
        gone = [uid for uid, t in self._last_seen.items() if now - t >= self.gone_after]
        for uid in gone:
            del self._last_seen[uid]

    def seen(self, uid: str, now: float) -> bool:
        """Record a sighting; True when it is a new scan."""
        self.expire(now)
        present = uid in self._last_seen
        self._last_seen[uid] = now
        if present:
            return False
        last = self._last_scan.get(uid)
        if last is not None and now - last < self.window:
            return False
        self._last_scan[uid] = now
        return True

    @property
    def present(self) -> set[str]:
        return set(self._last_seen)
