"""A tag's UID as the companion keeps it. Apart from the readers' code: the tag
registry normalises what it is given without loading the readers."""

from __future__ import annotations


def normalise_uid(raw: bytes | str) -> str:
    """Uppercase hex without separators; raises ValueError for anything else."""
    if isinstance(raw, bytes | bytearray):
        if not raw:
            raise ValueError("an empty UID")
        return bytes(raw).hex().upper()
    text = raw.strip().replace(":", "").replace(" ", "").replace("-", "")
    if not text or len(text) % 2 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"not a UID: {raw!r}")
    return text.upper()
