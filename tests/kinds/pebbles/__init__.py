"""Pebbles, a box of the tests' own, built as a real box is: its kind (``kind``), its
table (``table``), its controller and face on the touchscreen (``face``, ``screen`` and
``kv/pebbles.kv``) and its phones part (``phones``). Mounted as ``companion.kinds.pebbles``
(``tests.kinds.mount``).

The bag holds 3 black pebbles and one of each player's colour. On a turn the player draws
one pebble (a fair draw, as the dragon's): their own colour scores a point, and the pebble
goes back. The first to 2 points wins. ``undo`` takes back the last draw (it stays in the
log, with its nonce: the next draw is a new one).
"""
