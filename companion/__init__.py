"""Clank! Table Companion: runs the dragon bag and tracks the game beside the board."""

__version__ = "0.1.0"
