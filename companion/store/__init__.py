"""The durable game log in SQLite (through sqlite-utils)."""

from companion.store.db import StoreError, open_database
from companion.store.log import GameLog, GameStore

__all__ = ["GameLog", "GameStore", "StoreError", "open_database"]
