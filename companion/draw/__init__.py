"""The fair dragon-bag draw: commit-reveal seeds and an unbiased, reproducible draw.

This package implements the normative algorithm of the fair-draw contract (see
docs/architecture.md, "The fair draw", and docs/proof.md) and nothing else: it knows
bags of coloured cubes, not Clank!.
"""

from companion.draw.fair import (
    Bag,
    canonical_bag,
    commitment,
    draw_cubes,
    index_below,
    new_server_seed,
    stream,
)

__all__ = [
    "Bag",
    "canonical_bag",
    "commitment",
    "draw_cubes",
    "index_below",
    "new_server_seed",
    "stream",
]
